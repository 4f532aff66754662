"""A zip archive of deflated members written in one pass from members already in memory.

`zipfile.ZipFile.writestr` opens a writer per member, writes a provisional local header,
streams the data through it and seeks back to patch the header: about as long again as
deflating a sample's few kilobytes, for each of an import's tens of thousands of samples.
Here each member is deflated whole and its header written once, with the layout
`writestr` gives (deflate, no data descriptor, the UTF-8 flag on non-ASCII names, mode
0600). An archive that needs ZIP64 (65,535 members or more, or 2 GiB) is written by
`zipfile`, which knows it. tests/test_core_zipped.py reads the archives back with `zipfile`.
"""

from __future__ import annotations

import struct
import time
import zipfile
import zlib
from collections.abc import Sequence
from typing import BinaryIO

# local file header: signature, version needed, flags, method, time, date, CRC-32, sizes, name and extra lengths
_LOCAL = struct.Struct("<4s5H3L2H")
# central directory entry: signature, versions made by and needed, flags, method, time, date, CRC-32,
# sizes, name, extra and comment lengths, disk, internal and external attributes, local header offset
_CENTRAL = struct.Struct("<4s6H3L5H2L")
# end of central directory: signature, disk numbers, entries on this disk and in all, size, offset, comment length
_END = struct.Struct("<4s4H2LH")
_VERSION = 20  # deflate
_MADE_BY = (3 << 8) | _VERSION  # Unix, as zipfile writes on Unix
_UTF8 = 0x800
_MODE = 0o600 << 16  # rw-------, what writestr gives a member named without a ZipInfo
MAX_MEMBERS = 0xFFFF - 1
MAX_BYTES = (1 << 31) - 1  # zipfile's ZIP64_LIMIT


def _dos_time(seconds: float) -> tuple[int, int]:
    t = time.localtime(seconds)
    return (t.tm_hour << 11) | (t.tm_min << 5) | (t.tm_sec // 2), ((t.tm_year - 1980) << 9) | (t.tm_mon << 5) | t.tm_mday


def write_deflated(fh: BinaryIO, members: Sequence[tuple[str, bytes]], level: int = 1) -> None:
    """Write `members` ((name, data) in order) to the new file `fh` as a zip archive, each
    deflated at `level`, dated now."""
    if len(members) > MAX_MEMBERS or sum(len(data) for _, data in members) > MAX_BYTES:
        with zipfile.ZipFile(fh, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=level) as archive:
            for name, data in members:
                archive.writestr(name, data)
        return
    dos_time, dos_date = _dos_time(time.time())
    central: list[bytes] = []
    offset = 0
    for name, data in members:
        encoded = name.encode("utf-8")
        flags = 0 if encoded.isascii() else _UTF8
        deflate = zlib.compressobj(level, zlib.DEFLATED, -15)
        packed = deflate.compress(data) + deflate.flush()
        crc = zlib.crc32(data)
        fh.write(_LOCAL.pack(b"PK\x03\x04", _VERSION, flags, zipfile.ZIP_DEFLATED, dos_time, dos_date, crc, len(packed), len(data),
                             len(encoded), 0))
        fh.write(encoded)
        fh.write(packed)
        central.append(_CENTRAL.pack(b"PK\x01\x02", _MADE_BY, _VERSION, flags, zipfile.ZIP_DEFLATED, dos_time, dos_date, crc,
                                     len(packed), len(data), len(encoded), 0, 0, 0, 0, _MODE, offset) + encoded)
        offset += _LOCAL.size + len(encoded) + len(packed)
    directory = b"".join(central)
    fh.write(directory)
    fh.write(_END.pack(b"PK\x05\x06", 0, 0, len(central), len(central), len(directory), offset, 0))
