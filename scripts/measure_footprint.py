"""Print, per measure of the list of measures (`political_sycophancy.catalog`), the files
outside its folder that name it: an import of its package or modules (at module level or
inside a function), its dotted module path in the text, or a relative module path in a
string (`".sway.scorer"`, as lazy imports name modules). A measure that is one folder has
0 besides the list itself.

The whole designs (`designs/`: the first seed's experiment, a profile design as `plan`
runs it) sit above the measures to combine them, so they name the measures they combine;
they are listed apart, and adding a measure does not touch them unless a design is to use
it.

    python scripts/measure_footprint.py [--strict]   # --strict: exit 1 unless every count is 0
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from pathlib import Path

PKG = "political_sycophancy"


def imported_modules(path: Path, package: tuple[str, ...]) -> set[str]:
    """Every module of our package `path` imports, relative imports resolved."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = ".".join(package[: len(package) - node.level + 1]) if node.level else ""
            target = ".".join(p for p in (base, node.module or "") if p)
            out.add(target)
            out |= {f"{target}.{a.name}" for a in node.names}
        elif isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
    return {m for m in out if m == PKG or m.startswith(PKG + ".")}


def footprint(src: Path, measure: str) -> list[str]:
    """Files of the package outside `measure`'s folder (and the list) that name it."""
    folder = src / measure
    dotted = f"{PKG}.{measure}"
    # the dotted path, or a relative one in a string (`".sway.scorer"`, as lazy imports name modules)
    pattern = re.compile(re.escape(dotted) + r"\b|[\"']\.+" + re.escape(measure) + r"[.\"']")
    found = []
    for path in sorted(src.rglob("*.py")):
        if path.is_relative_to(folder) or path.name == "catalog.py" and path.parent == src:
            continue
        parts = path.relative_to(src.parent).with_suffix("").parts
        package = parts[:-1] if parts[-1] != "__init__" else parts[:-1]
        named = any(m == dotted or m.startswith(dotted + ".") for m in imported_modules(path, package))
        if named or pattern.search(path.read_text(encoding="utf-8")):
            found.append(path.relative_to(src).as_posix())
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--strict", action="store_true", help="exit 1 unless every measure's count is 0")
    args = parser.parse_args()
    src = Path(__file__).resolve().parents[1] / "src" / PKG
    sys.path.insert(0, str(src.parent))
    from political_sycophancy.catalog import MEASURES

    total = 0
    print(f"{'measure':<14} {'files outside its folder naming it':>34}   designs combining it")
    for dotted in MEASURES:
        name = dotted.removeprefix(PKG + ".")
        files = footprint(src, name)
        designs = [f for f in files if f.startswith("designs/")]
        others = [f for f in files if f not in designs]
        total += len(others)
        print(f"{name:<14} {len(others):>34}   {', '.join(designs) or '-'}")
        for f in others:
            print(f"{'':<14}   {f}")
    return 1 if args.strict and total else 0


if __name__ == "__main__":
    sys.exit(main())
