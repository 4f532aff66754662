"""Output paths checked against the command's inputs before anything is written."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from ..core.errors import InputError


def _same(a: Path, b: Path) -> bool:
    if a.exists() and b.exists():
        return os.path.samefile(a, b)
    return a.resolve() == b.resolve()


def distinct_output(output: str | Path, inputs: Iterable[str | Path], option: str) -> Path:
    """`output`, unless it is one of the command's input files (the same path, a link to it
    or another name for it): writing there would destroy the input it was made from."""
    out = Path(output)
    for given in inputs:
        if _same(out, Path(given)):
            raise InputError(f"{option} {output}: is the input file {given}; write the output elsewhere")
    return out
