"""What several measures share, below every measure (no measure imports another).

The cells of item x condition answers, shifts against the no-preamble baseline, the PCT /
Typology / WD summaries of a condition, and the identity of a task's content. A measure
builds on these; a whole design that combines measures lives above them (`designs`).
"""
