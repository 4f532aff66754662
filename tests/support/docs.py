"""The documents whose text tests check (tests/test_docs.py, tests/test_doc_commands.py)
and the package's registered tasks they document."""

from __future__ import annotations

import importlib
import pkgutil

from inspect_ai.util import registry_info

import political_sycophancy

from . import ROOT

PACKAGE = ROOT / "src" / "political_sycophancy"
README = ROOT / "README.md"
MEASURE_READMES = sorted(PACKAGE.glob("*/README.md"))
DOCS = [README, *sorted((ROOT / "docs").glob("*.md")), *MEASURE_READMES]


def registered_tasks() -> dict[str, object]:
    """Every task the package registers, found by importing every module and reading the
    registry info of its objects (so tasks made at run time, audit_<condition>, count)."""
    tasks = {}
    for mod in pkgutil.walk_packages(political_sycophancy.__path__, "political_sycophancy."):
        if mod.name.endswith(".__main__"):
            continue  # running it would run the command line
        module = importlib.import_module(mod.name)
        for value in list(vars(module).values()):
            for obj in value.values() if isinstance(value, dict) else [value]:
                if not callable(obj):
                    continue
                try:
                    info = registry_info(obj)
                except Exception:
                    continue
                if info.type == "task" and info.name.startswith("political_sycophancy/"):
                    tasks[info.name.split("/", 1)[1]] = obj
    return tasks
