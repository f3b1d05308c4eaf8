"""`assay run`'s error messages hold data from the user's files (an eval id, a criterion's
name, an exception's text): none of it reaches the terminal as a control character."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from _cli import assay, explain

HOSTILE = "x\x1b[31mred\x07bell\x7fdel\x9bcsi\r"
"""An escape sequence, a bell, DEL, a C1 control and a carriage return."""

_RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
"""What must never be printed raw: every C0 control but newline and tab, DEL, the C1 set."""

pytestmark = pytest.mark.slow  # each test runs the console script in a new process

AGENT = "def agent(messages):\n    return 'hi'\n"


def _assert_no_controls(proc: subprocess.CompletedProcess[Any]) -> None:
    for name, stream in (("stdout", proc.stdout), ("stderr", proc.stderr)):
        text = stream.decode("utf-8", "replace")
        assert _RAW.search(text) is None, f"raw control character in {name}: {text!r}"


def _run(project: Path, *args: str) -> subprocess.CompletedProcess[Any]:
    proc = assay("run", *args, "--reports-dir", "out", cwd=project, text=False)
    assert proc.returncode == 3, explain(proc)
    assert b"assay: error:" in proc.stderr
    _assert_no_controls(proc)
    return proc


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "agent.py").write_text(AGENT)
    case = {"eval_id": "ok", "user_query": "hi?", "expected_response": "hi"}
    (tmp_path / "cases.jsonl").write_text(json.dumps(case) + "\n")
    return tmp_path


def test_a_duplicate_eval_id_is_shown_escaped(project: Path) -> None:
    case = {"eval_id": HOSTILE, "user_query": "hi?", "expected_response": "hi"}
    (project / "twice.jsonl").write_text((json.dumps(case) + "\n") * 2)
    proc = _run(project, "agent.py:agent", "twice.jsonl")
    assert b"eval_id used by more than one case: x\\x1b[31mred\\x07" in proc.stderr


def test_a_config_error_is_shown_escaped(project: Path) -> None:
    (project / "config.json").write_text(json.dumps({"criteria": {HOSTILE: 5}}))
    proc = _run(project, "agent.py:agent", "cases.jsonl", "--config", "config.json")
    assert b"criteria.x\\x1b[31mred\\x07" in proc.stderr


def test_the_agent_modules_import_error_is_shown_escaped(project: Path) -> None:
    (project / "broken.py").write_text(f"raise RuntimeError({HOSTILE!r})\n")
    proc = _run(project, "broken.py:agent", "cases.jsonl")
    assert b"raised RuntimeError: x\\x1b[31mred\\x07bell\\x7fdel\\x9bcsi\\r" in proc.stderr
