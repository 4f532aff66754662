"""Logs -> tidy frame, as a careless or hostile user meets it: both score contracts, a
planted cache, model variants and re-runs, incomplete designs, odd .eval zips."""

from __future__ import annotations

import math
import pickle
from pathlib import Path

import pandas as pd
from inspect_ai import eval as inspect_eval
from inspect_ai.log import read_eval_log, write_eval_log
from inspect_ai.scorer import Score

from political_sycophancy.analysis.frame import CACHE_DIR, read_frame
from political_sycophancy.cli import main
from political_sycophancy.simulate import write_atp_items
from political_sycophancy.tasks.audit import audit

from conftest import scripted_model

# String labels the old contract kept in Score.value and the new one keeps in Score.metadata.
LABELS = ("closer",)


def _answer_some(text: str) -> str:
    """B for most items, a refusal for every third (by prompt length), so both statuses occur."""
    return "I cannot take a side on that." if len(text) % 3 == 0 else "B"


def _to_old_contract(score: Score) -> Score:
    """The same score under the old contract (the scorers now write the new one): status,
    letter and labels in the value, None where undefined, no indicators."""
    meta = dict(score.metadata or {})
    value = {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in score.value.items()
             if k not in ("answered", "refused", "covered_mass")}
    value = {"status": meta.pop("status"), "letter": meta.pop("letter", None), **value}
    for label in LABELS:
        if label in meta:
            value[label] = meta.pop(label)
    return Score(value=value, answer=score.answer, explanation=score.explanation, metadata=meta)


def _rewrite_old_contract(log_path: str, out_dir: Path) -> None:
    log = read_eval_log(log_path)
    for sample in log.samples or []:
        sample.scores = {name: _to_old_contract(s) for name, s in (sample.scores or {}).items()}
    out_dir.mkdir(parents=True, exist_ok=True)
    write_eval_log(log, str(out_dir / Path(log_path).name))


def test_frame_reads_old_and_new_score_contracts_alike(tmp_path):
    """A log scored under the new contract (numbers-only values, labels in the metadata)
    gives the same frame as the same answers scored under the old one."""
    items = write_atp_items(tmp_path / "atp.csv", 8, seed=3)
    old_dir, new_dir = tmp_path / "old", tmp_path / "new"
    logs = []
    for condition in ("N", "C3R"):
        logs += inspect_eval(
            audit(instrument="atp_items", items=str(items), condition=condition),
            model=scripted_model(_answer_some),
            log_dir=str(new_dir),
            display="none",
        )
    for log in logs:
        _rewrite_old_contract(log.location, old_dir)
    old = read_frame(old_dir, cache=False).frame
    new = read_frame(new_dir, cache=False).frame
    assert list(new.columns) == list(old.columns)
    assert set(old["status"]) == {"answered", "refusal"} and old["closer"].notna().any()
    key = ["condition", "item_id", "epoch"]
    volatile = ["log_file", "created"]
    pd.testing.assert_frame_equal(
        new.drop(columns=volatile).sort_values(key).reset_index(drop=True),
        old.drop(columns=volatile).sort_values(key).reset_index(drop=True),
    )


class _Planted:
    """A pickle that creates `marker` when unpickled (what a hostile log folder would hold)."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (open, (str(self.marker), "w"))


def test_planted_pickle_in_the_cache_is_never_executed(tmp_path):
    """A log folder is shared data: a pickle planted in its cache folder, under the old cache
    name or the new ones, is never unpickled; the frame is rebuilt from the logs, with a note."""
    logs = tmp_path / "logs"
    inspect_eval(audit(), model=scripted_model(lambda t: "B"), limit=3, log_dir=str(logs), display="none")
    fresh = read_frame(logs, cache=False).frame
    marker = tmp_path / "pwned"
    payload = pickle.dumps(_Planted(marker))
    cache = logs / CACHE_DIR
    cache.mkdir()
    (cache / "frame.pkl").write_bytes(payload)
    load = read_frame(logs)
    assert not marker.exists()
    assert load.read == 1 and load.cached == 0 and len(load.frame) == 3
    assert any("pickle" in n for n in load.notes)
    assert not (cache / "frame.pkl").exists()
    # The cache written now is data only: Parquet files and a JSON index, no pickle anywhere.
    written = sorted(p.relative_to(cache).as_posix() for p in cache.rglob("*") if p.is_file())
    assert written and all(p.endswith((".parquet", ".json")) for p in written), written
    for path in cache.rglob("*"):
        if path.is_file():
            assert b"\x80\x04\x95" not in path.read_bytes()[:3]
    # Every cache file replaced by the pickle: each fails validation, is never executed,
    # and the frame is read from the logs again.
    for path in [p for p in cache.rglob("*") if p.is_file()]:
        original = path.read_bytes()
        path.write_bytes(payload)
        load = read_frame(logs)
        assert not marker.exists(), path
        assert load.read == 1 and any("failed validation" in n for n in load.notes), (path, load.notes)
        pd.testing.assert_frame_equal(load.frame, fresh)
        path.write_bytes(original)
        assert read_frame(logs).cached == 1


def _mock_audit(log_dir: Path, *, model_args: dict | None = None, condition: str = "N", limit: int = 3, **generate) -> None:
    """A real audit run on `faulty/mockllm/model` (a pass-through with usage set), with model
    arguments and generate-config overrides as `-M` and `--temperature`/`--max-tokens` give them."""
    [log] = inspect_eval(
        audit(condition=condition),
        model="faulty/mockllm/model",
        model_args=model_args or {},
        limit=limit,
        log_dir=str(log_dir),
        display="none",
        **generate,
    )
    assert log.status == "success"


def test_runs_with_different_settings_are_variants_not_duplicates(tmp_path, capsys):
    """One model name run with --temperature 0, with --max-tokens and with other -M model
    args is kept apart (variants and a distinct model), never dropped as duplicates; only a
    true re-run of the same cell is de-duplicated, and both counts are reported."""
    logs = tmp_path / "logs"
    _mock_audit(logs)  # the task's default temperature 1
    _mock_audit(logs, temperature=0)
    _mock_audit(logs, max_tokens=7)
    _mock_audit(logs, model_args={"mock_answer": "C"})
    _mock_audit(logs)  # a true re-run of the first
    load = read_frame(logs, cache=False)
    frame = load.frame
    assert len(frame) == 4 * 3 and load.duplicates == 3
    base = frame[frame["model"] == "faulty/mockllm/model"]
    other = frame[frame["model"] == "faulty/mockllm/model [mock_answer=C]"]
    assert len(base) == 9 and len(other) == 3 and set(other["letter"]) == {"C"}
    assert sorted(base["variant"].unique()) == ["max_tokens=7, temperature=1", "temperature=0", "temperature=1"]
    # the temperature is the one the model got (--temperature 0), not the task's default
    assert sorted(base.groupby("variant")["temperature"].first().tolist()) == [0.0, 1.0, 1.0]
    assert load.variants == 2 and load.models_split == 1
    assert any("3 duplicate sample(s) from re-runs" in n for n in load.notes)
    assert any("2 further variant(s)" in n for n in load.notes)
    out = tmp_path / "report"
    assert main(["analyze", str(logs), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "3 duplicate sample(s) from re-runs" in printed and "2 further variant(s)" in printed
    variants = pd.read_csv(out / "tables" / "variants.csv")
    assert len(variants) == 4 and variants["main"].sum() == 2
    side = pd.read_csv(out / "tables" / "condition_summary_by_variant.csv")
    assert len(side) == 4 and set(side["n_samples"]) == {3}
