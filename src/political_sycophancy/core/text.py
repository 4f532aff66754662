"""Text from logs and input files is inert wherever the package shows it.

Model names, item texts, condition ids, file names and notes come from files anyone can
write. Shown on a terminal they must not move the cursor, clear the screen or recolour
what follows (`terminal_safe`); written into a Markdown report they must stay text: no
link, image, raw HTML, emphasis, table cell or line of their own (`md_text`, `md_code`,
`md_fence`, and `md_document` over a whole report as a second line of defence). Every
command prints through `core.console.say` and every report.md text is built with these.
"""

from __future__ import annotations

import math
import re
from typing import Any

# C0 and C1 controls, DEL, and the Unicode marks that reorder or hide text on a display
# (bidi embeddings, overrides and isolates, line/paragraph separators).
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_LINE_BREAKS = re.compile("\r\n|[\n\r\t\x0b\x0c\x85\u2028\u2029]")
# Markdown punctuation that makes text into markup anywhere in a line (CommonMark and
# GitHub's extensions: tables, strikethrough, math); `_` only where it can open or close
# emphasis, not inside a word (snake_case identifiers stay as they are).
_MD_INLINE = re.compile(r"([\\`*\[\]|~$]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9]))")
# ... and at the start of a line: a heading, a list item, a thematic break, a setext line.
_MD_LEAD_MARK = re.compile(r"^(\s*)(#|[-+=](?=\s|$|[-+=]+\s*$))")
_MD_LEAD_NUMBER = re.compile(r"^(\s*\d{1,9})([.)])(?=\s|$)")
# `&` that does not begin a character reference; `<` and `>` always (no raw HTML).
_BARE_AMP = re.compile(r"&(?!#[0-9]{1,7};|#[xX][0-9a-fA-F]{1,6};|[A-Za-z][A-Za-z0-9]{1,31};)")


def _shown(match: re.Match) -> str:
    code = ord(match.group(0))
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def terminal_safe(text: Any) -> str:
    r"""`text` with every control character but newline and tab shown as its escape (`\x1b`).

    So a value cannot act on the terminal (escape sequences, carriage returns that
    overwrite a line, bidi overrides that reorder it).
    """
    return _CONTROL.sub(_shown, str(text))


def one_line(text: Any) -> str:
    """`text` on one line: line breaks and tabs become spaces, other controls their escapes."""
    return terminal_safe(_LINE_BREAKS.sub(" ", str(text)))


def md_text(value: Any) -> str:
    """`value` as literal Markdown inline text.

    On one line, with HTML's `& < >` as character references and the Markdown
    punctuation that could start a link, an image, emphasis, code, a table cell or (at
    the start of a line) a block escaped with a backslash. Rendered, it shows the
    value's characters and nothing else.
    """
    text = one_line(value).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = _MD_INLINE.sub(r"\\\1", text)
    text = _MD_LEAD_MARK.sub(r"\1\\\2", text)
    return _MD_LEAD_NUMBER.sub(r"\1\\\2", text)


def md_code(value: Any) -> str:
    """`value` as a Markdown code span.

    On one line, fenced by more backticks than it holds in a row, so it cannot end the
    span early (the content is literal in a code span).
    """
    text = one_line(value)
    if not text.strip():
        return md_text(text)
    runs = [len(r) for r in re.findall(r"`+", text)]
    fence = "`" * (max(runs, default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def md_fence(text: Any) -> str:
    """`text` as a fenced code block, fenced by more backticks than any line of it starts with.

    Its lines are kept as they are but for control characters.
    """
    body = terminal_safe(str(text).replace("\r\n", "\n").replace("\r", "\n")).rstrip("\n")
    runs = [len(r) for r in re.findall(r"^\s*(`{3,}|~{3,})", body, flags=re.M)]
    fence = "`" * max(3, max(runs, default=0) + 1)
    return f"{fence}text\n{body}\n{fence}"


def md_document(markdown: str) -> str:
    """A whole Markdown document with any raw HTML left in it made text.

    `<` and `>` as character references, `&` too unless it begins one. Text built with
    `md_text` passes unchanged; a value that reached the document without it cannot open
    a tag.
    """
    return _BARE_AMP.sub("&amp;", markdown).replace("<", "&lt;").replace(">", "&gt;")


def text_table(rows: list[dict], columns: list[str]) -> str:
    """Rows as aligned text columns, each cell on one line (a value from the logs cannot add a row)."""

    def cell(v: Any) -> str:
        if isinstance(v, float):
            return "n/a" if math.isnan(v) else f"{v:.3f}"
        return one_line(v)

    widths = {c: max(len(c), *(len(cell(r.get(c, ""))) for r in rows)) for c in columns}
    lines = ["  ".join(c.ljust(widths[c]) for c in columns)]
    lines += ["  ".join(cell(r.get(c, "")).ljust(widths[c]) for c in columns) for r in rows]
    return "\n".join(lines)
