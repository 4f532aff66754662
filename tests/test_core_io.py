"""core.io is the one reader of CSV/TSV/JSONL tables and YAML files: errors name the
file, row and field, and no other module parses those formats itself."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import political_sycophancy
from political_sycophancy.core.conditions import builtin_conditions, load_conditions_file
from political_sycophancy.core.errors import InputError
from political_sycophancy.core.io import read_csv, read_records, read_yaml
from political_sycophancy.open_ended.prefixes import builtin_prefixes
from political_sycophancy.sway.framings import load_framings
from political_sycophancy.sway.mitigations import load_scaffold

SRC = Path(political_sycophancy.__file__).parent


def test_records_from_csv_tsv_and_jsonl(tmp_path):
    (tmp_path / "a.csv").write_text("id,text\nq1,hello\n\nq2,\"two\nlines\"\n")
    (tmp_path / "a.tsv").write_text("id\ttext\nq1\thello\n")
    (tmp_path / "a.jsonl").write_text('{"id": "q1", "text": "a\u2028b"}\n\n{"id": "q2"}\n')
    assert read_records(tmp_path / "a.csv") == [(1, {"id": "q1", "text": "hello"}), (2, {"id": "q2", "text": "two\nlines"})]
    assert read_records(tmp_path / "a.tsv", required=["id"]) == [(1, {"id": "q1", "text": "hello"})]
    assert read_records(tmp_path / "a.jsonl") == [(1, {"id": "q1", "text": "a\u2028b"}), (2, {"id": "q2"})]
    assert read_csv(tmp_path / "a.csv")[0] == ["id", "text"]


def test_a_header_alone_is_checked_as_a_whole_read_checks_it(tmp_path):
    """`header_only` (a file told by its columns) reads no row: a cut-short row is left to
    the whole read, a repeated column is still an error."""
    (tmp_path / "cut.csv").write_text("id,text\nq1,hello\nq2\n")
    assert read_csv(tmp_path / "cut.csv", header_only=True) == (["id", "text"], [])
    with pytest.raises(InputError, match="row 2, field 'text'"):
        read_csv(tmp_path / "cut.csv")
    (tmp_path / "twice.csv").write_text("id,id\nq1,q2\n")
    with pytest.raises(InputError, match="column 'id' appears twice"):
        read_csv(tmp_path / "twice.csv", header_only=True)
    with pytest.raises(InputError, match="missing column"):
        read_csv(tmp_path / "cut.csv", required=["model_id"], header_only=True)


def test_records_from_parquet(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"id": ["q1", "q2"], "text": ["hello", None], "n": [1, 2]}), tmp_path / "a.parquet")
    assert read_records(tmp_path / "a.parquet", required=["id"]) == [(1, {"id": "q1", "text": "hello", "n": 1}), (2, {"id": "q2", "text": None, "n": 2})]
    with pytest.raises(InputError, match=r"a\.parquet, field 'axis': missing column\(s\) axis"):
        read_records(tmp_path / "a.parquet", required=["axis"])
    (tmp_path / "b.parquet").write_text("id,text\nq1,x\n")
    with pytest.raises(InputError, match=r"b\.parquet: cannot read as Parquet"):
        read_records(tmp_path / "b.parquet")


@pytest.mark.parametrize(
    "name, text, required, message",
    [
        ("m.csv", "id,text\nq1,x\n", ["id", "axis"], r"m\.csv, field 'axis': missing column\(s\) axis"),
        ("r.csv", "id,text\nq1,x\nq2\n", None, r"r\.csv, row 2, field 'text': fewer values"),
        ("d.csv", "id,id\nq1,x\n", None, r"d\.csv, field 'id': column 'id' appears twice"),
        ("j.jsonl", '{"id": "q1"}\n[1]\n', None, r"j\.jsonl, row 2: each line must be a JSON object"),
        ("k.jsonl", '{"id": "q1", "id": "q2"}\n', None, r"k\.jsonl, row 1, field 'id': key 'id' appears twice"),
        ("e.csv", "", None, r"e\.csv: file is empty"),
    ],
)
def test_table_errors_name_file_row_and_field(tmp_path, name, text, required, message):
    (tmp_path / name).write_text(text)
    with pytest.raises(InputError, match=message):
        read_records(tmp_path / name, required=required)


def test_yaml_errors_name_the_file(tmp_path):
    with pytest.raises(InputError, match=r"nope\.yaml: file not found"):
        read_yaml(tmp_path / "nope.yaml")
    (tmp_path / "dup.yaml").write_text("a: 1\na: 2\n")
    with pytest.raises(InputError, match=r"dup\.yaml: cannot parse YAML .*'a' appears twice"):
        read_yaml(tmp_path / "dup.yaml")
    (tmp_path / "tag.yaml").write_text("a: !!python/object/apply:os.system ['true']\n")
    with pytest.raises(InputError, match=r"tag\.yaml: cannot parse YAML"):
        read_yaml(tmp_path / "tag.yaml")
    (tmp_path / "c.json").write_text('{"conditions": [{"id": "X", "preamble": "p"}]}')
    assert read_yaml(tmp_path / "c.json") == {"conditions": [{"id": "X", "preamble": "p"}]}


def test_every_yaml_loader_goes_through_core_io(tmp_path):
    # the built-in files pass the strict loader (no repeated keys)
    assert builtin_conditions() and builtin_prefixes() and load_framings().templates and load_scaffold().examples
    bad = tmp_path / "bad.yaml"
    bad.write_text("x: [\n")
    for load in (load_conditions_file, load_framings, load_scaffold):
        with pytest.raises(InputError, match=r"bad\.yaml: cannot parse YAML"):
            load(bad)


def test_no_module_parses_csv_or_yaml_itself():
    found = []
    for path in SRC.rglob("*.py"):
        if path.relative_to(SRC).as_posix() == "core/io.py":
            continue
        text = path.read_text()
        for pattern in (r"yaml\.(safe_)?load\(", r"csv\.(Dict)?[Rr]eader\(", r"pd\.read_csv\("):
            if re.search(pattern, text):
                found.append(f"{path.relative_to(SRC)}: {pattern}")
    assert not found, found
