"""A zip archive of zstd members, as Inspect compresses its .eval logs, written in one pass.

Written from members already in memory; and `zipfile` taught to read and write such
members.

`zipfile.ZipFile.writestr` opens a writer per member, writes a provisional local header,
streams the data through it and seeks back to patch the header: about as long again as
compressing a sample's few kilobytes, for each of an import's tens of thousands of samples.
Here each member is compressed whole (zstd at Inspect's level, 3) and its header written
once, with the layout `writestr` gives (no data descriptor, the UTF-8 flag on non-ASCII
names, mode 0600). Zstd, not deflate: it is what Inspect's recorder writes (our oldest
supported Inspect included) and what its viewer reads, and it compresses an import's
samples in half deflate's time at its fastest level, into fewer bytes. An archive that
needs ZIP64 (65,535 members or more, or 2 GiB) is written by `zipfile`, which knows it.
tests/test_core_zipped.py reads the archives back with `zipfile`.
"""

from __future__ import annotations

import struct
import sys
import time
import zipfile
import zlib
from collections.abc import Sequence
from typing import BinaryIO

import zstandard

# local file header: signature, version needed, flags, method, time, date, CRC-32, sizes, name and extra lengths
_LOCAL = struct.Struct("<4s5H3L2H")
# central directory entry: signature, versions made by and needed, flags, method, time, date, CRC-32,
# sizes, name, extra and comment lengths, disk, internal and external attributes, local header offset
_CENTRAL = struct.Struct("<4s6H3L5H2L")
# end of central directory: signature, disk numbers, entries on this disk and in all, size, offset, comment length
_END = struct.Struct("<4s4H2LH")
_UNIX = 3 << 8  # "made by" Unix, as zipfile writes on Unix
_UTF8 = 0x800
_MODE = 0o600 << 16  # rw-------, what writestr gives a member named without a ZipInfo
LEVEL = 3  # zipfile_zstd's default, which Inspect's recorder uses
MAX_MEMBERS = 0xFFFF - 1
MAX_BYTES = (1 << 31) - 1  # zipfile's ZIP64_LIMIT


def zstd_zips() -> int:
    """Let `zipfile` read and write the zstd members of Inspect's .eval logs, and return their method number.

    Python 3.14 knows them; before it, the `zipfile_zstd` package that Inspect registers
    them with does, imported here without Inspect (whose import costs about 2.5 s); without
    that package, through Inspect.
    """
    if sys.version_info < (3, 14):
        try:
            import zipfile_zstd  # type: ignore[import-untyped]  # noqa: F401
        except ImportError:
            import inspect_ai.log  # noqa: F401
    return zipfile.ZIP_ZSTANDARD  # type: ignore[attr-defined]


def _dos_time(seconds: float) -> tuple[int, int]:
    t = time.localtime(seconds)
    return (t.tm_hour << 11) | (t.tm_min << 5) | (t.tm_sec // 2), ((t.tm_year - 1980) << 9) | (
        t.tm_mon << 5
    ) | t.tm_mday


def write_zstd(fh: BinaryIO, members: Sequence[tuple[str, bytes]], level: int = LEVEL) -> None:
    """Write `members` ((name, data) in order) to the new file `fh` as a zip archive.

    Each member is compressed with zstd at `level` and dated now.
    """
    method = zstd_zips()
    if len(members) > MAX_MEMBERS or sum(len(data) for _, data in members) > MAX_BYTES:
        with zipfile.ZipFile(fh, "w", compression=method, compresslevel=level) as archive:
            for name, data in members:
                archive.writestr(name, data)
        return
    version = max(zipfile.DEFAULT_VERSION, zipfile.ZSTANDARD_VERSION)  # type: ignore[attr-defined]
    compress = zstandard.ZstdCompressor(level=level).compress
    dos_time, dos_date = _dos_time(time.time())
    central: list[bytes] = []
    offset = 0
    for name, data in members:
        encoded = name.encode("utf-8")
        flags = 0 if encoded.isascii() else _UTF8
        packed = compress(data)
        crc = zlib.crc32(data)
        fh.write(
            _LOCAL.pack(
                b"PK\x03\x04", version, flags, method, dos_time, dos_date, crc, len(packed), len(data), len(encoded), 0
            )
        )
        fh.write(encoded)
        fh.write(packed)
        central.append(
            _CENTRAL.pack(
                b"PK\x01\x02",
                _UNIX | version,
                version,
                flags,
                method,
                dos_time,
                dos_date,
                crc,
                len(packed),
                len(data),
                len(encoded),
                0,
                0,
                0,
                0,
                _MODE,
                offset,
            )
            + encoded
        )
        offset += _LOCAL.size + len(encoded) + len(packed)
    directory = b"".join(central)
    fh.write(directory)
    fh.write(_END.pack(b"PK\x05\x06", 0, 0, len(central), len(central), len(directory), offset, 0))
