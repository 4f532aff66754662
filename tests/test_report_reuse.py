"""A warm `analyze` reuses the stored analysis only when logs, options and code are unchanged.

What a user does: analyses a folder, analyses it again (into another --out), then adds or
touches a log, changes an option, upgrades the package, or finds the store damaged.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.placeholders import PRELUDE

from political_sycophancy.audit.simulate import builtin_pct_items, synthetic_responses
from political_sycophancy.cli import main
from political_sycophancy.core.items import builtin_path
from political_sycophancy.logs.importer import import_responses
from political_sycophancy.report import render, reuse

FAST = ["--bootstrap", "50", "--sign-flip-draws", "50"]


@pytest.fixture
def logs(tmp_path):
    responses = synthetic_responses(builtin_pct_items()[:12], ["p/a", "p/b"], ["N", "C3L", "C3R"], pct_shift={"C3R": 1.0}, seed=3)
    responses.to_csv(tmp_path / "r.csv", index=False)
    import_responses(tmp_path / "r.csv", [builtin_path("pct.csv")], tmp_path / "logs", jobs=1)
    return tmp_path / "logs"


@pytest.fixture
def store(tmp_path, monkeypatch):
    root = tmp_path / "store"
    monkeypatch.setenv("POLITICAL_SYCOPHANCY_CACHE", str(root))
    return root


@pytest.fixture
def computed(monkeypatch):
    """Counts the analyses actually computed (write_report calls)."""
    calls = []
    real = render.write_report

    def counting(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(render, "write_report", counting)
    return calls


def outputs(out: Path) -> dict[str, bytes]:
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


def analyze(logs: Path, out: Path, *extra: str) -> int:
    return main(["analyze", str(logs), "--out", str(out), *FAST, *extra])


def test_the_same_analysis_again_is_copied_not_computed(tmp_path, logs, store, computed, capsys):
    assert analyze(logs, tmp_path / "out") == 0
    cold = capsys.readouterr().out
    first = outputs(tmp_path / "out")
    assert analyze(logs, tmp_path / "out") == 0
    warm = capsys.readouterr().out
    assert len(computed) == 1 and "reused the analysis computed" in warm
    assert outputs(tmp_path / "out") == first
    # the summary table the cold run printed is printed again
    lines = cold.splitlines()
    last_step = max(i for i, line in enumerate(lines) if line.startswith("["))
    table = "\n".join(lines[last_step + 1:next(i for i, line in enumerate(lines) if line.startswith("wrote"))]).strip()
    assert "C3R" in table and table in warm
    assert json.loads((tmp_path / "out" / "summary.json").read_text())["sections"]
    # the output folder is part of the key: another --out is computed (its store never crosses)
    assert analyze(logs, tmp_path / "elsewhere") == 0 and len(computed) == 2


def test_a_warm_run_imports_no_analysis_library(tmp_path, logs, store):
    env = {**os.environ, "POLITICAL_SYCOPHANCY_CACHE": str(store), "HF_HUB_OFFLINE": "1"}
    command = [sys.executable, "-c", "import sys; from political_sycophancy.cli import main; code = main(sys.argv[1:]); "
               "heavy = sorted(m for m in ('pandas', 'inspect_ai', 'matplotlib', 'scipy', 'statsmodels') if m in sys.modules); "
               "print('HEAVY', heavy); sys.exit(code)", "analyze", str(logs), "--out"]
    # the cold run only fills the store: its figures are placeholders (support.placeholders)
    cold_command = [command[0], "-c", PRELUDE + command[2], *command[3:]]
    cold = subprocess.run([*cold_command, str(tmp_path / "out"), *FAST], env=env, capture_output=True, text=True, timeout=300)
    warm = subprocess.run([*command, str(tmp_path / "out"), *FAST], env=env, capture_output=True, text=True, timeout=300)
    assert cold.returncode == 0 and warm.returncode == 0, cold.stderr + warm.stderr
    assert "HEAVY []" not in cold.stdout and "HEAVY []" in warm.stdout and "reused" in warm.stdout


@pytest.mark.parametrize("change", ["touch a large log", "rewrite a log", "add a log", "another seed", "another package", "--no-reuse"])
def test_any_change_computes_it_again(tmp_path, logs, store, computed, monkeypatch, change, capsys):
    if change == "touch a large log":
        monkeypatch.setattr(reuse, "CONTENT_HASH_BYTES", 0)  # every log counts as large: known by size and mtime
    assert analyze(logs, tmp_path / "out") == 0
    extra: list[str] = []
    if change == "touch a large log":
        log = sorted(logs.glob("*.eval"))[0]
        os.utime(log, ns=(log.stat().st_atime_ns, log.stat().st_mtime_ns + 1_000_000))
    elif change == "rewrite a log":
        first, second = sorted(logs.glob("*.eval"))[:2]
        first.write_bytes(second.read_bytes())
    elif change == "add a log":
        (logs / "more").mkdir()
        (logs / "more" / "copy.eval").write_bytes(sorted(logs.glob("*.eval"))[0].read_bytes())
    elif change == "another seed":
        extra = ["--seed", "7"]
    elif change == "another package":
        monkeypatch.setattr(reuse, "code_fingerprint", lambda: "an edited package")
    else:
        extra = ["--no-reuse"]
    assert analyze(logs, tmp_path / "out", *extra) == 0
    assert len(computed) == 2 and "reused" not in capsys.readouterr().out


def test_a_damaged_store_is_deleted_and_computed_again(tmp_path, logs, store, computed, capsys):
    assert analyze(logs, tmp_path / "out") == 0
    [entry] = [p for p in store.iterdir() if p.is_dir() and p.name != "sections"]
    stored = entry / "files" / "summary.json"
    stored.write_text(stored.read_text().replace('"models"', '"models_planted"'))
    capsys.readouterr()
    assert analyze(logs, tmp_path / "out") == 0
    out = capsys.readouterr().out
    assert "is not served (summary.json differs from its stored checksum)" in out and len(computed) == 2
    assert '"models_planted"' not in (tmp_path / "out" / "summary.json").read_text()
    # the analysis computed again is stored again, whole
    assert analyze(logs, tmp_path / "out") == 0 and len(computed) == 2


def test_a_manifest_naming_files_outside_its_store_is_refused(tmp_path, logs, store, computed, capsys):
    assert analyze(logs, tmp_path / "out") == 0
    [entry] = [p for p in store.iterdir() if p.is_dir() and p.name != "sections"]
    manifest = json.loads((entry / "manifest.json").read_text())
    manifest["files"]["../../outside.txt"] = "0" * 64
    (entry / "manifest.json").write_text(json.dumps(manifest))
    assert analyze(logs, tmp_path / "out") == 0
    assert "bad file name" in capsys.readouterr().out and len(computed) == 2
    assert not (tmp_path / "outside.txt").exists()


def test_failed_sections_are_not_stored(tmp_path, logs, store, monkeypatch):
    from political_sycophancy.report import sections

    real = sections.section_builders

    def with_a_failing_one():
        def broken(frame, figure_dir, options):
            raise RuntimeError("planted")

        return [*real(), (999, "broken", broken)]

    monkeypatch.setattr(render, "section_builders", with_a_failing_one)
    assert analyze(logs, tmp_path / "out") == 1
    assert not store.exists() or not any(p.is_dir() and p.name != "sections" for p in store.iterdir())


def test_the_store_is_outside_the_log_folder_and_bounded(tmp_path, logs, store, monkeypatch):
    monkeypatch.setattr(reuse, "KEEP", 2)
    for seed in ("1", "2", "3"):
        assert analyze(logs, tmp_path / f"out{seed}", "--seed", seed) == 0
    assert len([p for p in store.iterdir() if p.is_dir() and p.name != "sections"]) == 2
    assert not any("manifest.json" == p.name for p in logs.rglob("*"))
    monkeypatch.delenv("POLITICAL_SYCOPHANCY_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert reuse.store_root() == tmp_path / "xdg" / "political-sycophancy" / "analyses"


def test_running_a_finished_audit_again_keeps_the_stored_analysis(tmp_path, store, computed, capsys):
    """The README's main job run twice: the second audit sends no call but rewrites Inspect's
    eval-set files, logs.json and our lock; none of them is analysis input."""
    audit = ["audit", "--model", "faulty/mockllm/model", "-M", "mock_answer=B", "--conditions", "N,C3R", "--limit", "3",
             "--log-dir", str(tmp_path / "logs")]
    assert main(audit) == 0
    assert analyze(tmp_path / "logs", tmp_path / "out") == 0
    before = {p.name: p.stat().st_mtime_ns for p in (tmp_path / "logs").iterdir() if p.is_file()}
    assert main(audit) == 0
    after = {p.name: p.stat().st_mtime_ns for p in (tmp_path / "logs").iterdir() if p.is_file()}
    assert any(after[n] != before[n] for n in before if not n.endswith(".eval"))  # the run did rewrite something
    capsys.readouterr()
    assert analyze(tmp_path / "logs", tmp_path / "out") == 0
    assert "reused the analysis" in capsys.readouterr().out and len(computed) == 1
