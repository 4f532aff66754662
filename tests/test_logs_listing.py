"""The analysis lists a log folder itself (Inspect's import costs seconds a cached run need
not pay): it must list exactly the files Inspect's `list_eval_logs` lists."""

from __future__ import annotations

import os
from pathlib import Path

from inspect_ai.log import list_eval_logs

from political_sycophancy.logs.cache import CACHE_DIR
from political_sycophancy.logs.listing import list_logs


def test_the_listing_is_inspects(tmp_path, monkeypatch):
    root = tmp_path / "logs"
    for folder in ("sub/deeper", ".hidden", "real", CACHE_DIR, "with space"):
        (root / folder).mkdir(parents=True)
    log = "2026-11-26T12-41-48-00-00_audit_abc.eval"
    for path in (log, f"sub/{log}", "sub/deeper/x.eval", f".hidden/{log}", "real/r.eval", f"{CACHE_DIR}/c.eval",
                 "with space/a b.eval", "2026-01-01T10-00-00_task_abc.json", "notalog.json", "eval-set.json", "logs.json",
                 "sub/readme.txt", "2026-01-01T10-00-00_task_abc.txt"):
        (root / path).write_bytes(b"x" * (len(path) + 1))
    os.symlink(root / log, root / "link.eval")  # a link to a log: not a regular file
    os.symlink(root / "real", root / "linkdir")  # a link to a folder: not followed
    os.mkfifo(root / "fifo.eval")
    ours = [(str(p), size) for p, size, _ in list_logs(root)]
    theirs = sorted((i.name.removeprefix("file://"), i.size) for i in list_eval_logs(str(root), recursive=True)
                    if CACHE_DIR not in Path(i.name).parts)
    assert ours == theirs and len(ours) == 7
    # a relative folder is listed by absolute paths, as Inspect lists it
    monkeypatch.chdir(tmp_path)
    assert [p for p, _, _ in list_logs(Path("logs"))] == [p for p, _, _ in list_logs(root)]


def test_a_cached_or_cold_read_of_inspects_logs_needs_no_inspect_import(tmp_path):
    """Inspect's own logs hold zstd members; the frame reader opens them without importing
    Inspect (about 2.5 s), cold and from the frame cache alike."""
    import subprocess
    import sys
    import zipfile

    from inspect_ai import eval as inspect_eval
    from support import scripted_model

    from political_sycophancy.audit import audit

    logs = tmp_path / "logs"
    inspect_eval(audit(condition="N"), model=scripted_model(lambda _: "B"), log_dir=str(logs), display="none", limit=3)
    [log] = logs.glob("*.eval")
    assert {i.compress_type for i in zipfile.ZipFile(log).infolist()} == {93}  # zstd, as Inspect writes
    code = ("import sys; from political_sycophancy.logs.frame import read_frame\n"
            f"for _ in range(2): load = read_frame({str(logs)!r}); print(len(load.frame), load.read, load.cached)\n"
            "print('inspect_ai' in sys.modules)")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.split() == ["3", "1", "0", "3", "0", "1", "False"], run.stdout + run.stderr


def test_the_walk_is_bounded_follows_no_link_and_notes_what_it_cannot_list(tmp_path):
    """One walk lists the folder (issue 47): past its bound it refuses in one line (a folder
    that large is not a log folder: `analyze /` listed the whole machine), a link loop or a
    link to a folder is an entry, never entered, and a folder it cannot list is an entry with
    its error (it raised a traceback when the listing met one)."""
    import pytest

    from political_sycophancy.core.errors import InputError
    from political_sycophancy.core.folders import folder_entries
    from political_sycophancy.logs.listing import list_folder, walk_notes

    root = tmp_path / "logs"
    (root / "sub").mkdir(parents=True)
    for k in range(6):
        (root / "sub" / f"{k}.eval").write_bytes(b"x")
    (root / "round").symlink_to(root / "round")
    (root / "up").symlink_to(tmp_path, target_is_directory=True)
    with pytest.raises(InputError, match=r"more than 5 entries under it .*give the folder that holds the \.eval logs"):
        folder_entries(root, limit=5)
    entries = folder_entries(root)
    assert [e.rel for e in entries] == ["round", "sub/0.eval", "sub/1.eval", "sub/2.eval", "sub/3.eval", "sub/4.eval",
                                        "sub/5.eval", "up"]
    listing = list_folder(root)
    assert len(listing.logs) == 6
    assert listing.skipped == ["round (a symbolic link loop)", "up (a symbolic link to a folder)"]
    (root / "sub").chmod(0)
    try:
        if os.access(root / "sub", os.R_OK):  # root reads any folder: the error is planted instead
            error = PermissionError(13, "Permission denied", str(root / "sub"))
            entries = [e for e in folder_entries(root) if not e.rel.startswith("sub/")]
            from political_sycophancy.core.folders import FolderEntry

            entries.append(FolderEntry("sub", None, error, unlisted=True))
        else:
            entries = folder_entries(root)
        notes = walk_notes(list_folder(root, entries))
        assert any("could not list 1 folder(s) or entr(ies)" in n and "sub (cannot be listed: Permission denied)" in n for n in notes)
    finally:
        (root / "sub").chmod(0o755)
