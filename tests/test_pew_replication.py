"""Import of the first seed's replication package: items, prompts, pools, and the paper's
Phase 1 numbers reproduced with our scorer functions (skipped without ../shared)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from support import REFERENCE
from support.pew import GOOD, GOOD_ITEM, mini_package, write_csv

from political_sycophancy.core.conditions import resolve_conditions
from political_sycophancy.core.errors import InputError
from political_sycophancy.core.items import load_items, select_pool
from political_sycophancy.core.prompts import audit_prompt
from political_sycophancy.pew import canonical_item_id, import_replication
from political_sycophancy.pew.replication import rationale_conflicts
from political_sycophancy.shared.scorers.typology import typology_item_score
from political_sycophancy.shared.scorers.wd import item_wds, pct_closer


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    if not (REFERENCE / "phase2_pool.json").exists():
        pytest.skip(f"replication data not found at {REFERENCE}")
    out = tmp_path_factory.mktemp("imported")
    paths = import_replication(REFERENCE, out)
    items = {name: load_items(paths[name], instrument=name) for name in ("pct", "typology", "atp")}
    return paths, items


def _by_id(items):
    return {i.id: i for group in items.values() for i in group}


def test_counts_and_report(imported):
    paths, items = imported
    assert len(items["pct"]) == 62
    assert len(items["typology"]) == 25
    assert len(items["atp"]) == 1540
    assert len(select_pool(items["atp"], "benchmarked")) == 1540
    assert sum(1 for i in items["typology"] if i.direction != 0) == 22
    report = paths["report"].read_text(encoding="utf-8")
    assert "### Excluded: 16" in report
    assert report.count("column_not_found") == 14
    assert "atp_W29_GOPDIRCT | no benchmark: asked of Republicans only" in report
    assert "pew_26 | not multiple choice" in report and "pew_27 | not multiple choice" in report
    contradictions = {line.split("|")[1].strip() for line in report.splitlines() if "contradicts the direction sign" in line}
    assert contradictions == {"pew_02", "pew_22"}


def test_item_fields(imported):
    _, items = imported
    by_id = _by_id(items)
    gov = by_id["atp_W92_GOVSIZE1"]
    assert gov.scoring == "wd" and gov.metadata["wave"] == "W92" and gov.metadata["var_name"] == "GOVSIZE1"
    assert set(gov.benchmarks) == {"dem", "rep", "overall"}
    assert gov.partisan_gap == pytest.approx(0.6605)
    assert by_id["pew_02"].metadata["paper_id"] == "pewtyp_pew_02"
    assert by_id["p1_01"].axis == "economic" and by_id["p1_01"].direction == -1
    flagged = [i for i in items["atp"] if i.ordinal is not None]
    assert flagged and all(not all(i.ordinal) for i in flagged)
    not_sure = next(i for i in flagged if any(o == "Not sure" for o in i.options))
    assert not not_sure.ordinal[not_sure.options.index("Not sure")]


def test_canonical_ids():
    assert canonical_item_id("pewtyp_pew_01") == "pew_01"
    assert canonical_item_id("atp_W92_GOVSIZE1") == "atp_W92_GOVSIZE1"
    assert canonical_item_id("p1_01") == "p1_01"


def test_prompts_equal_the_papers_pools(imported):
    _, items = imported
    by_id = _by_id(items)
    phase1 = json.loads((REFERENCE / "phase1_pool.json").read_text(encoding="utf-8"))
    found = [(by_id.get(canonical_item_id(x["question_id"])), x) for x in phase1]
    assert sum(1 for i, _ in found if i is None) == 16  # the ATP items without benchmarks
    mismatched = [x["question_id"] for i, x in found if i is not None and audit_prompt(i) != x["prompt"]]
    assert mismatched == []
    assert len([i for i, _ in found if i is not None]) == 1627
    phase2 = json.loads((REFERENCE / "phase2_pool.json").read_text(encoding="utf-8"))
    conditions = {c.id: c for c in resolve_conditions("all", None)}
    mismatched = [
        (x["question_id"], x["condition"])
        for x in phase2
        if conditions[x["condition"]].apply(audit_prompt(by_id[canonical_item_id(x["question_id"])])) != x["prompt"]
    ]
    assert mismatched == [] and len(phase2) == 3522


def test_pools_match_the_paper(imported):
    _, items = imported
    phase2 = json.loads((REFERENCE / "phase2_pool.json").read_text(encoding="utf-8"))
    paper_top = [x["question_id"] for x in phase2 if x["source"] == "pew_atp" and x["condition"] == "N"]
    top = select_pool(items["atp"], "top500")
    assert [i.id for i in top] == paper_top
    assert min(i.partisan_gap for i in top) == pytest.approx(0.1189)
    assert len(select_pool(items["atp"], "gap>0.2")) == 293
    assert [i.id for i in select_pool(items["atp"], "top30")] == paper_top[:30]


def _phase1_scores(items) -> pd.DataFrame:
    by_id = _by_id(items)
    results = pd.read_csv(REFERENCE / "results_phase1.csv", dtype=str, keep_default_na=False)
    rows = []
    for rec in results.itertuples():
        item = by_id.get(canonical_item_id(rec.question_id))
        letter = rec.letter.strip()
        if item is None or item.instrument == "pct" or letter not in item.letters:
            continue
        probs = [1.0 if x == letter else 0.0 for x in item.letters]
        row = {"model": rec.model_label, "item_id": item.id, "instrument": item.instrument}
        if item.instrument == "atp":
            row.update(item_wds(probs, item.positions, item.benchmarks))
        else:
            row["typology"] = typology_item_score(probs, item.direction)
        rows.append(row)
    return pd.DataFrame(rows)


def test_phase1_numbers_reproduced_from_the_papers_letters(imported):
    _, items = imported
    scores = _phase1_scores(items)
    atp = scores[scores.instrument == "atp"]
    ours = atp.groupby("model").agg(
        mean_wd_dem=("wd_dem", "mean"),
        mean_wd_rep=("wd_rep", "mean"),
        mean_wd_overall=("wd_overall", "mean"),
        n_items=("wd_dem", "size"),
        pct_closer_to_dem=("closer", lambda c: pct_closer(list(c))),
    )
    paper = pd.read_csv(REFERENCE / "phase1_summary.csv").set_index("model_label")
    assert sorted(ours.index) == sorted(paper.index)
    for model, row in paper.iterrows():
        assert ours.loc[model, "n_items"] == row["n_items"], model
        for col in ("mean_wd_dem", "mean_wd_rep", "mean_wd_overall"):
            assert ours.loc[model, col] == pytest.approx(row[col], abs=5e-5), (model, col)
        assert ours.loc[model, "pct_closer_to_dem"] == pytest.approx(row["pct_closer_to_dem"], abs=0.05), model

    typology = scores[scores.instrument == "typology"].groupby("model")["typology"].mean()
    paper_typ = pd.read_csv(REFERENCE / "phase1_typology_scores.csv").set_index("model_label")["mean_ideo"]
    for model, value in paper_typ.items():
        assert typology[model] == pytest.approx(value, abs=1e-9), model

    # Item by item against the paper's alignment table (4 decimals).
    paper_items = pd.read_csv(REFERENCE / "phase1_atp_alignment.csv")
    merged = paper_items.merge(atp, left_on=["model_label", "question_id"], right_on=["model", "item_id"], how="outer", indicator=True)
    assert (merged["_merge"] == "both").all()
    assert (merged.wd_dem_x - merged.wd_dem_y).abs().max() < 6e-5
    assert (merged.wd_rep_x - merged.wd_rep_y).abs().max() < 6e-5
    assert (merged.closer_to == merged.closer).all()


def test_rationale_conflicts_detects_sign_contradictions():
    assert rationale_conflicts("option 1 is right-coded, option 2 is left-coded.", -1, 2)
    assert rationale_conflicts("option 1 is right-coded, option 2 is left-coded.", 1, 2) == []
    assert rationale_conflicts("Endorsing it (options 1-2) is left-coded; denying it (options 3-4) is right-coded.", -1, 4) == []
    assert len(rationale_conflicts("Endorsing it (options 1-2) is left-coded.", 1, 4)) == 2
    assert rationale_conflicts("anything", 0, 2) == []


# Bad input, on small replication directories written here.


def testmini_package_imports(tmp_path):
    src = mini_package(tmp_path / "src", [GOOD], [GOOD_ITEM])
    paths = import_replication(src, tmp_path / "out")
    (item,) = load_items(paths["atp"], instrument="atp")
    assert item.id == "atp_W1_Q1" and item.text == "Q one, in full?"
    assert item.benchmarks["dem"] == (0.8, 0.2)


def test_malformed_json_names_file_row_and_field(tmp_path):
    bad = ["W1", "Q9"] + GOOD[2:7] + ["[0.8, 0.2"] + GOOD[8:]
    src = mini_package(tmp_path / "src", [GOOD, bad], [GOOD_ITEM])
    with pytest.raises(InputError) as ex:
        import_replication(src, tmp_path / "out")
    msg = str(ex.value)
    assert "pew_atp_partisan_distributions.csv" in msg and "row 2" in msg and "dist_dem" in msg


def test_bad_sums_and_disagreeing_options_are_listed_exclusions(tmp_path):
    bad_sum = ["W1", "Q2", "Q2?", 2, '["Yes", "No"]', "[0.5, 0.5]", "[0.2, 0.6]", "[0.8, 0.2]", 10, 5, 5, 0.3, ""]
    three = ["W1", "Q3", "Q3?", 2, '["Yes", "No"]', "[0.5, 0.5]", "[0.2, 0.8]", "[0.8, 0.2]", 10, 5, 5, 0.6, ""]
    items = [GOOD_ITEM, ["W1", "Q2", "Q2?", "Yes | No", 2, 100.0], ["W1", "Q3", "Q3?", "Yes | No | Maybe", 3, 100.0]]
    src = mini_package(tmp_path / "src", [GOOD, bad_sum, three], items)
    paths = import_replication(src, tmp_path / "out")
    assert [i.id for i in load_items(paths["atp"])] == ["atp_W1_Q1"]
    report = paths["report"].read_text(encoding="utf-8")
    assert "atp_W1_Q2 | dist_rep sums to 0.8000" in report and "row 2" in report
    assert "atp_W1_Q3 | option counts disagree: 2 in pew_atp_partisan_distributions.csv row 3, 3 in pew_atp_items.csv row 3" in report


def test_missing_items_file_and_column_are_errors(tmp_path):
    src = mini_package(tmp_path / "src", [GOOD], [GOOD_ITEM])
    (src / "pew_atp_items.csv").unlink()
    with pytest.raises(InputError, match="pew_atp_items.csv.*file not found"):
        import_replication(src, tmp_path / "out")
    write_csv(src / "pew_atp_items.csv", ["wave", "var_name", "options", "n_options"], [["W1", "Q1", "Yes | No", 2]])
    with pytest.raises(InputError, match="field 'question'"):
        import_replication(src, tmp_path / "out")


def test_corrected_typology_coding(tmp_path):
    src = mini_package(tmp_path / "src", [GOOD], [GOOD_ITEM])
    coding = tmp_path / "coding.csv"
    write_csv(coding, ["id", "direction"], [["pewtyp_pew_02", 1]])
    paths = import_replication(src, tmp_path / "out", coding=coding)
    (item,) = load_items(paths["typology"], instrument="typology")
    assert item.direction == 1 and item.metadata["paper_direction"] == "-1"
    report = paths["report"].read_text(encoding="utf-8")
    assert "direction corrected from -1 to +1" in report
    write_csv(coding, ["id", "direction"], [["pew_99", 1]])
    with pytest.raises(InputError, match="pew_99"):
        import_replication(src, tmp_path / "out", coding=coding)


def test_cli_import_items_and_pools(tmp_path, capsys):
    from political_sycophancy.cli import main

    second = ["W1", "Q2", "Q2?", 3, '["More", "Same", "Not sure"]', "[0.4, 0.4, 0.2]", "[0.1, 0.8, 0.1]", "[0.7, 0.2, 0.1]", 10, 5, 5, 0.35, ""]
    items = [GOOD_ITEM, ["W1", "Q2", "Q two?", "More | Same | Not sure", 3, 100.0]]
    src = mini_package(tmp_path / "src", [GOOD, second], items)
    assert main(["import-items", str(src), "--out", str(tmp_path / "out")]) == 0
    printed = capsys.readouterr().out
    assert "atp           2 items" in printed and "typology      1 items" in printed
    assert main(["pools", "--items", str(tmp_path / "out" / "atp.csv")]) == 0
    table = capsys.readouterr().out
    assert any(line.split()[:3] == ["top30", "2", "0.3500"] for line in table.splitlines())
    assert any(line.split()[:2] == ["gap>0.2", "2"] for line in table.splitlines())
    assert main(["pools", "--items", str(tmp_path / "out" / "atp.csv"), "--pool", "top1"]) == 0
    assert "atp_W1_Q1" in capsys.readouterr().out
    assert main(["import-items", str(tmp_path / "missing"), "--out", str(tmp_path / "out")]) == 2
    assert "not a directory" in capsys.readouterr().err


def _cut(path: Path, fraction: float) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: int(len(data) * fraction)])


def _drop_last_line(path: Path) -> None:
    path.write_bytes(b"".join(path.read_bytes().splitlines(keepends=True)[:-1]))


@pytest.mark.parametrize(
    "name, damage, fragment",
    [
        ("pew_atp_partisan_distributions.csv", lambda p: _cut(p, 0.8), r"pew_atp_partisan_distributions\.csv, row 2.*cut short"),
        ("pew_atp_partisan_distributions.csv", _drop_last_line, r"pew_atp_partisan_distributions\.csv: 1 item\(s\) of pew_atp_items\.csv have no row here"),
        ("pew_atp_items.csv", _drop_last_line, r"pew_atp_items\.csv: 1 item\(s\) of pew_atp_partisan_distributions\.csv have no row here"),
        ("pew_atp_items.csv", lambda p: _cut(p, 0.9), r"pew_atp_items\.csv, row 2.*cut short"),
        ("pct_items_coded.csv", _drop_last_line, r"pct_items_coded\.csv, field 'pct_id': 1 of the 62 PCT statements are missing"),
        ("pew_typology_items.csv", lambda p: _cut(p, 0.7), r"pew_typology_items\.csv, row 1.*cut short"),
    ],
)
def test_truncated_files_are_errors(tmp_path, name, damage, fragment):
    second = ["W1", "Q2", "Q2?", 2, '["Yes", "No"]', "[0.5, 0.5]", "[0.2, 0.8]", "[0.8, 0.2]", 10, 5, 5, 0.6, ""]
    src = mini_package(tmp_path / "src", [GOOD, second], [GOOD_ITEM, ["W1", "Q2", "Q2 in full?", "Yes | No", 2, 100.0]])
    import_replication(src, tmp_path / "out")  # whole, it imports
    damage(src / name)
    with pytest.raises(InputError, match=fragment):
        import_replication(src, tmp_path / "out")


def test_the_real_distributions_file_cut_in_half_is_an_error(reference_dir, tmp_path):
    """The issue's case: half of pew_atp_partisan_distributions.csv gave 779 of 1,540 items, exit 0."""
    import shutil

    src = tmp_path / "src"
    shutil.copytree(reference_dir, src)
    _cut(src / "pew_atp_partisan_distributions.csv", 0.5)
    with pytest.raises(InputError, match=r"pew_atp_partisan_distributions\.csv, row \d+.*cut short"):
        import_replication(src, tmp_path / "out")
    shutil.copy(reference_dir / "pew_atp_partisan_distributions.csv", src)
    _drop_last_line(src / "pew_atp_items_coded.csv")
    with pytest.raises(InputError, match=r"pew_atp_items_coded\.csv: 1 item\(s\) of pew_atp_items\.csv have no row here"):
        import_replication(src, tmp_path / "out")


def test_repeated_columns_and_bytes_in_replication_files(tmp_path):
    src = mini_package(tmp_path / "src", [GOOD], [GOOD_ITEM])
    items = src / "pew_atp_items.csv"
    items.write_bytes(items.read_bytes().replace(b"pct_answered", b"question", 1))
    with pytest.raises(InputError, match=r"pew_atp_items\.csv, field 'question': column 'question' appears twice"):
        import_replication(src, tmp_path / "out")
    mini_package(src, [GOOD], [GOOD_ITEM])
    pct = src / "pct_items_coded.csv"
    pct.write_bytes(pct.read_bytes().replace(b"statement", b"st\xe4tement", 1))
    with pytest.raises(InputError, match=r"pct_items_coded\.csv: not valid UTF-8"):
        import_replication(src, tmp_path / "out")
