"""`assay run` checks every file it is to write after the run (`--html`, `--junit`) before
the agent runs: a path it cannot write is refused at once (exit 3), the agent never called."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from _cli import assay, explain

pytestmark = pytest.mark.slow  # each test runs the console script in a new process

AGENT = '''
from pathlib import Path

def agent(messages):
    Path("called").write_text("the agent ran")
    return "hi"
'''


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "agent.py").write_text(AGENT)
    case = {"eval_id": "ok", "user_query": "hi?", "expected_response": "hi"}
    (tmp_path / "cases.jsonl").write_text(json.dumps(case) + "\n")
    (tmp_path / "a-dir").mkdir()
    return tmp_path


@pytest.mark.parametrize("option", ["--html", "--junit"])
@pytest.mark.parametrize(
    ("target", "reason"),
    [
        ("/nonexistent-dir/x.html", "no such directory /nonexistent-dir"),
        ("a-dir", "it is a directory, not a regular file"),
        ("out/results.jsonl", "a report of out has that name"),
    ],
)
def test_an_output_path_that_cannot_be_written_is_refused_before_the_agent_runs(
    project: Path, option: str, target: str, reason: str
) -> None:
    proc = assay(
        "run", "agent.py:agent", "cases.jsonl", "--reports-dir", "out", option, target,
        cwd=project,
    )
    assert proc.returncode == 3, explain(proc)
    assert not (project / "called").exists(), "the agent ran before the refusal"
    assert not (project / "out").exists()
    what = "the HTML report" if option == "--html" else "JUnit XML"
    assert f"assay: error: {option}: cannot write {what} to {target}: {reason}" in proc.stderr


def test_writable_output_paths_are_written_after_the_run(project: Path) -> None:
    proc = assay(
        "run", "agent.py:agent", "cases.jsonl", "-q", "--reports-dir", "out",
        "--html", "out/page.html", "--junit", "junit.xml", cwd=project,
    )
    assert proc.returncode == 0, explain(proc)
    assert (project / "called").exists()
    assert "<script" in (project / "out" / "page.html").read_text()
    assert "<testsuite" in (project / "junit.xml").read_text()
