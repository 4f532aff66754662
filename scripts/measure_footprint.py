"""Print, per measure of the list of measures (`political_sycophancy.catalog`), the files
outside its folder that name it: an import of its package or modules (at module level or
inside a function), its dotted module path in the text, or a relative module path in a
string (`".sway.scorer"`, as lazy imports name modules). A measure that is one folder has
0 besides the list itself.

Beside it, the names the measure owns that the report (`report/`) and the command line
(`cli/`) read as strings: its tables (the ids of its `tables.yaml`: a string constant of
those folders, not a docstring, that is the id or names it in backticks) and its
summary.json nodes (its declaration's `SummaryNodes`: a path of string constants, the
arguments of one call or the keys of one subscript chain, that reaches the node: its key
first for a top-level node, after `"models"`, `"tests"`, `"findings"` or `"headline"` for
one under them, since a key like `missing` means the design's there). A measure that adds
its Headline lines, Findings and figures through its own report contribution has 0.

The whole designs (`designs/`: the first seed's experiment, a profile design as `plan`
runs it) sit above the measures to combine them, so they name the measures they combine;
they are listed apart, and adding a measure does not touch them unless a design is to use
it.

    python scripts/measure_footprint.py [--strict] [--extra PACKAGE ...]
    # --strict: exit 1 unless every count is 0; --extra: a measure package outside the list
    # (on PYTHONPATH), counted as the list's own
"""

from __future__ import annotations

import argparse
import ast
import functools
import importlib
import re
import sys
from collections.abc import Iterator
from pathlib import Path

PKG = "political_sycophancy"
READERS = ("report", "cli")  # the folders that must not read a measure's names


@functools.cache
def _tree(path: Path) -> ast.Module:
    """A module parsed once per run (every measure's scan reads every file)."""
    return ast.parse(path.read_text(encoding="utf-8"))


def imported_modules(path: Path, package: tuple[str, ...]) -> set[str]:
    """Every module of our package `path` imports, relative imports resolved."""
    out = set()
    for node in ast.walk(_tree(path)):
        if isinstance(node, ast.ImportFrom):
            base = ".".join(package[: len(package) - node.level + 1]) if node.level else ""
            target = ".".join(p for p in (base, node.module or "") if p)
            out.add(target)
            out |= {f"{target}.{a.name}" for a in node.names}
        elif isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
    return out


def footprint(src: Path, dotted: str, folder: Path | None) -> list[str]:
    """Files of the package outside the measure's folder (and the list) that name the
    measure package `dotted`."""
    tail = dotted.rsplit(".", 1)[-1]
    # the dotted path, or a relative one in a string (`".sway.scorer"`, as lazy imports name modules)
    pattern = (
        re.compile(re.escape(dotted) + r"\b|[\"']\.+" + re.escape(tail) + r"[.\"']")
        if dotted.startswith(PKG + ".")
        else re.compile(re.escape(dotted) + r"\b")
    )
    found = []
    for path in sorted(src.rglob("*.py")):
        if folder is not None and path.is_relative_to(folder) or path.name == "catalog.py" and path.parent == src:
            continue
        parts = path.relative_to(src.parent).with_suffix("").parts
        package = parts[:-1]
        named = any(m == dotted or m.startswith(dotted + ".") for m in imported_modules(path, package))
        if named or pattern.search(path.read_text(encoding="utf-8")):
            found.append(path.relative_to(src).as_posix())
    return found


# where a node sits (core.declare.SummaryNodes.places) -> the key a path names before it
CONTAINER = {
    "top level": None,
    "models.<model>": "models",
    "tests": "tests",
    "findings": "findings",
    "findings.headline": "headline",
}


def owned_tables(dotted: str) -> set[str]:
    """The ids of the measure's tables (its tables.yaml)."""
    import yaml

    path = Path(importlib.import_module(dotted).__file__).parent / "tables.yaml"
    return {str(k) for k in (yaml.safe_load(path.read_text(encoding="utf-8")) or {})} if path.is_file() else set()


def owned_nodes(dotted: str) -> set[tuple[str | None, str]]:
    """(the key before it, or None at the top level; the node's key) of each summary node."""
    nodes = importlib.import_module(dotted).MEASURE.summary
    return {(CONTAINER[where], key) for where, found in nodes.places() for key, _ in found}


def _strings(tree: ast.AST) -> Iterator[ast.Constant]:
    """The string constants of a module that are not docstrings."""
    docs = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            yield node


def _paths(tree: ast.AST) -> Iterator[tuple[int, list[str]]]:
    """(line, the string constants in order) of every call's arguments and every chain of
    subscripts and `.get` calls: the summary paths a module reads."""
    for node in ast.walk(tree):
        keys: list[str] = []
        if isinstance(node, ast.Call):
            keys = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
            inner = node.func.value if isinstance(node.func, ast.Attribute) and node.func.attr == "get" else None
        elif isinstance(node, ast.Subscript):
            keys = (
                [node.slice.value] if isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str) else []
            )
            inner = node.value
        else:
            continue
        while isinstance(inner, (ast.Subscript, ast.Call)):  # x["a"]["b"].get("c"): a, b, c
            if isinstance(inner, ast.Subscript):
                if isinstance(inner.slice, ast.Constant) and isinstance(inner.slice.value, str):
                    keys.insert(0, inner.slice.value)
                inner = inner.value
            elif isinstance(inner.func, ast.Attribute) and inner.func.attr == "get" and inner.args:
                if isinstance(inner.args[0], ast.Constant) and isinstance(inner.args[0].value, str):
                    keys.insert(0, inner.args[0].value)
                inner = inner.func.value
            else:
                break
        if keys:
            yield node.lineno, keys


def names_read(src: Path, tables: set[str], nodes: set[tuple[str | None, str]]) -> list[str]:
    """`file:line name` for every table id and summary node of report/ and cli/ reads."""
    found = set()
    for folder in READERS:
        for path in sorted((src / folder).rglob("*.py")):
            rel = path.relative_to(src).as_posix()
            tree = _tree(path)
            for node in _strings(tree):
                hits = {node.value} & tables | {m for m in re.findall(r"`([\w.]+)`", node.value) if m in tables}
                found |= {f"{rel}:{node.lineno} {name}" for name in hits}
            for line, keys in _paths(tree):
                for before, key in nodes:
                    at = [k for k, v in enumerate(keys) if v == key]
                    if any(k == 0 if before is None else before in keys[:k] for k in at):
                        found.add(f"{rel}:{line} {key}")
    return sorted(found)


def main() -> int:
    """Print the counts; with --strict, exit 1 unless every one is 0."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--strict", action="store_true", help="exit 1 unless every measure's counts are 0")
    parser.add_argument("--extra", nargs="*", default=[], help="measure packages outside the list (importable)")
    args = parser.parse_args()
    src = Path(__file__).resolve().parents[1] / "src" / PKG
    sys.path.insert(0, str(src.parent))
    from political_sycophancy.catalog import MEASURES

    total = 0
    head = f"{'files outside its folder naming it':>34} {'names read by report/, cli/':>28}"
    print(f"{'measure':<14} {head}   designs combining it")
    for dotted in (*MEASURES, *args.extra):
        name = dotted.rsplit(".", 1)[-1]
        folder = Path(importlib.import_module(dotted).__file__).parent
        files = footprint(src, dotted, folder if folder.is_relative_to(src) else None)
        designs = [f for f in files if f.startswith("designs/")]
        others = [f for f in files if f not in designs]
        reads = names_read(src, owned_tables(dotted), owned_nodes(dotted))
        total += len(others) + len(reads)
        print(f"{name:<14} {len(others):>34} {len(reads):>28}   {', '.join(designs) or '-'}")
        for f in [*others, *reads]:
            print(f"{'':<14}   {f}")
    return 1 if args.strict and total else 0


if __name__ == "__main__":
    sys.exit(main())
