"""A changed option recomputes only the sections that read it (report.section_store).

What a user does: analyses a folder, then again with another option (or --no-reuse), and
finds the store damaged or not their own.
"""

from __future__ import annotations

import json
import os
import shutil

import pytest
from support.stores import report_files, section_steps, stored_reads, synthetic_logs

from political_sycophancy.cli import main
from political_sycophancy.report import render

FAST = ["--bootstrap", "40", "--sign-flip-draws", "40"]


@pytest.fixture(scope="module")
def logs(tmp_path_factory):
    return synthetic_logs(tmp_path_factory.mktemp("section-store"))


@pytest.fixture
def store(tmp_path, monkeypatch):
    root = tmp_path / "store"
    monkeypatch.setenv("POLITICAL_SYCOPHANCY_CACHE", str(root))
    return root


def analyze(logs, out, *extra: str) -> int:
    return main(["analyze", str(logs), "--out", str(out), *FAST, *extra])


@pytest.fixture
def planted(monkeypatch):
    """Two sections beside the real ones: `reads_alpha` reads --alpha inside a run-cache entry,
    `takes_alpha` only takes that entry (which `reads_alpha` computed first); each call counted."""
    calls: list[str] = []
    real = render.section_builders

    def reads_alpha(frame, figure_dir, options):
        calls.append("reads_alpha")
        value = options.cache.get("planted", lambda: options.alpha * 2)
        return render.Section("reads alpha", summary={}, text=f"{value}")

    def takes_alpha(frame, figure_dir, options):
        calls.append("takes_alpha")
        return render.Section("takes alpha", text=f"{options.cache.get('planted', lambda: 0.0)}")

    monkeypatch.setattr(render, "section_builders", lambda: [*real(), (900, "reads_alpha", reads_alpha), (901, "takes_alpha", takes_alpha)])
    return calls


def test_a_changed_option_recomputes_exactly_the_sections_that_read_it(tmp_path, logs, store, planted, capsys):
    assert analyze(logs, tmp_path / "out") == 0
    first = section_steps(capsys.readouterr().out)
    assert first and not any(first.values())  # nothing stored yet: every section computed
    reads = {name: entries for name, entries in stored_reads(store).items()}
    assert len(reads) == len(first)  # one entry per section
    # the sign-flip test's section reads --sign-flip-draws, the overview reads no option
    assert analyze(logs, tmp_path / "out", "--sign-flip-draws", "60") == 0
    second = section_steps(capsys.readouterr().out)
    recomputed = {name for name, restored in second.items() if not restored}
    assert "tests" in recomputed and "overview" not in recomputed and "reads_alpha" not in recomputed
    readers = sum(any("sign_flip_draws" in entry for entry in entries) for entries in reads.values())
    assert len(recomputed) == readers
    # an option read only through a run-cache entry another section computed (in one process:
    # sections computed by different processes each compute their own entries)
    planted.clear()
    assert analyze(logs, tmp_path / "out", "--alpha", "0.1", "--jobs", "1") == 0
    third = section_steps(capsys.readouterr().out)
    assert planted == ["reads_alpha", "takes_alpha"] and not third["reads_alpha"] and not third["takes_alpha"]
    assert "takes alpha" in (tmp_path / "out" / "report.md").read_text() and "0.2" in (tmp_path / "out" / "report.md").read_text()
    # back to the first options (another --out: the whole-analysis store does not answer): all restored
    planted.clear()
    assert analyze(logs, tmp_path / "again") == 0
    assert all(section_steps(capsys.readouterr().out).values()) and planted == []


@pytest.mark.figures
def test_a_report_with_restored_sections_is_the_report_computed_again(tmp_path, logs, store, capsys):
    assert analyze(logs, tmp_path / "first") == 0
    assert analyze(logs, tmp_path / "restored", "--seed", "7") == 0
    steps = section_steps(capsys.readouterr().out)
    assert any(steps.values()) and not all(steps.values())  # some restored, some computed
    assert analyze(logs, tmp_path / "computed", "--seed", "7", "--no-reuse") == 0
    assert not any(section_steps(capsys.readouterr().out).values())
    restored, computed = report_files(tmp_path / "restored"), report_files(tmp_path / "computed")
    assert restored.keys() == computed.keys() and any(name.endswith(".png") for name in restored)
    assert [name for name in restored if restored[name] != computed[name]] == []


def test_no_reuse_and_no_cache_neither_read_nor_write_the_store(tmp_path, logs, store):
    assert analyze(logs, tmp_path / "out", "--no-reuse") == 0
    assert analyze(logs, tmp_path / "out", "--no-cache") == 0
    assert not (store / "sections").exists()  # (that --no-reuse restores nothing: the test above)


@pytest.fixture(scope="module")
def stored(tmp_path_factory, logs):
    """A store holding one analysis of `logs`, copied by each test that damages it."""
    folder = tmp_path_factory.mktemp("stored")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("POLITICAL_SYCOPHANCY_CACHE", str(folder / "store"))
        assert analyze(logs, folder / "out") == 0
    return folder / "store"


def entry_not_reading_seed(store):
    """A stored section entry whose section reads no --seed (a run with another seed serves it)."""
    for manifest in sorted((store / "sections").glob("*/*/manifest.json")):
        if "seed" not in json.loads(json.loads(manifest.read_text())["lines"][0]):
            return manifest.parent
    raise AssertionError("every section reads --seed")


@pytest.mark.parametrize("damage", ["another owner", "writable by others", "a symbolic link", "a wrong hash"])
def test_an_entry_that_is_not_ours_or_damaged_is_not_served(tmp_path, logs, stored, store, monkeypatch, damage, capsys):
    shutil.copytree(stored, store, symlinks=True)
    entry = entry_not_reading_seed(store)
    if damage == "another owner":
        real = os.lstat
        other = os.geteuid() + 1

        def lstat(path, *args, **kwargs):
            st = real(path, *args, **kwargs)
            return os.stat_result((*tuple(st)[:4], other, *tuple(st)[5:])) if os.fspath(path) == os.fspath(entry) else st

        monkeypatch.setattr(os, "lstat", lstat)
        why = "is owned by another user"
    elif damage == "writable by others":
        entry.chmod(0o777)
        why = "is writable by other users"
    elif damage == "a symbolic link":
        shutil.move(entry, tmp_path / "elsewhere")
        entry.symlink_to(tmp_path / "elsewhere")
        why = "is a symbolic link"
    else:
        manifest = json.loads((entry / "manifest.json").read_text())
        manifest["files"]["section.pickle"] = "0" * 64
        (entry / "manifest.json").write_text(json.dumps(manifest))
        why = "section.pickle differs from its stored checksum"
    capsys.readouterr()
    assert analyze(logs, tmp_path / "out", "--seed", "7") == 0
    notes = [line for line in capsys.readouterr().out.splitlines() if "is not served" in line]
    assert len(notes) == 1 and why in notes[0] and "computing it again" in notes[0], notes
    if damage == "a wrong hash":  # the store's own damaged entry is deleted, and the section stored again
        assert json.loads((entry / "manifest.json").read_text())["files"]["section.pickle"] != "0" * 64
    else:  # not provably the store's own: left as it is
        assert os.path.lexists(entry) and (entry.is_symlink() if damage == "a symbolic link" else (entry / "manifest.json").exists())
        assert damage != "a symbolic link" or (tmp_path / "elsewhere" / "manifest.json").exists()


def test_reads_are_recorded_through_replace_nesting_and_the_run_cache():
    from dataclasses import replace

    from political_sycophancy.stats.options import OPTION_NAMES, AnalysisOptions

    options = AnalysisOptions()
    with options.cache.recording() as outer:
        narrowed = replace(options, model_order=("a",))  # replace reads every option it copies
    assert outer == OPTION_NAMES - {"model_order"} and narrowed.cache is options.cache  # all it copies
    with narrowed.cache.recording() as first:
        assert narrowed.cache.get("k", lambda: narrowed.seed + narrowed.bootstrap_draws) > 0
        with narrowed.cache.recording() as inner:
            _ = narrowed.alpha
    assert first == {"seed", "bootstrap_draws", "alpha"} and inner == {"alpha"}
    with options.cache.recording() as hit:  # served from the cache: the reads of its computation
        options.cache.get("k", lambda: 0)
    assert hit == {"seed", "bootstrap_draws"}
    _ = options.power  # no record open: nothing to add to
    with options.cache.recording() as whole:
        vars(options)
    assert whole == OPTION_NAMES


def test_a_first_analysis_on_a_machine_without_a_cache_folder_stores_its_sections(tmp_path, logs, monkeypatch, capsys):
    """The README's main job on a fresh machine: no ~/.cache yet. The first analysis makes
    the store's folders (private) and stores its sections, without a note that the section
    store is not used; a changed option then restores them."""
    home = tmp_path / "fresh-home"
    monkeypatch.delenv("POLITICAL_SYCOPHANCY_CACHE", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", str(home))
    assert analyze(logs, tmp_path / "out") == 0
    first = capsys.readouterr().out
    assert "section store is not used" not in first and "not stored" not in first, first
    sections = home / ".cache" / "political-sycophancy" / "analyses" / "sections"
    assert sections.is_dir() and any(sections.iterdir())
    assert all(oct(p.stat().st_mode & 0o777) == "0o700" for p in (sections.parent, sections))
    assert analyze(logs, tmp_path / "again", "--seed", "5") == 0
    assert "restored" in capsys.readouterr().out
