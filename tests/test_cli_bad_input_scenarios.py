"""Bad inputs and careless-user scenarios, one line each, run and classified by
`support.bad_input.classify`: every one must end as a clear error, a counted exclusion or a
correct acceptance; none as a traceback, a silently wrong result or anything else.

`python bench/bad_input_table.py` prints the table of outcomes (tried / clear error /
counted exclusion / correctly accepted / traceback / silently wrong / other).
"""

from __future__ import annotations

import csv
import io
import json
import math
import shutil
from pathlib import Path

import pandas as pd
import pytest
from inspect_ai.log import read_eval_log
from support.bad_input import DIR, Scenario, accept, classify, error, exclusion
from support.pew import GOOD, GOOD_ITEM, mini_package

from political_sycophancy.core.items import LIKERT4, load_instrument, load_items

# --- inputs ------------------------------------------------------------------------------

ITEMS = (
    "id,text,options,dist_dem,dist_rep,partisan_gap\n"
    'q1,Should taxes rise?,Favor | Oppose,"[0.7, 0.3]","[0.2, 0.8]",0.5\n'
    'q2,Is the economy better?,Better | Same | Worse,"[0.2, 0.3, 0.5]","[0.5, 0.3, 0.2]",0.3\n'
)
ITEMS_JSONL = '{"id": "q1", "text": "Taxes?", "options": ["Favor", "Oppose"]}\n'
DEEP_JSON = '{"id": "q1", "text": "t", "options": ["A", "B"], "x": ' + "[" * 100_000 + "]" * 100_000 + "}\n"
PCT = {i.id: i for i in load_instrument("pct")}
RESPONSE_COLUMNS = ["model_id", "question_id", "question_text", "n_options", "options", "raw_response", "letter", "letter_index"]


def responses(edits: dict[tuple[int, str], str] | None = None, *, letter: str = "B", extra: dict[str, str] | None = None,
              columns: list[str] | None = None) -> str:
    """A Phase 1-shaped response file answering PCT p1_01..p1_03; `edits` changes cells
    ((1-based row, column) -> value), `extra` adds columns with one value for every row."""
    rows = []
    for item_id in ("p1_01", "p1_02", "p1_03"):
        item = PCT[item_id]
        rows.append({
            "model_id": "p/m", "question_id": item_id, "question_text": item.text, "n_options": "4",
            "options": json.dumps(list(LIKERT4)), "raw_response": letter, "letter": letter,
            "letter_index": str("ABCD".index(letter)), **(extra or {}),
        })
    for (row, column), value in (edits or {}).items():
        rows[row - 1][column] = value
    header = columns or RESPONSE_COLUMNS + list(extra or {})
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(header)
    writer.writerows([[r.get(c, "") for c in header] for r in rows])
    return buf.getvalue()


IMPORT = "import-responses {file} --items {{pct}} --log-dir logs"
SECOND_DIST = ["W1", "Q2", "Q2?", 3, '["More", "Same", "Not sure"]', "[0.4, 0.4, 0.2]", "[0.1, 0.8, 0.1]", "[0.7, 0.2, 0.1]", 10, 5, 5, 0.35, ""]
SECOND_ITEM = ["W1", "Q2", "Q two?", "More | Same | Not sure", 3, 100.0]
DIST, LISTED, CODED, PCT_FILE = "pew_atp_partisan_distributions.csv", "pew_atp_items.csv", "pew_atp_items_coded.csv", "pct_items_coded.csv"


def package(change=None):
    """A writer of a small replication package (62 PCT statements, one Typology item, two
    ATP items), then `change(dir)`."""

    def write(root: Path) -> None:
        mini_package(root, [GOOD, SECOND_DIST], [GOOD_ITEM, SECOND_ITEM])
        if change:
            change(root)

    return write


def reference_package(change):
    def write(root: Path) -> None:
        shutil.copytree(_reference(), root)
        change(root)

    return write


def _reference() -> Path:
    from support import REFERENCE

    return REFERENCE


def cut(name: str, fraction: float = 0.5):
    """Cut a file at a fraction of its bytes (a download or copy that stopped)."""

    def change(root: Path) -> None:
        data = (root / name).read_bytes()
        (root / name).write_bytes(data[: int(len(data) * fraction)])

    return change


def drop_last_line(name: str):
    def change(root: Path) -> None:
        lines = (root / name).read_bytes().splitlines(keepends=True)
        (root / name).write_bytes(b"".join(lines[:-1]))

    return change


def rewrite(name: str, old: bytes, new: bytes, count: int = 1):
    def change(root: Path) -> None:
        (root / name).write_bytes((root / name).read_bytes().replace(old, new, count))

    return change


def sav_wave(weights=(1.0, 2.0, 1.0, 1.0)):
    def write(path: Path) -> None:
        import pyreadstat

        df = pd.DataFrame({"QKEY": [1.0, 2, 3, 4], "F_PARTYSUM_FINAL": [1.0, 2, 1, 2], "WEIGHT_W1": list(weights), "Q1_W1": [1.0, 2, 1, 2]})
        pyreadstat.write_sav(
            df, str(path), column_labels=["id", "party", "weight", "Q1_W1. Favor or oppose?"],
            variable_value_labels={"Q1_W1": {1: "Favor", 2: "Oppose"}, "F_PARTYSUM_FINAL": {1: "Rep", 2: "Dem"}},
        )

    return write


def conditions_yaml(cid: str = "C3R", text: str = "I am a very conservative Republican voter.") -> str:
    return f"conditions:\n  - id: {cid}\n    label: mine\n    text: {text}\n"


# --- checks ------------------------------------------------------------------------------


def logs(tmp: Path, folder: str = "logs") -> list:
    return [read_eval_log(str(p)) for p in sorted((tmp / folder).glob("*.eval"))]


def logs_hold(n_logs: int, n_samples: int):
    return lambda tmp, ran: len(found := logs(tmp)) == n_logs and sum(len(log.samples or []) for log in found) == n_samples


def printed(text: str):
    return lambda tmp, ran: text in ran.out + ran.err


def options_scenario(name: str, cell: str, expected: tuple[str, ...]) -> Scenario:
    """An item whose options cell is `cell` must load with exactly `expected`."""
    return accept(name, lambda tmp: load_items(tmp / "items.csv")[0].options, lambda tmp, ran: ran.value == expected,
                  files={"items.csv": f"id,text,options\nq1,How many?,{cell}\n"})


def redefined_and_recorded(tmp: Path, ran) -> bool:
    (log,) = logs(tmp)
    return "warning" in ran.err and "redefines the built-in condition C3R" in ran.err and log.eval.metadata["condition_redefines_builtin"] is True


CUT_SHORT = r"(fewer values|malformed CSV).*cut short"
UNWRITABLE = "/sys/political-sycophancy-unwritable"  # refused even to root (read-only sysfs)
AUDIT_FAULTY = "audit --model faulty/mockllm/model --conditions N --limit 1 --log-dir logs -M "

# --- the scenarios -----------------------------------------------------------------------

SCENARIOS: list[Scenario] = [
    # item files
    accept("item CSV with bare-CR line ends", "pools --items items.csv --pool all", printed("2 of 2 items"), files={"items.csv": ITEMS.replace("\n", "\r")}),
    accept("item CSV with CRLF line ends", "pools --items items.csv --pool all", printed("2 of 2 items"), files={"items.csv": ITEMS.replace("\n", "\r\n")}),
    accept("item CSV with a UTF-8 BOM", "pools --items items.csv --pool all", printed("2 of 2 items"), files={"items.csv": "\ufeff" + ITEMS}),
    error("item path is a directory", "pools --items items.csv", r"items\.csv: is a directory", files={"items.csv": DIR}),
    error("item path is a directory (no suffix)", "pools --items items", r"items: is a directory", files={"items": DIR}),
    error("item file missing", "pools --items nope.csv", r"nope\.csv: file not found"),
    error("item file in Latin-1", "pools --items items.csv", r"items\.csv: not valid UTF-8", files={"items.csv": ITEMS.replace("taxes", "tax\xe9s").encode("latin-1")}),
    error("item file in UTF-16", "pools --items items.csv", r"items\.csv: not valid UTF-8", files={"items.csv": ITEMS.encode("utf-16")}),
    error("item file empty", "pools --items items.csv", r"items\.csv: file is empty", files={"items.csv": ""}),
    error("item file with a header only", "pools --items items.csv", r"items\.csv: file has a header but no items", files={"items.csv": ITEMS.splitlines()[0] + "\n"}),
    error("item file repeats a column", "pools --items items.csv", r"items\.csv, field 'text': column 'text' appears twice",
          files={"items.csv": "id,text,options,text\nq1,One?,A | B,Two?\n"}),
    error("JSONL item repeats a key", "pools --items items.jsonl", r"items\.jsonl, row 1, field 'text': key 'text' appears twice",
          files={"items.jsonl": '{"id": "q1", "text": "One?", "options": ["A", "B"], "text": "Two?"}\n'}),
    error("JSONL item nested 100k deep", "pools --items items.jsonl", r"items\.jsonl, row 2: JSON nested too deeply", files={"items.jsonl": ITEMS_JSONL + DEEP_JSON}),
    error("item CSV cut mid-row", "pools --items items.csv", r"items\.csv, row 2, field '\w+': fewer values .*cut short", files={"items.csv": ITEMS[: ITEMS.index("Better") + 3]}),
    error("item CSV cut inside a quoted value", "pools --items items.csv", r"items\.csv, row 2: malformed CSV", files={"items.csv": ITEMS[: ITEMS.index("0.3, 0.5") + 3]}),
    error("item CSV row with an extra value", "pools --items items.csv", r"items\.csv, row 1: more values", files={"items.csv": ITEMS.replace("0.5\n", "0.5,extra\n", 1)}),
    error("item CSV with text after a closing quote", "pools --items items.csv", r"items\.csv, row 1: malformed CSV", files={"items.csv": ITEMS.replace('"[0.7, 0.3]"', '"[0.7, 0.3]"x')}),
    error("item file with a repeated id", "pools --items items.csv", r"items\.csv, row 2, field 'id': duplicate id", files={"items.csv": ITEMS.replace("q2,", "q1,")}),
    error("item file as .xlsx", "pools --items items.xlsx", r"items\.xlsx: unsupported file type", files={"items.xlsx": b"PK\x03\x04"}),
    options_scenario("JSON options that start with numbers stay whole", '"[""18 to 29"", ""30 to 49"", ""50 to 64"", ""65 or older""]"', ("18 to 29", "30 to 49", "50 to 64", "65 or older")),
    options_scenario("JSON options '1 time', '2 times' stay whole", '"[""1 time"", ""2 times"", ""3 or more times""]"', ("1 time", "2 times", "3 or more times")),
    options_scenario("A | B options with numbers that are not codes stay whole", "18 to 29 | 30 to 49 | 50 to 64 | 65 or older", ("18 to 29", "30 to 49", "50 to 64", "65 or older")),
    options_scenario("A | B options coded 1..n lose Pew's codes", "1 Favor | 2 Oppose | 3 Not sure", ("Favor", "Oppose", "Not sure")),
    options_scenario("A | B options with a code on some only stay whole", "1 Favor | Oppose", ("1 Favor", "Oppose")),
    error("inspect eval with an item path that is a directory", "inspect eval political_sycophancy/audit -T items=items.csv --model mockllm/model",
          r"^file items\.csv: is a directory", files={"items.csv": DIR}),
    error("inspect eval with a paired-prompt file missing a group column", "inspect eval political_sycophancy/evenhandedness -T pairs=pairs.csv --model mockllm/model",
          r"^file pairs\.csv, row 1, field 'prompt_b_group': missing column", files={"pairs.csv": "prompt_a,prompt_b,prompt_a_group\nArgue for X,Argue against X,pro_x\n"}),
    # pools
    error("pool file is a directory", "pools --items items.csv --pool ids", r"ids: is a directory", files={"items.csv": ITEMS, "ids": DIR}),
    error("pool file not UTF-8", "pools --items items.csv --pool ids.txt", r"ids\.txt: not valid UTF-8", files={"items.csv": ITEMS, "ids.txt": b"q1\n\xff\xfe\n"}),
    error("pool file empty", "pools --items items.csv --pool ids.txt", r"ids\.txt: file is empty", files={"items.csv": ITEMS, "ids.txt": "\n"}),
    error("pool file repeats an id", "pools --items items.csv --pool ids.txt", r"ids\.txt, row 3: id 'q1' listed twice", files={"items.csv": ITEMS, "ids.txt": "q1\nq2\nq1\n"}),
    error("pool file names an unknown id", "pools --items items.csv --pool ids.txt", r"ids\.txt: 1 ids not in the instrument", files={"items.csv": ITEMS, "ids.txt": "q1\nq9\n"}),
    accept("pool file with a BOM and CRLF", "pools --items items.csv --pool ids.txt", printed("2 of 2 items"), files={"items.csv": ITEMS, "ids.txt": "\ufeffq2\r\nq1\r\n"}),
    error("unknown pool name", "pools --items items.csv --pool top-5", r"unknown pool 'top-5'", files={"items.csv": ITEMS}),
    error("pool file missing", "pools --items items.csv --pool ids.txt", r"error: pool file not found: ids\.txt", files={"items.csv": ITEMS}),
    error("profiles task with a pool file not made yet (the profiles README's example)",
          "inspect eval political_sycophancy/profiles -T pool=pool10.txt --model mockllm/model", r"pool file not found: pool10\.txt"),
    # conditions files
    error("conditions path is a directory", IMPORT.format(file="r.csv") + " --conditions-file conds.yaml", r"conds\.yaml: is a directory",
          files={"r.csv": responses(), "conds.yaml": DIR}),
    error("conditions YAML repeats a key", IMPORT.format(file="r.csv") + " --conditions-file conds.yaml", r"conds\.yaml: cannot parse YAML .*'text' appears twice",
          files={"r.csv": responses(), "conds.yaml": conditions_yaml("MINE") + "    text: again\n"}),
    error("conditions JSON nested 100k deep", IMPORT.format(file="r.csv") + " --conditions-file conds.json", r"conds\.json: JSON nested too deeply",
          files={"r.csv": responses(), "conds.json": '{"conditions": ' + "[" * 100_000 + "]" * 100_000 + "}"}),
    error("conditions YAML nested 100k deep", IMPORT.format(file="r.csv") + " --conditions-file conds.yaml", r"conds\.yaml: YAML nested too deeply",
          files={"r.csv": responses(), "conds.yaml": "conditions: " + "[" * 100_000 + "]" * 100_000}),
    error("conditions YAML with a Python tag", IMPORT.format(file="r.csv") + " --conditions-file conds.yaml", r"conds\.yaml: cannot parse YAML",
          files={"r.csv": responses(), "conds.yaml": "conditions: !!python/object/apply:os.system ['echo hacked']\n"}),
    accept("conditions file redefines C3R: warned and recorded", IMPORT.format(file="r.csv") + " --conditions-file conds.yaml", redefined_and_recorded,
           files={"r.csv": responses(extra={"condition": "C3R"}), "conds.yaml": conditions_yaml()}),
    # response files
    accept("two response files with one base name in different folders", IMPORT.format(file="rep2/results.csv"), logs_hold(2, 6),
           files={"rep1/results.csv": responses(), "rep2/results.csv": responses(letter="C")}, before=(IMPORT.format(file="rep1/results.csv"),)),
    accept("re-importing the same file replaces its own logs", IMPORT.format(file="r.csv"), lambda tmp, ran: logs_hold(1, 3)(tmp, ran) and "replaced 1 earlier log" in ran.out,
           files={"r.csv": responses()}, before=(IMPORT.format(file="r.csv"),)),
    error("re-importing a file edited since", IMPORT.format(file="r.csv"), r"r\.csv: 1 log\(s\) .* earlier version of this file .*--replace-changed",
          files={"r.csv": responses()}, before=(IMPORT.format(file="r.csv"), lambda tmp: (tmp / "r.csv").write_text(responses(letter="C")))),
    accept("re-importing an edited file with --replace-changed", IMPORT.format(file="r.csv") + " --replace-changed",
           lambda tmp, ran: logs_hold(1, 3)(tmp, ran) and "replaced 1 log(s) of its earlier version" in ran.out,
           files={"r.csv": responses()}, before=(IMPORT.format(file="r.csv"), lambda tmp: (tmp / "r.csv").write_text(responses(letter="C")))),
    accept("a response file in the Phase 1 shape", IMPORT.format(file="r.csv"), logs_hold(1, 3), files={"r.csv": responses()}),
    accept("a response file with bare-CR line ends", IMPORT.format(file="r.csv"), logs_hold(1, 3), files={"r.csv": responses().replace("\n", "\r")}),
    error("response options are malformed JSON", IMPORT.format(file="r.csv"), r"r\.csv, row 2, field 'options': unreadable options", files={"r.csv": responses({(2, "options"): '["Strongly Agree", "Agree"'})}),
    error("response options in reverse order", IMPORT.format(file="r.csv"), r"r\.csv, row 1, field 'options': the options of item p1_01 in another order",
          files={"r.csv": responses({(1, "options"): json.dumps(list(reversed(LIKERT4)))})}),
    error("response options of another item", IMPORT.format(file="r.csv"), r"r\.csv, row 3, field 'options': 2 options, item p1_03 has 4",
          files={"r.csv": responses({(3, "options"): '["Yes", "No"]'})}),
    error("response n_options is wrong", IMPORT.format(file="r.csv"), r"r\.csv, row 2, field 'n_options': n_options 5", files={"r.csv": responses({(2, "n_options"): "5"})}),
    error("response question text is another item's", IMPORT.format(file="r.csv"), r"r\.csv, row 1, field 'question_text'", files={"r.csv": responses({(1, "question_text"): PCT["p1_02"].text})}),
    error("response letter beyond the item's options", IMPORT.format(file="r.csv"), r"r\.csv, row 1, field 'letter': letter E", files={"r.csv": responses({(1, "letter"): "E", (1, "letter_index"): "4"})}),
    error("response letter_index disagrees with the letter", IMPORT.format(file="r.csv"), r"r\.csv, row 2, field 'letter_index'", files={"r.csv": responses({(2, "letter_index"): "3"})}),
    exclusion("reversed options left out with --skip-mismatched", IMPORT.format(file="r.csv") + " --skip-mismatched", r"left out 1 response\(s\) that disagree .*row 1, field 'options'",
              logs_hold(1, 2), files={"r.csv": responses({(1, "options"): json.dumps(list(reversed(LIKERT4)))})}),
    exclusion("unknown question id left out with --skip-unknown", IMPORT.format(file="r.csv") + " --skip-unknown", r"left out 1 response\(s\) to 1 question id",
              logs_hold(1, 2), files={"r.csv": responses({(3, "question_id"): "zz_99"})}),
    error("response file repeats a column", IMPORT.format(file="r.csv"), r"r\.csv, field 'model_id': column 'model_id' appears twice",
          files={"r.csv": responses(columns=RESPONSE_COLUMNS + ["model_id"])}),
    error("response file cut mid-row", IMPORT.format(file="r.csv"), r"r\.csv, row 3, field 'letter': fewer values .*cut short", files={"r.csv": responses()[:-5]}),
    error("response path is a directory", IMPORT.format(file="r.csv"), r"r\.csv: is a directory", files={"r.csv": DIR}),
    error("response file not UTF-8", IMPORT.format(file="r.csv"), r"r\.csv: not valid UTF-8", files={"r.csv": responses().encode("utf-16")}),
    error("--items path is a directory", "import-responses r.csv --items items --log-dir logs", r"items: is a directory", files={"r.csv": responses(), "items": DIR}),
    error("--log-dir is a file", "import-responses r.csv --items {pct} --log-dir logs", r"--log-dir logs: exists and is not a directory", files={"r.csv": responses(), "logs": "x"}),
    error("--log-dir under a file", "import-responses r.csv --items {pct} --log-dir f/logs", r"--log-dir f/logs: cannot write there", files={"r.csv": responses(), "f": "x"}),
    error("--log-dir unwritable", f"import-responses r.csv --items {{pct}} --log-dir {UNWRITABLE}", r"--log-dir /sys/\S+: cannot write there", files={"r.csv": responses()}),
    error("import-responses --jobs 0", "import-responses r.csv --items {pct} --log-dir logs --jobs 0", r"--jobs must be at least 1, not 0", files={"r.csv": responses()}),
    error("analyze --out is a file", "analyze logs --out report", r"--out report: exists and is not a directory", files={"logs": DIR, "report": "x"}),
    # the replication package (import-items)
    accept("a small replication package", "import-items pkg --out out", printed("atp           2 items"), files={"pkg": package()}),
    error("distributions file cut mid-row", "import-items pkg --out out", rf"{DIST}, row 2.*: {CUT_SHORT}", files={"pkg": package(cut(DIST, 0.8))}),
    error("distributions file cut at a line end", "import-items pkg --out out", rf"{DIST}: 1 item\(s\) of {LISTED} have no row here .*cut short", files={"pkg": package(drop_last_line(DIST))}),
    error("distributions file cut in an early row", "import-items pkg --out out", rf"{DIST}, row 1.*: {CUT_SHORT}", files={"pkg": package(cut(DIST, 0.6))}),
    error("items file cut at a line end", "import-items pkg --out out", rf"{LISTED}: 1 item\(s\) of {DIST} have no row here", files={"pkg": package(drop_last_line(LISTED))}),
    error("PCT file cut at a line end", "import-items pkg --out out", rf"{PCT_FILE}, field 'pct_id': 1 of the 62 PCT statements are missing", files={"pkg": package(drop_last_line(PCT_FILE))}),
    error("replication CSV not UTF-8", "import-items pkg --out out", rf"{PCT_FILE}: not valid UTF-8", files={"pkg": package(rewrite(PCT_FILE, b"statement", b"st\xe4tement"))}),
    error("replication CSV repeats a column", "import-items pkg --out out", rf"{LISTED}, field 'question': column 'question' appears twice", files={"pkg": package(rewrite(LISTED, b"pct_answered", b"question"))}),
    error("a distribution's JSON list cut short", "import-items pkg --out out", rf"{DIST}, row 1, field 'dist_dem': malformed JSON",
          files={"pkg": package(rewrite(DIST, b'"[0.8, 0.2]"', b'"[0.8, 0.2"'))}),
    error("import-items --out is a file", "import-items pkg --out out", r"--out out: exists and is not a directory", files={"pkg": package(), "out": "x"}),
    error("import-items source is a file", "import-items pkg --out out", r"pkg: not a directory", files={"pkg": "x"}),
    error("the real distributions file cut in half", "import-items pkg --out out", rf"{DIST}, row \d+.*: {CUT_SHORT}",
          files={"pkg": reference_package(cut(DIST, 0.5))}, needs_reference=True),
    error("the real ATP items file cut at a line end", "import-items pkg --out out", rf"{LISTED}: 1 item\(s\) of {DIST} have no row here",
          files={"pkg": reference_package(drop_last_line(LISTED))}, needs_reference=True),
    error("the real direction codes cut at a line end", "import-items pkg --out out", rf"{CODED}: 1 item\(s\) of {LISTED} have no row here",
          files={"pkg": reference_package(drop_last_line(CODED))}, needs_reference=True),
    # Pew .sav files (atp build)
    accept("a small .sav wave", "atp build --sav w.sav --out atp.csv", printed("1 items with benchmarks"), files={"w.sav": sav_wave()}),
    error(".sav with an infinite weight", "atp build --sav w.sav --out atp.csv", r"w\.sav, row 2, field 'WEIGHT_W1': infinite survey weight", files={"w.sav": sav_wave((1.0, math.inf, 1.0, 1.0))}),
    error(".sav cut short", "atp build --sav w.sav --out atp.csv", r"w\.sav: cannot read \.sav file", files={"w.sav": lambda p: (sav_wave()(p), p.write_bytes(p.read_bytes()[:200]))}),
    error("atp build --out is a directory", "atp build --sav w.sav --out atp.csv", r"--out atp\.csv: is a directory", files={"w.sav": sav_wave(), "atp.csv": DIR}),
    error("atp build --out is not a .csv", "atp build --sav w.sav --out atp.jsonl", r"--out atp\.jsonl: .*CSV", files={"w.sav": sav_wave()}),
    error("atp build --report under a file", "atp build --sav w.sav --out atp.csv --report f/r.md", r"--report f/r\.md: cannot write there", files={"w.sav": sav_wave(), "f": "x"}),
    error("atp build --sav folder without .sav files", "atp build --sav waves --out atp.csv", r"waves: no \.sav files", files={"waves": DIR}),
    # the fault-injecting provider's parameters
    error("inspect eval with -M permanent=1.5", "inspect eval political_sycophancy/audit --limit 1 --model faulty/mockllm/model -M permanent=1.5",
          r"^faulty: -M permanent must be a number in \[0, 1\], got 1\.5$"),
    error("faulty -M permanent=1.5", AUDIT_FAULTY + "permanent=1.5", r"-M permanent must be a number in \[0, 1\], got '1\.5'"),
    error("faulty -M transient=-0.1", AUDIT_FAULTY + "transient=-0.1", r"-M transient must be a number in \[0, 1\]"),
    error("faulty -M garbage=lots", AUDIT_FAULTY + "garbage=lots", r"-M garbage must be a number"),
    error("faulty rates that sum over 1", AUDIT_FAULTY + "empty=0.6 -M garbage=0.6", r"fault rates .* sum to 1\.200"),
    error("faulty -M hang_seconds=-1", AUDIT_FAULTY + "hang_seconds=-1", r"-M hang_seconds must be a number >= 0"),
    error("faulty -M outage_after=x", AUDIT_FAULTY + "outage_after=x", r"-M outage_after must be a whole number >= 0"),
    error("faulty -M seed=1.5", AUDIT_FAULTY + "seed=1.5", r"-M seed must be a whole number, got '1\.5'"),
    # analyze's output directory
    error("analyze --out is a file", "analyze logs --out out", r"--out out: exists and is not a directory", files={"r.csv": responses(), "out": "x"}, before=(IMPORT.format(file="r.csv"),)),
    error("analyze --out under a file", "analyze logs --out f/out", r"--out f/out: cannot write there", files={"r.csv": responses(), "f": "x"}, before=(IMPORT.format(file="r.csv"),)),
    error("analyze --out unwritable", f"analyze logs --out {UNWRITABLE}", r"--out /sys/\S+: cannot write there", files={"r.csv": responses()}, before=(IMPORT.format(file="r.csv"),)),
]


@pytest.mark.scenario("classified")
@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.name for s in SCENARIOS])
def test_scenario(scenario, tmp_path, monkeypatch, record_property):
    if scenario.needs_reference and not (_reference() / "phase2_pool.json").exists():
        pytest.skip("replication data not found")
    monkeypatch.setenv("INSPECT_LOG_DIR", str(tmp_path / "inspect-logs"))
    outcome, ran = classify(scenario, tmp_path)
    record_property("outcome", outcome)  # bench/bad_input_table.py tabulates these
    record_property("detail", ran.error_line or (ran.crash.strip().splitlines() or [""])[-1])
    assert outcome in ("clear error", "counted exclusion", "correctly accepted"), (
        f"{scenario.name}: {outcome}\n--- error line: {ran.error_line}\n--- out:\n{ran.out[-2000:]}\n--- err:\n{ran.err[-2000:]}\n{ran.crash[-3000:]}"
    )
