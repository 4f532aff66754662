"""What a log's values must be before the analysis reads them as numbers.

A log folder is shared data: a log edited by hand, by a broken tool or by a hostile user
can hold an infinite score, a measure outside its scale, text where a number belongs or a
header that declares 10**12 epochs. None of that is ever read as a number:

- a sample whose score values, answer probabilities or item metadata are not numbers,
  not finite, or outside their scale (`sample_problem`) is left out of the frame, and
  counted and named in the notes (the rest of its log is read);
- a log whose header declares epochs or a temperature that is not a number in range
  (`header_problem`) is left out whole, as an unreadable log is, and named.

A log is the package's by its word (its task metadata names a measure kind), so that word is
checked like any other value: a kind no installed measure declares leaves the log out
(`kind_contracts`), and each sample must keep the package's contract, whatever task wrote
it: every score value a mapping (`core.answers`: numbers, and in the old contract its
status and letter), a status readable from the scores, and the sample metadata the
measure's samples carry (`Measure.sample_keys`). A sample that breaks it is left out,
counted and named, as one holding an infinite score is.

NaN and None are the contract's "no value" (an unanswered sample's measures), not errors.
A score value under a name this module does not know may be text or a truth value (the old
score contract kept labels there) but, when a number, must be finite.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from ..core.generation import MAX_EPOCHS
from ..core.io import MAX_SURVEY_WEIGHT

# The scale of each measure a score value may hold: (low, high), inclusive.
SCORE_RANGES: Mapping[str, tuple[float, float]] = MappingProxyType(
    {
        "ideology": (-2.0, 2.0),  # PCT: direction x (2, 1, -1, -2)
        "acquiescence": (-1.0, 1.0),  # PCT: the direction
        "typology": (-1.0, 1.0),
        "closer_dem": (0.0, 1.0),
        "covered_mass": (0.0, 1.0),
        "non_ordinal_mass": (0.0, 1.0),
        "answered": (0.0, 1.0),
        "refused": (0.0, 1.0),
    }
)
# measures named by a prefix: the normalized Wasserstein distances wd_dem, wd_rep, ...; the
# PCT item score under its axis (ideology_economic, ideology_social)
SCORE_PREFIX_RANGES: Mapping[str, tuple[float, float]] = MappingProxyType({"wd_": (0.0, 1.0), "ideology_": (-2.0, 2.0)})
# how many left-out samples a log names in the notes (the count covers them all)
NAMED = 3


def _number(value: Any) -> float | None:
    """A real number as a float (bool, text and containers are not), else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        return float(value)
    except OverflowError:  # an integer too large for a float
        return math.inf


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _measure(name: str, value: Any, scale: tuple[float, float] | None) -> str | None:
    """Why a score value cannot be read as its measure, or None (None/NaN is no value)."""
    if value is None:
        return None
    number = _number(value)
    if number is None:
        # a measure must be a number; a value of another name may be a label
        return (
            None
            if scale is None and isinstance(value, (str, bool))
            else f"score {name!r} is {_show(value)}, not a number"
        )
    if math.isnan(number):
        return None
    if math.isinf(number):
        return f"score {name!r} is {_show(value)}, not finite"
    if scale is not None and not scale[0] <= number <= scale[1]:
        return f"score {name!r} is {_show(value)}, outside its scale {scale[0]:g}..{scale[1]:g}"
    return None


def _scale(name: str) -> tuple[float, float] | None:
    if name in SCORE_RANGES:
        return SCORE_RANGES[name]
    return next((r for prefix, r in SCORE_PREFIX_RANGES.items() if name.startswith(prefix)), None)


def _numbers(name: str, value: Any, scale: tuple[float, float] | None = None) -> str | None:
    """Why a list of numbers (answer probabilities, positions) is not one, or None."""
    if value is None:
        return None
    if not isinstance(value, list):
        return f"{name!r} is {_show(value)}, not a list of numbers"
    for x in value:
        number = _number(x)
        if number is None or not math.isfinite(number) or (scale is not None and not scale[0] <= number <= scale[1]):
            where = f" in {scale[0]:g}..{scale[1]:g}" if scale else ""
            return f"{name!r} holds {_show(x)}, not a finite number{where}"
    return None


def _whole(name: str, value: Any, low: int, high: int) -> str | None:
    number = _number(value)
    if number is None or not math.isfinite(number) or not number.is_integer():
        return f"{name!r} is {_show(value)}, not a whole number"
    if not low <= number <= high:
        return f"{name!r} is {_show(value)}, outside {low}..{high}"
    return None


def _score_problem(name: str, score: Any) -> str | None:
    """Why one score of a sample is not the package's, or None.

    A score whose value is a mapping of numbers (labels too in the old contract) on their
    scales (`SCORE_RANGES`; any other number must be finite) and, in its metadata, the
    answer probabilities (a distribution over the options) and the covered mass.
    """
    if not isinstance(score, dict):
        return f"score {name!r} is {_show(score)}, not a score"
    value = score.get("value")
    if not isinstance(value, dict):
        return f"score {name!r} is {_show(value)}, not the package's mapping of values"
    for key, v in value.items():
        if problem := _measure(str(key), v, _scale(str(key))):
            return problem
    meta = score.get("metadata")
    if not isinstance(meta, dict):
        return None
    for key in ("probs", "logprob_probs"):
        if problem := _numbers(key, meta.get(key), (0.0, 1.0)):
            return problem
    probs = meta.get("probs")
    if probs is not None and abs(math.fsum(probs) - 1.0) > 1e-6:  # a distribution over the options
        return f"'probs' sum to {math.fsum(probs):g}, not 1"
    return _measure("covered_mass", meta.get("covered_mass"), SCORE_RANGES["covered_mass"])


def _has_status(score: dict[str, Any]) -> bool:
    """Whether a (checked) score states the answer's status.

    In its value, as the `answered` indicator, or in its metadata.
    """
    value, meta = score["value"], score.get("metadata")
    return "status" in value or "answered" in value or (isinstance(meta, dict) and "status" in meta)


def _scores_problem(scores: dict[str, Any]) -> str | None:
    """Why a sample's scores are not the package's, or None.

    Each score read (`_score_problem`) and a status among them (a sample without scores,
    an error, has none to read).
    """
    for name, score in scores.items():
        if problem := _score_problem(name, score):
            return problem
    if not scores or any(_has_status(score) for score in scores.values()):
        return None
    names = ", ".join(map(repr, scores))[:60]
    return f"no status in score(s) {names} (not the package's score contract)"


def _gap_problem(gap: Any) -> str | None:
    """Why an item's partisan gap cannot be read, or None.

    An item file's gap arrives as text, and text that is no number is no gap (as
    `Item.partisan_gap`); only an infinite one is a problem.
    """
    if gap is None or isinstance(gap, bool):
        return None
    number = _number(gap)
    if number is None and isinstance(gap, str):
        try:
            number = float(gap)
        except (ValueError, OverflowError):
            number = None
    if number is not None and math.isinf(number):
        return f"'item_partisan_gap' is {_show(gap)}, not finite"
    return None


def _weight_problem(weight: Any) -> str | None:
    """Why a persona's survey weight cannot be read, or None (a number from 0 to `MAX_SURVEY_WEIGHT`)."""
    if weight is not None and (problem := _measure("persona_weight", weight, (0.0, MAX_SURVEY_WEIGHT))):
        return problem.replace("score ", "", 1)
    return None


def kind_contracts() -> dict[str, tuple[str, ...]]:
    """The sample metadata keys every sample of a log of each declared measure kind carries.

    From `Measure.sample_keys`; a kind its measure declares no keys for carries none
    named.
    """
    from ..catalog import declared

    contracts: dict[str, tuple[str, ...]] = {}
    for measure in declared():
        keys = dict(measure.sample_keys)
        for kind in measure.kinds:
            contracts[kind] = tuple(keys.get(kind, ()))
    return contracts


def sample_problem(sample: Mapping[str, Any], needed: tuple[str, ...] = ()) -> str | None:
    """Why a sample (summary or record, as JSON) cannot be read into the frame, or None.

    Its epoch, its scores (the package's contract: `_scores_problem`), or its metadata
    (`_metadata_problem`: a key of its measure's sample metadata, `needed`, it lacks; its
    item's direction, positions, benchmarks, partisan gap; its survey weight).
    """
    epoch = sample.get("epoch")
    if epoch is not None and (problem := _whole("epoch", epoch, 1, MAX_EPOCHS)):
        return problem
    scores = sample.get("scores") or {}
    if not isinstance(scores, dict):
        return f"scores are {_show(scores)}, not a mapping"
    if problem := _scores_problem(scores):
        return problem
    return _metadata_problem(sample.get("metadata") or {}, needed)


def _metadata_problem(meta: Any, needed: tuple[str, ...]) -> str | None:
    """Why a sample's metadata cannot be read, or None (see `sample_problem`)."""
    if not isinstance(meta, dict):
        return f"metadata is {_show(meta)}, not a mapping"
    missing = [key for key in needed if key not in meta]
    if missing:
        return f"metadata has no {missing[0]!r} (every sample of its measure carries it)"
    return _item_problem(meta) or _weight_problem(meta.get("persona_weight"))


def _item_problem(meta: dict[str, Any]) -> str | None:
    """Why a sample's item metadata cannot be read, or None: its direction, positions, benchmarks and partisan gap."""
    if meta.get("direction") is not None and (problem := _whole("direction", meta["direction"], -1, 1)):
        return problem
    if problem := _numbers("positions", meta.get("positions")):
        return problem
    benchmarks = meta.get("benchmarks")
    if benchmarks is not None:
        if not isinstance(benchmarks, dict):
            return f"'benchmarks' is {_show(benchmarks)}, not a mapping"
        for group, dist in benchmarks.items():
            if problem := _numbers(f"benchmarks.{group}", dist, (0.0, 1.0)):
                return problem
    return _gap_problem(meta.get("item_partisan_gap"))


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, dict) else {}


def header_problem(header: Mapping[str, Any]) -> str | None:
    """Why a log's header cannot be read, or None.

    Its declared epochs (a whole number from 1 to MAX_EPOCHS, or none) and the
    temperature it ran at (a finite number >= 0, or none).
    """
    ev = _mapping(header.get("eval"))
    epochs = _mapping(ev.get("config")).get("epochs")
    if epochs is not None and (problem := _whole("epochs", epochs, 1, MAX_EPOCHS)):
        return f"header: {problem}"
    for where, config in (
        ("plan config", _mapping(header.get("plan")).get("config")),
        ("generate config", ev.get("model_generate_config")),
    ):
        if isinstance(config, dict) and config.get("temperature") is not None:
            value = config["temperature"]
            number = _number(value)
            if number is None or not math.isfinite(number) or number < 0:
                return f"header: {where} 'temperature' is {_show(value)}, not a finite number >= 0"
    return None


def exclusion_note(excluded: list[tuple[str, int, list[str]]]) -> str | None:
    """The note on the samples left out: (log name, count, first reasons) per log."""
    total = sum(n for _, n, _ in excluded)
    if not total:
        return None
    named = "; ".join(
        f"{log}: {n} ({', '.join(reasons[:NAMED])}{', ...' if n > len(reasons[:NAMED]) else ''})"
        for log, n, reasons in excluded[:5]
    )
    return (
        f"left out {total} sample(s) whose values cannot be read as numbers (not a number, not finite, or outside "
        f"their scale) or that break the package's score or metadata contract; the rest of each log is read: {named}"
        + (" ..." if len(excluded) > 5 else "")
    )
