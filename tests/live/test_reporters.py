"""The seed's reporters and `evaluate_case`, on one small evaluation."""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path
from typing import Any

from assay.evaluation import (
    AgentEvaluator,
    ConsoleReporter,
    EvalCase,
    JSONReporter,
    tool,
)


@tool
def search(query: str) -> list[str]:
    return [f"result for {query}"]


async def agent(messages: list[dict[str, Any]]) -> str:
    text = messages[-1]["content"]
    if text == "fail":
        raise KeyError("missing state")
    search(text)
    return f"found {text}"


CASES = [
    EvalCase.single_turn("ok", "cats", expected_response="cats", expected_tools=["search"]),
    EvalCase.single_turn("wrong", "dogs", expected_response="cats", expected_tools=["search"]),
    EvalCase.single_turn("down", "fail", expected_response="x", expected_tools=["search"]),
]


def test_json_reporter_writes_every_run_and_the_figures(tmp_path: Path) -> None:
    report = AgentEvaluator(agent).evaluate_sync(CASES)
    JSONReporter(output_path=tmp_path / "eval-report.json").write(report)
    data = json.loads((tmp_path / "eval-report.json").read_text())
    assert (data["total_cases"], data["passed_cases"]) == (3, 1)
    assert data["pass_rate"] == report.pass_rate and data["errors"]["agent_error"] == 1
    ok, wrong, down = data["cases"]
    assert ok["actual_trajectory"] == [
        {"type": "tool", "name": "search", "args": {"query": "cats"},
         "result": ["result for cats"]}]
    assert wrong["criteria_results"]["response"]["passed"] is False
    assert down["error"] == "agent error: KeyError: 'missing state'"
    assert down["criteria_results"] == {}


def test_console_reporter_prints_the_summary() -> None:
    report = AgentEvaluator(agent).evaluate_sync(CASES)
    out = io.StringIO()
    ConsoleReporter(file=out).print(report)
    text = out.getvalue()
    assert text.startswith("Evaluated 3 runs: 1 passed (pass rate 33%)")
    assert "down: agent error: KeyError: 'missing state'" in text
    assert "wrong: response: failed" in text


def test_evaluate_case_shows_one_cases_error() -> None:
    result = asyncio.run(AgentEvaluator(agent).evaluate_case(CASES[2]))
    assert result.eval_id == "down" and not result.passed
    assert result.error == "agent error: KeyError: 'missing state'"
