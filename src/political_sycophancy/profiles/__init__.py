"""Interlocutor profiles: a model's political answers mapped across realistic askers
(personas of attribute levels, told explicitly, implicitly or earlier in a conversation)."""
