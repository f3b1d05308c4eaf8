"""Writing report files: safe names, atomic writes, never outside the reports directory.

Example:
    >>> names = ReportNames()
    >>> names.allocate("../../x"), names.allocate("a/b"), names.allocate("a_b")
    ('x', 'a_b', 'a_b-2')
"""

from __future__ import annotations

import contextlib
import itertools
import os
import re
import struct
from pathlib import Path

from assay._io import write_all

try:  # hashlib's own blake2b, without hashlib loading OpenSSL first (some 3 ms at start-up)
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - an interpreter without CPython's built-in module
    from hashlib import blake2b

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_MAX_NAME = 120
_RESERVED = {
    "con",
    "prn",
    "aux",
    "nul",
    *(f"com{i}" for i in range(10)),
    *(f"lpt{i}" for i in range(10)),
}


class ReportNames:
    """Hands out unique, sanitised file stems for per-run reports.

    Uniqueness is case-insensitive, so reports survive a copy to a case-insensitive disk.
    The names handed out are remembered in a fixed-size bit set (a Bloom filter) rather than a
    set of strings, so that memory stays flat however many runs an evaluation has. A false
    positive only costs a needless `-2` suffix; at 8 Mi bits and 4 probes that is about one
    name in ten million at 20,000 runs, and the digest is stable, so names are reproducible.
    """

    _BITS = 1 << 23

    def __init__(self) -> None:
        self._bits = bytearray(self._BITS // 8)

    def allocate(self, wanted: str | None) -> str:
        """A fresh safe stem for `wanted` (a run or scenario id)."""
        stem = _UNSAFE.sub("_", wanted or "").strip("._-")[:_MAX_NAME] or "run"
        if stem.lower() in _RESERVED:
            stem = f"run-{stem}"
        bits = self._bits
        candidate, counter = stem, 1
        while True:
            # Four probes, written out: this runs once per report.
            a, b, c, d = self._probes(candidate)
            if not (
                bits[a >> 3] >> (a & 7) & 1
                and bits[b >> 3] >> (b & 7) & 1
                and bits[c >> 3] >> (c & 7) & 1
                and bits[d >> 3] >> (d & 7) & 1
            ):
                break
            counter += 1
            candidate = f"{stem}-{counter}"
        bits[a >> 3] |= 1 << (a & 7)
        bits[b >> 3] |= 1 << (b & 7)
        bits[c >> 3] |= 1 << (c & 7)
        bits[d >> 3] |= 1 << (d & 7)
        return candidate

    def _probes(self, name: str) -> tuple[int, int, int, int]:
        # blake2b, not hash(): names must not depend on the process's hash seed. Its 128 bits
        # are four 32-bit words, each cut to a position in the bit set.
        mask = self._BITS - 1  # a power of two
        a, b, c, d = _FOUR_WORDS.unpack(blake2b(name.lower().encode(), digest_size=16).digest())
        return a & mask, b & mask, c & mask, d & mask


_FOUR_WORDS = struct.Struct("<4I")


def inside(directory: Path | str, name: str) -> str:
    """The path of `name` in `directory`, refusing any name that would land elsewhere."""
    if name in ("", ".", "..") or "/" in name or "\\" in name or "\0" in name:
        raise ValueError(f"refusing to write {name!r} outside {directory}")
    return os.path.join(directory, name)  # noqa: PTH118


_TEMPORARY_PREFIX = ".assay-"
_temporaries = itertools.count()
_pid = os.getpid()  # os.getpid() is a system call each time; forked children refresh it


def _refresh_pid() -> None:
    global _pid
    _pid = os.getpid()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_refresh_pid)


def write_temporary(directory: Path | str, data: bytes) -> str:
    """Write `data` to a new hidden file in `directory` (to be renamed into place later).

    Names carry the process id, so worker processes can write side by side.
    """
    name = f"{_TEMPORARY_PREFIX}{_pid}-{next(_temporaries)}.tmp"
    path = f"{os.fspath(directory)}{os.sep}{name}"
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        write_all(descriptor, data)
    except BaseException:
        os.close(descriptor)
        os.unlink(path)  # noqa: PTH108
        raise
    os.close(descriptor)
    return path


def write_atomic(path: Path | str, data: bytes) -> None:
    """Write `data` to `path` via a temporary file and a rename, so readers never see half."""
    target = os.fspath(path)
    temporary = write_temporary(os.path.dirname(target), data)  # noqa: PTH120
    try:
        os.replace(temporary, target)  # noqa: PTH105
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)  # noqa: PTH108
        raise


def remove_temporaries(directory: Path | str) -> None:
    """Remove temporary files an interrupted evaluation left in `directory`."""
    with contextlib.suppress(OSError):
        for entry in Path(directory).iterdir():
            if entry.name.startswith(_TEMPORARY_PREFIX) and entry.name.endswith(".tmp"):
                entry.unlink(missing_ok=True)
