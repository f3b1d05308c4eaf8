"""Recorded bench results: one JSON object per line in ``bench/results/<bench>.jsonl``.

Every record has ``bench``, ``date`` (UTC, ``YYYY-MM-DD HH:MM``), ``commit`` (short hash,
None when unknown), ``command`` (how it was run), ``environment`` (Python, machine, CPUs...)
and ``figures``: the rows the script printed, each ``{"measure", "result", "target",
"status"}`` as text, plus ``values`` where a script has the numbers at hand. Files only grow:
history is data, and bench/README.md reads the latest lines.
"""

from __future__ import annotations

import contextlib
import os
import platform
import shlex
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

BENCH = Path(__file__).resolve().parent
RESULTS = BENCH / "results"


def git_commit() -> str | None:
    """The short hash of HEAD, or None outside a checkout."""
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=BENCH.parent,
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%d %H:%M")


def command_line() -> str:
    """This process's command as typed from the repository root."""
    script = Path(sys.argv[0])
    with contextlib.suppress(ValueError):
        script = script.resolve().relative_to(BENCH.parent)
    return shlex.join(["python", str(script), *sys.argv[1:]])


def environment() -> str:
    return (
        f"Python {platform.python_version()}, {platform.system()} {platform.machine()}, "
        f"{os.cpu_count()} CPUs"
    )


def figures(rows: list[tuple[str, str, str, str]]) -> list[dict[str, str]]:
    """Printed table rows (measure, result, target, status) as records."""
    return [
        {"measure": measure, "result": result, "target": target, "status": status}
        for measure, result, target, status in rows
    ]


def append(bench: str, record: dict[str, Any]) -> Path:
    """Append `record` as one line to ``bench/results/<bench>.jsonl``; return the file."""
    line: dict[str, Any] = {
        "bench": bench,
        "date": now(),
        "commit": git_commit(),
        "command": command_line(),
        "environment": environment(),
    }
    line.update(record)
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"{bench}.jsonl"
    with path.open("ab") as file:
        file.write(orjson.dumps(line) + b"\n")
    return path
