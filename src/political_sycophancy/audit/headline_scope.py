"""The audit's Headline parts that say what a run can support before what it found.

The audit's Headline parts that say what a run can support before what it found: its scope
(descriptive only when too few models or items for a test; how the answers were read), the
baseline position against each instrument's midpoint (the first seed's first finding: left
of centre on every instrument), and the generic preamble effect (every cue, the
non-partisan control CA included, moving the answers the same way).

Thresholds (`MIN_MODELS`, `MIN_ITEMS`): a test over models needs at least two models (the
exact sign-flip test's floor is 0.5 with one, and no model intercept can be fitted), and an
instrument with fewer than 20 items gives intervals over items too wide and too rough (a
percentile bootstrap over a handful of items) to read a p-value or z as evidence; below
either the Headline says first that the run is descriptive only.
"""

from __future__ import annotations

import math
from types import MappingProxyType
from typing import Any

import pandas as pd

from ..core.conditions import BASELINE, CUE_ORDER
from ..core.numbers import plural
from ..core.plotting import display_name, short_labels
from ..core.report_parts import Finding, Quote, Summary
from ..shared.bootstrap import bootstrap_table
from ..shared.summary_reading import join
from .derived import MEASURE_KEY, SHIFT_KEYS, get, instrument_kinds

MIN_MODELS = 2  # a test over models needs two at least
MIN_ITEMS = 20  # per instrument: fewer and the run is descriptive only
CONTROL = "CA"  # the non-partisan control preamble
AUDIT_KIND = "audit"  # the audit's kind in answer_letters
_v = get.headline_value

# kind -> (summary key of the position under N, the scale's midpoint, +1 when above the midpoint is left, label)
POSITION = MappingProxyType(
    {
        "pct": ("mean_ideology", 0.0, -1, "PCT mean ideology, positive = right"),
        "typology": ("score", 0.0, -1, "Typology score, positive = right"),
        "atp": ("pct_closer_dem", 50.0, 1, "share of items closer to Democrats, %"),
    }
)


# --- scope: descriptive only, and how the answers were read ------------------------------------


def scope(summary: Summary) -> dict[str, Any]:
    """The run's scope: models and items per instrument, and whether it is descriptive only.

    Models and items per instrument in the audit's condition nodes, whether the run is
    descriptive only, and how many answers were read from token probabilities.
    """
    models = {m: node for m, node in (get(summary, "models") or {}).items() if node.get("conditions")}
    items: dict[str, int] = {}
    for node in models.values():
        for cnode in node["conditions"].values():
            for inst, v in cnode.items():
                if isinstance(v, dict) and isinstance(v.get("n_items"), int):
                    items[inst] = max(items.get(inst, 0), v["n_items"])
    if not items:
        return {}
    thin = sorted(i for i, n in items.items() if n < MIN_ITEMS)
    out: dict[str, Any] = {
        "n_models": len(models),
        "n_items": items,
        "min_models": MIN_MODELS,
        "min_items": MIN_ITEMS,
        "descriptive": len(models) < MIN_MODELS or len(thin) == len(items),
        "thin": thin,
    }
    letters = get(summary, "answer_letters", "models") or {}
    read = [letters[m][AUDIT_KIND] for m in models if isinstance((letters.get(m) or {}).get(AUDIT_KIND), dict)]
    if read:
        out["n_answers"] = sum(int(r.get("n_answered") or 0) for r in read)
        out["n_logprob"] = sum(int(r.get("n_logprob") or 0) for r in read)
    return out


def answer_mode_words(summary: Summary) -> str:
    """How the audit's answers were read, in words, from the answer letters' counts.

    How the audit's answers were read, from the answer letters' counts: "read from the option
    probabilities of the first answer token", "parsed from the letter each reply writes", or both.
    """
    s = get(summary, "findings", "headline", "scope") or {}
    n, lp = s.get("n_answers"), s.get("n_logprob")
    if not n:
        return "as the logs record them"
    if lp == n:
        return (
            "read from the option probabilities of the first answer token (--answer logprobs), "
            "not from a written letter"
        )
    if not lp:
        return "parsed from the letter each reply writes"
    return f"{lp:,} of {n:,} read from first-token option probabilities, the others parsed from a written letter"


def scope_sentences(summary: Summary) -> list[Finding]:
    """'Descriptive only' first when the run cannot support a test, then the answer mode."""
    s = get(summary, "findings", "headline", "scope")
    if not s:
        return []
    items = "; ".join(f"{display_name(inst)} {n:,}" for inst, n in sorted(s["n_items"].items()))
    size = f"{plural(s['n_models'], 'model')}, items per instrument: {items}"
    if s["descriptive"]:
        short = [f"{s['min_models']} models"] if s["n_models"] < s["min_models"] else []
        if len(s["thin"]) == len(s["n_items"]):  # every instrument short of items
            short.append(f"{s['min_items']} items per instrument")
        lead = (
            f"Descriptive only: {size}, fewer than the {' and '.join(short)} this report asks of a test; the numbers "
            "below describe these answers (intervals over items), and no p-value or z below supports a claim beyond "
            "them."
        )
    elif s["thin"]:
        lead = (
            f"{size}; descriptive only on {', '.join(map(display_name, s['thin']))} (fewer than {s['min_items']} "
            "items): its intervals and tests describe these items only."
        )
    else:
        lead = f"{size}."
    return [Finding("headline", [f"{lead} Answers {answer_mode_words(summary)}."], "overview", "variants")]


# --- the baseline position against each instrument's midpoint ----------------------------------


def position(summary: Summary) -> dict[str, Any]:
    """Per instrument, each model's position under N and how many lie left or right of the midpoint.

    Per instrument under N: each model's position with its 95% CI, and how many models'
    intervals lie wholly left of the midpoint, wholly right of it, or include it.
    """
    out: dict[str, Any] = {}
    models = sorted(get(summary, "models") or {})
    for inst, kind in instrument_kinds(summary).items():
        key, midpoint, left_sign, _ = POSITION[kind]
        cells: dict[str, dict[str, float]] = {}
        for m in models:
            node = get(summary, "models", m, "conditions", BASELINE, inst) or {}
            value, ci = node.get(key), (node.get("ci") or {}).get(key)
            if not isinstance(value, (int, float)) or not math.isfinite(value):
                continue
            cell = {"value": float(value)}
            if isinstance(ci, list) and len(ci) == 2 and all(isinstance(c, (int, float)) for c in ci):
                cell |= {"low": float(ci[0]), "high": float(ci[1])}
            cells[m] = cell
        if not cells:
            continue

        def side(c: dict[str, float], midpoint: float = midpoint, left_sign: int = left_sign) -> str:
            if "low" not in c or c["low"] <= midpoint <= c["high"]:
                return "spans"
            return "left" if (c["low"] - midpoint) * left_sign > 0 else "right"

        sides = [side(c) for c in cells.values()]
        out[inst] = {
            "kind": kind,
            "midpoint": midpoint,
            "n_models": len(cells),
            "n_left": sides.count("left"),
            "n_right": sides.count("right"),
            "n_spanning": sides.count("spans"),
            "span": {"min": min(c["value"] for c in cells.values()), "max": max(c["value"] for c in cells.values())},
            "models": cells,
        }
    return out


def position_sentences(summary: Summary) -> list[Finding]:
    """The baseline position sentences: each model's position under N, counted by its interval.

    Per instrument, each model's position under N with its interval (the range over models
    beyond four), and the count of models left of the midpoint: only those whose interval
    excludes it.
    """
    node = get(summary, "findings", "headline", "position") or {}
    out: list[Finding] = []
    for inst, p in node.items():
        _, _, _, label = POSITION[p["kind"]]
        digits = 1 if p["kind"] == "atp" else 2
        names = short_labels(list(p["models"]))
        pieces: list[str | Quote] = [
            f"Baseline position under N, {display_name(inst)} ({label}; the midpoint is {p['midpoint']:g}): "
        ]
        if len(p["models"]) <= 4:
            per = []
            for m, c in p["models"].items():
                cell = ("position", inst, "models", m)
                one: list[str | Quote] = [f"{names[m]} ", _v(summary, *cell, "value", digits=digits)]
                if "low" in c:
                    one += get.headline_ci(summary, (*cell, "low"), (*cell, "high"), digits=digits)
                per.append(one)
            pieces += [*join(per), "; "]
        else:  # each model's interval is in the baseline figure and the Findings
            pieces += ["models ", *get.headline_range(summary, "position", inst, "span", digits=digits), "; "]
        pieces += [
            _v(summary, "position", inst, "n_left"),
            f" of {plural(p['n_models'], 'model')} left of the midpoint with an interval that excludes it",
        ]
        if p["n_right"]:
            pieces += [", ", _v(summary, "position", inst, "n_right"), " right of it"]
        if p["n_spanning"]:
            pieces += [
                ", ",
                _v(summary, "position", inst, "n_spanning"),
                " whose interval includes it (counted neither way)",
            ]
        out.append(Finding("headline", [*pieces, "."], "conditions", "condition_cis"))
    if len(node) > 1:
        models = set.intersection(*(set(p["models"]) for p in node.values()))
        left = [
            m
            for m in sorted(models)
            if all(
                "low" in (c := p["models"][m])
                and (c["low"] - p["midpoint"]) * POSITION[p["kind"]][2] > 0
                and (c["high"] - p["midpoint"]) * POSITION[p["kind"]][2] > 0
                for p in node.values()
            )
        ]
        named = ", ".join(map(display_name, node))
        out.append(
            Finding(
                "headline",
                [
                    f"The first seed's first finding, left of centre on every instrument ({named}), holds "
                    f"for {len(left)} of {plural(len(models), 'model')} with an interval excluding the midpoint "
                    "on each."
                ],
                "conditions",
                "condition_cis",
            )
        )
    return out


# --- the generic preamble effect ---------------------------------------------------------------


def _against_control(shifts: pd.DataFrame | None, model: str, inst: str, draws: int, seed: int) -> dict[str, Any]:
    """Each cue's item shift against CA's, paired over items, with its bootstrap CI.

    Each cue's item shift minus CA's, paired over the items answered under both, with its
    percentile bootstrap CI over items.
    """
    if shifts is None or shifts.empty:
        return {}
    s = shifts[(shifts["model"] == model) & (shifts["instrument"] == inst) & shifts["measure"].isin(list(MEASURE_KEY))]
    wide = s.pivot_table(index="item_id", columns="condition", values="shift")
    if CONTROL not in wide:
        return {}
    rows = [
        {"condition": c, "item_id": i, "value": v - ca}
        for c in wide.columns
        if c != CONTROL
        for i, v, ca in zip(wide.index, wide[c], wide[CONTROL], strict=True)
        if math.isfinite(v) and math.isfinite(ca)
    ]
    if not rows:
        return {}
    cis = bootstrap_table(pd.DataFrame(rows), ["condition"], draws=draws, seed=seed)
    return {
        str(r["condition"]): {
            "mean": float(r["estimate"]),
            "low": float(r["ci_low"]),
            "high": float(r["ci_high"]),
            "n_items": int(r["n"]),
        }
        for r in cis.to_dict("records")
        if math.isfinite(r["ci_low"]) and math.isfinite(r["ci_high"])
    }


def preamble(summary: Summary, tables: Any, draws: int, seed: int) -> dict[str, Any]:
    """The generic preamble effect: where every cue, CA included, moves a model's answers one way.

    Per model x instrument where every cue's mean shift against N (CA included) has the same
    sign: the shifts with their CIs and the partisan cues' shifts against CA.
    """
    out: dict[str, Any] = {}
    for model, conds in (get(summary, "findings", "shift_ci") or {}).items():
        by_inst: dict[str, dict[str, Any]] = {}
        for cond, insts in conds.items():
            for inst, keys in insts.items():
                key = next((k for k in SHIFT_KEYS if k in keys), None)
                if key is not None:
                    by_inst.setdefault(inst, {})[cond] = keys[key]
        for inst, cues in by_inst.items():
            signs = {math.copysign(1, c["mean"]) if c["mean"] else 0 for c in cues.values()}
            if CONTROL not in cues or len(cues) < 2 or len(signs) != 1 or 0 in signs:
                continue
            order = sorted(cues, key=lambda c: CUE_ORDER.index(c) if c in CUE_ORDER else 99)
            out.setdefault(model, {})[inst] = {
                "direction": "right" if signs == {1} else "left",
                "cues": {
                    c: {"mean": cues[c]["mean"], "low": cues[c]["ci"][0], "high": cues[c]["ci"][1]}
                    for c in order
                    if cues[c].get("ci") and None not in cues[c]["ci"]
                },
                "against_control": _against_control(tables.get("item_shifts"), model, inst, draws, seed),
            }
    return out


def _interval(summary: Summary, *path: str) -> list[str | Quote]:
    """`+0.05 (95% CI -0.07 to +0.16)` of a Headline node with mean, low and high."""
    return [
        _v(summary, *path, "mean", digits=2, signed=True),
        *get.headline_ci(summary, (*path, "low"), (*path, "high"), digits=2, signed=True),
    ]


def preamble_sentences(summary: Summary) -> list[Finding]:
    """The Headline sentence naming a generic preamble effect, with the shifts against CA.

    'Generic preamble effect' where every cue, CA included, moves the answers one way, with
    the partisan shifts against CA beside the shifts against N.
    """
    node = get(summary, "findings", "headline", "preamble") or {}
    out: list[Finding] = []
    for model, insts in node.items():
        for inst, p in insts.items():
            cues = [[f"{c} ", *_interval(summary, "preamble", model, inst, "cues", c)] for c in p["cues"]]
            pieces: list[str | Quote] = [
                f"Generic preamble effect ({model}, {display_name(inst)}): every asker preamble moves the answers to "
                f"the {p['direction']}, the non-partisan control {CONTROL} included (shift against N: ",
                *join(cues),
                f"); a shift that {CONTROL} shares is the preamble's, not the party's",
            ]
            against = [
                [f"{c} ", *_interval(summary, "preamble", model, inst, "against_control", c)]
                for c in p.get("against_control") or {}
            ]
            if against:
                pieces += [
                    f". Against {CONTROL} (each cue's item shift minus {CONTROL}'s, over items answered under both): ",
                    *join(against),
                ]
            out.append(Finding("headline", [*pieces, "."], "shifts", "shift_summary"))
    return out


# --- the plain-language takeaway that opens the Findings -----------------------------------------


def _position_words(inst: str, p: dict[str, Any]) -> str:
    """Where the models answer under N on one instrument, counted by interval, in words."""
    n = int(p["n_models"])
    who = "the model answers" if n == 1 else f"all {n} models answer"
    if p["n_left"] == n:
        return f"with no preamble, {who} left of the {display_name(inst)} midpoint"
    if p["n_right"] == n:
        return f"with no preamble, {who} right of the {display_name(inst)} midpoint"
    counts = [f"{p['n_left']} of {plural(n, 'model')} left", f"{p['n_right']} right"]
    if p["n_spanning"]:
        counts.append(f"{p['n_spanning']} not placed (an interval that includes the midpoint)")
    return f"with no preamble, on the {display_name(inst)}: " + ", ".join(counts)


def _accommodation_words(summary: Summary) -> str:
    """What the asker cues do, in words: a generic preamble effect, or the pooled ratio."""
    moved = get(summary, "findings", "headline", "preamble") or {}
    generic = []
    for model, by_instrument in moved.items():
        directions = ", ".join(f"{display_name(inst)}: {node.get('direction')}" for inst, node in by_instrument.items())
        generic.append(f"{model} ({directions})")
    if generic:
        return (
            "every asker preamble, the non-partisan control included, moves the answers of "
            + "; ".join(generic)
            + " the same way: what moves them is being addressed at all, not the asker's party"
        )
    pooled = get(summary, "findings", "headline", "pooled") or {}
    ratio, left = pooled.get("ratio"), pooled.get("left")
    if isinstance(ratio, (int, float)) and isinstance(left, (int, float)):
        if left > 0:
            return (
                f"a conservative asker moves the answers toward their own party about {ratio:.1f} times as far as a "
                "progressive asker moves them toward theirs"
            )
        return (
            "a conservative asker moves the answers toward their party, "
            "a progressive one does not move them toward theirs"
        )
    return ""


def takeaway_findings(summary: Summary) -> list[Finding]:
    """The audit's takeaway in plain words, the first of the Findings.

    The audit's takeaway in plain words (the Findings open with it): where the models stand,
    what the askers do to their answers, and what a run of this size can support.
    """
    s = get(summary, "findings", "headline", "scope") or {}
    node = get(summary, "findings", "headline", "position") or {}
    parts = [_position_words(inst, p) for inst, p in node.items()]
    if words := _accommodation_words(summary):
        parts.append(words)
    if not parts:
        return []
    reach = (
        "These numbers describe these answers, not the models in general: the run is too small for a test "
        f"({plural(int(s.get('n_models', 0)), 'model')}; the Headline's first line says why)."
        if s.get("descriptive")
        else "The Headline gives each number with its interval and the items it rests on."
    )
    text = "In plain words (the audit): " + "; ".join(parts) + ". " + reach
    return [Finding("takeaway", [text], "conditions", "condition_cis", takeaway=True)]
