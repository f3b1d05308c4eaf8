"""The example agents of `examples/agents/` against their eval set: driven directly as the
runner drives them (`as_agent(...).respond(...)` inside a case's own capture), they make the
expected tool calls on the cases meant to pass, fail the one meant to fail, and hang on the
one meant to time out; the registered scorers agree."""

from __future__ import annotations

import asyncio
import importlib.util
from pathlib import Path
from types import ModuleType
from typing import Any

import orjson
import pytest

from assay.cli.main import main
from assay.formats.scenarios import case_of
from assay.live.agents import as_agent
from assay.live.capture import TrajectoryCollector, capturing
from assay.records import Trajectory
from assay.schema.evalset import EvalCase
from assay.scorers.registry import create_scorer

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "agents"
PASSING = ["weather-paris", "convert-usd-eur", "weather-and-money", "oslo-then-budget"]


def load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def cases() -> dict[str, EvalCase]:
    lines = (EXAMPLES / "evalset.jsonl").read_bytes().splitlines()
    found = [EvalCase.model_validate(orjson.loads(line)) for line in lines if line.strip()]
    return {case.eval_id: case for case in found}


@pytest.fixture(scope="module", params=["plain", "langgraph"])
def agent(request: pytest.FixtureRequest) -> Any:
    if request.param == "plain":
        return as_agent(load("agent").agent)
    return as_agent(load("langgraph_agent").graph)


def run_case(agent: Any, case: EvalCase, timeout: float = 10.0) -> tuple[list[str], Any]:
    """The case's turns in one conversation, as the runner sends them: (replies, collector)."""

    async def converse() -> list[str]:
        conversation: list[dict[str, Any]] = []
        replies = []
        for turn, user in enumerate(case.user_messages()):
            collector.turn = turn
            conversation.append({"role": "user", "content": user})
            reply = await agent.respond(conversation, case.config or {})
            conversation.append({"role": "assistant", "content": reply.content})
            replies.append(reply.content)
        return replies

    async def main() -> list[str]:
        with capturing(collector):
            return await asyncio.wait_for(converse(), timeout)

    collector = TrajectoryCollector()
    return asyncio.run(main()), collector


def verdicts(case: EvalCase, collector: TrajectoryCollector, answer: str) -> dict[str, bool]:
    scenario, problems = case_of(case)
    assert problems == []
    run = Trajectory(scenario_id=case.eval_id, answer=answer, steps=collector.to_steps())
    return {
        name: create_scorer(name)(scenario, run).passed
        for name in ("tool_name_match", "trajectory")
    }


@pytest.mark.parametrize("eval_id", PASSING)
def test_the_cases_meant_to_pass_make_the_expected_calls_and_answers(
    agent: Any, eval_id: str
) -> None:
    case = cases()[eval_id]
    replies, collector = run_case(agent, case)

    expected_calls = [(s.call.name, s.call.args) for s in case.expected_trajectory or []
                      if s.call is not None]
    assert [(c.name, c.args) for c in collector.tool_calls] == expected_calls
    assert all(c.result is not None for c in collector.tool_calls)
    for reply, expected in zip(replies, case.expected_responses(), strict=True):
        assert expected is not None and expected.lower() in (reply or "").lower()
    assert verdicts(case, collector, replies[-1]) == {"tool_name_match": True, "trajectory": True}


def test_the_multi_turn_case_records_each_calls_turn(agent: Any) -> None:
    _, collector = run_case(agent, cases()["oslo-then-budget"])
    called = [(call.name, step.turn) for step in collector.to_steps() for call in step.tool_calls]
    assert called == [("get_weather", 0), ("convert_currency", 1)]


def test_the_case_meant_to_fail_fails(agent: Any) -> None:
    case = cases()["weather-tokyo"]
    replies, collector = run_case(agent, case)

    assert [(c.name, c.args, c.result) for c in collector.tool_calls] == [
        ("get_weather", {"city": "Kyoto"}, "sunny, 24°C")
    ]
    assert replies == ["The weather in Tokyo is sunny, 24°C."]
    assert verdicts(case, collector, replies[0]) == {"tool_name_match": True, "trajectory": False}


def test_the_case_meant_to_time_out_hangs(agent: Any) -> None:
    with pytest.raises(TimeoutError):
        run_case(agent, cases()["plan-trip"], timeout=0.5)


def test_the_langgraph_variant_records_its_nodes_and_token_counts() -> None:
    graph_agent = as_agent(load("langgraph_agent").graph)
    _, collector = run_case(graph_agent, cases()["weather-paris"])

    assert collector.node_visits == ["agent", "tools", "agent"]
    assert all(call.usage.recorded for call in collector.model_calls)
    assert len(collector.model_calls) == 2


@pytest.mark.slow
@pytest.mark.parametrize("target", ["agent.py:agent", "langgraph_agent.py:graph"])
def test_assay_run_on_the_examples_passes_four_fails_one_and_times_one_out(
    target: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    reports = tmp_path / "reports"
    code = main(["run", f"{EXAMPLES / target}", str(EXAMPLES / "evalset.jsonl"),
                 "--timeout", "1", "--reports-dir", str(reports), "--no-progress"])

    assert code == 0
    results = {
        row["scenario_id"]: row["score"]
        for row in map(orjson.loads, (reports / "results.jsonl").read_bytes().splitlines())
    }
    assert {eval_id: score["passed"] for eval_id, score in results.items()} == {
        "weather-paris": True,
        "convert-usd-eur": True,
        "weather-and-money": True,
        "weather-tokyo": False,
        "plan-trip": None,
        "oslo-then-budget": True,
    }
    assert results["plan-trip"]["status"] == "error"
    assert "timed out" in results["plan-trip"]["rationale"]
    live = orjson.loads((reports / "_aggregate.json").read_bytes())["live"]
    assert (live["runs"], live["passed"], live["errors"]["timeout"]) == (6, 4, 1)
    printed = capsys.readouterr()
    assert "nothing was captured" not in printed.out + printed.err
