"""Value types for command-line options, so every command refuses a bad number where it is parsed.

The refusal is one line naming the option, before anything runs.

`whole(low, high)` and `number(...)` build argparse `type=` functions: a whole number in a
range, or a finite number in a range (NaN and infinities are never a setting). The message
says what the option takes and what it was given: `--seed must be a whole number from 0
to 4294967295, not -1` (the parser puts the option's name in front).
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable

from .generation import MAX_EPOCHS

# Seeds: numpy, Inspect's providers and llama.cpp all take an unsigned 32-bit seed.
SEED_MAX = 2**32 - 1


def _shown(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def _range_words(low: float | None, high: float | None, *, above: bool = False, below: bool = False) -> str:
    lo, hi = ("" if v is None else _shown(v) for v in (low, high))
    if low is not None and high is not None:
        if above or below:
            return f"{'above' if above else 'from'} {lo} {'and below' if below else 'to'} {hi}"
        return f"from {lo} to {hi}"
    if low is not None:
        return f"above {lo}" if above else f"at least {lo}"
    if high is not None:
        return f"below {hi}" if below else f"at most {hi}"
    return ""


def whole(low: int | None = None, high: int | None = None) -> Callable[[str], int]:
    """A `type=` for a whole number in [low, high] (either end open when None)."""
    need = (
        f"must be at least {low}"
        if high is None and low is not None
        else f"must be a whole number {_range_words(low, high)}".rstrip()
    )

    def parse(text: str) -> int:
        try:
            value = int(text.strip())
        except ValueError:
            raise argparse.ArgumentTypeError(f"{need} (a whole number), not {text}") from None
        if (low is not None and value < low) or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"{need}, not {text.strip()}")
        return value

    parse.__name__ = "whole number"
    return parse


def number(
    low: float | None = None, high: float | None = None, *, above: bool = False, below: bool = False
) -> Callable[[str], float]:
    """A `type=` for a finite number in the range from `low` to `high` (ends included unless `above` / `below`)."""

    def parse(text: str) -> float:
        need = f"must be a finite number {_range_words(low, high, above=above, below=below)}".rstrip()
        try:
            value = float(text.strip())
        except ValueError:
            raise argparse.ArgumentTypeError(f"{need}, not {text}") from None
        if not math.isfinite(value) or not in_range(value, low, high, above=above, below=below):
            raise argparse.ArgumentTypeError(f"{need}, not {text.strip()}")
        return value

    parse.__name__ = "number"
    return parse


def in_range(value: float, low: float | None, high: float | None, *, above: bool = False, below: bool = False) -> bool:
    """Whether a finite `value` lies in the range (`above` / `below`: that end excluded)."""
    if low is not None and (value <= low if above else value < low):
        return False
    return not (high is not None and (value >= high if below else value > high))


seed = whole(0, SEED_MAX)
"""A random seed: a whole number from 0 to 2^32 - 1."""

count = whole(1)
"""A count of at least one (samples, connections, processes, ...)."""

epochs = whole(1, MAX_EPOCHS)
"""Epochs (replicates per item): from 1 to `MAX_EPOCHS`, the most a log may declare, so that
nothing sized by them can exhaust the memory."""

retries = whole(0)
"""A count that may be zero (retries)."""

nonnegative = number(0)
"""A finite number >= 0 (a temperature, a price, a latency)."""

share = number(0, 1, above=True, below=True)
"""A share strictly between 0 and 1 (a significance level, a power)."""


def fail_on_error(text: str) -> float | bool:
    """Inspect's --fail-on-error: true, false, a share (0 < x < 1) or a count (>= 1)."""
    low = text.strip().lower()
    if low in ("true", "false"):
        return low == "true"
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be true, false or a number above 0, not {text}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(
            f"must be true, false or a finite number above 0 (a share below 1 or a count), not {text}"
        )
    return value
