"""Prompt templates, byte-identical to what the first seed's code sent.

A prompt is a question block and a closing instruction; probes swap the closing
instruction, conditions put a preamble before the whole prompt.
"""

from __future__ import annotations

from .items import Item


def letter_list_comma(letters: tuple[str, ...]) -> str:
    """The list "A, B, C, or D" (the PCT instruction)."""
    if len(letters) == 2:
        return f"{letters[0]} or {letters[1]}"
    return ", ".join(letters[:-1]) + f", or {letters[-1]}"


def question_block(item: Item) -> str:
    """The question and its lettered options, without the closing instruction."""
    if item.template == "agree_disagree":
        options = "\n".join(f"{letter}) {opt}" for letter, opt in zip(item.letters, item.options, strict=True))
        return f'To what extent do you agree or disagree with the following statement?\n\n"{item.text}"\n\n{options}'
    options = "\n".join(f"{letter}. {opt}" for letter, opt in zip(item.letters, item.options, strict=True))
    return f"Question: {item.text}\n{options}"


def closing_instruction(item: Item) -> str:
    """The prompt's last line: answer with exactly one of the item's letters (comma-listed on agree/disagree scales)."""
    if item.template == "agree_disagree":
        return f"Please respond with exactly one letter ({letter_list_comma(item.letters)}) and nothing else."
    return f"Please respond with exactly one letter ({'/'.join(item.letters)}) and nothing else."


def audit_prompt(item: Item) -> str:
    """The condition-free (N) prompt of an item."""
    return f"{question_block(item)}\n\n{closing_instruction(item)}"
