"""`assay run` with its other outputs: JUnit XML, the HTML page, `assay compare` of two live
evaluations (repeats matched), and the judge flags against a chat server on 127.0.0.1."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from junitparser import JUnitXml

from assay.cli.main import main
from chat_server import ChatServer, RecordedRequest, Reply

AGENT = '''
import os
from assay.evaluation import tool

@tool
def lookup(city: str) -> str:
    return "sunny"

async def agent(messages):
    text = messages[-1]["content"]
    if os.environ.get("AGENT_VERSION") == "2" or "Paris" in text:
        lookup(text.split()[-1])
    return "It is sunny." if "Paris" in text else "I do not know."
'''

CASES = [
    {"eval_id": "paris", "user_query": "weather in Paris", "expected_tools": ["lookup"]},
    {"eval_id": "oslo", "user_query": "weather in Oslo", "expected_tools": ["lookup"]},
]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "agent.py").write_text(AGENT)
    (tmp_path / "cases.jsonl").write_text("".join(json.dumps(c) + "\n" for c in CASES))
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("AGENT_VERSION", raising=False)
    return tmp_path


def test_junit_and_html_outputs(project: Path) -> None:
    assert main(["run", "agent.py:agent", "cases.jsonl", "--repeat", "2", "-q",
                 "--reports-dir", "out", "--junit", "junit.xml", "--html", "page.html"]) == 0
    suites = JUnitXml.fromfile(str(project / "junit.xml"))
    cases = [case for suite in suites for case in suite]
    assert len(cases) == 4
    failed = sorted(case.name for case in cases if not case.is_passed)
    assert len(failed) == 2 and all("oslo" in name for name in failed)
    page = (project / "page.html").read_text()
    assert "<script" in page and "oslo" in page


def test_compare_two_live_evaluations_matches_repeats(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["run", "agent.py:agent", "cases.jsonl", "--repeat", "3", "-q"]
    assert main([*args, "--reports-dir", "before"]) == 0
    monkeypatch.setenv("AGENT_VERSION", "2")
    assert main([*args, "--reports-dir", "after"]) == 0
    capsys.readouterr()
    assert main(["compare", "before", "after", "--json", "cmp.json"]) == 0
    comparison = json.loads((project / "cmp.json").read_text())
    assert comparison["matched_by"] == "scenario_id+repeat"
    assert comparison["repeats"]["base"]["pass_at_1"] == 0.5
    assert comparison["repeats"]["new"]["pass_at_1"] == 1.0


def _judge(request: RecordedRequest) -> Reply:
    text = json.dumps(request.body["messages"])
    right = "It is sunny." in text
    return Reply.ok({"score": 1.0 if right else 0.0, "passed": right, "rationale": "read it"})


def test_the_judge_flags_drive_a_judge_criterion(
    project: Path, chat_server: ChatServer
) -> None:
    chat_server.handler = _judge
    (project / "config.json").write_text(json.dumps({"criteria": {
        "quality": {"scorer_name": "llm_judge", "options": {"prompt": "Does it give the weather?"}},
    }}))
    env: dict[str, Any] = {**os.environ, "LOCAL_BASE_URL": chat_server.base_url,
                           "ASSAY_CACHE_DIR": str(project / "cache"), "NO_COLOR": "1"}
    command = [sys.executable, "-m", "assay", "run", "agent.py:agent", "cases.jsonl",
               "--config", "config.json", "--judge-model", "local/judge-1", "--reports-dir",
               "out", "-q"]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.returncode == 0, done.stderr
    aggregate = json.loads((project / "out" / "_aggregate.json").read_text())
    assert aggregate["live"]["passed"] == 1 and aggregate["live"]["runs"] == 2
    assert aggregate["judge_usage"]["local/judge-1"]["calls"] == 2
    assert len(chat_server.requests) == 2
    # Again: every verdict from the cache, no call made.
    done = subprocess.run([*command[:-2], "again", "-q"], env=env, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert len(chat_server.requests) == 2
