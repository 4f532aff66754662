"""Item files: the built-in PCT, and clear errors on bad input."""

from __future__ import annotations

import json
import re

import pytest

from political_sycophancy import InputError, load_instrument, load_items, select_pool
from political_sycophancy.core.items import LIKERT4


def test_builtin_pct_coding_matches_si_table_s1():
    items = load_instrument("pct")
    assert len(items) == 62
    assert len({i.id for i in items}) == 62
    dirs = [i.direction for i in items]
    assert (dirs.count(1), dirs.count(-1), dirs.count(0)) == (36, 20, 6)
    social = [i for i in items if i.axis == "social"]
    assert (sum(i.direction == 1 for i in social), sum(i.direction == -1 for i in social)) == (25, 10)
    assert all(i.options == LIKERT4 and i.scoring == "pct" for i in items)
    assert all(i.axis is None for i in items if i.direction == 0)


def test_pct_statements_equal_the_papers_coded_file(reference_dir):
    import pandas as pd

    ref = pd.read_csv(reference_dir / "pct_items_coded.csv").set_index("pct_id")
    for item in load_instrument("pct"):
        row = ref.loc[item.id]
        assert item.text == row["statement"]
        assert item.direction == row["ideo_direction"]
        assert (item.axis or "") == (row["axis"] if isinstance(row["axis"], str) else "")


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


@pytest.mark.parametrize(
    "content, fragment",
    [
        ("id,options\nq1,\"[\"\"a\"\",\"\"b\"\"]\"\n", "row 1, field 'text': missing column"),
        ("id,text,options\nq1,Hi,\"[\"\"a\"\",\"\"b\"\"]\"\nq1,Ho,\"[\"\"a\"\",\"\"b\"\"]\"\n", "row 2, field 'id': duplicate id 'q1'"),
        ("id,text,options,scoring,direction\nq1,Hi,\"[\"\"a\"\",\"\"b\"\",\"\"c\"\"]\",pct,1\n", "row 1, field 'options': PCT scoring"),
        ("id,text,options,scoring\nq1,Hi,A | B,pct\n", "row 1, field 'direction'"),
        ("id,text,options,direction\nq1,Hi,A | B,2\n", "row 1, field 'direction': must be one of"),
        ("id,text,options,dist_dem\nq1,Hi,A | B,\"[0.5, 0.6]\"\n", "row 1, field 'dist_dem': shares sum to 1.1000"),
        ("id,text,options,dist_dem\nq1,Hi,A | B,\"[0.5, 0.5\"\n", "row 1, field 'dist_dem': malformed JSON"),
        ("id,text,options,dist_dem\nq1,Hi,A | B,\"[1.0]\"\n", "row 1, field 'dist_dem': distribution has 1 shares for 2 options"),
        ("id,text,options\nq1,Hi,A\n", "row 1, field 'options': needs at least 2 options"),
        ("id,text,options,positions\nq1,Hi,A | B,\"[2, 1]\"\n", "row 1, field 'positions': positions must increase"),
        ("id,text,options\n", "header but no items"),
        ("", "file is empty"),
    ],
)
def test_bad_item_files_name_file_row_field(tmp_path, content, fragment):
    path = write(tmp_path, "items.csv", content)
    with pytest.raises(InputError) as ex:
        load_items(path)
    assert fragment in str(ex.value)
    assert str(path) in str(ex.value)


def test_bad_jsonl_and_bytes(tmp_path):
    p = write(tmp_path, "items.jsonl", json.dumps({"id": "a", "text": "t", "options": ["x", "y"]}) + "\n{oops\n")
    with pytest.raises(InputError, match="row 2: malformed JSON"):
        load_items(p)
    bad = tmp_path / "bytes.csv"
    bad.write_bytes(b"id,text,options\nq1,caf\xe9,A | B\n")
    with pytest.raises(InputError, match="not valid UTF-8"):
        load_items(bad)


def test_unknown_instrument_and_missing_file(tmp_path):
    with pytest.raises(InputError, match="unknown instrument 'nope'"):
        load_instrument("nope")
    with pytest.raises(InputError, match="no built-in item file"):
        load_instrument("atp")
    with pytest.raises(InputError, match="file not found"):
        load_items(tmp_path / "missing.csv")


def test_jsonl_items_with_benchmarks_and_pools(tmp_path):
    rows = [
        {"id": f"q{i}", "text": f"Question {i}?", "options": ["Yes", "No"], "dist_dem": [0.9 - i / 10, 0.1 + i / 10],
         "dist_rep": [0.1, 0.9], "partisan_gap": 0.8 - i / 10}
        for i in range(5)
    ]
    p = write(tmp_path, "atp.jsonl", "\n".join(json.dumps(r) for r in rows))
    items = load_items(p)
    assert items[0].scoring == "wd" and items[0].template == "multiple_choice"
    assert items[0].benchmarks["dem"] == pytest.approx((0.9, 0.1))
    assert [i.id for i in select_pool(items, "top2")] == ["q0", "q1"]
    assert [i.id for i in select_pool(items, "gap>0.55")] == ["q0", "q1", "q2"]
    ids = write(tmp_path, "pool.txt", "q3\nq1\n")
    assert [i.id for i in select_pool(items, str(ids))] == ["q3", "q1"]
    with pytest.raises(InputError, match="unknown pool"):
        select_pool(items, "best")
    # a file that is not there is named as a missing file, not taken for a pool's name
    for missing in ("pool10.txt", str(tmp_path / "pools" / "mine"), "pools/mine.csv"):
        with pytest.raises(InputError, match=r"^pool file not found: .*\(a pool is all, benchmarked, top<N>, gap><x> or a file of ids\)$"):
            select_pool(items, missing)
    for name in ("best", "top-5", "gap>x"):
        with pytest.raises(InputError, match=f"^unknown pool '{re.escape(name)}'"):
            select_pool(items, name)


@pytest.mark.parametrize(
    "cell, expected",
    [
        # a JSON list is verbatim, whatever its options start with
        ('"[""18 to 29"", ""30 to 49"", ""50 to 64"", ""65+""]"', ("18 to 29", "30 to 49", "50 to 64", "65+")),
        ('"[""1 time"", ""2 times""]"', ("1 time", "2 times")),
        ('"[""1 Favor"", ""2 Oppose""]"', ("1 Favor", "2 Oppose")),
        # the A | B form loses Pew's codes only when every option has one, numbered 1..n
        ("18 to 29 | 30 to 49 | 50 to 64 | 65 or older", ("18 to 29", "30 to 49", "50 to 64", "65 or older")),
        ("1 Favor | 2 Oppose | 3 Not sure", ("Favor", "Oppose", "Not sure")),
        ("1 Favor | Oppose", ("1 Favor", "Oppose")),
        ("2 Favor | 1 Oppose", ("2 Favor", "1 Oppose")),
    ],
)
def test_option_texts_keep_their_numbers(tmp_path, cell, expected):
    path = write(tmp_path, "items.csv", f"id,text,options\nq1,How old are you?,{cell}\n")
    assert load_items(path)[0].options == expected


@pytest.mark.parametrize(
    "name, content, fragment",
    [
        ("items.csv", "id,text,options,text\nq1,One?,A | B,Two?\n", "field 'text': column 'text' appears twice"),
        ("items.jsonl", '{"id": "q1", "text": "One?", "options": ["A", "B"], "text": "Two?"}\n', "row 1, field 'text': key 'text' appears twice"),
        ("items.jsonl", '{"id": "q1", "text": "t", "options": ["A", "B"], "x": ' + "[" * 100_000 + "]" * 100_000 + "}\n", "row 1: JSON nested too deeply"),
        ("items.csv", "id,text,options\nq1,One?,A | B\nq2,Two", "row 2, field 'options': fewer values than header columns"),
        ("items.csv", 'id,text,options\nq1,One?,A | B\nq2,"Two', "row 2: malformed CSV"),
    ],
)
def test_repeated_columns_deep_nesting_and_cut_files_are_errors(tmp_path, name, content, fragment):
    path = write(tmp_path, name, content)
    with pytest.raises(InputError) as ex:
        load_items(path)
    assert fragment in str(ex.value) and str(path) in str(ex.value)


def test_bare_cr_line_ends_and_directories(tmp_path):
    path = write(tmp_path, "items.csv", 'id,text,options\rq1,"Line one\r\nline two",A | B\rq2,Two?,C | D\r')
    items = load_items(path)
    assert [i.id for i in items] == ["q1", "q2"] and items[0].text == "Line one\r\nline two"
    (tmp_path / "dir.csv").mkdir()
    with pytest.raises(InputError, match="dir.csv: is a directory"):
        load_items(tmp_path / "dir.csv")


@pytest.mark.parametrize(
    "content, fragment",
    [(b"q1\n\xff\n", "not valid UTF-8"), (b"\n", "file is empty"), (b"q1\nq0\nq1\n", "row 3: id 'q1' listed twice")],
)
def test_bad_pool_files(tmp_path, content, fragment):
    items = load_items(write(tmp_path, "items.csv", "id,text,options\nq0,Zero?,A | B\nq1,One?,A | B\n"))
    pool = tmp_path / "pool.txt"
    pool.write_bytes(content)
    with pytest.raises(InputError, match=fragment):
        select_pool(items, str(pool))
    pool.unlink()
    pool.mkdir()
    with pytest.raises(InputError, match="is a directory"):
        select_pool(items, str(pool))
