"""report.html for reading: one self-contained page (figures as data URIs) that opens offline and prints cleanly.

Findings first; each section opens with a one-sentence definition, the rest of its text
(formulas, caveats) folded under "Definitions and formulas"; small tables are shown, wide
or long ones are folded under <details> with their CSV link, and every table sits in a
horizontal scroll box so none overflows the page. Numbers are rounded per column to three
significant digits of the column's typical magnitude (p-values to three significant
digits); the CSVs on disk keep every digit. Text from the logs is always escaped, and the
page runs no script (a Findings link lands on the table's heading, above its fold).
"""

from __future__ import annotations

import base64
import html
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np
import pandas as pd

from ..core.numbers import p_text
from ..core.plotting import WIDE_FIGURE
from ..core.report_parts import Finding
from ..core.section import column_meaning
from ..stats.multiplicity import holm
from .findings import findings_html, link_titles
from .headers import column_header, shown_table
from .sections import Section, contributions

# A table is shown open when it is at most this wide and long; else folded.
OPEN_COLUMNS = 8
OPEN_ROWS = 12
# Rows rendered in the page for long tables (the CSV holds them all).
FULL_TABLE_ROWS = 150
# The report's own sections whose tables are bookkeeping: always folded (a measure names
# its own in its report contribution's `folded_sections`).
FOLDED_SECTIONS = ("overview",)
# Section text longer than this is folded after its first sentence...
FOLD_TEXT_CHARS = 320
# ...except the paragraphs a reader must see.
KEEP_OPEN = ("**Not computable", "**Reading the logs", "Exclusions:")

CSS = """
:root{--ink:#1d1d1f;--muted:#5a5a5f;--rule:#d9d9de;--bg2:#f6f6f8;--link:#1f5fbf}
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2em auto;max-width:1100px;padding:0 1em;
color:var(--ink);line-height:1.45}
h1{font-size:1.6em;margin-bottom:.2em}
h2{font-size:1.25em;border-bottom:1px solid var(--rule);padding-bottom:.2em;margin-top:2em}
h3{font-size:.95em;color:#333;margin:1.2em 0 .3em}a{color:var(--link)}
.tw{overflow-x:auto;max-width:100%;margin:.4em 0 1em}
table{border-collapse:collapse;font-size:.8em;font-variant-numeric:tabular-nums}
th,td{border:1px solid var(--rule);padding:.18em .45em;text-align:left;vertical-align:top}
td.n{text-align:right;white-space:nowrap}th{background:var(--bg2)}tr:nth-child(even) td{background:#fbfbfc}
figure{margin:1em 0}figure img{max-width:100%;height:auto;border:1px solid #eee}
figcaption{font-size:.85em;color:var(--muted)}
.meta{color:var(--muted);font-size:.88em}.failed{color:#a00}code{background:var(--bg2);padding:0 .2em}
.findings{padding-left:1.2em}.findings li{margin:.35em 0}.findings li.missing{color:#8a4b00}
.headline{border-left:4px solid #0072B2;padding:.2em 1em;margin:1em 0;background:#f5f9fc}
.headline table.answered{margin:.5em 0}.headline caption{text-align:left;font-size:.9em;color:#444}
a.src{font-size:.78em;text-decoration:none;white-space:nowrap}data{font-weight:600}
details{margin:.3em 0 .8em}details>summary{cursor:pointer;color:var(--muted);font-size:.88em}
details.def>summary,details.more>summary{font-size:.85em}
.def-body{font-size:.9em;color:#333;border-left:3px solid var(--rule);padding-left:.8em}
details.columns dl{font-size:.85em;margin:.2em 0 0 1em}details.columns dt{float:left;clear:left;margin-right:.5em}
details.columns dd{margin:0 0 .15em 0}
p.lead{margin:.4em 0}nav.toc{font-size:.85em;color:var(--muted);margin:1em 0}
nav.toc a{margin-right:.8em;white-space:nowrap}
@media print{
 @page{size:A4;margin:14mm}
 body{max-width:none;margin:0;padding:0;font-size:10pt}
 nav.toc,a.src,details.columns{display:none}
 h2{break-after:avoid;page-break-after:avoid}h3{break-after:avoid}
 figure,table,tr{break-inside:avoid;page-break-inside:avoid}
 figure img{max-height:230mm;width:auto}figure.wide img{width:100%;max-height:none}
 .tw{overflow:visible}table{font-size:7.5pt;table-layout:auto}td{word-break:break-word}th{word-break:normal;overflow-wrap:normal}
 details:not([open])>:not(summary){display:none}
 details>summary{list-style:none}details>summary::-webkit-details-marker{display:none}span.toggle{display:none}
 h3{break-after:avoid;page-break-after:avoid}
 a{color:inherit;text-decoration:none}
}
"""


@dataclass(frozen=True)
class Layout:
    """How the page shows the measures' tables and figures, from their report contributions.

    The tables a reader of the printed report needs (shown open, so they print; every other
    folded table prints as its CSV path, not a toggle), the sections whose tables are
    bookkeeping (always folded), and the section figures the Figures section redraws with
    their CIs (section figure stem -> Figures figure stem: shown once, there).
    """

    key_tables: frozenset[str]
    folded_sections: frozenset[str]
    superseded: Mapping[str, str]


def layout() -> Layout:
    """The page's layout from every measure's report contribution."""
    found = [c for _, c in contributions()]
    return Layout(
        frozenset(t for c in found for t in c.key_tables),
        frozenset((*FOLDED_SECTIONS, *(s for c in found for s in c.folded_sections))),
        MappingProxyType({old: f.stem for c in found for f in c.figures for old in f.supersedes}),
    )


def markdown_to_html(text: str) -> str:
    """Markdown as HTML, with raw HTML escaped and no link or image made, so the page stays offline and safe.

    Markdown as HTML; raw HTML in the text is escaped, not rendered, and no link, image or
    autolink is made (the sections' texts have none of their own: one would come from the
    logs, and an image would load from the network when the page is opened).
    """
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": False}).disable(["link", "image", "autolink"]).render(text)


def _is_p_column(name: str) -> bool:
    """A p-value (or a test's floor `min_p`).

    `p`, `*_p`, `p_value`, `p_boot_*`; not a probability that starts with p_
    (`p_agree_left`, SWAY's `p_plus_*`).
    """
    name = name.lower()
    return name == "p" or name.endswith("_p") or "p_value" in name or "pvalue" in name or name.startswith("p_boot")


# at least this many p-values in one table get the multiplicity note
MULTIPLICITY_MIN = 5


def p_value_columns(table: pd.DataFrame) -> list[str]:
    """The columns of a table that hold p-values (not a test's floor `min_p`)."""
    return [
        str(c)
        for c in table.columns
        if _is_p_column(str(c)) and str(c).lower() != "min_p" and pd.api.types.is_numeric_dtype(table[c])
    ]


def multiplicity_note(table: pd.DataFrame, level: float = 0.05) -> str:
    """One line for a table with many p-values, each computed alone.

    How many fall below `level`, how many would by chance with no effect anywhere, and how
    many stay below it after Holm's adjustment within the table; "" for a table with few.
    """
    values = np.concatenate(
        [pd.to_numeric(table[c], errors="coerce").to_numpy(dtype=float) for c in p_value_columns(table)]
        or [np.array([])]
    )
    values = values[np.isfinite(values)]
    if len(values) < MULTIPLICITY_MIN:
        return ""
    below, kept = int((values < level).sum()), int((holm(values) < level).sum())
    return (
        f"{len(values)} p-values in this table, each unadjusted: {below} below {level:g}, where about "
        f"{len(values) * level:.1f} would be by chance with no effect anywhere; {kept} stay below {level:g} "
        "after Holm's adjustment within the table."
    )


def _is_label_number(name: str) -> bool:
    """Whole numbers that name rather than count (a seed, a year): no thousands separator."""
    return bool(re.search(r"(^|_)(seed|year|wave|id)($|_)", name.lower()))


def column_formatter(name: str, values: pd.Series) -> Callable[[Any], str]:
    """One format per column, never scientific notation.

    One format per column, never scientific notation: integers as integers (with
    thousands separators unless they name something, `_is_label_number`); p-values by the
    report's one rule (`core.numbers.p_text`: three significant digits, "< 0.0001" below);
    other floats to three significant digits
    of the column's median magnitude; an exact zero, or a value that rounds to zero at the
    column's precision (e.g. -7e-15 for "unchanged"), as 0.
    """
    if pd.api.types.is_bool_dtype(values) or not pd.api.types.is_numeric_dtype(values):
        return _cell
    x = pd.to_numeric(values, errors="coerce").to_numpy(dtype=float)
    finite = x[np.isfinite(x)]
    if len(finite) and np.all(finite == np.round(finite)) and np.all(np.abs(finite) < 1e15):
        sep = "" if _is_label_number(name) else ","
        return lambda v: f"{int(v):{sep}}" if _finite(v) else ""
    if _is_p_column(name):
        return lambda v: "" if not _finite(v) else p_text(float(v))  # the report's one rule (core.numbers)
    nonzero = np.abs(finite[finite != 0])
    if not len(nonzero):
        return lambda v: "" if not _finite(v) else "0"
    magnitude = math.floor(math.log10(float(np.median(nonzero))))
    decimals = int(min(4, max(0, 2 - magnitude)))

    def fmt(v: Any) -> str:
        if not _finite(v):
            return ""
        f = float(v)
        if abs(f) < 0.5 * 10**-decimals:
            return "0"
        return f"{f:,.{decimals}f}"

    return fmt


def _finite(v: Any) -> bool:
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool) and math.isfinite(float(v))


def _cell(v: Any) -> str:
    if v is None or v is pd.NA or v is pd.NaT or (isinstance(v, float) and math.isnan(v)):
        return ""
    if isinstance(v, (list, tuple, dict)):
        text = str(v)
        return text if len(text) <= 80 else text[:77] + "..."
    return str(v)


def table_html(table: pd.DataFrame, columns: Mapping[str, str] | None = None) -> str:
    """The table as HTML for reading: rounded numbers under human headers, split when wide.

    The table with its numbers rounded for reading, under human headers (shares on 0-1
    as percentages, `report.headers.shown_table`), inside a horizontal scroll box; a table
    wider than `SPLIT_COLUMNS` is split into blocks of columns, each repeating the leading
    text columns (model, condition, ...), so that none is cut off on a printed page.
    """
    blocks = column_blocks(table)
    if len(blocks) > 1:
        return "".join(table_html(table.iloc[:, b], columns) for b in blocks)
    table, headers = shown_table(table, columns)
    fmts = [column_formatter(str(c), table.iloc[:, i]) for i, c in enumerate(table.columns)]
    numeric = [
        pd.api.types.is_numeric_dtype(table.iloc[:, i]) and not pd.api.types.is_bool_dtype(table.iloc[:, i])
        for i in range(table.shape[1])
    ]
    head = "".join(
        f"<th title='{html.escape(str(c), quote=True)}'>{html.escape(h)}</th>"
        for c, h in zip(table.columns, headers, strict=True)
    )
    rows = []
    for row in table.itertuples(index=False, name=None):
        cells = "".join(
            f"<td class='n'>{html.escape(f(v))}</td>" if num else f"<td>{html.escape(f(v))}</td>"
            for f, num, v in zip(fmts, numeric, row, strict=True)
        )
        rows.append(f"<tr>{cells}</tr>")
    return f"<div class='tw'><table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"


# A table with more columns than this is shown as blocks of at most this many (`column_blocks`).
SPLIT_COLUMNS = 12
# leading text columns repeated in every block (at most this many)
KEY_COLUMNS = 4


def column_blocks(table: pd.DataFrame, width: int = SPLIT_COLUMNS) -> list[list[int]]:
    """The column positions of each block a wide table is shown as.

    The column positions of each block a wide table is shown as: the leading text
    columns (at most `KEY_COLUMNS`) in every block, the others `width` minus those at a time.
    """
    if len(table.columns) <= width:
        return [list(range(len(table.columns)))]
    keys = []
    for i in range(min(KEY_COLUMNS, len(table.columns))):
        col = table.iloc[:, i]
        if pd.api.types.is_numeric_dtype(col) and not pd.api.types.is_bool_dtype(col):
            break
        keys.append(i)
    rest = [i for i in range(len(table.columns)) if i not in keys]
    step = max(1, width - len(keys))
    return [keys + rest[k : k + step] for k in range(0, len(rest), step)]


def dump_summary(table: pd.DataFrame, columns: int = 4) -> str:
    """A long table's one-line summary instead of a preview.

    A long table's one-line summary instead of a preview: how many distinct values its
    leading text columns hold (the first `columns`: models, conditions, measures, ...), not
    a mean over rows that may mix unlike quantities (a WD shift beside a PCT score shift).
    """
    parts = []
    for c in [c for c in table.columns if not pd.api.types.is_numeric_dtype(table[c])][:columns]:
        n = int(table[c].nunique(dropna=True))
        parts.append(f"{n:,} {column_header(str(c))}" + (" values" if n != 1 else " value"))
    return ("rows of " + ", ".join(parts)) if parts else ""


def _glossary(table: pd.DataFrame, columns: dict[str, str]) -> str:
    """What the table's columns mean (those the glossary knows), folded under the table."""
    known = [(str(c), m) for c in table.columns if (m := column_meaning(columns, str(c))) is not None]
    if not known:
        return ""
    _, headers = shown_table(table, columns)
    named = dict(zip([str(c) for c in table.columns], headers, strict=True))
    items = "".join(
        f"<dt><b>{html.escape(named[c])}</b> (<code>{html.escape(c)}</code>)</dt><dd>{html.escape(m)}</dd>"
        for c, m in known
    )
    return f"<details class='columns'><summary>Columns</summary><dl>{items}</dl></details>"


def _table_block(
    section_name: str,
    tname: str,
    table: pd.DataFrame,
    rel: str,
    title: str | None = None,
    columns: dict[str, str] | None = None,
    shown: Layout | None = None,
) -> str:
    """A table under its human title (its id beside the CSV link), its glossary folded under it."""
    size = f"{len(table):,} rows &times; {len(table.columns)} columns"
    link = f"<a href='{html.escape(rel, quote=True)}'>{html.escape(rel)}</a>"
    head = f"<h3 id='table-{html.escape(tname, quote=True)}'>{html.escape(title or tname)}</h3>"
    body = _table_body(shown or layout(), section_name, tname, table, size, link, head, columns or {})
    return body + _glossary(table, columns or {})


def _table_body(
    shown: Layout,
    section_name: str,
    tname: str,
    table: pd.DataFrame,
    size: str,
    link: str,
    head: str,
    columns: Mapping[str, str],
) -> str:
    if not len(table.columns):
        return head + f"<p class='meta'>{link} (empty)</p>"
    if len(table) > FULL_TABLE_ROWS:  # a data file, not a table to read: its link and a summary
        summary = dump_summary(table)
        note = multiplicity_note(table)
        return (
            head
            + f"<p class='meta'>{size}, a data file: {link}"
            + (f". {html.escape(summary)}." if summary else ".")
            + "</p>"
            + (f"<p class='meta multiplicity'>{html.escape(note)}</p>" if note else "")
        )
    note = multiplicity_note(table)
    body = table_html(table, columns) + (f"<p class='meta multiplicity'>{html.escape(note)}</p>" if note else "")
    folded = section_name in shown.folded_sections or len(table.columns) > OPEN_COLUMNS or len(table) > OPEN_ROWS
    if folded:
        state = " class='key' open" if tname in shown.key_tables else ""
        return (
            head + f"<details{state}><summary><span class='toggle'>Show table </span>({size}) &middot; CSV:"
            f" {link}</summary>{body}</details>"
        )
    return head + f"<p class='meta'>{size} &middot; CSV: {link}</p>" + body


# a section with no table and no figure whose text is at most this long is one line saying why
NOT_COMPUTABLE_CHARS = 400


def not_computable(section: Section) -> bool:
    """A section that holds only a short note (why it cannot be computed from these logs).

    Shown as one line of the report's "Not computable" list, not as a heading over it.
    """
    text = section.text.strip()
    return not section.tables and not section.figures and len(text) <= NOT_COMPUTABLE_CHARS and "\n\n" not in text


def _inline(text: str) -> str:
    """A short Markdown note as inline HTML (its paragraph tags dropped)."""
    rendered = markdown_to_html(text.strip()).strip()
    return rendered.removeprefix("<p>").removesuffix("</p>") if rendered.count("<p>") == 1 else rendered


def split_definition(text: str) -> tuple[str, str, str]:
    """(lead sentence, folded rest, paragraphs kept open) of a section's markdown text."""
    paragraphs = [p for p in re.split(r"\n\s*\n", text.strip()) if p.strip()]
    keep = [p for p in paragraphs if p.lstrip().startswith(KEEP_OPEN)]
    rest = [p for p in paragraphs if p not in keep]
    if not rest:
        return "", "", "\n\n".join(keep)
    if len(text) <= FOLD_TEXT_CHARS:
        return "\n\n".join(rest), "", "\n\n".join(keep)
    first = rest[0]
    m = re.match(r"(.{40,}?[.:;])\s+(?=[A-Z`(*])", first, flags=re.S)
    if m and m.group(1).count("`") % 2 == 0:
        lead, tail = m.group(1), first[m.end() :]
    else:
        lead, tail = first, ""
    folded = "\n\n".join([t for t in [tail, *rest[1:]] if t.strip()])
    return lead, folded, "\n\n".join(keep)


def _section_text(text: str) -> str:
    lead, folded, keep = split_definition(text)
    out = ""
    if lead:
        out += f"<div class='lead'>{markdown_to_html(lead)}</div>"
    if keep:
        out += markdown_to_html(keep)
    if folded:
        out += (
            "<details class='def'><summary>Definitions and formulas</summary><div"
            f" class='def-body'>{markdown_to_html(folded)}</div></details>"
        )
    return out


def _figure(caption: str, path: Path) -> str:
    raw = Path(path).read_bytes()
    data = base64.b64encode(raw).decode("ascii")
    mime = "image/svg+xml" if Path(path).suffix == ".svg" else "image/png"
    # a row of panels prints at the full width (PNG header: width, height at bytes 16-24)
    wide = raw[:4] == b"\x89PNG" and int.from_bytes(raw[16:20], "big") >= WIDE_FIGURE * int.from_bytes(
        raw[20:24], "big"
    )
    cls = " class='wide'" if wide else ""
    svg = Path(path).with_suffix(".svg")
    alt = (
        f" <span class='meta'>(vector: figures/{html.escape(svg.name)})</span>"
        if svg.exists() and svg != Path(path)
        else ""
    )
    return (
        f"<figure{cls}><img alt='{html.escape(caption, quote=True)}' src='data:{mime};base64,{data}'>"
        f"<figcaption>{html.escape(caption)}{alt}</figcaption></figure>"
    )


def page(
    title: str,
    meta: list[str],
    found: list[Finding],
    built: list[tuple[str, Section]],
    table_paths: dict[str, Path],
    failed: list[str],
    out: Path,
    top_html: str = "",
) -> str:
    """The whole report.html: the headline block (`headline.headline_html`) first."""
    how = layout()
    parts = [
        f"<h1>{html.escape(title)}</h1>",
        "<ul class='meta'>" + "".join(f"<li>{html.escape(m)}</li>" for m in meta) + "</ul>",
    ]
    if top_html:
        parts.append(top_html)
    if found:
        parts.append(findings_html(found, link_titles(built)))
    empty = [(name, section) for name, section in built if name not in failed and not_computable(section)]
    shown = [(name, section) for name, section in built if name not in {n for n, _ in empty}]
    links = " ".join(
        f"<a href='#{html.escape(name, quote=True)}'>{html.escape(section.title)}</a>" for name, section in shown
    )
    if empty:
        links += f" <a href='#not-computable'>Not computable ({len(empty)})</a>"
    parts.append(f"<nav class='toc'>Sections: {links}</nav>")
    drawn = {Path(p).stem for name, section in built if name == "figures" for p in section.figures.values()}
    for name, section in shown:
        parts.append(f"<h2 id='{html.escape(name, quote=True)}'>{html.escape(section.title)}</h2>")
        if name in failed:
            parts.append("<p class='failed'>This section failed; see its text.</p>")
            parts.append(markdown_to_html(section.text))
        elif section.text:
            parts.append(_section_text(section.text))
        for caption, path in section.figures.items():
            better = how.superseded.get(Path(path).stem)
            if better and better in drawn:
                parts.append(
                    f"<p class='meta'>Figure: {html.escape(caption)} &mdash; shown with its CIs under "
                    f"<a href='#figures'>Figures</a> (without CIs: figures/{html.escape(Path(path).name)}).</p>"
                )
                continue
            parts.append(_figure(caption, Path(path)))
        for tname, table in section.tables.items():
            rel = table_paths[f"{name}:{tname}"].relative_to(out).as_posix()
            parts.append(
                _table_block(name, tname, table, rel, section.titles.get(tname), section.columns.get(tname), how)
            )
    if empty:
        items = "".join(
            f"<li id='{html.escape(name, quote=True)}'><b>{html.escape(section.title)}</b>:"
            f" {_inline(section.text)}</li>"
            for name, section in empty
        )
        parts.append(
            f"<h2 id='not-computable'>Not computable from these logs</h2><ul class='not-computable'>{items}</ul>"
        )
    return (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        f"<meta name='viewport' content='width=device-width, initial-scale=1'><title>{html.escape(title)}</title>"
        f"<style>{CSS}</style></head><body>{''.join(parts)}</body></html>"
    )
