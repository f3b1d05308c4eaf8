"""Running the `assay` console script in a subprocess, as a user runs it.

The script is the one installed next to the interpreter running the tests (the project is
installed editable), so a test exercises the real entry point, argument parsing, exit code and
output streams. The environment asks for a wide terminal without colour, so that rich neither
wraps nor styles what the tests read; stdin is closed, as in CI.

Example::

    from _cli import assay, explain

    def test_help(tmp_path: Path) -> None:
        proc = assay("evaluate", "--help", cwd=tmp_path)
        assert proc.returncode == 0, explain(proc)

`env` adds to (or, with a None value, removes from) the inherited environment; any other
keyword goes to `subprocess.run` (`popen` for a process the test signals or reads while it runs).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

__all__ = ["BIN_DIR", "assay", "command", "environment", "explain", "popen"]

BIN_DIR = Path(sys.executable).parent
"""Where pip put the console scripts of the interpreter running the tests."""

QUIET_TERMINAL = {"COLUMNS": "2000", "NO_COLOR": "1", "TERM": "dumb"}


def command(script: str = "assay") -> list[str]:
    """The console script `script` (`assay` or `evaluate`) as a command line; the test is
    skipped when it is not installed."""
    for candidate in (BIN_DIR / script, BIN_DIR / f"{script}.exe"):
        if candidate.exists():
            return [str(candidate)]
    pytest.skip(f"console script {script!r} is not installed next to {sys.executable}")


def environment(env: Mapping[str, str | None] | None = None) -> dict[str, str]:
    """This process's environment with a quiet terminal, then `env` on top (None unsets)."""
    result = {**os.environ, **QUIET_TERMINAL}
    for name, value in (env or {}).items():
        if value is None:
            result.pop(name, None)
        else:
            result[name] = value
    return result


def _argv(script: str, args: tuple[Any, ...]) -> list[str | bytes]:
    # bytes pass through untouched: the OS hands argv over as bytes, whatever their encoding.
    return [*command(script), *(arg if isinstance(arg, bytes) else str(arg) for arg in args)]


def _options(env: Mapping[str, str | None] | None, options: dict[str, Any]) -> dict[str, Any]:
    settings: dict[str, Any] = {"env": environment(env), "text": True}
    if "input" not in options and "stdin" not in options:
        settings["stdin"] = subprocess.DEVNULL
    if "stdout" not in options and "stderr" not in options:
        settings["capture_output"] = True
    return {**settings, **options}


def assay(
    *args: Any,
    script: str = "assay",
    env: Mapping[str, str | None] | None = None,
    timeout: float = 300,
    **options: Any,
) -> subprocess.CompletedProcess[Any]:
    """Run `assay *args` to its end; output captured as text unless `options` say otherwise."""
    return subprocess.run(
        _argv(script, args),
        timeout=timeout,
        check=False,
        **_options(env, options),
    )


def popen(
    *args: Any,
    script: str = "assay",
    env: Mapping[str, str | None] | None = None,
    **options: Any,
) -> subprocess.Popen[Any]:
    """Start `assay *args` and return at once (the caller waits for it or signals it)."""
    return subprocess.Popen(_argv(script, args), **_options(env, options))


def explain(proc: subprocess.CompletedProcess[Any]) -> str:
    """A finished command, for an assertion message."""
    out, err = proc.stdout, proc.stderr
    if isinstance(out, bytes):
        out = out.decode("utf-8", "backslashreplace")
    if isinstance(err, bytes):
        err = err.decode("utf-8", "backslashreplace")
    return f"exit {proc.returncode}\n--- stdout\n{out}\n--- stderr\n{err}"
