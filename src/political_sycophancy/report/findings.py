"""Findings: the report's opening section, written from the numbers in summary.json.

Every measure contributes its own sentences (`core.report_parts.ReportContribution`):
`derive` adds, under `summary["findings"]`, the few quantities the sentences quote that no
section computes; `findings` is then a pure function of the summary: each measure's
sentences in the catalog's order, each quoting summary values by their path (so a test can
parse every quoted number back) and naming the section and table that back it, then the
report's own lines on the design's completeness and what the logs cannot give.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping
from typing import Any

from ..core.numbers import were
from ..core.report_parts import Finding, Summary, Tables
from ..core.summary_contract import read
from .sections import Section, contributions, summary_contract


def get(summary: Summary, *path: str) -> Any:
    """The value at `path` of the summary (None: not computed), the path checked against the measures' contract.

    The value at `path` of the summary (None: not computed), the path checked against the
    contract of every measure's nodes: a key it does not declare raises
    `SummaryContractError`.
    """
    return read(summary, *path, schema=summary_contract())


def derive(summary: Summary, tables: Tables, *, draws: int = 2000, seed: int = 20260) -> dict:
    """What the measures' sentences quote that the sections do not compute, for `summary["findings"]`.

    Each measure's `derive` in the catalog's order.
    """
    out: dict = {}
    for _, contribution in contributions():
        if contribution.derive is not None:
            out.update(contribution.derive(summary, tables, draws, seed))
    return out


def _closing(summary: Summary) -> list[Finding]:
    """The report's own lines: the design's completeness and what these logs cannot give."""
    found = []
    design = get(summary, "design")
    if isinstance(design, dict) and design.get("expected"):
        if design.get("missing"):
            found.append(
                Finding(
                    "exclusions",
                    [
                        f"Incomplete design: {design['missing']:,} of {design['expected']:,} expected samples "
                        f"are missing "
                        "(never run or lost); conditions are compared on matched items only."
                    ],
                    "overview",
                    "design_cells",
                )
            )
        elif design.get("excluded"):
            found.append(
                Finding(
                    "exclusions",
                    [
                        f"Design complete: of {design['expected']:,} expected samples, {design['present']:,} "
                        f"are present and "
                        f"{design['excluded']:,} {were(design['excluded'])} left out on purpose "
                        "when their responses were "
                        "imported "
                        "(counted, with their reasons in the logs; nothing is left to run)."
                    ],
                    "overview",
                    "design_cells",
                )
            )
        else:
            found.append(
                Finding(
                    "exclusions",
                    [f"Design complete: all {design['expected']:,} expected samples are present."],
                    "overview",
                    "design_cells",
                )
            )
    grouped: dict[
        str, list[str]
    ] = {}  # "`model` lacks ..." lines (a code span): one sentence per reason, naming the models
    for text in get(summary, "not_computable") or []:
        m = re.match(r"(`+) ?(.*?) ?\1 (.*)$", text)
        grouped.setdefault(m.group(3) if m else text, []).append(m.group(2) if m else "")
    for reason, models in grouped.items():
        who = ", ".join(x for x in models if x)
        lead = f"Not computable from these logs ({who}): " if who else "Not computable from these logs: "
        found.append(Finding("missing", [lead + reason.replace("`", "") + "."], "overview", missing=True))
    return found


def findings(summary: Summary) -> list[Finding]:
    """The Findings sentences in reading order, every measure's takeaway first.

    The Findings sentences, in reading order: every measure's plain-language takeaways
    first, then each measure's sentences (the catalog's order), then the design's
    completeness and what cannot be computed, when any measure found something
    (a report of no findings says only why). `summary` is summary.json with `derive`'s
    entries under "findings".
    """
    found: list[Finding] = []
    for _, contribution in contributions():
        if contribution.findings is None:
            continue
        for finding in contribution.findings(summary):
            if finding.minor and not finding.fold:
                finding.fold = contribution.minor_findings
            found.append(finding)
    if any(not f.missing for f in found):
        found += _closing(summary)
    # the Findings open with each measure's plain-language takeaway (the catalog's order kept)
    return [f for f in found if f.takeaway] + [f for f in found if not f.takeaway]


def link_titles(built: list[tuple[str, Section]]) -> dict[str, str]:
    """The human title of each section and table a sentence links to (a table's over a section's of one name)."""
    titles = {name: section.title for name, section in built}
    for _, section in built:
        titles |= {t: section.titles[t] for t in section.tables if section.titles.get(t)}
    return titles


def findings_html(items: list[Finding], titles: Mapping[str, str] | None = None) -> str:
    """The Findings list, the minor sentences folded after the others.

    The Findings list; the minor sentences folded under one <details> per fold title (their
    measure's `minor_findings`) after the others; each sentence's link under its table's
    title (`titles`).
    """
    major = "".join(f.html(titles) for f in items if not f.minor)
    folds: dict[str, list[Finding]] = {}
    for f in items:
        if f.minor:
            folds.setdefault(f.fold, []).append(f)
    folded = "".join(
        f"<details class='more'><summary>{html.escape(title)} ({len(minor)} sentences)</summary><ul class='findings'>"
        + "".join(f.html(titles) for f in minor)
        + "</ul></details>"
        for title, minor in folds.items()
    )
    return f"<h2 id='findings'>Findings</h2><ul class='findings'>{major}</ul>{folded}"
