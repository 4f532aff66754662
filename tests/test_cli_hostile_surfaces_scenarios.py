"""Issue 47, "nothing silently wrong, no traceback, no hang": what a hostile round did to the
surfaces added since the last one (profiles, even-handedness, `analyze --jobs`, forked
workers, imports, paths, every option), one scenario each, run and classified by
`support.bad_input.classify` as the bad-input scenarios are; and issue 46's silent merge
of two imports. The scenarios that need a process killed or interrupted at a known point
are single tests with the outcome their passing shows (`bench/bad_input_table.py` counts
them too); `bench/analyze_interruption.py` kills and interrupts a real `analyze` at several
points.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from support.bad_input import DIR, Scenario, accept, check_classified, error, exclusion
from support.hostile import ANALYZE, IMPORT, edit_sample, eval_logs, killed_import, responses, rezip
from support.profiles import write_sav

from political_sycophancy.cli import main

IMPORTED = IMPORT.format(file="r.csv")
THREE_CONDITIONS = responses(conditions=("N", "C3L", "C3R"))
JUDGE = "validate-judge l.jsonl --grader faulty/mockllm/model"


def jsonl(*records: dict) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)


# --- checks ------------------------------------------------------------------------------


def condition_rows(tmp: Path) -> pd.DataFrame:
    return pd.read_csv(tmp / "out" / "tables" / "condition_summary.csv")


def only_model(model: str, n_samples: int, condition: str = "N"):
    """condition_summary lists `model` alone, with `n_samples` samples under `condition`."""

    def check(tmp: Path, ran) -> bool:
        table = condition_rows(tmp)
        row = table[table["condition"] == condition]
        return set(table["model"]) == {model} and row["n_samples"].tolist() == [n_samples]

    return check


# --- log edits ---------------------------------------------------------------------------


def bare_score(value):
    """A sample's score value replaced by a bare value (the package's scores are mappings)."""

    def edit(sample: dict) -> None:
        for score in sample["scores"].values():
            score["value"] = value

    return edit


def drop_metadata(*keys: str):
    def edit(sample: dict) -> None:
        for key in keys:
            sample["metadata"].pop(key, None)

    return edit


def foreign_log(kind: str, folder: str = "logs/foreign"):
    """A step: a real Inspect run of a task that is not this package's (one question, a
    `match()` scorer) whose task metadata claims to be a `kind` log of this package."""

    def step(tmp: Path) -> None:
        from inspect_ai import Task
        from inspect_ai import eval as inspect_eval
        from inspect_ai.dataset import Sample
        from inspect_ai.scorer import match
        from inspect_ai.solver import generate
        from support import scripted_model

        task = Task(
            dataset=[Sample(input="Say A.", target="A", id="p1_01")],
            solver=generate(),
            scorer=match(),
            metadata={"political_sycophancy": kind},
            name="foreign",
        )
        [log] = inspect_eval(task, model=scripted_model(lambda _: "A"), log_dir=str(tmp / folder), display="none")
        assert log.status == "success"

    return step


def claim_kind(kind: str):
    """A step: the first log's task metadata made to claim `kind`."""

    def step(tmp: Path) -> None:
        def change(name: str, data):
            if name in ("header.json", "_journal/start.json"):
                data["eval"]["metadata"]["political_sycophancy"] = kind
            return data

        rezip(eval_logs(tmp)[0], change)

    return step


def loop_folder(tmp: Path) -> None:
    (tmp / "loop").symlink_to(tmp / "loop")


def loop_inside(tmp: Path) -> None:
    (tmp / "logs" / "round").symlink_to(tmp / "logs" / "round")


def edited_file(tmp: Path) -> None:
    """r.csv edited after its import: every answer C instead of B."""
    (tmp / "r.csv").write_text((tmp / "r.csv").read_text().replace(",B,B,1", ",C,C,2"))


def survey(weights: list[float]):
    """A .sav file of four respondents (age and gender coded as the schema's survey rules) with these weights."""

    def write(path: Path) -> None:
        rows = [
            {"F_AGECAT": 1 + k % 4, "F_GENDER": 1 + k % 2, "WEIGHT_W99": w, "Q1_W99": 1} for k, w in enumerate(weights)
        ]
        write_sav(path, rows)

    return write


def statements_of(name: str):
    def call(tmp: Path):
        from political_sycophancy.open_ended.statements import read_statements

        return read_statements(tmp / name)

    return call


def fractional_of_all(n: int):
    """A balanced design of n personas over every attribute of the schema (a full factorial
    of 115,200, so n below it is drawn as a fractional design)."""

    def call(tmp: Path):
        from political_sycophancy.shared.persona_draw import balanced
        from political_sycophancy.shared.personas import load_schema

        schema = load_schema()
        return balanced(schema, schema.attributes, n, 0)

    return call


def draw_from(tmp: Path):
    from political_sycophancy.shared.persona_survey import draw_personas
    from political_sycophancy.shared.personas import load_schema

    schema = load_schema()
    return draw_personas(tmp / "s.sav", schema, schema.choose("age,gender"), None, seed=0)


# r1.csv imported into logs/phase1, r2.csv into logs/phase2: two imports of different files under one folder
TWO_IMPORTS = (
    IMPORT.format(file="r1.csv").replace("--log-dir logs", "--log-dir logs/phase1"),
    IMPORT.format(file="r2.csv").replace("--log-dir logs", "--log-dir logs/phase2"),
)


ANSWERED_C = responses(conditions=("N", "C3L", "C3R")).replace(",B,B,1", ",C,C,2")


def other_items() -> str:
    """responses() of PCT p1_04..p1_06 instead of p1_01..p1_03 (their ids and texts)."""
    from political_sycophancy.core.items import load_instrument

    pct = {i.id: i for i in load_instrument("pct")}
    text = responses()
    for old, new in (("p1_01", "p1_04"), ("p1_02", "p1_05"), ("p1_03", "p1_06")):
        text = text.replace(old, new).replace(pct[old].text, pct[new].text)
    return text


OTHER_ITEMS = other_items()


SCENARIOS: list[Scenario] = [
    # validate-judge: a JSONL value of the wrong type is refused as the task's own files refuse it
    error(
        "validate-judge: a JSONL prompt that is a list",
        JUDGE,
        r"l\.jsonl, row 1, field 'prompt': expected text, got list",
        files={"l.jsonl": jsonl({"prompt": ["Say", "it"], "response": "Fine.", "compliance": "A"})},
    ),
    error(
        "validate-judge: a JSONL response that is an object",
        JUDGE,
        r"l\.jsonl, row 2, field 'response': expected text, got dict",
        files={
            "l.jsonl": jsonl(
                {"prompt": "Say it.", "response": "Fine.", "compliance": "A"},
                {"prompt": "Say it.", "response": {"text": "Fine."}, "compliance": "B"},
            )
        },
    ),
    error(
        "validate-judge: a JSONL pair prompt that is a list",
        JUDGE,
        r"l\.jsonl, row 1, field 'prompt_a': expected text, got list",
        files={
            "l.jsonl": jsonl(
                {"prompt_a": ["a"], "response_a": "x", "prompt_b": "b", "response_b": "y", "more_helpful": "a"}
            )
        },
    ),
    error(
        "validate-judge: a JSONL stance statement that is an object",
        JUDGE,
        r"l\.jsonl, row 1, field 'statement': expected text, got dict",
        files={"l.jsonl": jsonl({"statement": {"t": "Taxes"}, "response": "Yes.", "label": "agree"})},
    ),
    error(
        "an open-ended statement file whose text is a list",
        statements_of("s.jsonl"),
        r"s\.jsonl, row 1, field 'text': expected text, got list",
        files={"s.jsonl": jsonl({"id": "s1", "text": ["Taxes", "rise"], "direction": "left", "dimension": "economic"})},
    ),
    error(
        "validate-judge: the label '²' (a digit to str.isdigit, no number)",
        JUDGE,
        r"l\.jsonl, row 1, field 'compliance': compliance must be A-E or 1-5",
        files={"l.jsonl": jsonl({"prompt": "Say it.", "response": "Fine.", "compliance": "²"})},
    ),
    # numbers bounded where they are parsed
    error(
        "audit --epochs 10**12",
        "audit --model faulty/mockllm/model --conditions N --limit 1 --log-dir logs --epochs 1000000000000",
        r"--epochs must be a whole number from 1 to 100000",
    ),
    error(
        "plan --profile-epochs 10**8 --run",
        "plan --design profiles --model faulty/mockllm/model --items items --log-dir logs "
        "--profile-epochs 100000000 --run",
        r"--profile-epochs must be a whole number from 1 to 100000",
    ),
    error(
        "plan --replicates 10**9",
        "plan --model faulty/mockllm/model --items items --log-dir logs --replicates 1000000000",
        r"--replicates must be a whole number from 1 to 100000",
    ),
    error(
        "plan --probe-epochs 10**9",
        "plan --model faulty/mockllm/model --items items --log-dir logs --probe-epochs 1000000000",
        r"--probe-epochs must be a whole number from 1 to 100000",
    ),
    error(
        "plan --price-in 1e308 (a cost estimate of inf)",
        "plan --model faulty/mockllm/model --items items --log-dir logs --price-in 1e308 --price-out 1",
        r"--price-in must be a finite number from 0 to 1000000",
    ),
    error(
        "plan --seconds-per-call 1e308",
        "plan --model faulty/mockllm/model --items items --log-dir logs --seconds-per-call 1e308",
        r"--seconds-per-call must be a finite number from 0 to 86400",
    ),
    error(
        "plan --output-tokens audit=1e308",
        "plan --model faulty/mockllm/model --items items --log-dir logs --output-tokens audit=1e308",
        r"--output-tokens: audit: N must be a finite number from 0 to 1000000",
    ),
    error(
        "analyze --power-effect 1e300",
        ANALYZE + " --power-effect 1e300",
        r"--power-effect must be a finite number from",
        files={"logs": DIR},
    ),
    error(
        "analyze --power-effect 1e-300",
        ANALYZE + " --power-effect 1e-300",
        r"--power-effect must be a finite number from",
        files={"logs": DIR},
    ),
    error(
        "analyze --alpha 1e-300 --power 0.8",
        ANALYZE + " --alpha 1e-300 --power 0.8",
        r"--alpha must be a finite number from 1e-10",
        files={"logs": DIR},
    ),
    error(
        "a fractional design of 110,000 personas",
        fractional_of_all(110_000),
        r"n must be a whole number of personas from 2 to 100,000",
    ),
    error(
        "a survey whose weights are all 0",
        draw_from,
        r"s\.sav, field 'WEIGHT_W99': no respondent has a positive weight",
        files={"s.sav": survey([0.0, 0.0, 0.0, 0.0])},
    ),
    error(
        "a survey weight of 1e300",
        draw_from,
        r"s\.sav, row 2, field 'WEIGHT_W99': weight 1e\+300 is outside",
        files={"s.sav": survey([1.0, 1e300, 1.0, 1.0])},
    ),
    # the log folder and --out
    error("analyze '' (an empty log folder name)", "analyze '' --out out", r"argument log_dir: an empty path"),
    error("analyze / (the filesystem root)", "analyze / --out out", r"argument log_dir: /: the filesystem root"),
    error(
        "a log folder that is a symbolic-link loop",
        "analyze loop --out out",
        r"argument log_dir: loop: a symbolic link loop",
        before=(loop_folder,),
    ),
    exclusion(
        "a symbolic-link loop inside the log folder is noted, not followed",
        ANALYZE,
        r"skipped 1 .*round \(a symbolic link loop\)",
        only_model("p/m", 3),
        files={"r.csv": responses()},
        before=(IMPORTED, loop_inside),
    ),
    # values read from a log checked against the score and metadata contract, whatever the log claims
    exclusion(
        "a score value that is a bare number (0.5)",
        ANALYZE,
        r"left out 1 sample.*score 'pct_score' is 0\.5, not the package's mapping",
        only_model("p/m", 2),
        files={"r.csv": responses()},
        before=(IMPORTED, edit_sample("p1_01", bare_score(0.5))),
    ),
    exclusion(
        "a score value that is a list",
        ANALYZE,
        r"left out 1 sample.*score 'pct_score' is \[1, 2\], not the package's mapping",
        only_model("p/m", 2),
        files={"r.csv": responses()},
        before=(IMPORTED, edit_sample("p1_02", bare_score([1, 2]))),
    ),
    exclusion(
        "a sample without the item metadata its measure writes",
        ANALYZE,
        r"left out 1 sample.*metadata has no 'options'",
        only_model("p/m", 2),
        files={"r.csv": responses()},
        before=(IMPORTED, edit_sample("p1_03", drop_metadata("options"))),
    ),
    exclusion(
        "a foreign task's log claiming to be an audit log, beside real logs",
        ANALYZE,
        r"left out 1 sample.*foreign.*score 'match' is 'C', not the package's mapping",
        only_model("p/m", 3),
        files={"r.csv": responses()},
        before=(IMPORTED, foreign_log("audit")),
    ),
    error(
        "a foreign task's log claiming to be a profiles log, alone",
        ANALYZE,
        r"none of the 1 log\(s\) holds samples .*left out 1 sample.*score 'match'",
        before=(foreign_log("profiles", "logs"),),
    ),
    exclusion(
        "a log claiming a measure no installed measure declares",
        ANALYZE,
        r"ignored 1 log.*claims measure kind 'no_such_measure', which no installed measure declares",
        only_model("p/m", 3, "C3R"),
        files={"r.csv": THREE_CONDITIONS},
        before=(IMPORTED, claim_kind("no_such_measure")),
    ),
    # runs of different sources are never merged silently (issue 46)
    error(
        "two imports of different files answering the same cells, analysed together",
        ANALYZE,
        r"9 cell\(s\) .* answered by imports of 2 different files .*r1\.csv.*r2\.csv.*"
        r"analyse each on its own: logs/phase1, logs/phase2",
        files={"r1.csv": THREE_CONDITIONS, "r2.csv": ANSWERED_C},
        before=TWO_IMPORTS,
    ),
    accept(
        "two imports of different files answering different cells, analysed together",
        ANALYZE,
        only_model("p/m", 6),
        files={"r1.csv": responses(), "r2.csv": OTHER_ITEMS},
        before=TWO_IMPORTS,
    ),
    error(
        "a killed --replace-changed re-import leaves two versions of one file",
        ANALYZE,
        r"logs hold 2 versions of .*r\.csv.*import-responses .* did not finish.*run it again",
        files={"r.csv": THREE_CONDITIONS},
        before=(IMPORTED, edited_file, killed_import("r.csv", replace_changed=True)),
    ),
]


@pytest.mark.scenario("classified")
@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.name for s in SCENARIOS])
def test_scenario(scenario, tmp_path, monkeypatch, record_property):
    monkeypatch.setenv("INSPECT_LOG_DIR", str(tmp_path / "inspect-logs"))
    check_classified(scenario, tmp_path, record_property)


# --- nothing written before a refusal ------------------------------------------------------


def _names(folder: Path) -> set[str]:
    return {p.name for p in folder.iterdir()}


@pytest.mark.scenario("clear error")
def test_a_refused_out_or_log_folder_writes_nothing(tmp_path, capsys):
    """`--out /`, an --out holding the user's files, and a log folder that is refused: one
    line each, and nothing new beside --out (no lock file, no folder) nor at the root."""
    (tmp_path / "logs").mkdir()
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep")
    root_before, here_before = _names(Path("/")), _names(tmp_path)
    assert main(["analyze", str(tmp_path / "logs"), "--out", "/"]) == 2
    assert main(["analyze", str(tmp_path / "logs"), "--out", str(tmp_path / "mine")]) == 2
    assert main(["analyze", str(tmp_path / "missing"), "--out", str(tmp_path / "new")]) == 2
    assert main(["analyze", str(tmp_path / "logs"), "--out", str(tmp_path / "new")]) == 2  # a folder without logs
    err = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(err) == 4 and "Traceback" not in "".join(err)
    assert "--out /: the filesystem root" in err[0]
    assert _names(Path("/")) == root_before
    assert _names(tmp_path) == here_before


# --- workers that die, interruptions ----------------------------------------------------

PARENT = os.getpid()


def _die(*args, **kwargs):
    """A forked worker's work that kills its own process (SIGKILL: nothing runs after it)."""
    os.kill(os.getpid(), signal.SIGKILL)


def _killer_section(frame, figure_dir, options):
    """A report section that kills the forked worker computing it (in the parent it waits, so
    that the worker takes the next one, which kills it)."""
    if os.getpid() == PARENT:
        time.sleep(1.0)
        return None
    _die()


@pytest.fixture
def analysed(tmp_path):
    """Imported logs and one complete analysis of them in out/ (bytes of every file kept)."""
    (tmp_path / "r.csv").write_text(THREE_CONDITIONS)
    assert (
        main(["import-responses", str(tmp_path / "r.csv"), "--items", str(_pct()), "--log-dir", str(tmp_path / "logs")])
        == 0
    )
    assert (
        main(
            [
                "analyze",
                str(tmp_path / "logs"),
                "--out",
                str(tmp_path / "out"),
                "--bootstrap",
                "10",
                "--sign-flip-draws",
                "10",
            ]
        )
        == 0
    )
    return tmp_path, _snapshot(tmp_path / "out")


def _pct() -> Path:
    from political_sycophancy.core.items import builtin_path

    return builtin_path("pct.csv")


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _analyze_again(tmp: Path, *extra: str) -> list[str]:
    return [
        "analyze",
        str(tmp / "logs"),
        "--out",
        str(tmp / "out"),
        "--bootstrap",
        "11",
        "--sign-flip-draws",
        "10",
        *extra,
    ]


def _one_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


@pytest.mark.scenario("clear error")
def test_a_killed_figure_worker_fails_the_analysis_in_one_line_and_nothing_is_stored(analysed, monkeypatch, capsys):
    tmp, before = analysed
    capsys.readouterr()
    monkeypatch.setattr("political_sycophancy.report.render.drawn_figures", _die)
    assert main(_analyze_again(tmp)) == 1
    line = _one_line(capsys.readouterr().err)
    assert "figures" in line and "SIGKILL" in line and "unchanged" in line
    assert _snapshot(tmp / "out") == before  # the earlier report, byte for byte
    monkeypatch.undo()
    assert main(_analyze_again(tmp)) == 0
    assert "reused the analysis" not in capsys.readouterr().out  # the failed run stored nothing
    assert {p.name for p in (tmp / "out" / "figures").iterdir()} == {
        n.removeprefix("figures/") for n in before if n.startswith("figures/")
    }


@pytest.mark.scenario("clear error")
def test_a_killed_section_worker_fails_the_analysis_in_one_line(analysed, monkeypatch, capsys):
    tmp, before = analysed
    capsys.readouterr()
    from political_sycophancy.report import render

    builders = render.section_builders()
    monkeypatch.setattr(
        render,
        "section_builders",
        lambda: [(-2, "killer_a", _killer_section), (-1, "killer_b", _killer_section), *builders],
    )
    assert main(_analyze_again(tmp, "--jobs", "2")) == 1
    line = _one_line(capsys.readouterr().err)
    assert "section" in line and "SIGKILL" in line and "unchanged" in line
    assert _snapshot(tmp / "out") == before


@pytest.mark.scenario("clear error")
def test_a_killed_log_reader_fails_the_analysis_in_one_line(analysed, monkeypatch, capsys):
    tmp, before = analysed
    capsys.readouterr()
    from political_sycophancy.logs import frame

    reader = frame._entry_of_log
    monkeypatch.setattr(frame, "PARALLEL_FROM", 2)
    monkeypatch.setattr(frame, "_entry_of_log", lambda job: reader(job) if os.getpid() == PARENT else _die())
    assert main(_analyze_again(tmp, "--no-cache")) == 1
    line = _one_line(capsys.readouterr().err)
    assert "reading the logs" in line and "SIGKILL" in line
    assert _snapshot(tmp / "out") == before


# an analysis whose sections take seconds (each signalled as they start): every section
# computed by two processes, many resamples
HEAVY = ("--jobs", "2", "--no-reuse", "--bootstrap", "20000", "--sign-flip-draws", "2000000")


def _session(pid: int) -> list[int]:
    """The processes of the session `pid` leads (Linux /proc)."""
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdecimal():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[3]) == pid and fields[0] != "Z":
                out.append(int(entry.name))
    return out


def _forked_analyze(argv: list[str], tmp: Path) -> int:
    """`main(argv)` in a forked child leading its own session (as a shell's job), its
    output in tmp/stdout and tmp/stderr."""
    for name in ("stdout", "stderr"):
        (tmp / name).touch()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.setsid()
            signal.signal(signal.SIGINT, signal.default_int_handler)  # as from a terminal (a background job ignores it)
            for fd, name in ((1, "stdout"), (2, "stderr")):
                os.dup2(os.open(tmp / name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC), fd)
            sys.stdout, sys.stderr = (
                open(fd, "w", buffering=1, closefd=False) for fd in (1, 2)
            )  # not pytest's capture
            code = main(argv)
        finally:
            os._exit(code)
    return pid


def _wait_for(tmp: Path, text: str, pid: int, timeout: float = 120) -> None:
    deadline = time.time() + timeout
    while text not in (tmp / "stdout").read_text(errors="replace"):
        assert time.time() < deadline, f"never printed {text!r}"
        done, _ = os.waitpid(pid, os.WNOHANG)
        assert done == 0, "the analysis ended before it was signalled"
        time.sleep(0.05)


@pytest.mark.scenario("clear error")
@pytest.mark.parametrize("to_group", [True, False], ids=["the process group", "the parent alone"])
def test_ctrl_c_ends_analyze_with_one_line_and_exit_130(analysed, to_group):
    """Ctrl-C (SIGINT to the whole job, as a terminal sends it, or to the parent alone) while
    the sections are computed: one line, exit 130, no worker left after 2 s, the earlier
    report unchanged, and the next run leaves no temporary folder."""
    tmp, before = analysed
    pid = _forked_analyze(_analyze_again(tmp, *HEAVY), tmp)
    _wait_for(tmp, "section(s) in", pid)
    (os.killpg if to_group else os.kill)(pid, signal.SIGINT)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 130
    assert "interrupted" in _one_line((tmp / "stderr").read_text())
    time.sleep(2.0)
    assert _session(pid) == []
    assert _snapshot(tmp / "out") == before
    assert main(_analyze_again(tmp)) == 0
    assert [p.name for p in tmp.iterdir() if p.name.startswith(".out.") and p.is_dir()] == []


@pytest.mark.scenario("correctly accepted")
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_a_killed_parent_leaves_no_worker_behind(analysed, sig):
    tmp, before = analysed
    pid = _forked_analyze(_analyze_again(tmp, *HEAVY), tmp)
    _wait_for(tmp, "section(s) in", pid)
    os.kill(pid, sig)
    os.waitpid(pid, 0)
    time.sleep(2.0)
    assert _session(pid) == []
    assert _snapshot(tmp / "out") == before
    assert main(_analyze_again(tmp)) == 0
    assert [p.name for p in tmp.iterdir() if p.name.startswith(".out.") and p.is_dir()] == []
