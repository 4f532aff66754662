"""Code that stays easy to change, measured by radon on the package's source:

- no function, method or class of cyclomatic-complexity grade E or F (complexity above 30:
  radon's "very high risk" grades); split such a function by concern;
- no module over `MAX_LINES` lines without a one-line reason at its top: a first line
  `# Long: <why>` (or a docstring whose first line says `Long: <why>`).

Known exceptions are listed with who is splitting them; a stale entry fails, so a fix
shows up at once.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

from radon.complexity import cc_rank, cc_visit
from radon.visitors import Class, Function

PKG = "political_sycophancy"
SRC = Path(__file__).resolve().parents[1] / "src" / PKG
MAX_LINES = 500
BAD_GRADES = ("E", "F")
REASON = re.compile(r"\bLong: \S")

# (module path under the package, function) -> who splits it (issue 43)
KNOWN_COMPLEX = {
    ("logs/frame.py", "read_frame"): "h47: read_frame split (caching, reading, notes)",
    ("report/figures.py", "by_asker_figure"): "h43r: the measures' figures move out of report/",
}
# module path -> who shortens it or gives its reason
KNOWN_LONG = {
    "logs/frame.py": "h47: read_frame split",
    "report/figures.py": "h43r: the measures' figures move out of report/",
}


def _modules() -> Iterator[tuple[str, str]]:
    for path in sorted(SRC.rglob("*.py")):
        yield path.relative_to(SRC).as_posix(), path.read_text(encoding="utf-8")


def _blocks(source: str) -> Iterator[Function | Class]:
    """Every function, method and class radon grades (nested functions count in their parent's
    complexity, as `radon cc` reports them)."""
    for block in cc_visit(source):
        yield block
        if isinstance(block, Class):
            yield from block.methods


def too_complex() -> dict[tuple[str, str], str]:
    """(module, name) -> `grade (complexity)` of every block graded E or F."""
    out = {}
    for module, source in _modules():
        for block in _blocks(source):
            if cc_rank(block.complexity) in BAD_GRADES:
                out[(module, block.fullname)] = f"{cc_rank(block.complexity)} ({block.complexity})"
    return out


def has_reason(source: str) -> bool:
    """Whether a module says at its top why it is long: a first comment line or the first
    line of its docstring holding `Long: <why>`."""
    first = source.lstrip("\ufeff").splitlines()[0] if source.strip() else ""
    if first.startswith("#") and REASON.search(first):
        return True
    doc = ast.get_docstring(ast.parse(source), clean=False) or ""
    return bool(REASON.search(doc.splitlines()[0] if doc else ""))


def long_without_reason() -> dict[str, int]:
    """module -> line count of every module over MAX_LINES lines with no reason at its top."""
    return {m: n for m, s in _modules() if (n := s.count("\n")) > MAX_LINES and not has_reason(s)}


def test_the_scan_sees_the_package_and_grades_as_radon_does() -> None:
    modules = dict(_modules())
    assert len(modules) > 60 and "core/items.py" in modules
    graded = {b.fullname: cc_rank(b.complexity) for b in _blocks("def f(x):\n" + "    if x: pass\n" * 40)}
    assert graded == {"f": "F"}


def test_no_function_is_graded_e_or_f() -> None:
    new = {k: v for k, v in too_complex().items() if k not in KNOWN_COMPLEX}
    assert not new, f"functions of radon grade E or F (complexity > 30): split them by concern: {new}"


def test_no_long_module_without_a_reason_at_its_top() -> None:
    new = {k: v for k, v in long_without_reason().items() if k not in KNOWN_LONG}
    assert not new, f"modules over {MAX_LINES} lines: split them, or say why at the top ('# Long: <why>'): {new}"


def test_the_known_exceptions_are_current() -> None:
    stale = (set(KNOWN_COMPLEX) - set(too_complex())) | (set(KNOWN_LONG) - set(long_without_reason()))
    assert not stale, f"fixed, remove from the known exceptions: {sorted(map(str, stale))}"


def test_a_reason_is_read_from_the_first_line_only() -> None:
    assert has_reason("# Long: every parser rule in one place\n'''Doc.'''\n")
    assert has_reason('"""Long: one specification in one file.\n\nMore."""\n')
    assert not has_reason('"""A module.\n\nLong: said too late."""\n')
    assert not has_reason("# a comment\n# Long: on the second line\n")
    assert not has_reason("# Long:\nx = 1\n")
    assert not has_reason("")
