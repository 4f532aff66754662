"""Packaging: every third-party module the code imports is a declared dependency (or an
extra's), and every data file of the package is shipped as package data."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "political_sycophancy"
# Modules of optional extras that may be absent from the test environment (so
# packages_distributions cannot name their distribution).
OPTIONAL_MODULES = {"llama_cpp": "llama-cpp-python"}


def _normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _requirement_name(spec: str) -> str:
    match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", spec)
    assert match, spec
    return _normalize(match.group(1))


def _pyproject() -> dict:
    with (ROOT / "pyproject.toml").open("rb") as f:
        return tomllib.load(f)


def imported_modules() -> dict[str, set[str]]:
    """Top-level absolute imports of src/ (at any depth: lazy imports count), by file."""
    found: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            for name in names:
                found.setdefault(name.split(".")[0], set()).add(str(path.relative_to(ROOT)))
    return found


def test_every_third_party_import_is_declared():
    project = _pyproject()["project"]
    declared = {_requirement_name(d) for d in project["dependencies"]}
    for extra in project.get("optional-dependencies", {}).values():
        declared |= {_requirement_name(d) for d in extra}
    dists = packages_distributions()
    undeclared = {}
    for module, files in imported_modules().items():
        # _typeshed: the standard library's stub-only module, imported under TYPE_CHECKING
        if module in sys.stdlib_module_names or module in ("__future__", "_typeshed", "political_sycophancy"):
            continue
        names = {_normalize(d) for d in dists.get(module, [])} or {_normalize(OPTIONAL_MODULES.get(module, module))}
        if not names & declared:
            undeclared[module] = (sorted(names), sorted(files))
    assert not undeclared, f"imported but not declared in pyproject.toml (module: distributions, files): {undeclared}"


def test_every_data_file_is_package_data():
    patterns = _pyproject()["tool"]["setuptools"]["package-data"]["political_sycophancy"]
    shipped = {p for pattern in patterns for p in PACKAGE.glob(pattern)}
    data = {p for p in PACKAGE.rglob("*") if p.is_file() and p.suffix not in (".py", ".pyc") and "__pycache__" not in p.parts}
    assert data, "the package has data files (conditions, instruments)"
    missing = sorted(str(p.relative_to(PACKAGE)) for p in data - shipped)
    assert not missing, f"not covered by [tool.setuptools.package-data]: {missing}"
