"""Issue 22, "nothing lost, nothing foreign served": hostile values in logs and input files
stay inert wherever the package shows them (console, report.md, report.html, every CSV it
writes), and every command refuses a bad option where it is parsed, in one line.

Each scenario is run and classified by `support.bad_input.classify`, as in
test_cli_bad_input_scenarios.py; each name starts with the issue's scenario id (further
cases of the same class carry the id of the class they test).
"""

from __future__ import annotations

import ast
import csv
import json
import re
from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from support import ROOT
from support.bad_input import DIR, Scenario, accept, classify, error
from support.pew import GOOD, GOOD_ITEM, mini_package

from political_sycophancy.core.items import LIKERT4, load_items
from political_sycophancy.core.text import md_code, md_text

# --- inputs ------------------------------------------------------------------------------

ESCAPES = "evil\x1b[2J\x1b[31m"
BEACON = "![beacon](http://127.0.0.1:9/track.png)"
JS_LINK = "[x](javascript:alert(1))"
ROWS = "m\n\n| injected | row |\n| --- | --- |\n| injected | two |\n\n# injected heading"
FORMULA = '=HYPERLINK("http://127.0.0.1:9/x","click")'
COLUMNS = ["model_id", "question_id", "question_text", "n_options", "options", "raw_response", "letter", "letter_index", "condition"]


def item_file(texts: dict[str, str]) -> str:
    """An item file of Likert items with these ids and texts (direction +1, PCT scoring)."""
    return csv_text(["id", "text", "options", "direction", "scoring"], [[k, t, json.dumps(list(LIKERT4)), 1, "pct"] for k, t in texts.items()])


def answers(texts: dict[str, str], model: str = "p/m", conditions=(("N", "A"), ("C3L", "B"), ("C3R", "D"))) -> str:
    """A response file answering every item of `item_file(texts)` under each condition with
    its letter (so the shift tables list the items with their texts)."""
    rows = [[model, k, t, 4, json.dumps(list(LIKERT4)), letter, letter, "ABCD".index(letter), cond]
            for cond, letter in conditions for k, t in texts.items()]
    return csv_text(COLUMNS, rows)


def csv_text(header: list, rows: list[list]) -> str:
    import io

    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return buf.getvalue()


PLAIN = {"q1": "Should taxes rise?", "q2": "Is the economy better?"}
HOSTILE_ITEMS = {"h1": f"Taxes {BEACON} rise?", "h2": f"Click {JS_LINK} now", "h3": "Plain <img src=x onerror=alert(1)> |pipe| end"}
IMPORT = "import-responses r.csv --items items.csv --log-dir logs"
ANALYZE = "analyze logs --out out --no-reuse --bootstrap 10 --sign-flip-draws 10"
AUDIT = "audit --model faulty/mockllm/model --conditions N --limit 1 --log-dir logs "
PLAN = "plan --model faulty/mockllm/model --items items --log-dir logs --phases phase1 "
LABELLED = csv_text(["id", "statement", "response", "label"], [["r1", "Taxes should rise.", "I agree.", "agree"], ["r2", "War is good.", "No.", "disagree"],
                                                             [FORMULA, "Markets work.", "@SUM(A1:A9)", "neutral"]])
JUDGE = "validate-judge l.csv --grader faulty/mockllm/model "


def model_files(model: str, texts: dict[str, str] = PLAIN) -> dict[str, str]:
    return {"items.csv": item_file(texts), "r.csv": answers(texts, model=model)}


def sav_with_label(label: str):
    """A one-variable ATP wave whose question label is `label`."""

    def write(path: Path) -> None:
        import pandas as pd
        import pyreadstat

        df = pd.DataFrame({"QKEY": [1.0, 2, 3, 4], "F_PARTYSUM_FINAL": [1.0, 2, 1, 2], "F_AGECAT": [1.0, 1, 2, 2], "WEIGHT_W1": [1.0, 1, 1, 1],
                           "Q1_W1": [1.0, 2, 1, 2]})
        pyreadstat.write_sav(df, str(path), column_labels=["id", "party", "age", "weight", f"Q1_W1. {label}"],
                             variable_value_labels={"Q1_W1": {1: "Favor", 2: "Oppose"}, "F_PARTYSUM_FINAL": {1: "Rep", 2: "Dem"},
                                                    "F_AGECAT": {1: "Young", 2: "Old"}})

    return write


# --- checks ------------------------------------------------------------------------------


def console_clean(tmp: Path, ran) -> bool:
    """No control character but newline and tab reached the console (warnings included)."""
    return not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", ran.out + ran.err + "".join(ran.warnings))


def permissive() -> MarkdownIt:
    """A GitHub-like Markdown parser that makes a link of any URL (markdown-it drops
    `javascript:` links by itself; another viewer need not)."""
    md = MarkdownIt("commonmark").enable(["table", "strikethrough"])
    md.validateLink = lambda url: True
    return md


def _tokens(tokens):
    for t in tokens:
        yield t
        yield from _tokens(t.children or [])


def markdown_inert(path: Path) -> bool:
    """report.md renders no link or image but its own (anchors, figures/), no raw HTML, no
    control character, and no line the data started (a table row or heading of its own)."""
    md = path.read_text(encoding="utf-8")
    if re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", md):
        return False
    for t in _tokens(permissive().parse(md)):
        if t.type in ("html_inline", "html_block"):
            return False
        if t.type == "image" and not str(t.attrGet("src")).startswith("figures/"):
            return False
        if t.type == "link_open" and not str(t.attrGet("href")).startswith("#"):
            return False
    return not any(line.lstrip("> ").startswith(("| injected", "# injected")) for line in md.splitlines())


def html_inert(path: Path) -> bool:
    """report.html loads nothing from the network and links nowhere but within the page."""
    page = path.read_text(encoding="utf-8")
    return not re.search(r"""(src|href)\s*=\s*['"]?\s*(https?:|javascript:|//)""", page, re.I)


def report_inert(tmp: Path, ran) -> bool:
    return console_clean(tmp, ran) and markdown_inert(tmp / "out" / "report.md") and html_inert(tmp / "out" / "report.html")


def report_whole(tmp: Path, ran) -> bool:
    """Inert, and no section or figure failed on the values."""
    summary = json.loads((tmp / "out" / "summary.json").read_text())
    return report_inert(tmp, ran) and summary["failed_sections"] == [] and "(failed)" not in (tmp / "out" / "report.md").read_text()


def formula_safe(path: Path) -> bool:
    """Every cell of a CSV that starts like a formula is a number or quoted as text."""
    with path.open(newline="", encoding="utf-8") as fh:
        for row in csv.reader(fh):
            for cell in row:
                if cell[:1] in ("=", "+", "-", "@", "\t", "\r"):
                    try:
                        float(cell)
                    except ValueError:
                        return False
    return True


def judge_output_safe(tmp: Path, ran) -> bool:
    """The formula-like id (from the labelled file) and judge text (the model's) are written, quoted."""
    return formula_safe(tmp / "p.csv") and (tmp / "p.csv").read_text().count("'=HYPERLINK") == 4


def atp_label_safe_and_kept(tmp: Path, ran) -> bool:
    [item] = load_items(tmp / "atp.csv")
    return formula_safe(tmp / "atp.csv") and item.text == FORMULA


# --- the scenarios -----------------------------------------------------------------------

SCENARIOS: list[Scenario] = [
    # E2/E3/S10: values from logs and input files stay inert in the console and the reports
    accept("E2 terminal escapes in a model id stay off import-responses' console", IMPORT, console_clean, files=model_files(ESCAPES)),
    accept("E2 terminal escapes in a model id stay off analyze's console", ANALYZE, console_clean, files=model_files(ESCAPES), before=(IMPORT,)),
    accept("E2 terminal escapes in an item text stay off pools' console", "pools --items items.csv --pool all", console_clean,
           files={"items.csv": item_file({"q1": f"Taxes {ESCAPES} rise?"})}),
    error("E2 terminal escapes in a file name stay off the error line", f"pools --items '{ESCAPES}.csv'", r"evil\\x1b\[2J\\x1b\[31m\.csv: file not found"),
    error("E2 terminal escapes in an option value stay off the error line", f"analyze logs --out out --seed '{ESCAPES}'", r"--seed must be .*\\x1b\[2J",
          files={"logs": DIR}),
    accept("E3 terminal escapes in a model id stay out of report.md", ANALYZE, report_inert, files=model_files(ESCAPES), before=(IMPORT,)),
    accept("E3 a Markdown image and link in item texts render as text in report.md", ANALYZE, report_inert, files=model_files("p/m", HOSTILE_ITEMS),
           before=(IMPORT,)),
    accept("E3 a javascript: link as a model name renders as text in report.md", ANALYZE, report_inert, files=model_files(JS_LINK), before=(IMPORT,)),
    accept("E3 a Markdown image in the log folder's name renders as text in report.md", "analyze 'l![b](http:x.png)' --out out --no-reuse --bootstrap 10 "
           "--sign-flip-draws 10", report_inert, files=model_files("p/m"),
           before=("import-responses r.csv --items items.csv --log-dir 'l![b](http:x.png)'",)),
    accept("E3 math text ($...$) in model names and item texts is drawn as text in the figures", ANALYZE, report_whole,
           files=model_files("p/$\\badcmd{x}$ a", {"q1": "Taxes $\\frac{a}$ rise?", "q2": "Costs $5?"}), before=(IMPORT,)),
    accept("S10 a newline in a model name adds no table row or heading to report.md", ANALYZE, report_inert, files=model_files(ROWS), before=(IMPORT,)),
    # E4: every CSV the package writes is formula-safe, and reads back unchanged
    accept("E4 validate-judge --output quotes formula-leading cells", JUDGE + f"-M 'mock_answer={FORMULA}' --output p.csv", judge_output_safe,
           files={"l.csv": LABELLED}),
    accept("E4 atp build quotes a formula-like question in atp.csv and reads it back unchanged", "atp build --sav w.sav --out atp.csv",
           atp_label_safe_and_kept, files={"w.sav": sav_with_label(FORMULA)}),
    error("S16 import-items --coding is a file it would write", "import-items pkg --out out --coding out/typology.csv",
          r"--out out/typology\.csv: is the input file out/typology\.csv",
          files={"pkg": lambda root: mini_package(root, [GOOD], [GOOD_ITEM]), "out/typology.csv": "id,direction\npew_02,1\n"}),
    # validate-judge's options
    error("S14 validate-judge --limit -1", JUDGE + "--limit -1", r"--limit must be at least 1, not -1", files={"l.csv": LABELLED}),
    error("S15 validate-judge --limit 0", JUDGE + "--limit 0", r"--limit must be at least 1, not 0", files={"l.csv": LABELLED}),
    error("S16 validate-judge --output is its own input", JUDGE + "--output l.csv", r"--output l\.csv: is the input file", files={"l.csv": LABELLED}),
    error("S16 validate-judge --output another name for its input", JUDGE + "--output sub/../l.csv", r"--output sub/\.\./l\.csv: is the input file",
          files={"l.csv": LABELLED, "sub": DIR}),
    error("T9 validate-judge --grader mockllm/model offline", "validate-judge l.csv --grader mockllm/model", r"--grader mockllm/model: .*tokenizer",
          files={"l.csv": LABELLED}),
    error("T10 validate-judge --output is a directory", JUDGE + "--output out", r"--output out: is a directory", files={"l.csv": LABELLED, "out": DIR}),
    error("T10 validate-judge --output under a file", JUDGE + "--output f/p.csv", r"--output f/p\.csv: cannot write there", files={"l.csv": LABELLED, "f": "x"}),
    error("S14 validate-judge --thresholds nan", JUDGE + "--thresholds 0.5,nan", r"--thresholds must be a finite number from 0 to 1, not nan",
          files={"l.csv": LABELLED}),
    # audit / plan (the shared eval options and the task parameters)
    error("S18 audit --temperature nan", AUDIT + "--temperature nan", r"--temperature must be a finite number at least 0, not nan"),
    error("S18 audit --temperature inf", AUDIT + "--temperature inf", r"--temperature must be a finite number at least 0, not inf"),
    error("S19 audit --fail-on-error nan", AUDIT + "--fail-on-error nan", r"--fail-on-error must be .*finite.*, not nan"),
    error("S19 audit --fail-on-error inf", AUDIT + "--fail-on-error inf", r"--fail-on-error must be .*finite.*, not inf"),
    error("T15 audit --seed -1", AUDIT + "--seed -1", r"--seed must be a whole number from 0 to 4294967295, not -1"),
    error("T15 audit --seed 2^32", AUDIT + "--seed 4294967296", r"--seed must be a whole number from 0 to 4294967295, not 4294967296"),
    error("S14 audit --retry-on-error -1", AUDIT + "--retry-on-error -1", r"--retry-on-error must be at least 0, not -1"),
    error("S14 audit --max-connections 0", AUDIT + "--max-connections 0", r"--max-connections must be at least 1, not 0"),
    error("S14 audit --epochs 1.5", AUDIT + "--epochs 1.5", r"--epochs must be a whole number from 1 to 100000 \(a whole number\), not 1\.5"),
    error("S14 audit --top-logprobs 21", AUDIT + "--top-logprobs 21", r"--top-logprobs must be a whole number from 1 to 20, not 21"),
    error("S18 plan --temperature nan", PLAN + "--temperature nan", r"--temperature must be a finite number at least 0, not nan", files={"items": DIR}),
    error("S18 plan --price-in nan", PLAN + "--price-in nan --price-out 1", r"--price-in must be a finite number from 0 to 1000000, not nan", files={"items": DIR}),
    error("S18 plan --seconds-per-call inf", PLAN + "--seconds-per-call inf", r"--seconds-per-call must be a finite number", files={"items": DIR}),
    error("S18 plan --output-tokens audit=nan", PLAN + "--output-tokens audit=nan", r"--output-tokens: audit: N must be a finite number", files={"items": DIR}),
    error("S14 plan --replicates 0", PLAN + "--replicates 0", r"--replicates must be a whole number from 1 to 100000, not 0", files={"items": DIR}),
    error("T15 plan --seed -1", PLAN + "--seed -1", r"--seed must be a whole number from 0 to 4294967295, not -1", files={"items": DIR}),
    # analyze
    error("T15 analyze --seed -1", "analyze logs --out out --seed -1", r"--seed must be a whole number from 0 to 4294967295, not -1",
          files=model_files("p/m"), before=(IMPORT,)),
    error("T16 analyze --bootstrap 1000000000", "analyze logs --out out --bootstrap 1000000000",
          r"--bootstrap must be a whole number from 1 to 100000, not 1000000000", files={"logs": DIR}),
    error("T16 analyze --sign-flip-draws 10^12", "analyze logs --out out --sign-flip-draws 1000000000000",
          r"--sign-flip-draws must be a whole number from 1 to 10000000", files={"logs": DIR}),
    error("S18 analyze --alpha nan", "analyze logs --out out --alpha nan", r"--alpha must be a finite number from 1e-10 and below 1, not nan", files={"logs": DIR}),
    error("S18 analyze --power-effect inf", "analyze logs --out out --power-effect inf", r"--power-effect must be a finite number from 1e-06 to 4, not inf",
          files=model_files("p/m"), before=(IMPORT,)),
    error("S18 analyze --power-effect -0.1", "analyze logs --out out --power-effect -0.1", r"--power-effect must be a finite number from 1e-06 to 4, not -0\.1",
          files=model_files("p/m"), before=(IMPORT,)),
    error("S18 atp build --groups with a nan code", "atp build --sav w.sav --out atp.csv --groups F_AGECAT:nan=young",
          r"--groups 'F_AGECAT:nan=young': 'nan' is not a finite numeric code", files={"w.sav": sav_with_label("Favor or oppose?")}),
    # import-responses, pools
    error("S14 import-responses --jobs -3", IMPORT + " --jobs -3", r"--jobs must be at least 1, not -3", files=model_files("p/m")),
    error("S14 pools --pool top0", "pools --items items.csv --pool top0", r"pool 'top0': top<N> takes N of at least 1", files={"items.csv": item_file(PLAIN)}),
]


@pytest.fixture(autouse=True)
def offline(monkeypatch, tmp_path):
    """No network: Inspect's mockllm (T9) must not find a tokenizer cached or downloadable."""
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "tiktoken-empty"))
    for var in ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"):
        monkeypatch.setenv(var, "http://127.0.0.1:9")
    monkeypatch.setenv("POLITICAL_SYCOPHANCY_CACHE", str(tmp_path / "cache"))


@pytest.mark.scenario("classified")
@pytest.mark.parametrize("scenario", [pytest.param(s, id=s.name, marks=[pytest.mark.figures] if "figure" in s.name else [])
                                      for s in SCENARIOS])
def test_scenario(scenario, tmp_path, monkeypatch, record_property):
    monkeypatch.setenv("INSPECT_LOG_DIR", str(tmp_path / "inspect-logs"))
    outcome, ran = classify(scenario, tmp_path)
    record_property("outcome", outcome)  # bench/bad_input_table.py tabulates these
    record_property("detail", ran.error_line or (ran.crash.strip().splitlines() or [""])[-1])
    assert outcome in ("clear error", "counted exclusion", "correctly accepted"), (
        f"{scenario.name}: {outcome}\n--- error line: {ran.error_line}\n--- out:\n{ran.out[-2000:]}\n--- err:\n{ran.err[-2000:]}\n{ran.crash[-3000:]}"
    )


# --- the escaping functions themselves ---------------------------------------------------

HOSTILE_VALUES = [ESCAPES, BEACON, JS_LINK, ROWS, FORMULA, "<script>alert(1)</script>", "a | b", "- item", "# heading", "1. first", "---",
                  "`code` and ``more``", "*em* _em_ **strong**", "~~gone~~", "$x^2$", "&amp; &lt;b&gt;", "back\\slash \\[x](y)",
                  "<http://127.0.0.1:9/auto>", "[ref]: http://127.0.0.1:9/r", "\u202eevil", "line\rover", "atp_W1_Q2"]


def _plain(value: str) -> str:
    return " ".join(re.sub(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e]", "", value.replace("\r", " ")).split())


@pytest.mark.parametrize("value", HOSTILE_VALUES)
def test_md_text_renders_exactly_the_value(value):
    """Rendered in the middle of a sentence and as a table cell, `md_text(value)` is one
    paragraph / cell holding the value's characters and no markup."""
    tokens = list(_tokens(permissive().parse(f"Before {md_text(value)} after.\n\n| a |\n| --- |\n| {md_text(value)} |\n")))
    assert [t.type for t in tokens if t.type.endswith("_open") and t.type not in ("paragraph_open", "table_open", "thead_open", "tbody_open",
                                                                                   "tr_open", "th_open", "td_open")] == []
    texts = [t.content for t in tokens if t.type == "text"]
    shown = [_plain(t.replace("\\x1b", "").replace("\\u202e", "")) for t in texts]
    assert _plain(f"Before {value} after.") in shown and _plain(value) in shown


@pytest.mark.parametrize("value", HOSTILE_VALUES)
def test_md_code_is_one_code_span(value):
    [para] = [t for t in permissive().parse(f"Model {md_code(value)} here.") if t.type == "inline"]
    kinds = [t.type for t in para.children]
    assert kinds.count("code_inline") == (1 if value.strip() else 0) and "html_inline" not in kinds and "link_open" not in kinds


def test_every_command_prints_through_say():
    """The commands print only through `core.console.say` (which makes control characters
    visible): no bare print() in cli/ nor in the measures' own command modules."""
    from political_sycophancy.catalog import declared

    src = ROOT / "src"
    commands = [src / (module.replace(".", "/") + ".py") for measure in declared() for module in measure.commands]
    assert commands, "no measure declares a command"
    offenders = []
    for path in sorted((src / "political_sycophancy" / "cli").glob("*.py")) + commands:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print":
                offenders.append(f"{path.name}:{node.lineno}")
    assert offenders == []


@pytest.mark.scenario("clear error")
def test_refused_output_leaves_the_input(tmp_path):
    """S16: the labelled file named as --output is refused and left as it was."""
    from political_sycophancy.cli import main

    labelled = tmp_path / "l.csv"
    labelled.write_text(LABELLED)
    assert main(["validate-judge", str(labelled), "--grader", "faulty/mockllm/model", "--output", str(labelled)]) == 2
    assert labelled.read_text() == LABELLED
