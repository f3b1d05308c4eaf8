"""Writing report files: safe names, atomic writes, never outside the reports directory.

Example:
    >>> names = ReportNames()
    >>> names.allocate("../../x"), names.allocate("a/b"), names.allocate("a_b")
    ('x', 'a_b', 'a_b-2')
"""

from __future__ import annotations

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
        self._taken: set[str] = {"results", "_aggregate"}

    def allocate(self, wanted: str | None) -> str:
        """A fresh safe stem for `wanted` (a run or scenario id)."""
        stem = _UNSAFE.sub("_", wanted or "").strip("._-")[:_MAX_NAME] or "run"
        if stem.lower() in _RESERVED:
            stem = f"run-{stem}"
        candidate, counter = stem, 1
        while candidate.lower() in self._taken:
            counter += 1
            candidate = f"{stem}-{counter}"
        self._taken.add(candidate.lower())
        return candidate


def inside(directory: Path, name: str) -> Path:
    """`directory / name`, refusing any name that would land elsewhere."""
    path = directory / name
    if path.parent != directory or name in ("", ".", "..") or "/" in name or "\\" in name:
        raise ValueError(f"refusing to write {name!r} outside {directory}")
    return path


def write_atomic(path: Path, data: bytes) -> None:
    """Write `data` to `path` via a temporary file and a rename, so readers never see half."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with temporary.open("wb") as handle:
            handle.write(data)
        temporary.replace(path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
