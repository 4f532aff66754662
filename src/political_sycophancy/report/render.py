# Long: the one writer of an analysis (sections, summary contract, report.md, report.html), one atomic write.
"""Write the analysis: tables/*.csv, summary.json, report.md and a self-contained report.html.

Every section (`report.sections`) is built in order; a section that fails is
reported as failed (with the error) instead of stopping the others. The HTML embeds its
figures as base64 PNG and escapes every text that comes from the logs (item texts,
model names, notes); report.md writes every such text with `core.text.md_text` (or as a
code span, `md_code`), so it stays text in a Markdown viewer too: no link, image, raw HTML,
table row or heading of its own, and the CSV tables quote text cells a spreadsheet would
run as formulas (`core.sheet`). Every file is written atomically (a killed run leaves
the previous file or the new one, and its temporary files are removed by the next run).
"""

from __future__ import annotations

import json
import math
import sys
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

import numpy as np
import pandas as pd

from ..core.atomic import clean_stale_temp, write_atomic
from ..core.declare import DeclarationError
from ..core.errors import WorkerDied
from ..core.forked import EarlyWorker, worker_count
from ..core.plotting import (
    BACKGROUND,
    FigureFailure,
    drawn_by_processes,
    new_figure,
    recording_saves,
    saving_in_background,
)
from ..core.report_parts import Finding
from ..core.section import Section, SectionBuilder, column_meaning, table_descriptions
from ..core.sheet import table_csv
from ..core.summary_contract import SUMMARY_VERSION, SummaryContractError, undeclared
from ..core.text import md_code, md_document, md_fence, md_text
from ..designs.paper_values import counts as paper_counts
from ..designs.paper_values import paper_section, paper_vs_logs
from ..stats.options import AnalysisOptions
from .figures import figure_specs, figures_section
from .findings import derive, findings, link_titles
from .headers import shown_table
from .headline import headline, headline_html, headline_markdown
from .headline import numbers as headline_numbers
from .html import FULL_TABLE_ROWS, column_formatter, dump_summary, multiplicity_note, not_computable, page
from .overview import answer_letter_warnings, provenance_lines
from .section_store import SectionStore
from .sections import REPORT, section_builders, section_owners, summary_contract

# report.md shows a table's rows up to this many; a longer one is its CSV link (issue 46 item 7:
# tables of 136, 98, 98 and 56 rows were dumped into it)
MARKDOWN_ROWS = 30


@dataclass
class ReportResult:
    """What a report wrote: its folder, summary, sections, the sections that failed and the tables."""

    out_dir: Path
    summary: dict
    sections: list[tuple[str, Section]] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    tables: dict[str, Path] = field(default_factory=dict)


def _json_safe(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        f = float(value)
        return None if math.isnan(f) or math.isinf(f) else f
    if isinstance(value, (np.bool_,)):
        return bool(value)
    if value is pd.NA or value is pd.NaT:
        return None
    return value


def deep_merge(
    into: dict, new: dict, written: dict[tuple[str, ...], str] | None = None, by: str = "", path: tuple[str, ...] = ()
) -> dict:
    """Merge `new` into `into` recursively (dicts merge, lists join, other values are replaced).

    With `written` (path -> who wrote the value there, kept across merges), a value `by`
    would replace that someone else wrote is an error naming both: two sections writing one
    summary value would silently keep the later's.
    """
    for k, v in new.items():
        here = (*path, str(k))
        if isinstance(v, dict) and isinstance(into.get(k), dict):
            deep_merge(into[k], v, written, by, here)
            continue
        if isinstance(v, list) and isinstance(into.get(k), list):
            into[k] = into[k] + v
            continue
        if written is not None:
            if k in into:
                first = next((written[here[:n]] for n in range(len(here), 0, -1) if here[:n] in written), "")
                if first != by:
                    raise DeclarationError(
                        f"summary.json value {'.'.join(here)!r} is written by "
                        f"{first or 'an earlier section'} and by {by}"
                    )
            written[here] = by
        into[k] = v
    return into


def markdown_table(table: pd.DataFrame, columns: dict[str, str] | None = None) -> str:
    """The table as Markdown under the page's human headers.

    The table as Markdown under the page's human headers, each column in its one format
    (`html.column_formatter`, shares on 0-1 as percentages: `headers.shown_table`), every
    cell literal text.
    """
    table, headers = shown_table(table, columns)
    fmts = [column_formatter(str(c), table.iloc[:, i]) for i, c in enumerate(table.columns)]
    head = "| " + " | ".join(md_text(h) for h in headers) + " |"
    sep = "| " + " | ".join("---" for _ in table.columns) + " |"
    body = [
        "| "
        + " | ".join(
            md_text(_listed(v) if isinstance(v, (list, tuple, dict)) else f(v)) for f, v in zip(fmts, row, strict=True)
        )
        + " |"
        for row in table.itertuples(index=False, name=None)
    ]
    return "\n".join([head, sep, *body])


def _listed(value: Any) -> str:
    text = json.dumps(_json_safe(value))
    return text if len(text) <= 80 else text[:77] + "..."


def _render(
    out: Path,
    title: str,
    meta: list[str],
    built: list[tuple[str, Section]],
    table_paths: dict[str, Path],
    failed: list[str],
    found: list[Finding] | None = None,
    top: list[Finding] | None = None,
    summary: dict | None = None,
) -> None:
    """report.md (for version control) and report.html (for reading, see `report.html`).

    The headline block first, then the Findings, then the sections.
    """
    md = [f"# {md_text(title)}", "", *[f"- {md_text(m)}" for m in meta], ""]
    titles = link_titles(built)
    md += headline_markdown(top or [], summary or {}, titles)
    if found:
        md += ["## Findings", "", *[f"- {f.markdown(titles)}" for f in found], ""]
    empty = [(name, section) for name, section in built if name not in failed and not_computable(section)]
    for name, section in built:
        if name in {n for n, _ in empty}:
            continue
        md += [f"## {md_text(section.title)}", ""]
        if section.text:  # the builders' own Markdown, every value from the logs in it escaped
            md += [section.text, ""]
        for caption, path in section.figures.items():
            rel = Path(path).relative_to(out) if Path(path).is_relative_to(out) else Path(path)
            md += [f"![{md_text(caption)}]({quote(rel.as_posix())})", ""]
        for tname, table in section.tables.items():
            table_rel = md_code(table_paths[f"{name}:{tname}"].relative_to(out).as_posix())
            md += [f"### {md_text(section.titles.get(tname, tname))}", ""]
            known = section.columns.get(tname, {})
            if len(table) > MARKDOWN_ROWS:  # a long table: its CSV link, no rows (report.html shows it)
                gist = dump_summary(table) if len(table) > FULL_TABLE_ROWS else ""
                md += [
                    f"{table_rel}: {len(table):,} rows × {len(table.columns)} columns, in the CSV"
                    + (f". {md_text(gist)}." if gist else " and in report.html."),
                    "",
                ]
            else:
                md += [f"{table_rel} ({len(table)} rows)", ""]
                if len(table.columns):
                    md += [markdown_table(table, known), ""]
            if note := multiplicity_note(table):
                md += [f"*{md_text(note)}*", ""]
            named = dict(zip([str(c) for c in table.columns], shown_table(table, known)[1], strict=True))
            if glossary := [
                f"{md_text(named[str(c)])} (`{c}`): {md_text(m)}"
                for c in table.columns
                if (m := column_meaning(known, str(c))) is not None
            ]:
                md += ["Columns: " + "; ".join(glossary) + ".", ""]
    if empty:
        md += [
            "## Not computable from these logs",
            "",
            *[f"- **{md_text(section.title)}**: {section.text.strip()}" for _, section in empty],
            "",
        ]
    # Raw HTML that reached a section's text without md_text still must not render.
    write_atomic(out / "report.md", md_document("\n".join(md)))
    write_atomic(
        out / "report.html",
        page(
            title,
            meta,
            found or [],
            built,
            table_paths,
            failed,
            out,
            top_html=headline_html(top or [], summary or {}, titles),
        ),
    )


def _imported(frame: pd.DataFrame) -> bool:
    """Whether the logs hold responses imported from a file, such as the first seed's.

    Whether the logs hold responses imported from a file (`import-responses`: each sample
    names its source file), such as the first seed's.
    """
    return "source_file" in frame.columns and bool(frame["source_file"].notna().any())


@dataclass
class _Built:
    """A section one of the processes sharing the sections computed (`core.plotting.drawn_by_processes`).

    What the report shows (a failed builder's section says why), whether it failed, how long
    it took, and what storing it takes: the options it read and its figure files (relative
    to the figure folder).
    """

    index: int
    name: str
    section: Section | None
    failed: bool
    took: float
    reads: set[str]
    written: list[str]


def _build_section(
    index: int, name: str, builder: SectionBuilder, frame: pd.DataFrame, figure_dir: Path, options: AnalysisOptions
) -> _Built:
    """Run one builder, recording the options it reads and the figures it saves.

    A failed one becomes a section that says so.
    """
    saver = BACKGROUND.get()
    if saver is not None:
        saver.owner = name
    started = time.perf_counter()
    try:
        with options.cache.recording() as reads, recording_saves() as saved:
            section = builder(frame, figure_dir, options)
    except Exception as ex:  # one failing section must not hide the others; it is reported
        return _Built(
            index,
            name,
            Section(
                f"{name} (failed)",
                text=(
                    "This section failed with"
                    f" {md_code(f'{type(ex).__name__}: {ex}')}.\n\n{md_fence(traceback.format_exc(limit=6))}"
                ),
            ),
            True,
            time.perf_counter() - started,
            set(),
            [],
        )
    written = [p.relative_to(figure_dir).as_posix() for p in saved if p.is_relative_to(figure_dir)]
    return _Built(index, name, section, False, time.perf_counter() - started, set(reads), written)


def _store_sections(
    store: SectionStore, pending: list[_Built], options: AnalysisOptions, figure_dir: Path, result: ReportResult
) -> None:
    """Store every computed section that did not fail, with the figure files it wrote.

    A figure whose background process and the retry failed has no file.
    """
    for item in pending:
        if item.name in result.failed:
            continue
        store.store(
            item.name,
            item.section,
            item.reads,
            options,
            figure_dir,
            [w for w in item.written if (figure_dir / w).is_file()],
        )


def write_report(
    frame: pd.DataFrame,
    out_dir: str | Path,
    *,
    source: str = "",
    options: AnalysisOptions | None = None,
    progress: Callable[[str], None] | None = None,
    sections: list[tuple[int, str, SectionBuilder]] | None = None,
    figure_jobs: int | None = None,
    store: SectionStore | None = None,
    jobs: int | None = None,
    figure_process: EarlyWorker | None = None,
) -> ReportResult:
    """Build every section from the tidy frame with this run's options and write the report's outputs.

    Build every section (`sections`, default `report.sections.section_builders()`) from the
    tidy frame with this run's options (and their run cache) and write the outputs. The
    sections are computed by `jobs` processes (default: one per CPU; `core.forked`), each
    taking the next one as it finishes one (they share nothing but the frame and the run
    cache's entries made before, such as the cells); the report takes them in order. Figures
    are saved by `figure_jobs` background processes per computing process
    (`core.plotting.saving_in_background`; 0 saves each at once) while the statistics go on;
    the Figures section by `figure_process` when given (`figure_worker`: a process that
    imported the plotting library while this one read the logs). With a `store` (of this
    frame, `report.section_store`) a section computed before from the values these options
    have for the options it read is restored, and every section computed is stored (once its
    figures are written).
    """
    out = Path(out_dir)
    (out / "tables").mkdir(parents=True, exist_ok=True)
    figure_dir = out / "figures"
    figure_dir.mkdir(parents=True, exist_ok=True)
    for folder in (out, out / "tables", figure_dir):
        clean_stale_temp(folder)
    run_options = options or AnalysisOptions()
    if "model" in frame.columns:  # every figure colours a model by its place among all of the run's
        run_options = replace(run_options, model_order=tuple(sorted({str(m) for m in frame["model"].dropna()})))
    summary: dict = {
        "generated": datetime.now(UTC).isoformat(timespec="seconds"),
        "source": source,
        "models": {},
        "tests": {},
        "model_order": list(run_options.model_order),
        "summary_version": SUMMARY_VERSION,
    }
    result = ReportResult(out, summary)
    builders = sorted(section_builders() if sections is None else sections, key=lambda b: (b[0], b[1]))
    pending: list[_Built] = []
    with saving_in_background(figure_jobs) as saver:

        def draw_figures(summary: dict, named: dict[str, pd.DataFrame]) -> Section | None:
            if figure_process is None:
                return figures_section(summary, figure_dir, named)
            section, failures = figure_process.run(drawn_figures, summary, figure_dir, named, figure_jobs)
            if saver is not None:
                saver.failures += failures
            return section

        shown, found, top = _build(
            frame, out, run_options, builders, result, progress, store, pending, jobs, draw_figures
        )
    if saver is not None:
        _figure_failures(saver.failures, shown, result)
    if store is not None:
        _store_sections(store, pending, run_options, figure_dir, result)
    unknown = undeclared(summary, summary_contract())
    if unknown:  # a section wrote a key the contract does not declare: renamed, moved or new
        raise SummaryContractError(
            f"summary.json keys not in its contract (version {SUMMARY_VERSION}): {', '.join(unknown[:8])}"
        )
    write_atomic(out / "summary.json", json.dumps(_json_safe(summary), indent=2, allow_nan=False))
    meta = [
        f"source: {source}" if source else "",
        f"generated {summary['generated']}",
        f"{len(frame):,} samples",
        *provenance_lines(summary),
    ]
    _render(
        out,
        "Political sycophancy analysis",
        [m for m in meta if m],
        shown,
        result.tables,
        result.failed,
        found,
        top,
        _json_safe(summary),
    )
    return result


def figure_worker() -> EarlyWorker:
    """A process that loads the plotting library now, to draw the Figures section while the logs are read.

    A process that imports the plotting library and loads its fonts now, to draw the Figures
    section later (`write_report(figure_process=...)`): started before the logs are read, it
    does this on the CPU the reading leaves idle, and the analysis itself never imports the
    library unless a section draws (about 0.7 s of a small analysis).
    """
    return EarlyWorker(_prepare_figures, doing="drawing the figures")


def _prepare_figures() -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    figure_specs()  # the measures' figure modules, imported while the logs are read

    fig = new_figure(figsize=(1, 1))
    fig.text(0.5, 0.5, "0.5 Aa")
    FigureCanvasAgg(fig).draw()


def drawn_figures(
    summary: dict, figure_dir: Path, tables: dict[str, pd.DataFrame], figure_jobs: int | None
) -> tuple[Section | None, list[FigureFailure]]:
    """The Figures section drawn and saved in this process (a `figure_worker`), and the figures that failed to save."""
    with saving_in_background(figure_jobs) as saver:
        if saver is not None:
            saver.owner = "figures"
        section = figures_section(summary, figure_dir, tables)
    return section, saver.failures if saver is not None else []


def _figure_failures(failures: list[FigureFailure], shown: list[tuple[str, Section]], result: ReportResult) -> None:
    """A figure its background process and this one failed to save.

    Its section says so and counts as failed (as a figure that failed while its section was
    built did).
    """
    for failure in failures:
        for name, section in shown:
            if name == failure.owner:
                section.figures = {c: p for c, p in section.figures.items() if Path(p) != failure.path}
                section.text = (
                    section.text + "\n\n" if section.text else ""
                ) + f"The figure {md_code(failure.path.name)} failed with {md_code(failure.error)}."
                if name not in result.failed and name != "figures":  # (the Figures never cost the report)
                    result.failed.append(name)


def _build(
    frame: pd.DataFrame,
    out: Path,
    run_options: AnalysisOptions,
    builders: list,
    result: ReportResult,
    progress: Callable[[str], None] | None,
    store: SectionStore | None,
    pending: list[_Built],
    jobs: int | None,
    draw_figures: Callable[[dict, dict[str, pd.DataFrame]], Section | None],
) -> tuple[list[tuple[str, Section]], list[Finding], list[Finding]]:
    """The sections to show, in order: every section restored or computed, the findings and the Figures.

    Every section (restored from `store`, else computed by `jobs` processes and added to
    `pending`), the derived findings and the Figures section (`draw_figures`): the sections
    to show, in order.
    """
    summary = result.summary
    figure_dir = out / "figures"
    merge = _merger(summary)
    restored: dict[int, tuple[Section | None, float]] = {}
    todo: list[tuple[int, str, SectionBuilder]] = []
    for k, (_order, name, builder) in enumerate(builders, start=1):
        started = time.perf_counter()
        stored = store.restore(name, run_options, figure_dir) if store is not None else None
        if stored is not None:
            restored[k] = (stored[0], time.perf_counter() - started)
        else:
            todo.append((k, name, builder))
    if progress and todo:
        progress(f"computing {len(todo)} section(s) in {worker_count(jobs, len(todo))} process(es) ...")
    computed = drawn_by_processes(
        lambda t: _build_section(*t, frame, figure_dir, run_options), todo, jobs, doing="computing report sections"
    )
    built = {b.index: b for b in computed}
    for k, (_order, name, builder) in enumerate(builders, start=1):
        if k in restored:
            section, took = restored[k]
        else:
            item = built[k]
            section, took = item.section, item.took
            if item.failed:
                result.failed.append(name)
            else:
                pending.append(item)
        how = "restored, " if k in restored else ""
        if section is None:
            if progress:
                progress(f"[{k}/{len(builders)}] {name}: {how}nothing to report ({took:.1f}s)")
            continue
        _take(section, name, builder, out, result, merge)
        if progress:
            progress(
                f"[{k}/{len(builders)}] {name}: {how}{len(section.tables)} table(s), {len(section.figures)} figure(s)"
                f" ({took:.1f}s)" + ("  FAILED" if name in result.failed else "")
            )
    summary["sections"] = [name for name, _ in result.sections]
    summary["failed_sections"] = result.failed  # the same list: a figure failing later is counted
    named = {tname: table for _, section in result.sections for tname, table in section.tables.items()}
    found, top = _sentences(summary, named, run_options)
    shown = list(result.sections)
    if _imported(frame):  # the paper's published numbers beside logs imported from its files
        shown.insert(0, ("paper", _paper(summary, out, result)))
    saver = BACKGROUND.get()
    if saver is not None:
        saver.owner = "figures"
    try:
        if figs := draw_figures(_json_safe(summary), named):
            shown.insert(0, ("figures", figs))
    except WorkerDied:  # not the figures' failure: the analysis stops, nothing of it is kept
        raise
    except Exception as ex:  # a figure must not cost the report
        shown.insert(
            0,
            (
                "figures",
                Section("Figures (failed)", text=f"The figures failed with {md_code(f'{type(ex).__name__}: {ex}')}."),
            ),
        )
    return shown, found, top


def _merger(summary: dict) -> Callable[[str, SectionBuilder, dict], None]:
    """Merge a section's summary into `summary`, naming the section and its measure.

    A value another section (or the report) wrote is an error naming both (`deep_merge`).
    """
    owners = {module: f"measure {name!r}" if name != REPORT else name for module, name in section_owners().items()}
    written: dict[tuple[str, ...], str] = {(k,): REPORT for k, v in summary.items() if not isinstance(v, dict)}

    def merge(name: str, builder: SectionBuilder, node: dict) -> None:
        module = getattr(builder, "__module__", "?")
        deep_merge(summary, _json_safe(node), written, f"section {name!r} of {owners.get(module, module)}")

    return merge


def _take(
    section: Section,
    name: str,
    builder: SectionBuilder,
    out: Path,
    result: ReportResult,
    merge: Callable[[str, SectionBuilder, dict], None],
) -> None:
    """A computed section into the report.

    Its tables' titles and column meanings (its measure's tables.yaml), its summary merged,
    its tables written.
    """
    module = sys.modules.get(getattr(builder, "__module__", ""))
    titles, columns = table_descriptions(getattr(module, "__package__", None) or "", list(section.tables))
    section.titles = {**titles, **section.titles}
    section.columns = {**columns, **section.columns}
    result.sections.append((name, section))
    merge(name, builder, section.summary)
    for tname, table in section.tables.items():
        fname = tname if tname not in {p.stem for p in result.tables.values()} else f"{name}_{tname}"
        path = out / "tables" / f"{fname}.csv"
        write_atomic(path, table_csv(table))
        result.tables[f"{name}:{tname}"] = path


def _sentences(
    summary: dict,
    named: dict[str, pd.DataFrame],
    run_options: AnalysisOptions,
) -> tuple[list[Finding], list[Finding]]:
    """The measures' derived and Headline numbers into `summary["findings"]`, then the sentences quoting them.

    The measures' derived numbers and Headline numbers into `summary["findings"]`, then the
    Findings and the Headline sentences (also written there).
    """
    summary["findings"] = derive(summary, named, draws=run_options.bootstrap_draws, seed=run_options.seed)
    summary["findings"]["headline"] = headline_numbers(
        summary, named, draws=run_options.bootstrap_draws, seed=run_options.seed
    )
    found = findings(_json_safe(summary))
    top = headline(_json_safe(summary)) + answer_letter_warnings(_json_safe(summary))  # degenerate responders
    summary["findings"]["sentences"] = [f.markdown() for f in found]
    summary["findings"]["headline_sentences"] = [f.markdown() for f in top]
    return found, top


def _paper(summary: dict, out: Path, result: ReportResult) -> Section:
    """The paper's published values beside these logs (`designs.paper_values`).

    Its section, its table written, its counts in `summary["findings"]`.
    """
    table = paper_vs_logs(_json_safe(summary))
    summary["findings"]["paper_vs_logs"] = paper_counts(table)
    paper = paper_section(table)
    paper.titles, paper.columns = table_descriptions("political_sycophancy.designs", ["paper_vs_logs"])
    path = out / "tables" / "paper_vs_logs.csv"
    write_atomic(path, table_csv(table))
    result.tables["paper:paper_vs_logs"] = path
    return paper
