"""The audit's Findings: the sentences the report opens with, written from summary.json.

`derived.derive` adds the few quantities the sentences quote that no section computes
(bootstrap CIs of the mean item shift per cue, the right/left accommodation ratio,
refusals pooled by condition) under `summary["findings"]`; `findings` is then a pure function of the
summary: a list of sentences, each quoting summary values by their path (so a test can
parse every quoted number back) and naming the section and table that back it. When the
logs cannot support a finding, its sentence says what is missing instead.
"""

from __future__ import annotations

from ..core.conditions import BASELINE, CUE_ORDER
from ..core.numbers import plural
from ..core.plotting import short_labels
from ..core.report_parts import Finding, Quote, Summary
from ..shared.summaries import TOP_GAP_FLOOR
from ..shared.summary_reading import join
from .derived import LEFT, RIGHT, SHIFT_KEYS, get, instrument_kinds
from .headline_scope import takeaway_findings

_q, _p, _with_ci, _join = get.quote, get.p_value, get.with_ci, join


# --- the sentences ---------------------------------------------------------------------


def _fig1_label(summary: Summary, models: list[str]) -> str:
    """The label of the gap share: the first seed's Fig. 1 only for a Phase 1 run.

    The first seed's Fig. 1 is of its Phase 1 run (every item under N alone): a run with
    cues (Phase 2, a subset of items) counts the same share on other items.
    """
    conditions = {c for m in models for c in (get(summary, "models", m, "conditions") or {})}
    if conditions == {BASELINE}:
        return "(the first seed's Fig. 1)"
    return "(counted as the first seed's Fig. 1 counts it, but on this run's items: its Fig. 1 is of the Phase 1 run)"


def _baseline(summary: Summary, models: list[str], instruments: dict[str, str], names: dict[str, str]) -> list[Finding]:
    found = []
    labels = {
        "pct": ("PCT mean ideology", "mean_ideology", "mean_ideology", "positive = right"),
        "typology": ("Typology score", "score", "score", "positive = right"),
        "atp": ("Share of ATP items closer to Democrats", "pct_closer_dem", "pct_closer_dem", "%"),
    }
    for inst, kind in instruments.items():
        title, key, ci_key, unit = labels[kind]
        parts = []
        for m in models:
            if get(summary, "models", m, "conditions", BASELINE, inst, key) is None:
                continue
            v = _with_ci(
                summary,
                ("models", m, "conditions", BASELINE, inst, key),
                ("models", m, "conditions", BASELINE, inst, "ci", ci_key),
                default=1 if kind == "atp" else 2,
            )
            parts.append([f"{names[m]} ", *v])
        if parts:
            found.append(
                Finding(
                    "baseline",
                    [f"Baseline (asker N), {inst}: {title} ({unit}): ", *_join(parts), "."],
                    "conditions",
                    "condition_cis",
                )
            )
        else:
            found.append(
                Finding(
                    "baseline",
                    [f"Baseline (asker N), {inst}: no answers under N, so no baseline position."],
                    "conditions",
                    "condition_summary",
                    missing=True,
                )
            )
    for inst in [i for i, kind in instruments.items() if kind == "atp"]:
        # the first seed's Fig. 1: the share rises with the partisan gap (75-82% on its 293 items with gap >= 0.2)
        path = ("conditions", BASELINE, inst, "closer_by_gap", f"{TOP_GAP_FLOOR:g}")
        by_model: list[list[str | Quote]] = [
            [f"{names[m]} ", share, f" of {get(summary, 'models', m, *path, 'n_items')}"]
            for m in models
            if (share := _q(summary, "models", m, *path, "pct_closer_dem", digits=1, suffix="%"))
        ]
        if by_model:
            found.append(
                Finding(
                    "baseline",
                    [
                        f"Baseline (asker N), {inst}, items with partisan gap of at least {TOP_GAP_FLOOR:g} "
                        f"{_fig1_label(summary, models)}: share closer to Democrats ",
                        *_join(by_model),
                        ".",
                    ],
                    "conditions",
                    "closer_by_gap",
                )
            )
    if "atp" in instruments.values():
        parts = [
            [
                f"{names[m]} ",
                *_with_ci(summary, ("models", m, "baseline_slant"), ("models", m, "ci", "baseline_slant"), signed=True),
            ]
            for m in models
            if get(summary, "models", m, "baseline_slant") is not None
        ]
        if parts:
            found.append(
                Finding(
                    "baseline",
                    [
                        "Baseline slant, WD(Rep) - WD(Dem) under N (positive = closer to Democrats): ",
                        *_join(parts),
                        ".",
                    ],
                    "sycophancy",
                    "decomposition_cis",
                )
            )
    else:
        found.append(
            Finding(
                "baseline",
                [
                    "Baseline slant in WD units is missing: the logs hold no ATP items with Democrat/Republican "
                    "benchmarks (the PCT and Typology positions above stand in for it)."
                ],
                "overview",
                missing=True,
            )
        )
    return found


def _shifts(summary: Summary, models: list[str], instruments: dict[str, str], names: dict[str, str]) -> list[Finding]:
    found = []
    # the strongest cues first (the paper's focal contrast), then the milder ones
    conds = [
        c for c in (LEFT, RIGHT, "C1L", "C1R", "CA") if any(get(summary, "models", m, "conditions", c) for m in models)
    ]
    conds += sorted({c for m in models for c in (get(summary, "models", m, "conditions") or {})} - set(CUE_ORDER))
    has_n = any(get(summary, "models", m, "conditions", BASELINE) for m in models)
    if not has_n:
        return [
            Finding(
                "shift",
                [
                    "Shifts under the partisan cues are missing: the logs hold no answers under N, the baseline "
                    "every shift is measured from."
                ],
                "shifts",
                missing=True,
            )
        ]
    for inst in instruments:
        for cond in conds:
            parts = []
            key = ""
            for m in models:
                for k in SHIFT_KEYS:
                    if get(summary, "findings", "shift_ci", m, cond, inst, k, "mean") is not None:
                        key = k
                        parts.append(
                            [
                                f"{names[m]} ",
                                *_with_ci(
                                    summary,
                                    ("findings", "shift_ci", m, cond, inst, k, "mean"),
                                    ("findings", "shift_ci", m, cond, inst, k, "ci"),
                                    signed=True,
                                ),
                            ]
                        )
                        break
            if parts:
                found.append(
                    Finding(
                        "shift",
                        [
                            f"Shift under {cond} against N, {inst} ({SHIFT_KEYS[key]}; mean over items answered "
                            f"under both): ",
                            *_join(parts),
                            ".",
                        ],
                        "shifts",
                        "shift_summary",
                        minor=cond not in (LEFT, RIGHT),
                    )
                )
    if not found:
        found.append(
            Finding(
                "shift",
                ["Shifts under the partisan cues are missing: no item was answered both under N and under a cue."],
                "shifts",
                missing=True,
            )
        )
    return found


def _ratio_words(ratio: Quote | None) -> list[str | Quote]:
    """`, right/left +8.00`; a negative ratio said for what it is (the left cue moved the answers right)."""
    if ratio is None:
        return [", right/left undefined (left is 0)"]
    if ratio.value < 0:
        return [", right/left ", ratio, " (signed: left is negative, the left cue moved the answers right)"]
    return [", right/left ", ratio]


def _sycophancy(summary: Summary, models: list[str], names: dict[str, str]) -> list[Finding]:
    wd = [
        m
        for m in models
        if get(summary, "models", m, "sycophancy_left") is not None
        and get(summary, "models", m, "sycophancy_right") is not None
    ]
    pct = [m for m in models if get(summary, "models", m, "pct_sycophancy", "sycophancy_left") is not None]
    if wd:
        parts = []
        for m in wd:
            left = _with_ci(
                summary, ("models", m, "sycophancy_left"), ("models", m, "ci", "sycophancy_left"), signed=True
            )
            right = _with_ci(
                summary, ("models", m, "sycophancy_right"), ("models", m, "ci", "sycophancy_right"), signed=True
            )
            p: list[str | Quote] = [f"{names[m]}: left ", *left, ", right ", *right]
            ratio = _q(summary, "findings", "ratio", m, digits=2)
            p += _ratio_words(ratio)
            ci_left = get(summary, "models", m, "ci", "sycophancy_left")
            if (
                ratio
                and isinstance(ci_left, list)
                and len(ci_left) == 2
                and None not in ci_left
                and ci_left[0] <= 0 <= ci_left[1]
            ):
                p.append(" (unstable: left's CI includes 0)")
            parts.append(p)
        return [
            Finding(
                "sycophancy",
                ["Sycophancy (ATP, WD units; positive = moved toward the asker's party): ", *_join(parts), "."],
                "sycophancy",
                "decomposition_cis",
            )
        ]
    if pct:
        parts = []
        for m in pct:
            p = [
                f"{names[m]}: left ",
                _q(summary, "models", m, "pct_sycophancy", "sycophancy_left", digits=2, signed=True) or "n/a",
                ", right ",
                _q(summary, "models", m, "pct_sycophancy", "sycophancy_right", digits=2, signed=True) or "n/a",
            ]
            ratio = _q(summary, "findings", "ratio", m, digits=2)
            p += _ratio_words(ratio)
            parts.append(p)
        return [
            Finding(
                "sycophancy",
                [
                    "Sycophancy in WD units is missing (no ATP items with partisan benchmarks); on the PCT "
                    "(score units, "
                    "no CI): ",
                    *_join(parts),
                    ".",
                ],
                "sycophancy",
                "pct_decomposition",
            )
        ]
    return [
        Finding(
            "sycophancy",
            [f"Sycophancy-left/right are missing: no model has items answered under N and under {LEFT} and {RIGHT}."],
            "sycophancy",
            missing=True,
        )
    ]


def _flip_sentence(summary: Summary, key: str, cells_key: str, lead: str) -> list[str | Quote]:
    t = get(summary, "tests", key) or {}
    n = int(t.get("n_models") or 0)
    floor = _p(summary, "tests", key, "min_p")
    pieces: list[str | Quote] = [
        f"{lead} ({t.get('measure', '')}) over {plural(n, 'model')}: mean ",
        _q(summary, "tests", key, "observed", digits=3, signed=True) or "n/a",
        ", exact sign-flip ",
        *get.p_clause(summary, "tests", key, "p", floor=floor.value if floor is not None else None),
    ]
    if floor is not None:
        pieces += [f"; with {n} models the smallest attainable p is ", floor]
        if floor.value >= 0.05:
            pieces += [", so this test cannot reach p < 0.05 whatever the data"]
    if _p(summary, "tests", cells_key, "p") is not None:
        draws = get(summary, "tests", cells_key, "draws")
        pieces += [  # a drawn test's smallest p is 1 / (1 + draws)
            f"; over model x item cells ({draws} random flips) ",
            *get.p_clause(summary, "tests", cells_key, "p", floor=1 / (1 + draws) if isinstance(draws, int) else None),
        ]
    return [*pieces, "."]


def _sign_flip(summary: Summary) -> list[Finding]:
    """The test of the claim (the accommodation gap) first.

    The paper's A_m second, said for what it is (positive under symmetric accommodation
    too).
    """
    t = get(summary, "tests", "sign_flip_models")
    if not isinstance(t, dict):
        return [
            Finding(
                "test",
                [f"The sign-flip test is missing: no items answered under N, {LEFT} and {RIGHT}."],
                "tests",
                missing=True,
            )
        ]
    if t.get("p") is None:
        reason = t.get("reason", "no reason recorded")
        return [
            Finding(
                "test",
                [f"The model-level sign-flip test is not computable: {reason}."],
                "tests",
                "sign_flip",
                missing=True,
            )
        ]
    found = []
    if isinstance(get(summary, "tests", "sign_flip_models_gap"), dict):
        found.append(
            Finding(
                "test",
                _flip_sentence(
                    summary,
                    "sign_flip_models_gap",
                    "sign_flip_cells_gap",
                    "Asymmetry claim, right-minus-left accommodation gap",
                ),
                "tests",
                "sign_flip",
            )
        )
    found.append(
        Finding(
            "test",
            _flip_sentence(
                summary,
                "sign_flip_models",
                "sign_flip_cells",
                "The paper's A_m, how far apart the two cues put the answers (positive under "
                "symmetric accommodation too)",
            ),
            "tests",
            "sign_flip",
        )
    )
    return found


def _fitted_label(mm: dict) -> str:
    """The specification's label as fitted: with one model the crossed fit has no model intercept."""
    if mm.get("spec") == "crossed" and mm.get("n_models") == 1:
        return "an item random intercept only: with one model there is no model intercept"
    return str(mm.get("spec_label", ""))


def _mixed(summary: Summary) -> list[Finding]:
    found = []
    keys = sorted(k for k in (get(summary, "tests") or {}) if k.startswith("mixed_model"))
    for key in keys or ["mixed_model"]:
        mm = get(summary, "tests", key)
        if not isinstance(mm, dict) or not mm.get("coefficients") or not mm.get("converged"):
            reason = (mm or {}).get("reason") if isinstance(mm, dict) else None
            what = reason or (
                "the fit did not converge" if isinstance(mm, dict) and mm.get("converged") is False else "not fitted"
            )
            found.append(Finding("mixed", [f"Mixed-model coefficients are missing: {what}."], "mixed", missing=True))
            continue
        parts = []
        for cond in mm["coefficients"]:
            base = ("tests", key, "coefficients", cond)
            parts.append(
                [
                    f"{cond} ",
                    *_with_ci(summary, (*base, "estimate"), None, signed=True),
                    " (95% CI ",
                    _q(summary, *base, "ci_low", digits=3, signed=True) or "n/a",
                    " to ",
                    _q(summary, *base, "ci_high", digits=3, signed=True) or "n/a",
                    ", ",
                    *get.p_clause(summary, *base, "p"),
                    ")",
                ]
            )
        table = f"mixed_{mm.get('spec', 'crossed')}_coefficients"
        found.append(
            Finding(
                "mixed",
                [
                    f"Mixed model ({mm.get('spec')}: {_fitted_label(mm)}), outcome "
                    f"{mm.get('outcome_label', mm.get('outcome', ''))}, "
                    f"N as reference, {mm.get('n_obs')} observations: ",
                    *_join(parts),
                    ".",
                ],
                "mixed",
                table,
            )
        )
    return found


def _refusals(summary: Summary) -> list[Finding]:
    found = []
    ref = get(summary, "findings", "refusals") or {}
    parts: list[list[str | Quote]] = []
    for c in ref:
        if (q := _q(summary, "findings", "refusals", c, "rate", digits=1, scale=100, suffix="%")) is not None:
            parts.append([f"{c} ", q])
    if parts:
        found.append(
            Finding(
                "exclusions",
                [
                    "Refusals (share of scored audit samples, pooled over models and instruments; counted in "
                    "every rate, "
                    "never coded as an answer): ",
                    *_join(parts),
                    ".",
                ],
                "overview",
                "samples_by_status",
            )
        )
    return found


def findings(summary: Summary) -> list[Finding]:
    """The audit's Findings sentences, in reading order.

    Baseline, shifts, sycophancy, sign-flip test, mixed model, refusals. `summary` is
    summary.json with `derive`'s entries under "findings".
    """
    models = sorted(get(summary, "models") or {})
    instruments = instrument_kinds(summary)
    if not models or not instruments:
        return [
            Finding(
                "missing",
                ["No audit answers in these logs: none of the audit findings can be computed."],
                "overview",
                missing=True,
            )
        ]
    names = short_labels(models)
    legend = [f"{names[m]} = {m}" for m in models if names[m] != m]
    lead = (
        [
            Finding(
                "models", [f"Models ({len(models)}, short labels): " + "; ".join(legend) + "."], "overview", "variants"
            )
        ]
        if legend
        else []
    )
    return [
        *takeaway_findings(summary),
        *lead,
        *_baseline(summary, models, instruments, names),
        *_shifts(summary, models, instruments, names),
        *_sycophancy(summary, models, names),
        *_sign_flip(summary),
        *_mixed(summary),
        *_refusals(summary),
    ]
