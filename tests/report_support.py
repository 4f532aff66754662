"""Helpers for the report tests: a small multi-model, six-condition mock run written as
Inspect logs (through the importer) and analysed by the real `analyze` command."""

from __future__ import annotations

import re
import zlib
from pathlib import Path

import numpy as np
import pandas as pd
from inspect_ai import eval as inspect_eval
from inspect_ai.model import ChatMessageSystem, get_model
from support import output, scripted_model

from political_sycophancy.audit.simulate import (
    builtin_pct_items,
    synthetic_responses,
    write_atp_items,
    write_typology_items,
)
from political_sycophancy.cli import main
from political_sycophancy.core.conditions import PHASE2
from political_sycophancy.core.items import Item, builtin_path, load_items
from political_sycophancy.logs.importer import import_responses
from political_sycophancy.logs.probe_importer import import_probe_file
from political_sycophancy.open_ended.task import open_ended
from political_sycophancy.sway.task import sway

MODELS = ("mock/alpha", "mock/beta", "mock/gamma")


def mock_run(tmp: Path, *, models=MODELS, conditions=PHASE2, atp_items: int = 12, pct_items: int = 16, typology_items: int = 8,
             bootstrap: int = 200, sign_flip: int = 300, seed: int = 3, probes: bool = False, measures: bool = False,
             atp_shift: dict[str, float] | None = None, pct_shift: dict[str, float] | None = None, refusal_rate: float = 0.05,
             noise: float = 0.6) -> Path:
    """Logs of `models` answering ATP, PCT and Typology items under `conditions`, with a
    planted rightward pull under C3R and some refusals (and, with `probes`, the
    expected-answer and perception probes on the ATP items, imported from files in the
    first seed's format; with `measures`, SWAY and open-ended likert runs of the same
    models, which must then be `mockllm/<name>`); `atp_shift`, `pct_shift`, `refusal_rate` and
    `noise` plant other effects (`audit.simulate.synthetic_responses`); returns the analysis directory."""
    tmp.mkdir(parents=True, exist_ok=True)
    files, items = [builtin_path("pct.csv")], builtin_pct_items()[:pct_items]
    if atp_items:
        atp = write_atp_items(tmp / "atp.csv", atp_items, seed=2)
        files.append(atp)
        items = load_items(atp, instrument="atp") + items
    if typology_items:
        typ = write_typology_items(tmp / "typology.csv", typology_items, seed=2)
        files.append(typ)
        items = items + load_items(typ, instrument="typology")
    atp_shift = {"C3R": -0.3, "C3L": 0.1, "C1R": -0.1} if atp_shift is None else atp_shift
    pct_shift = {"C3R": 0.8, "C3L": -0.2} if pct_shift is None else pct_shift
    responses = synthetic_responses(items, list(models), list(conditions), atp_shift=atp_shift, pct_shift=pct_shift,
                                    refusal_rate=refusal_rate, noise=noise, seed=seed)
    responses.to_csv(tmp / "responses.csv", index=False)
    import_responses(tmp / "responses.csv", files, tmp / "logs")
    if probes and atp_items:
        atp_only = [i for i in items if i.instrument == "atp"]
        for name, table in probe_files(atp_only, list(models), list(conditions), seed=seed).items():
            table.to_csv(tmp / name, index=False)
            import_probe_file(tmp / name, [atp], tmp / "logs")
    if measures:
        measure_logs(tmp / "logs", list(models))
    out = tmp / "analysis"
    code = main(["analyze", str(tmp / "logs"), "--out", str(out), "--bootstrap", str(bootstrap), "--sign-flip-draws", str(sign_flip)])
    assert code == 0
    return out


DATA = re.compile(r"<data value='([^']*)' data-path='([^']*)' data-scale='([^']*)'>([^<]*)</data>")


def findings_block(page: str) -> str:
    """The Findings section of report.html (from its heading to the next section heading)."""
    start = page.index("<h2 id='findings'>")
    end = page.find("<h2", start + 5)
    return page[start:end if end >= 0 else len(page)]


# P(the asker is said to expect the Democrat-preferred answer) per condition (first seed, Fig. 5)
WANTS_DEM = {"C3L": 0.9, "C1L": 0.85, "CA": 0.75, "N": 0.75, "C1R": 0.3, "C3R": 0.2}


def probe_files(items: list[Item], models: list[str], conditions: list[str], *, reps: int = 2, seed: int = 3) -> dict[str, pd.DataFrame]:
    """An expected-answer file (every condition) and a perception file (N) in the first
    seed's columns, with raw responses our parsers read; the expected letter is the item's
    Democrat-preferred option with WANTS_DEM[condition], else its Republican-preferred one."""
    rng = np.random.default_rng(seed)
    expected, perception = [], []
    for m in models:
        for item in items:
            gap = np.array(item.benchmarks["dem"]) - np.array(item.benchmarks["rep"])
            dem, rep = item.letters[int(np.argmax(gap))], item.letters[int(np.argmin(gap))]
            for rep_no in range(reps):
                for cond in conditions:
                    wanted = dem if rng.random() < WANTS_DEM.get(cond, 0.5) else rep
                    own = wanted if rng.random() < 0.7 else item.letters[0]
                    expected.append({"model_label": m, "question_id": item.id, "condition": cond, "rep": rep_no, "expected_letter": wanted,
                                     "actual_letter": own, "raw_response": f"EXPECTED BY ASKER: {wanted}\nREASONING: the wording.\nYOUR ANSWER: {own}"})
                who = "A pollster running a survey." if rng.random() < 0.85 else "A conservative voter."
                rating = int(np.clip(round(rng.normal(3.8, 0.9)), 1, 7))
                perception.append({"model_label": m, "question_id": item.id, "condition": "N", "rep": rep_no, "asker_desc": who,
                                   "political_leaning": rating, "raw_response": f"ASKER: {who}\nASKER IDEOLOGY: {rating}\nYOUR ANSWER: A"})
    return {"expected_answer.csv": pd.DataFrame(expected), "perception.csv": pd.DataFrame(perception)}


def _chance(text: str, salt: str) -> float:
    """A deterministic number in [0, 1) per prompt (the scripted models' coin)."""
    return zlib.crc32(f"{salt}|{text}".encode()) % 10_000 / 10_000


def measure_logs(log_dir: Path, models: list[str]) -> None:
    """SWAY (two mitigations) and open-ended likert logs (one epoch) of `models` (mockllm names): model
    k follows a SWAY nudge with probability 0.9 - 0.2 k (0.5 under the instruction) and
    agrees with a statement with probability 0.65 - 0.15 k."""
    sway_models, likert_models = [], []
    for k, name in enumerate(models):
        follow = 0.9 - 0.2 * k

        def sway_answer(input, tools, tool_choice, config, follow=follow, name=name):
            text = input[-1].text
            plus = "the statement is right" in text.lower()
            told = any(isinstance(m, ChatMessageSystem) and "Do not let" in m.text for m in input)
            p = 0.5 if told else follow
            return output("Agree" if (plus if _chance(text, name) < p else not plus) else "Disagree")

        def likert(text: str, agree=0.65 - 0.15 * k, name=name) -> str:
            return "B" if _chance(text, name) < agree else "D"

        sway_models.append(get_model(name, custom_outputs=sway_answer, memoize=False))
        likert_models.append(scripted_model(likert, name=name))
    # one eval per task design, every model at once: Inspect's fixed cost per eval, not per model
    sways = [sway(prompts=6, constructions="imperative,interrogative", commitments="low,high", mitigation=m) for m in ("none", "instruction")]
    for tasks, task_models, epochs in ((sways, sway_models, None), ([open_ended(prefix="likert")], likert_models, 1)):
        logs = inspect_eval(tasks, model=task_models, epochs=epochs, log_dir=str(log_dir), display="none", log_realtime=False)
        assert len(logs) == len(tasks) * len(task_models) and all(log.status == "success" for log in logs), [log.error for log in logs]


def undescribed_tables(out: Path) -> dict[str, list[str]]:
    """Per table of report.html that a reader cannot read without its id: the table shown
    under its bare id (no human title), or the columns its glossary leaves out."""
    import html

    page = (out / "report.html").read_text(encoding="utf-8")
    missing: dict[str, list[str]] = {}
    for m in re.finditer(r"<h3 id='table-([^']+)'>([^<]*)</h3>", page):
        table_id, title = m.group(1), m.group(2)
        end = min(i for i in (page.find("<h3", m.end()), page.find("<h2", m.end()), len(page)) if i >= 0)
        block = page[m.end():end]
        link = re.search(r"href='(tables/[^']+\.csv)'", block)
        columns = list(pd.read_csv(out / link.group(1), nrows=0).columns) if link else []
        described = set(re.findall(r"<code>([^<]+)</code>\)</dt>", block))
        gaps = (["(no title)"] if title == table_id else []) + [c for c in columns if html.escape(c) not in described]
        if gaps:
            missing[table_id] = gaps
    return missing


# number forms the report's one rule (core.numbers) never writes
FORBIDDEN_NUMBERS = {
    "scientific notation": re.compile(r"\b\d\.\d+e[+-]\d+\b"),
    "negative zero": re.compile(r"(?<![\w.])[-−]0\.0+(?![\d])"),
    "plural of one": re.compile(r"\b1 (?:were|have been|samples|items|models)\b|\(s\) were"),
    "a floor hidden behind < 0.001": re.compile(r"< 0\.001\b"),
}


def forbidden_number_forms(out: Path) -> dict[str, list[str]]:
    """Per report file and forbidden form, the places report.md and report.html's prose (not
    their scripts, styles or machine-readable attributes) write it; empty when none."""
    found: dict[str, list[str]] = {}
    for name in ("report.md", "report.html"):
        text = (out / name).read_text(encoding="utf-8")
        text = re.sub(r"<(?:script|style)\b.*?</(?:script|style)>", "", text, flags=re.S)
        text = re.sub(r"data-[a-z]+='[^']*'|value='[^']*'", "", text)
        for what, pattern in FORBIDDEN_NUMBERS.items():
            hits = [text[max(0, m.start() - 60):m.end() + 20] for m in pattern.finditer(text)]
            if hits:
                found[f"{name}: {what}"] = hits[:3]
    return found
