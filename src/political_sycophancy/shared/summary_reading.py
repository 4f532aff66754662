"""How a measure's report contribution reads summary.json and quotes it.

Every path checked against the contract of the shared nodes and the measure's own
(`reader(package)`: a read of another measure's node, or of a key the measure does not
declare, raises `SummaryContractError`), and each quoted number a `Quote` of its path,
rounded as the Headline and the Findings round it.
"""

from __future__ import annotations

import functools
import importlib
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar, cast

from ..core.declare import Measure
from ..core.numbers import FLOOR_WORDS, at_floor, fixed, p_text
from ..core.report_parts import Quote, Summary
from ..core.summary_contract import read
from .summary_nodes import contract_of

T = TypeVar("T")


@functools.cache
def _contract(package: str) -> Any:
    """The contract a measure's code reads through: the shared nodes and its own."""
    measure = getattr(importlib.import_module(package), "MEASURE", None)
    if not isinstance(measure, Measure):
        raise TypeError(f"{package} declares no MEASURE (core.declare.Measure)")
    return contract_of((measure,))


def digits_for(width: float | None, default: int = 3) -> int:
    """Decimals a number deserves given its CI width: two significant digits of the width (1 to 4 decimals)."""
    if width is None or not math.isfinite(width) or width <= 0:
        return default
    return int(min(4, max(1, 1 - math.floor(math.log10(width)))))


def dig(node: Any, *path: str) -> Any:
    """The value at `path` below `node` (None when absent), for a node already read."""
    for key in path:
        if not isinstance(node, dict) or key not in node:
            return None
        node = node[key]
    return node


def finite(value: Any) -> float | None:
    """The value as a float when it is a finite number (not a bool), else None."""
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    return float(value) if ok else None


def span_text(values: Sequence[float], fmt: Callable[[float], str]) -> str:
    """`low to high` of `values` in `fmt` (one value when they are all equal): a takeaway's range."""
    low, high = min(values), max(values)
    return fmt(low) if low == high else f"{fmt(low)} to {fmt(high)}"


def join(parts: Sequence[Sequence[str | Quote]], sep: str = "; ") -> list[str | Quote]:
    """The pieces of several phrases, `sep` between them."""
    out: list[str | Quote] = []
    for k, p in enumerate(parts):
        if k:
            out.append(sep)
        out.extend(p)
    return out


@dataclass(frozen=True)
class SummaryReader:
    """Reads summary.json for the measure `package` (`reader`); calling it is `get`."""

    package: str

    def __call__(self, summary: Summary, *path: str) -> Any:
        """The value at `path` (None: not computed), the path checked against the contract."""
        return read(summary, *path, schema=_contract(self.package))

    def typed(self, summary: Summary, kind: type[T], *path: str) -> T | None:
        """The node at `path` as its declared type `kind`, checked against the contract, None when absent.

        The node at `path` as its declared type `kind` (the measure's TypedDict, or
        `dict[str, Node]`), None when absent: the path is checked against the contract as
        `get` checks it, and mypy checks what the caller reads from the node.
        """
        value = self(summary, *path)
        return None if value is None else cast(T, value)

    def foreign(self, summary: Summary, key: str) -> Any:
        """Another measure's top-level node `key` as summary.json holds it (None when absent), unchecked.

        The contract of the measure that writes it is not this one's. For a figure that
        draws beside its own numbers those of another measure when the logs have both; each
        such read is named where it is made.
        """
        return summary.get(key)

    def number(self, summary: Summary, *path: str) -> float | None:
        """The finite number at `path`, else None."""
        return finite(self(summary, *path))

    def quote(
        self, summary: Summary, *path: str, digits: int = 3, signed: bool = False, scale: float = 1.0, suffix: str = ""
    ) -> Quote | None:
        """The number at `path` quoted at `digits` decimals (x `scale`), None when absent."""
        v = self.number(summary, *path)
        if v is None:
            return None
        return Quote(tuple(path), v, fixed(v, digits, signed=signed, scale=scale) + suffix, scale)

    def p_value(self, summary: Summary, *path: str) -> Quote | None:
        """A p-value at `path` shown by the report's one rule (`core.numbers.p_text`: "< 0.0001" below)."""
        v = self.number(summary, *path)
        if v is None:
            return None
        return Quote(tuple(path), v, p_text(v))

    def p_clause(self, summary: Summary, *path: str, floor: float | None = None) -> list[str | Quote]:
        """A p-value clause at `path` as pieces, its number a quote.

        `p = 0.031`, `p < 0.0001`, or `p = 0.125, the smallest this test can give` at the exact
        test's `floor` (`core.numbers.p_clause`) as pieces, the number a quote of `path`.
        """
        v = self.number(summary, *path)
        if v is None:
            return ["p = n/a"]
        if at_floor(v, floor):
            return ["p = ", Quote(tuple(path), v, p_text(float(floor or v))), f", {FLOOR_WORDS}"]
        shown = p_text(v)
        return ["p ", Quote(tuple(path), v, shown)] if shown.startswith("<") else ["p = ", Quote(tuple(path), v, shown)]

    def with_ci(
        self,
        summary: Summary,
        value_path: tuple[str, ...],
        ci_path: tuple[str, ...] | None,
        *,
        signed: bool = False,
        scale: float = 1.0,
        default: int = 3,
    ) -> list[str | Quote]:
        """`value (95% CI low to high)`, decimals from the CI width; the value alone without a CI."""
        found = self(summary, *ci_path) if ci_path else None
        has_ci = isinstance(found, list) and len(found) == 2 and all(isinstance(c, (int, float)) for c in found)
        ci: list = list(found) if has_ci and isinstance(found, list) else []
        d = digits_for(abs(ci[1] - ci[0]) * scale if has_ci else None, default)
        head = self.quote(summary, *value_path, digits=d, signed=signed, scale=scale)
        if head is None:
            return ["n/a"]
        if not has_ci or ci_path is None:
            return [head]
        low = Quote((*ci_path, "0"), float(ci[0]), fixed(float(ci[0]), d, signed=signed, scale=scale), scale)
        high = Quote((*ci_path, "1"), float(ci[1]), fixed(float(ci[1]), d, signed=signed, scale=scale), scale)
        return [head, " (95% CI ", low, " to ", high, ")"]

    # --- the Headline's quotes: numbers under findings.headline, rounded as the abstract rounds them

    def headline_value(
        self, summary: Summary, *path: str, digits: int = 0, scale: float = 1.0, suffix: str = "", signed: bool = False
    ) -> Quote | str:
        """The Headline number at `findings.headline.<path>` with thousands separators, "n/a" when absent."""
        node = self(summary, "findings", "headline", *path)
        if not isinstance(node, (int, float)) or isinstance(node, bool) or not math.isfinite(node):
            return "n/a"
        shown = fixed(float(node), digits, signed=signed, scale=scale, thousands=True) + suffix
        return Quote(("findings", "headline", *path), float(node), shown, scale)

    def headline_ci(
        self,
        summary: Summary,
        low: tuple[str, ...],
        high: tuple[str, ...],
        *,
        digits: int = 0,
        scale: float = 1.0,
        suffix: str = "",
        signed: bool = False,
        close: str = ")",
    ) -> list[str | Quote]:
        """` (95% CI low to high)` of two Headline numbers (paths under `findings.headline`)."""
        ends = [
            self.headline_value(summary, *path, digits=digits, scale=scale, suffix=suffix, signed=signed)
            for path in (low, high)
        ]
        return [" (95% CI ", ends[0], " to ", ends[1], close]

    def headline_range(
        self, summary: Summary, *path: str, digits: int = 0, scale: float = 1.0, unit: str = ""
    ) -> list[str | Quote]:
        """A Headline range node as pieces: `min–max unit`.

        `min–max unit` of a Headline range node (`{"min", "max"}`); `min to max` when a bound
        is negative ("-8–26" reads as a dash, not a range).
        """
        low = self.headline_value(summary, *path, "min", digits=digits, scale=scale)
        high = self.headline_value(summary, *path, "max", digits=digits, scale=scale)
        negative = any(isinstance(q, Quote) and q.shown.startswith("-") for q in (low, high))
        return [low, " to " if negative else "–", high, unit]

    def headline_p(self, summary: Summary, *path: str, floor: float | None = None) -> list[str | Quote]:
        """A Headline p-value clause.

        A Headline p-value clause (`p_clause` of `findings.headline.<path>`): "p < 0.0001" below,
        the floor and its words when the exact test's `floor` is reached.
        """
        return self.p_clause(summary, "findings", "headline", *path, floor=floor)


def reader(package: str) -> SummaryReader:
    """The summary reader of the measure declared by `package` (its `MEASURE`)."""
    return SummaryReader(package)
