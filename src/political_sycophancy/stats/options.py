"""The settings of one analysis run, passed explicitly to every report section.

`AnalysisOptions` is frozen: a section reads the run's bootstrap draws, seed, alpha ...
from the object it is given, never from module state, so two reports built in one process
with different options cannot leak into each other. Its `cache` is the run's memo (bounded
LRU): sections that need the same derived table (the audit cells) compute it once per
run (the caller makes one options object per run: `analyze` shares it between its own
summary table and the report).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

CACHE_ENTRIES = 64


class RunCache:
    """Bounded LRU memo of one run: `get(key, compute)` returns the stored value or stores
    `compute()`; the oldest entries go beyond `max_entries`."""

    def __init__(self, max_entries: int = CACHE_ENTRIES) -> None:
        self.max_entries = max_entries
        self._store: OrderedDict[Hashable, Any] = OrderedDict()

    def get(self, key: Hashable, compute: Callable[[], Any]) -> Any:
        if key in self._store:
            self._store.move_to_end(key)
            return self._store[key]
        value = compute()
        self._store[key] = value
        while len(self._store) > self.max_entries:
            self._store.popitem(last=False)
        return value

    def __len__(self) -> int:
        return len(self._store)


@dataclass(frozen=True)
class AnalysisOptions:
    bootstrap_draws: int = 2000
    sign_flip_draws: int = 10_000
    seed: int = 20260
    mixed_spec: str = "crossed"  # crossed, paper or both
    mixed_engine: str = "reml"  # reml or statsmodels
    mixed_conditions: str = "focal"  # focal (N, C3L, C3R) or all
    mixed_rows: str = "all"  # all, or paired (pairs answered under N and another condition)
    power_effect: float | None = None
    alpha: float = 0.05
    power: float | None = None  # with power_effect: a power plan is made only when one of them is asked for
    # every model of the run (sorted): each figure colours a model by its place here
    model_order: tuple[str, ...] = ()
    cache: RunCache = field(default_factory=RunCache, compare=False, repr=False)
