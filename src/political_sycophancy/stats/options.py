"""The settings of one analysis run, passed explicitly to every report section.

`AnalysisOptions` is frozen: a section reads the run's bootstrap draws, seed, alpha ...
from the object it is given, never from module state, so two reports built in one process
with different options cannot leak into each other. Its `cache` is the run's memo (bounded
LRU): sections that need the same derived table (the audit cells) compute it once per
run (the caller makes one options object per run: `analyze` shares it between its own
summary table and the report).

The options a computation reads are recorded as it runs (`report.section_store` keeps a
section's result under the values of the options it read): while `cache.recording()` is
open, reading an option (every field but `cache`) adds its name to the innermost open set,
and a `cache.get` entry remembers the options read while computing it and adds them to the
reader's set whenever it is served, so a section that takes the cells another section
computed depends on the options those cells read. The record lives in the cache, which
`dataclasses.replace` hands on to the new options object.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, fields
from typing import Any

CACHE_ENTRIES = 64


class RunCache:
    """Bounded LRU memo of one run.

    `get(key, compute)` returns the stored value or stores `compute()`; the oldest
    entries go beyond `max_entries`. It also holds the stack of open option-read records
    (`recording`, see the module docstring).
    """

    def __init__(self, max_entries: int = CACHE_ENTRIES) -> None:
        self.max_entries = max_entries
        self._store: OrderedDict[Hashable, Any] = OrderedDict()
        self._reads: dict[Hashable, frozenset[str]] = {}
        self.reading: list[set[str]] = []

    def get(self, key: Hashable, compute: Callable[[], Any]) -> Any:
        """The value stored under `key`, else `compute()` stored; either way the options it read are recorded."""
        if key in self._store:
            self._store.move_to_end(key)
            self.note(self._reads.get(key, frozenset()))
            return self._store[key]
        with self.recording() as reads:
            value = compute()
        self._store[key] = value
        self._reads[key] = frozenset(reads)  # `recording` added them to the reader's record
        while len(self._store) > self.max_entries:
            old, _ = self._store.popitem(last=False)
            self._reads.pop(old, None)
        return value

    def note(self, names: set[str] | frozenset[str]) -> None:
        """Add option names read to the innermost open record (none open: nothing)."""
        if self.reading:
            self.reading[-1].update(names)

    @contextmanager
    def recording(self) -> Iterator[set[str]]:
        """The names of the options read until the block ends (also added to the record around it, if any)."""
        reads: set[str] = set()
        self.reading.append(reads)
        try:
            yield reads
        finally:
            self.reading.pop()
            self.note(reads)

    def __len__(self) -> int:
        return len(self._store)


@dataclass(frozen=True)
class AnalysisOptions:
    """The settings of one analysis run: draws, seed, mixed-model spec, power, alpha and the models' order.

    Reading an option records its name in the run cache's open record (see the module docstring).
    """

    bootstrap_draws: int = 2000
    sign_flip_draws: int = 10_000
    seed: int = 20260
    mixed_spec: str = "crossed"  # crossed or paper (both: crossed); the paper's code's spec is fitted beside crossed
    mixed_slopes: bool = False  # also fit per-model condition slopes (stats.mixed spec "slopes")
    mixed_engine: str = "reml"  # reml or statsmodels
    mixed_conditions: str = "focal"  # focal (N, C3L, C3R) or all
    mixed_rows: str = "all"  # all, or paired (pairs answered under N and another condition)
    power_effect: float | None = None
    alpha: float = 0.05
    power: float | None = None  # with power_effect: a power plan is made only when one of them is asked for
    # every model of the run (sorted): each figure colours a model by its place here
    model_order: tuple[str, ...] = ()
    cache: RunCache = field(default_factory=RunCache, compare=False, repr=False)

    def __getattribute__(self, name: str) -> Any:
        value = object.__getattribute__(self, name)
        if name in OPTION_NAMES or name in WHOLE_READS:
            reading = object.__getattribute__(self, "cache").reading
            if reading:
                reading[-1].update(OPTION_NAMES if name in WHOLE_READS else (name,))
        return value


# the fields whose reads are recorded: every option, not the run's cache
OPTION_NAMES = frozenset(f.name for f in fields(AnalysisOptions) if f.name != "cache")
# ways of reading every option at once (vars(), copy, pickle): recorded as reading them all
WHOLE_READS = frozenset({"__dict__", "__reduce__", "__reduce_ex__", "__getstate__"})
