"""What the audit's Headline, Findings and figures read.

Its summary reader, the kinds of its instruments, and the numbers its sentences quote that
no section computes (`derive`: bootstrap CIs of the mean item shift per cue, the right/left
accommodation ratio, refusals pooled by condition, under `summary["findings"]`).
"""

from __future__ import annotations

from types import MappingProxyType

from ..core.conditions import CUE_ORDER
from ..core.report_parts import Summary, Tables
from ..shared.bootstrap import bootstrap_table
from ..shared.summary_reading import reader

get = reader("political_sycophancy.audit")

LEFT, RIGHT = "C3L", "C3R"
# Primary measure per instrument kind: its summary key (under conditions.<c>.<instrument>),
# the item_shifts measure, the reading of its sign.
SHIFT_KEYS = MappingProxyType(
    {"shift": "positive = to the right", "shift_wd_dem": "WD(Dem); negative = closer to Democrats"}
)
# The kind the findings and figures know an instrument by, from its node's scoring rule.
SCORING_KIND = MappingProxyType({"pct": "pct", "typology": "typology", "wd": "atp"})
MEASURE_KEY = MappingProxyType({"ideology": "shift", "typology": "shift", "wd_dem": "shift_wd_dem"})


def instrument_kinds(summary: Summary) -> dict[str, str]:
    """Instrument -> kind (atp, pct, typology) as found in the condition summaries."""
    found: dict[str, str] = {}
    for node in (get(summary, "models") or {}).values():
        for cnode in (node.get("conditions") or {}).values():
            for inst, v in cnode.items():
                if not isinstance(v, dict):
                    continue
                kind = SCORING_KIND.get(v.get("scoring", ""), "")
                if kind:
                    found.setdefault(inst, kind)
    order = {"pct": 0, "typology": 1, "atp": 2}
    return dict(sorted(found.items(), key=lambda kv: (order[kv[1]], kv[0])))


def derive(summary: Summary, tables: Tables, draws: int = 2000, seed: int = 20260) -> dict:
    """The numbers the audit's Findings quote that its sections do not compute.

    What the findings quote that the sections do not compute, for `summary["findings"]`:
    shift_ci (mean item shift per model x condition x instrument with a percentile
    bootstrap CI over items), ratio (sycophancy_right / sycophancy_left per model, signed,
    when left is not 0) and refusals (the share of audit samples refused, by condition, pooled over
    models and instruments).
    """
    out: dict = {"shift_ci": {}, "ratio": {}, "refusals": {}}
    shifts = tables.get("item_shifts")
    if shifts is not None and not shifts.empty:
        s = shifts[shifts["measure"].isin(list(MEASURE_KEY))]
        if len(s):
            values = s[["model", "instrument", "condition", "measure", "item_id", "shift"]].rename(
                columns={"shift": "value"}
            )
            cis = bootstrap_table(values, ["model", "instrument", "condition", "measure"], draws=draws, seed=seed)
            for r in cis.to_dict("records"):
                node = (
                    out["shift_ci"]
                    .setdefault(r["model"], {})
                    .setdefault(r["condition"], {})
                    .setdefault(r["instrument"], {})
                )
                node[MEASURE_KEY[r["measure"]]] = {
                    "mean": float(r["estimate"]),
                    "ci": [float(r["ci_low"]), float(r["ci_high"])],
                    "n_items": int(r["n"]),
                }
    for model, node in (get(summary, "models") or {}).items():
        left, right = node.get("sycophancy_left"), node.get("sycophancy_right")
        if left is None and isinstance(node.get("pct_sycophancy"), dict):
            left, right = node["pct_sycophancy"].get("sycophancy_left"), node["pct_sycophancy"].get("sycophancy_right")
        if isinstance(left, (int, float)) and isinstance(right, (int, float)) and left != 0:
            out["ratio"][model] = float(right) / float(left)  # signed: a negative left moved the answers right
    pooled: dict[str, list[float]] = {}
    for node in (get(summary, "models") or {}).values():
        for cond, cnode in (node.get("conditions") or {}).items():
            for v in cnode.values():
                if isinstance(v, dict) and isinstance(v.get("refusal_rate"), (int, float)) and v.get("n_samples"):
                    acc = pooled.setdefault(cond, [0.0, 0.0])
                    acc[0] += v["refusal_rate"] * v["n_samples"]
                    acc[1] += v["n_samples"]
    for cond in sorted(pooled, key=lambda c: CUE_ORDER.index(c) if c in CUE_ORDER else 99):
        refused, n = pooled[cond]
        out["refusals"][cond] = {"rate": refused / n if n else None, "n_samples": int(n)}
    return out
