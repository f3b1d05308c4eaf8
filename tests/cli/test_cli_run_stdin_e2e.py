"""`assay run` gives the agent no standard input: a sync agent that reads it gets end of file
at once, never blocks on the terminal or on a pipe left open, and the process ends with the
run's own exit code (it once died at exit with `Fatal Python error: _enter_buffered_busy`,
exit 134, an abandoned thread still holding stdin's lock)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from _cli import popen

pytestmark = pytest.mark.slow  # each test runs the console script in a new process

AGENTS = '''
import os, sys

def with_input(messages):
    return input("your answer? ")

def with_read(messages):
    return sys.stdin.read()

def with_os_read(messages):
    return os.read(0, 100).decode()
'''


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "agents.py").write_text(AGENTS)
    case = {"eval_id": "ask", "user_query": "hi?", "expected_response": "hi"}
    (tmp_path / "cases.jsonl").write_text(json.dumps(case) + "\n")
    return tmp_path


@pytest.mark.parametrize("agent", ["with_input", "with_read", "with_os_read"])
def test_a_sync_agent_reading_stdin_gets_nothing_and_the_run_ends_with_its_own_code(
    project: Path, agent: str
) -> None:
    # stdin is a pipe that stays open for the whole run: a read of it would wait forever.
    with (project / "out.txt").open("w") as out, (project / "err.txt").open("w") as err:
        proc = popen(
            "run", f"agents.py:{agent}", "cases.jsonl", "--timeout", "1", "--fail-under", "1",
            "--reports-dir", "reports", cwd=project, stdin=subprocess.PIPE, stdout=out,
            stderr=err,
        )
        try:
            code = proc.wait(timeout=120)
        finally:
            assert proc.stdin is not None
            proc.stdin.close()
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    said = (project / "err.txt").read_text()
    assert "Fatal Python error" not in said
    assert code == 1, f"exit {code}\n{said}"  # the pass rate is below --fail-under
    assert "is below --fail-under" in said, said
    lines = (project / "reports" / "results.jsonl").read_text().splitlines()
    (result,) = [json.loads(line) for line in lines]
    # The read ended at once (end of file), not at --timeout with the agent abandoned.
    assert result["score"]["details"].get("reason") != "timeout", result
