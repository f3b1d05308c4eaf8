"""The members of a zip archive, read as data within bounds (an Inspect AI `.eval` log is one).

Bounds: at most `MAX_MEMBERS` entries; no member, and not all of them together, larger than
the input limit (`--max-file-size`); no member inflating more than `MAX_RATIO` times its
compressed size; sizes the archive declares are held to (a member that inflates past its
declared size is refused, not read on). Deflated and stored members are read by the standard
library's `zipfile`; Zstandard members (method 93, which Inspect AI writes) by the
`zstandard` package when it is installed, else the archive is refused with what to install.
A problem is an `ArchiveError` with the reason, never a crash.

Example:
    >>> import io, tempfile, zipfile
    >>> path = tempfile.mkdtemp() + "/a.zip"
    >>> with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
    ...     archive.writestr("header.json", b'{"version": 2}')
    >>> zip_members(path, lambda name: name.endswith(".json"), 1 << 20)
    {'header.json': b'{"version": 2}'}
"""

from __future__ import annotations

import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["MAX_MEMBERS", "MAX_RATIO", "ArchiveError", "zip_members"]

MAX_MEMBERS = 100_000
"""Most entries an archive may list."""

MAX_RATIO = 1_000
"""Most a member may inflate, as a multiple of its compressed size (JSON logs compress 10 to
50 times; a zip bomb, thousands)."""

ZSTANDARD = 93
"""The zip compression method number of Zstandard."""

_LOCAL_HEADER = 30
"""Bytes of a local file header before its name and extra field."""


class ArchiveError(Exception):
    """An archive that cannot be read within bounds; the message says why."""


def zip_members(
    path: str | Path, wanted: Callable[[str], bool], limit_bytes: int
) -> dict[str, bytes]:
    """The members of the zip archive at `path` whose names `wanted` accepts, in archive
    order, each inflated.

    Raises:
        ArchiveError: not a zip archive, or one past a bound (see the module), or a member
            that does not inflate to what the archive says.
    """
    try:
        with zipfile.ZipFile(path) as archive:
            infos = archive.infolist()
            if len(infos) > MAX_MEMBERS:
                raise ArchiveError(f"{len(infos):,} entries, over the cap of {MAX_MEMBERS:,}")
            chosen = [info for info in infos if not info.is_dir() and wanted(info.filename)]
            total = sum(info.file_size for info in chosen)
            if total > limit_bytes:
                raise ArchiveError(
                    f"{total:,} bytes once inflated, over the cap of {limit_bytes:,} "
                    "(--max-file-size)"
                )
            return {info.filename: _member(archive, info, path) for info in chosen}
    except zipfile.BadZipFile as exc:
        raise ArchiveError(f"not a readable zip archive ({exc})") from None
    except OSError as exc:
        raise ArchiveError(f"cannot read the archive: {exc.strerror or exc}") from None


def _member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, path: str | Path) -> bytes:
    name = info.filename
    if info.file_size > MAX_RATIO * max(info.compress_size, 1) and info.file_size > 1 << 20:
        raise ArchiveError(
            f"{name} inflates {info.file_size:,} bytes from {info.compress_size:,}, past "
            f"{MAX_RATIO:,} times: refused as a zip bomb"
        )
    if info.compress_type == ZSTANDARD:
        data = _zstandard(path, info)
    else:
        try:
            with archive.open(info) as member:
                data = member.read(info.file_size + 1)
        except NotImplementedError as exc:
            raise ArchiveError(f"{name}: {exc}") from None
        except (zipfile.BadZipFile, zlib.error, EOFError) as exc:
            raise ArchiveError(f"{name} is damaged ({exc})") from None
    if len(data) != info.file_size:
        raise ArchiveError(
            f"{name} inflates to {len(data):,} bytes where the archive says {info.file_size:,}"
        )
    return data


def _zstandard(path: str | Path, info: zipfile.ZipInfo) -> bytes:
    """A Zstandard member, inflated from its raw bytes (the standard library's `zipfile`
    reads such members only from Python 3.14)."""
    try:
        import zstandard
    except ImportError:
        raise ArchiveError(
            "its members are compressed with Zstandard (as Inspect AI writes .eval logs): "
            "pip install zstandard, or write the log as JSON (log_format='json')"
        ) from None
    with open(path, "rb") as file:  # noqa: PTH123
        file.seek(info.header_offset)
        header = file.read(_LOCAL_HEADER)
        if len(header) < _LOCAL_HEADER or header[:4] != b"PK\x03\x04":
            raise ArchiveError(f"{info.filename}: no local header where the archive says")
        skip = int.from_bytes(header[26:28], "little") + int.from_bytes(header[28:30], "little")
        file.seek(info.header_offset + _LOCAL_HEADER + skip)
        raw = file.read(info.compress_size)
    decompressor: Any = zstandard.ZstdDecompressor()
    try:
        with decompressor.stream_reader(raw) as reader:
            data = bytes(reader.read(info.file_size + 1))
    except zstandard.ZstdError as exc:
        raise ArchiveError(f"{info.filename} is damaged ({exc})") from None
    if len(data) == info.file_size and zlib.crc32(data) != info.CRC:
        raise ArchiveError(f"{info.filename} is damaged (its checksum does not match)")
    return data
