"""`core.zipped`: archives written in one pass read back with `zipfile` member for member,
compressed as Inspect compresses its logs (zstd), laid out as `zipfile.writestr` lays them
out, and ZIP64-sized ones left to `zipfile`."""

from __future__ import annotations

import io
import os
import zipfile

from political_sycophancy.core import zipped

MEMBERS = [
    ("_journal/start.json", b'{"version":2}'),
    ("samples/p1_02_epoch_1.json", b'{"id":"p1_02"}' * 200),
    ("samples/\u00e9t\u00e9_epoch_1.json", "non-ASCII name, non-ASCII text \u00e9".encode()),
    ("empty.json", b""),
    ("random.bin", os.urandom(5000)),
]


def written(members, level=zipped.LEVEL):
    buffer = io.BytesIO()
    zipped.write_zstd(buffer, members, level)
    return buffer.getvalue()


def test_members_read_back_in_order_with_their_bytes():
    with zipfile.ZipFile(io.BytesIO(written(MEMBERS))) as archive:
        assert archive.testzip() is None  # every member's CRC checks
        assert archive.namelist() == [name for name, _ in MEMBERS]
        assert [archive.read(name) for name, _ in MEMBERS] == [data for _, data in MEMBERS]
        assert {info.compress_type for info in archive.infolist()} == {zipped.zstd_zips()}


def test_headers_are_those_zipfile_writestr_gives():
    reference = io.BytesIO()
    with zipfile.ZipFile(reference, "w", compression=zipped.zstd_zips(), compresslevel=zipped.LEVEL) as archive:
        for name, data in MEMBERS:
            archive.writestr(name, data)
    # all but the compressed sizes and so the offsets: writestr streams each member through a
    # multi-threaded compressor, whose frames can differ in size from one compressed whole
    fields = ("filename", "compress_type", "flag_bits", "create_system", "create_version", "extract_version",
              "external_attr", "file_size", "CRC", "extra")
    with zipfile.ZipFile(reference) as ours_expected, zipfile.ZipFile(io.BytesIO(written(MEMBERS))) as ours:
        for theirs, mine in zip(ours_expected.infolist(), ours.infolist(), strict=True):
            assert [getattr(mine, f) for f in fields] == [getattr(theirs, f) for f in fields], theirs.filename
            assert abs(mine.compress_size - theirs.compress_size) <= 16, theirs.filename


def test_an_archive_that_needs_zip64_is_written_by_zipfile(monkeypatch):
    monkeypatch.setattr(zipped, "MAX_MEMBERS", 2)
    calls = []
    real = zipfile.ZipFile.writestr
    monkeypatch.setattr(zipfile.ZipFile, "writestr", lambda self, name, data: (calls.append(name), real(self, name, data))[1])
    with zipfile.ZipFile(io.BytesIO(written(MEMBERS))) as archive:
        assert [archive.read(name) for name, _ in MEMBERS] == [data for _, data in MEMBERS]
        assert {info.compress_type for info in archive.infolist()} == {zipped.zstd_zips()}
    assert calls == [name for name, _ in MEMBERS]
