"""Writing report files: safe names, atomic writes, never outside the reports directory.

Example:
    >>> names = ReportNames()
    >>> names.allocate("../../x"), names.allocate("a/b"), names.allocate("a_b")
    ('x', 'a_b', 'a_b-2')
"""

from __future__ import annotations

import contextlib
import os
import re
from pathlib import Path

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

    Names are unique case-insensitively (for case-insensitive file systems); names starting
    with `_` are kept for the evaluator's own files (`_aggregate.json`).
    """

    def __init__(self) -> None:
        # Hashes, not the names: this set grows with every run. A hash collision costs no more
        # than a needless "-2" suffix.
        self._taken: set[int] = {hash("results"), hash("_aggregate")}

    def allocate(self, wanted: str | None) -> str:
        """A fresh safe stem for `wanted` (a run or scenario id)."""
        stem = _UNSAFE.sub("_", wanted or "").strip("._-")[:_MAX_NAME] or "run"
        if stem.lower() in _RESERVED:
            stem = f"run-{stem}"
        candidate, counter = stem, 1
        while hash(candidate.lower()) in self._taken:
            counter += 1
            candidate = f"{stem}-{counter}"
        self._taken.add(hash(candidate.lower()))
        return candidate


def inside(directory: Path, name: str) -> str:
    """The path of `name` in `directory`, refusing any name that would land elsewhere."""
    if name in ("", ".", "..") or "/" in name or "\\" in name or "\0" in name:
        raise ValueError(f"refusing to write {name!r} outside {directory}")
    return os.path.join(directory, name)  # noqa: PTH118


def write_atomic(path: Path | str, data: bytes) -> None:
    """Write `data` to `path` via a temporary file and a rename, so readers never see half."""
    # Plain os calls: this runs once per report file, and pathlib's overhead showed up there.
    target = os.fspath(path)
    head, name = os.path.split(target)
    temporary = os.path.join(head, f".{name}.{os.getpid()}.tmp")  # noqa: PTH118
    try:
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            os.write(descriptor, data)
        finally:
            os.close(descriptor)
        os.replace(temporary, target)  # noqa: PTH105
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)  # noqa: PTH108
        raise
