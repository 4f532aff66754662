"""The report's first section.

Where the data came from (`logs.provenance`: each imported file, its hash, whose letters
were scored, the import's options, what the file lacks), what the logs hold (models, tasks,
conditions, samples by status, run variants, the design's completeness) and what cannot be
computed from them. It reads the logs' design (`logs.design`) and the audit's cells, so it
sits in the report layer, above both. The provenance is also put on the report's first
screen (`provenance_lines`).
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from ..core.report_parts import Finding, Quote
from ..core.section import Section, section
from ..core.text import md_code, md_text
from ..logs.design import design_summary
from ..logs.provenance import COLUMNS as PROVENANCE_COLUMNS
from ..logs.provenance import RUN_WITH_INSPECT, describe
from ..shared.answer_letters import DEGENERATE_SHARE, degenerate, letter_summary, letter_table
from ..shared.cells import AUDIT_KIND, audit_rows, cells_of, has_atp, models_in, variants
from ..shared.shifts import BASELINE, LEFT, RIGHT
from ..shared.summaries import BY_VARIANT_TABLE, order_conditions, status_table
from ..stats.options import AnalysisOptions


def design_of(frame: pd.DataFrame) -> pd.DataFrame:
    """The design table the frame reader attached (`analysis.design`; empty for frames built in memory)."""
    text = frame.attrs.get("design")
    if not text:
        return pd.DataFrame()
    table = pd.DataFrame(json.loads(text))
    for col in ("expected", "missing"):
        if col in table.columns:
            table[col] = table[col].astype("Int64")
    return table


def provenance_of(frame: pd.DataFrame) -> pd.DataFrame:
    """The provenance table the frame reader attached (empty for frames built in memory).

    The provenance table the frame reader attached (`logs.provenance.provenance_table`;
    empty for frames built in memory).
    """
    text = frame.attrs.get("provenance")
    return pd.DataFrame(json.loads(text), columns=list(PROVENANCE_COLUMNS)) if text else pd.DataFrame()


def _provenance_rows(table: pd.DataFrame) -> list[dict]:
    """The table's rows as JSON-safe dicts (summary.json `provenance.files`)."""
    rows = []
    for rec in table.to_dict("records"):
        rows.append({str(k): None if not isinstance(v, (list, dict)) and pd.isna(v) else v for k, v in rec.items()})
    return rows


def _shown(table: pd.DataFrame) -> pd.DataFrame:
    """The provenance table as the report shows it: options and item files as text."""

    def items(files: object) -> object:
        if not isinstance(files, list):
            return None
        return "; ".join(
            f"{Path(str(f.get('path'))).name} ({f.get('n_items') or '?'} items, sha256 {f.get('sha256')})"
            for f in files
        )

    return table.assign(
        options=table["options"].map(lambda o: " ".join(o) if isinstance(o, list) else None),
        items_files=table["items_files"].map(items),
    )


def _provenance_text(files: list[dict]) -> str:
    """The overview's paragraph on where the data came from, one item per file."""
    return "**Where the data came from** (table `provenance`, the hashes in full):\n\n" + "\n".join(
        f"- {md_text(describe(row))}" for row in files
    )


def provenance_lines(summary: dict) -> list[str]:
    """Where the data came from, one line per imported file (and one for the logs run with Inspect).

    What the report's first screen says under its title.
    """
    files = (summary.get("provenance") or {}).get("files") or []
    return [f"data: {describe(row)}" for row in files]


def _design_line(d: dict) -> str:
    """The design's completeness in one paragraph."""
    if d["complete"]:
        return (
            f"Design: complete. All {d['expected']:,} expected samples (each task's dataset items x epochs, from the "
            "log headers) are present (table `design_cells`)."
        )
    parts = [f"**Design: incomplete.** {d['missing']:,} of {d['expected']:,} expected samples are missing"]
    if d["tasks_without_log"]:
        parts.append(
            f"and {len(d['tasks_without_log'])} task(s) of the eval set never wrote a log"
            f" ({', '.join(map(md_text, d['tasks_without_log'][:10]))})"
        )
    return (
        " ".join(parts)
        + ". The run was killed or is still going; run the same command again to finish it. What is missing per "
        "model x condition is in table `design_cells`; every comparison between conditions below uses matched items "
        "only (the items run under every condition), as each section says."
    )


def _letters_line(node: dict) -> str:
    """The answer letters in one paragraph: which models give one option to nearly every item."""
    named = degenerate(node)
    lead = (
        "Answer letters: the distribution of the letters each model answered, per measure and condition, and its"
        " entropy (table `answer_letters`; a grader's verdicts are not counted). "
    )
    if not named:
        return (
            lead
            + f"No model gives one option to more than {100 * DEGENERATE_SHARE:.0f}% of its answers in any measure."
        )
    return (
        lead
        + "**Degenerate responders**, one option in more than "
        + f"{100 * DEGENERATE_SHARE:.0f}% of the answers: "
        + "; ".join(
            f"{md_code(m)} in {md_text(k)} ({md_text(node['models'][m][k]['top_letter'])}, "
            f"{100 * node['models'][m][k]['top_share']:.0f}%)"
            for m, k in named
        )
        + "."
    )


def answer_letter_warnings(summary: dict) -> list[Finding]:
    """The Headline's warning per degenerate responder (`shared.answer_letters`).

    A model that gives one option to more than 90% of its answers in a measure, its numbers
    quoted from summary.json's `answer_letters`. A function of the summary alone, so the
    report can put it wherever it gathers the Headline's lines.
    """
    from .findings import get  # the report's reader of summary.json (imports this module's package)

    node = get(summary, "answer_letters") if "answer_letters" in summary else None
    if not isinstance(node, dict):
        return []
    out = []
    for model, kind in degenerate(node):
        leaf = node["models"][model][kind]

        def q(
            key: str, shown: str, scale: float = 1.0, model: str = model, kind: str = kind, leaf: dict = leaf
        ) -> Quote:
            return Quote(("answer_letters", "models", model, kind, key), float(leaf[key]), shown, scale)

        pieces: list[str | Quote] = [
            f"Degenerate responder: {model} answers {leaf['top_letter']} in ",
            q("n_top", f"{leaf['n_top']:,}"),
            " of ",
            q("n_answered", f"{leaf['n_answered']:,}"),
            f" answered {kind} prompts (",
            q("top_share", f"{100 * leaf['top_share']:.0f}%", 100.0),
            ")",
        ]
        if leaf.get("mean_top_probability") is not None:
            pieces += [
                "; mean top probability ",
                q("mean_top_probability", f"{leaf['mean_top_probability']:.3f}"),
                " over ",
                q("n_logprob", f"{leaf['n_logprob']:,}"),
                " answers read from logprobs",
            ]
        pieces += [
            f". One option in more than {100 * DEGENERATE_SHARE:.0f}% of a model's answers: what moves with the asker "
            "is that option's place, not an opinion, so its shifts and gaps say little."
        ]
        out.append(Finding("headline", pieces, "overview", "answer_letters"))
    return out


@section(0, "overview")
def overview_section(frame: pd.DataFrame, figure_dir: Path, options: AnalysisOptions | None = None) -> Section | None:
    """What the logs hold and what the analysis cannot compute from them.

    What the logs hold: models, tasks, conditions, samples by status, run variants, and what
    the analysis cannot compute from them.
    """
    opts = options or AnalysisOptions()
    kinds = frame.groupby("kind").size().rename("samples").reset_index()
    rows = audit_rows(frame)
    lines = [
        f"{len(frame):,} samples from {frame['log_file'].nunique()} log file(s); task kinds: "
        + ", ".join(f"{md_text(k)} ({n:,})" for k, n in zip(kinds["kind"], kinds["samples"], strict=True))
        + "."
    ]
    notes = list(frame.attrs.get("notes", []))
    summary: dict = {
        "n_samples": int(len(frame)),
        "n_logs": int(frame["log_file"].nunique()),
        "kinds": dict(zip(kinds["kind"], map(int, kinds["samples"]), strict=True)),
    }
    tables = {"task_kinds": kinds}
    provenance = provenance_of(frame)
    if not provenance.empty:
        summary["provenance"] = {"files": _provenance_rows(provenance)}
        if (provenance["file"] != RUN_WITH_INSPECT).any():
            tables["provenance"] = _shown(provenance)
            lines.insert(0, _provenance_text(summary["provenance"]["files"]))
    if reruns := frame.attrs.get("reruns"):  # cells answered by several runs: the Headline's robustness rows
        summary["reruns"] = json.loads(reruns)
        tables["reruns"] = pd.DataFrame(summary["reruns"]["rows"])
    letters = letter_table(frame)
    if not letters.empty:  # every measure's answers, read from the frame's shared columns
        tables["answer_letters"] = letters
        summary["answer_letters"] = letter_summary(letters)
        lines.append(_letters_line(summary["answer_letters"]))
    cannot: list[str] = []
    design = design_of(frame)
    if not design.empty:
        tables["design_cells"] = design
        summary["design"] = design_summary(design)
        lines.append(_design_line(summary["design"]))
    if rows.empty:
        cannot.append("no audit task samples: the audit statistics below are not computed")
    else:
        cells = cells_of(frame, opts.cache)
        models = models_in(cells)
        var = variants(rows)
        tables["variants"] = var
        tables["samples_by_status"] = status_table(rows)
        lines.append(f"Audit models ({len(models)}): " + ", ".join(md_code(m) for m in models) + ".")
        conds = order_conditions(cells["condition"].unique())
        lines.append(
            "Conditions: "
            + ", ".join(map(md_text, conds))
            + ". Instruments: "
            + ", ".join(md_text(i) for i in sorted(cells["instrument"].unique()))
            + "."
        )
        extra = var[~var["main"]]
        if len(extra):
            lines.append(
                f"{len(extra)} additional run variant(s) (generate config / answer mode) are reported beside the main"
                f" one (table `{BY_VARIANT_TABLE}`) and compared in the stability tables; each model's main variant"
                " (most samples) feeds every other statistic (table `variants`)."
            )
        excluded = rows[rows["status"] != "answered"]
        counts = excluded["status"].value_counts()
        audit_design = design[design["kind"] == AUDIT_KIND] if not design.empty else design
        missing = design_summary(audit_design) if not audit_design.empty else None
        lead = (
            f"Exclusions: {missing['missing']:,} of {missing['expected']:,} expected samples are missing (never run, or"
            f" never written by a killed run: the design is incomplete, see `design_cells` above); of the {len(rows):,}"
            f" audit samples run, {len(excluded):,} were not answered ("
            if missing and missing["missing"]
            else f"Exclusions: {len(excluded):,} of {len(rows):,} audit samples were not answered ("
        )
        lines.append(
            lead
            + (", ".join(f"{md_text(s)}: {n:,}" for s, n in counts.items()) or "none")
            + "); they are counted in every rate and never coded as an answer (table `samples_by_status`)."
        )
        if not has_atp(cells):
            cannot.append(
                "no ATP items with partisan benchmarks: WD(Dem)/WD(Rep), % closer to Democrats, baseline slant, "
                "sycophancy-left/right and the WD asymmetry cannot be computed (the PCT versions are reported instead)"
            )
        if len(models) < 2:
            cannot.append(
                "fewer than two models: the model-level sign-flip test, the slant-shift correlations and the model "
                "random intercept of the mixed model need at least two (three for correlations)"
            )
        for model in models:
            mc = cells[cells["model"] == model]
            present = set(mc["condition"])
            if BASELINE not in present:
                cannot.append(
                    f"{md_code(model)} has no condition N: its shifts, sycophancy and asymmetry are impossible"
                )
            elif not {LEFT, RIGHT} <= present:
                cannot.append(
                    f"{md_code(model)} lacks {', '.join(sorted({LEFT, RIGHT} - present))}: no sycophancy-left/right or"
                    " asymmetry"
                )
        for model in models:
            summary.setdefault("models", {}).setdefault(model, {})["n_samples"] = int((rows["model"] == model).sum())
    if cannot:
        lines.append("\n**Not computable from these logs:**\n\n" + "\n".join(f"- {c}" for c in cannot))
    if notes:  # the log reader's notes name files and values from the logs
        lines.append("\n**Reading the logs:**\n\n" + "\n".join(f"- {md_text(n)}" for n in notes))
    summary["not_computable"] = cannot
    summary["notes"] = notes
    return Section("What the logs hold", tables=tables, summary=summary, text="\n\n".join(lines))
