"""What a hostile user tried against the tree with logs and input files (issue 22), one line each, run and classified
by `support.bad_input.classify` as the bad-input scenarios are: every one must end as a
clear error, a counted exclusion or a correct acceptance. Each name starts with the
scenario's id in the issue.
"""

from __future__ import annotations

import json
import math
import os
import shutil
from pathlib import Path

import pandas as pd
import pytest
from support.bad_input import DIR, Scenario, classify, error, exclusion
from support.hostile import (
    ANALYZE,
    IMPORT,
    edit_header,
    edit_sample,
    eval_logs,
    killed_import,
    metadata,
    responses,
    rezip,
    score_value,
)
from support.pew import GOOD, GOOD_ITEM, mini_package

IMPORTED = IMPORT.format(file="r.csv")
# three logs; the first in name order (the one `edit_header` edits) is C3L's
THREE_CONDITIONS = responses(conditions=("N", "C3L", "C3R"))

# --- checks ------------------------------------------------------------------------------


def summary_row(tmp: Path, condition: str = "N") -> dict:
    table = pd.read_csv(tmp / "out" / "tables" / "condition_summary.csv")
    (row,) = table[table["condition"] == condition].to_dict("records")
    return row


def counted(n_samples: int, condition: str = "N"):
    """The condition's summary holds `n_samples` samples with a finite mean, and nothing
    written says inf or NaN where a number was read."""

    def check(tmp: Path, ran) -> bool:
        row = summary_row(tmp, condition)
        text = (tmp / "out" / "summary.json").read_text()
        return row["n_samples"] == n_samples and math.isfinite(row["mean_ideology"]) and "Infinity" not in text and " inf " not in ran.out

    return check


def notes_hold(pattern: str):
    """summary.json's notes (what the report lists) hold the note too."""
    import re

    return lambda tmp, ran: any(re.search(pattern, n) for n in json.loads((tmp / "out" / "summary.json").read_text())["notes"])


def both(*checks):
    return lambda tmp, ran: all(c(tmp, ran) for c in checks)


def from_cache(tmp: Path, ran) -> bool:
    return "0 read, 1 from cache" in ran.out


def from_cache_not(tmp: Path, ran) -> bool:
    return "1 read, 0 from cache" in ran.out


# --- hostile logs and folders -------------------------------------------------------------


def duplicate_members(tmp: Path) -> None:
    """A second header.json (another model) and summaries.json (ideology 99) appended."""
    (log,) = eval_logs(tmp)
    import zipfile

    with zipfile.ZipFile(log) as z:
        header, summaries = json.loads(z.read("header.json")), json.loads(z.read("summaries.json"))
    header["eval"]["model"] = "evil/other-model"
    for s in summaries:
        score_value("ideology", 99)(s)
    rezip(log, append=(("header.json", header), ("summaries.json", summaries)))


def relogged_sample(tmp: Path) -> None:
    """A second record of sample p1_01 appended with ideology 1.5 (its summary says -1)."""
    (log,) = eval_logs(tmp)
    import zipfile

    with zipfile.ZipFile(log) as z:
        record = json.loads(z.read("samples/p1_01_epoch_1.json"))
    score_value("ideology", 1.5)(record)
    rezip(log, append=(("samples/p1_01_epoch_1.json", record),))


def claim_huge_header(tmp: Path) -> None:
    """The first log's central directory made to say header.json unpacks to 4 GiB (what a
    zip bomb claims)."""
    log = eval_logs(tmp)[0]
    data = bytearray(log.read_bytes())
    at = data.rindex(b"PK\x01\x02")  # the central directory's entries; header.json is written last
    if data[at + 46:at + 57] != b"header.json":
        raise RuntimeError("header.json is not the last member")
    data[at + 24:at + 28] = (0xFFFFFFF0).to_bytes(4, "little")  # uncompressed size
    log.write_bytes(bytes(data))


def drop_summaries(tmp: Path) -> None:
    """No summaries.json and no journal: the fast reader falls back to Inspect's."""
    (log,) = eval_logs(tmp)
    rezip(log, drop=("summaries.json", "_journal/"))


def symlinks(tmp: Path) -> None:
    """A symlinked sub-folder holding a log and a symlink to a log file under the log dir."""
    (log,) = eval_logs(tmp)
    (tmp / "elsewhere").mkdir()
    shutil.copy(log, tmp / "elsewhere" / "other.eval")
    (tmp / "logs" / "linked").symlink_to(tmp / "elsewhere", target_is_directory=True)
    (tmp / "logs" / "link.eval").symlink_to(log)


def fifo_log(tmp: Path) -> None:
    os.mkfifo(tmp / "logs" / "pipe.eval")


def zero_log(tmp: Path) -> None:
    (tmp / "logs" / "sub").mkdir()
    (tmp / "logs" / "sub" / "eval-set.json").symlink_to("/dev/zero")


def zero(path: Path) -> None:
    path.symlink_to("/dev/zero")


def fifo(path: Path) -> None:
    os.mkfifo(path)


def sparse(size: int):
    def write(path: Path) -> None:
        with path.open("wb") as fh:
            fh.truncate(size)

    return write


def package_with_zero(root: Path) -> None:
    mini_package(root, [GOOD], [GOOD_ITEM])
    target = root / "pew_atp_partisan_distributions.csv"
    target.unlink()
    target.symlink_to("/dev/zero")


def epochs(n: int):
    def edit(header: dict) -> None:
        header["eval"]["config"]["epochs"] = n

    return edit


def temperature(value):
    def edit(header: dict) -> None:
        header["plan"]["config"]["temperature"] = value

    return edit


def sample_epoch(value):
    def edit(sample: dict) -> None:
        sample["epoch"] = value

    return edit


def plant_epochs(tmp: Path) -> None:
    """The frame cache's index edited to say the log plans 10**12 epochs."""
    index = tmp / "logs" / ".political-sycophancy-cache" / "index.json"
    data = json.loads(index.read_text())
    for entry in data["files"].values():
        entry["design"]["epochs"] = 10**12
    index.write_text(json.dumps(data))


CACHE = Path("logs") / ".political-sycophancy-cache"


def cache_file(pattern: str, make):
    """A step replacing the frame cache's files matching `pattern` by `make(path)`."""

    def step(tmp: Path) -> None:
        for path in (tmp / CACHE).glob(pattern):
            path.unlink()
            make(path)

    return step


INF = math.inf
SCENARIOS: list[Scenario] = [
    # non-finite, out-of-range and non-numeric values in a log: the sample left out and counted
    exclusion("S4 a sample score of inf is left out and counted", ANALYZE, r"left out 1 sample.*'ideology'.*not finite",
              counted(2), files={"r.csv": responses()}, before=(IMPORTED, edit_sample("p1_01", score_value("ideology", INF)))),
    exclusion("S4 a sample score of -inf in another measure is left out", ANALYZE, r"left out 1 sample.*'acquiescence'.*not finite",
              counted(2), files={"r.csv": responses()}, before=(IMPORTED, edit_sample("p1_02", score_value("acquiescence", -INF)))),
    exclusion("S4 an infinite score in a log read with Inspect's reader is left out", ANALYZE, r"left out 1 sample.*'ideology'.*not finite",
              counted(2), files={"r.csv": responses()}, before=(IMPORTED, edit_sample("p1_01", score_value("ideology", -INF)), drop_summaries)),
    exclusion("S4 a score given as text is left out", ANALYZE, r"left out 1 sample.*'ideology'.*not a number",
              counted(2), files={"r.csv": responses()}, before=(IMPORTED, edit_sample("p1_03", score_value("ideology", "1.5")))),
    exclusion("S5 a non-numeric direction is left out and counted", ANALYZE, r"left out 1 sample.*'direction'.*not a whole number",
              counted(2), files={"r.csv": responses()}, before=(IMPORTED, edit_sample("p1_01", metadata("direction", "left")))),
    exclusion("S5 a direction of 2 is left out and counted", ANALYZE, r"left out 1 sample.*'direction'.*outside",
              counted(2), files={"r.csv": responses()}, before=(IMPORTED, edit_sample("p1_02", metadata("direction", 2)))),
    exclusion("S5 answer probabilities that are not numbers are left out", ANALYZE, r"left out 1 sample.*'probs'",
              counted(2), files={"r.csv": responses()},
              before=(IMPORTED, edit_sample("p1_02", lambda s: [sc["metadata"].update(probs=["x", 1, 0, 0]) for sc in s["scores"].values()]))),
    exclusion("S5 answer probabilities summing to 4 are left out", ANALYZE, r"left out 1 sample.*'probs' sum to 4",
              counted(2), files={"r.csv": responses()},
              before=(IMPORTED, edit_sample("p1_03", lambda s: [sc["metadata"].update(probs=[1, 1, 1, 1]) for sc in s["scores"].values()]))),
    exclusion("S6 duplicated header.json and summaries.json are read as Inspect reads them", ANALYZE, r"duplicate zip member",
              both(counted(3), lambda tmp, ran: "evil/other-model" in summary_row(tmp)["model"], notes_hold("duplicate zip member")),
              files={"r.csv": responses()}, before=(IMPORTED, duplicate_members)),
    exclusion("S6 a sample record written twice is read as Inspect reads it", ANALYZE, r"duplicate zip member\(s\) samples/p1_01_epoch_1\.json",
              both(counted(3), lambda tmp, ran: summary_row(tmp)["mean_ideology"] == 0.5), files={"r.csv": responses()},
              before=(IMPORTED, relogged_sample)),
    exclusion("S6 an infinite partisan gap given as text is left out", ANALYZE, r"left out 1 sample.*'item_partisan_gap'",
              counted(2), files={"r.csv": responses()}, before=(IMPORTED, edit_sample("p1_03", metadata("item_partisan_gap", "inf")))),
    exclusion("S6 an ideology of 99 (outside -2..2) is left out and counted", ANALYZE, r"left out 1 sample.*'ideology'.*outside",
              both(counted(2), notes_hold("left out 1 sample")), files={"r.csv": responses()},
              before=(IMPORTED, edit_sample("p1_01", score_value("ideology", 99)))),
    # notes survive a cached re-run
    exclusion("S7 the fallback reader's note is printed again on the cached re-run", ANALYZE, r"read with Inspect's read_eval_log",
              from_cache, files={"r.csv": responses()}, before=(IMPORTED, drop_summaries, ANALYZE)),
    exclusion("S7 a left-out sample is counted again on the cached re-run", ANALYZE, r"left out 1 sample.*'ideology'",
              both(from_cache, counted(2)), files={"r.csv": responses()},
              before=(IMPORTED, edit_sample("p1_01", score_value("ideology", INF)), ANALYZE)),
    exclusion("S7 the fallback note is printed again on a reused analysis", ANALYZE.replace(" --no-reuse", ""), r"read with Inspect's read_eval_log",
              lambda tmp, ran: "reused the analysis" in ran.out, files={"r.csv": responses()},
              before=(IMPORTED, drop_summaries, ANALYZE.replace(" --no-reuse", ""))),
    # what is under the log folder but not read
    exclusion("S8 a symlinked sub-folder and log file are noted", ANALYZE, r"skipped 2 .*link\.eval \(a symbolic link to a file\).*linked \(a symbolic link to a folder\)",
              counted(3), files={"r.csv": responses()}, before=(IMPORTED, symlinks)),
    exclusion("S8 a FIFO named like a log is noted, not opened", ANALYZE, r"skipped 1 .*pipe\.eval \(a FIFO",
              counted(3), files={"r.csv": responses()}, before=(IMPORTED, fifo_log)),
    exclusion("S8 an eval-set manifest linked to /dev/zero is noted, not read", ANALYZE, r"skipped 1 .*eval-set\.json \(a symbolic link",
              counted(3), files={"r.csv": responses()}, before=(IMPORTED, zero_log)),
    exclusion("S8 a log linked to /dev/zero is noted, not read", ANALYZE, r"skipped 1 .*zero\.eval \(a symbolic link to a character device",
              counted(3), files={"r.csv": responses(), "logs/zero.eval": zero}, before=(IMPORTED,)),
    error("S8 a lock file linked to another file is refused, not truncated", "audit --model faulty/mockllm/model --conditions N --limit 1 --log-dir logs",
          r"--log-dir logs: cannot open its lock file", files={"victim.txt": "keep me", "logs/.political-sycophancy.lock": lambda p: p.symlink_to("../victim.txt")}),
    # response files
    error("S11 rep 1e3 is not a whole number", IMPORTED, r"r\.csv, row 1, field 'rep': .*whole number .*'1e3'",
          files={"r.csv": responses(extra={"rep": "1e3"})}),
    error("S12 a 20-digit rep", IMPORTED, r"r\.csv, row 1, field 'rep': .*whole number from 0 to",
          files={"r.csv": responses(extra={"rep": "12345678901234567890"})}),
    error("S12 a rep of 1e300", IMPORTED, r"r\.csv, row 2, field 'rep'", files={"r.csv": responses({(2, "rep"): "1e300"}, extra={"rep": "0"})}),
    error("S13 a negative temperature", IMPORTED, r"r\.csv, row 1, field 'temperature': .*0 or more", files={"r.csv": responses(extra={"temperature": "-0.5"})}),
    error("S13 a temperature just below 0", IMPORTED, r"r\.csv, row 3, field 'temperature'", files={"r.csv": responses({(3, "temperature"): "-1e-9"}, extra={"temperature": "1"})}),
    exclusion("S17 a killed import-responses is noted by analyze", ANALYZE, r"import-responses of \S*r\.csv did not finish",
              notes_hold("did not finish"), files={"r.csv": THREE_CONDITIONS}, before=(killed_import("r.csv"),)),
    Scenario("S17 running the killed import again completes it", "accept", ANALYZE, files={"r.csv": THREE_CONDITIONS},
             before=(killed_import("r.csv"), IMPORTED), check=lambda tmp, ran: "did not finish" not in ran.out and counted(3, "C3R")(tmp, ran)),
    # sizes and counts bounded before allocation; one bad log never stops the others
    exclusion("T3 a log declaring 10**12 epochs is left out, the others read", ANALYZE, r"could not read 1 log.*epochs",
              both(counted(3), counted(3, "C3R")), files={"r.csv": THREE_CONDITIONS}, before=(IMPORTED, edit_header(epochs(10**12)))),
    exclusion("T3 a log declaring epochs as text is left out", ANALYZE, r"could not read 1 log.*epochs",
              both(counted(3), counted(3, "C3R")), files={"r.csv": THREE_CONDITIONS}, before=(IMPORTED, edit_header(epochs("5")))),
    exclusion("T3 a log with an infinite temperature is left out", ANALYZE, r"could not read 1 log.*temperature",
              both(counted(3), counted(3, "C3R")), files={"r.csv": THREE_CONDITIONS}, before=(IMPORTED, edit_header(temperature(INF)))),
    exclusion("T3 a frame cache planted with 10**12 epochs is rebuilt", ANALYZE, r"frame cache .* failed validation",
              counted(3), files={"r.csv": responses()}, before=(IMPORTED, ANALYZE, plant_epochs)),
    exclusion("T6 a frame cache index linked to /dev/zero is not read", ANALYZE, r"index\.json failed validation \(it is a symbolic link",
              both(counted(3), from_cache_not), files={"r.csv": responses()}, before=(IMPORTED, ANALYZE, cache_file("index.json", zero))),
    exclusion("H1 a FIFO as a frame cache rows file is not opened", ANALYZE, r"failed validation \(the rows file is a FIFO",
              counted(3), files={"r.csv": responses()}, before=(IMPORTED, ANALYZE, cache_file("rows/*.parquet", fifo))),
    exclusion("T6 a frame cache folder linked elsewhere is neither read nor written", ANALYZE, r"frame cache folder \S+ is a symbolic link",
              both(counted(3), lambda tmp, ran: not any((tmp / "elsewhere").iterdir())), files={"r.csv": responses(), "elsewhere": DIR},
              before=(IMPORTED, lambda tmp: (tmp / CACHE).symlink_to(tmp / "elsewhere", target_is_directory=True))),
    exclusion("T3 a log whose zip says a member unpacks to 4 GiB is left out before unpacking", ANALYZE, r"could not read 1 log.*header\.json would unpack to 4,294,967,280 bytes",
              both(counted(3, "C3R"), counted(3)), files={"r.csv": THREE_CONDITIONS}, before=(IMPORTED, claim_huge_header)),
    exclusion("T8 a sample with a 20-digit epoch is left out", ANALYZE, r"left out 1 sample.*'epoch'",
              counted(2), files={"r.csv": responses()}, before=(IMPORTED, edit_sample("p1_01", sample_epoch(12345678901234567890)))),
    error("T6 /dev/urandom as the response file", "import-responses /dev/urandom --items {pct} --log-dir logs", r"/dev/urandom: not a regular file"),
    error("T6 a 2 GiB sparse response file", IMPORTED, r"r\.csv: .*larger than", files={"r.csv": sparse(2 << 30)}),
    error("T7 a symlink to /dev/zero as the item file", "import-responses r.csv --items items.csv --log-dir logs", r"items\.csv: not a regular file",
          files={"r.csv": responses(), "items.csv": zero}),
    error("T7 a symlink to /dev/zero as the response file", IMPORTED, r"r\.csv: not a regular file", files={"r.csv": zero}),
    error("T11 a replication file linked to /dev/zero", "import-items pkg --out out", r"pew_atp_partisan_distributions\.csv: not a regular file",
          files={"pkg": DIR}, before=(lambda tmp: package_with_zero(tmp / "pkg"),)),
    error("T11 a conditions file linked to /dev/zero", IMPORTED + " --conditions-file conds.yaml", r"conds\.yaml: not a regular file",
          files={"r.csv": responses(), "conds.yaml": zero}),
    error("H1 a FIFO as the response file", IMPORTED, r"r\.csv: not a regular file \(a FIFO", files={"r.csv": fifo}),
    error("H1 a FIFO as the item file", "import-responses r.csv --items items.csv --log-dir logs", r"items\.csv: not a regular file \(a FIFO",
          files={"r.csv": responses(), "items.csv": fifo}),
]


@pytest.mark.scenario("classified")
@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.name for s in SCENARIOS])
def test_scenario(scenario, tmp_path, monkeypatch, record_property):
    monkeypatch.setenv("INSPECT_LOG_DIR", str(tmp_path / "inspect-logs"))
    outcome, ran = classify(scenario, tmp_path)
    record_property("outcome", outcome)  # bench/bad_input_table.py tabulates these
    record_property("detail", ran.error_line or (ran.crash.strip().splitlines() or [""])[-1])
    assert outcome in ("clear error", "counted exclusion", "correctly accepted"), (
        f"{scenario.name}: {outcome}\n--- error line: {ran.error_line}\n--- out:\n{ran.out[-2000:]}\n--- err:\n{ran.err[-2000:]}\n{ran.crash[-3000:]}"
    )
