"""The live runner: isolation, timeouts, retries, the error taxonomy, multi-turn cases."""

from __future__ import annotations

import asyncio
import random
import threading
import time
from typing import Any

import pytest

from assay.evaluation import (
    AgentEvaluator,
    CriterionConfig,
    EvalCase,
    EvalConfig,
    EvalSet,
    MatchType,
    StepType,
    ToolCall,
    TrajectoryCollector,
    TrajectoryStep,
    tool,
)
from assay.live.runner import Engine, RunSettings, units_of
from assay.models.types import ModelHTTPError


@tool
async def lookup(key: str) -> str:
    # A random pause: concurrent cases interleave their calls.
    await asyncio.sleep(random.random() / 100)
    return f"value-{key}"


@tool
def shout(text: str) -> str:
    return text.upper()


async def echo_agent(messages: list[dict[str, Any]]) -> str:
    """Calls `lookup` with the user's text twice, then `shout`."""
    key = messages[-1]["content"]
    first = await lookup(key)
    second = await lookup(key + "-again")
    return shout(f"{first} {second}")


def test_fifty_concurrent_cases_never_mix_their_steps() -> None:
    cases = [
        EvalCase.single_turn(
            f"c{i}",
            f"k{i}",
            expected_trajectory=[
                TrajectoryStep.tool(ToolCall("lookup", {"key": f"k{i}"})),
                TrajectoryStep.tool(ToolCall("lookup", {"key": f"k{i}-again"})),
                TrajectoryStep.tool("shout"),
            ],
        )
        for i in range(50)
    ]
    config = EvalConfig(criteria={"path": CriterionConfig.trajectory(match_type="EXACT")})
    report = AgentEvaluator(echo_agent, config=config, concurrency=50).evaluate_sync(
        EvalSet(cases=cases)
    )
    assert report.pass_rate == 1.0
    for index, case in enumerate(report.cases):
        calls = [step.call for step in case.actual_trajectory if step.type is StepType.TOOL]
        assert [(c.name, c.args) for c in calls[:2] if c is not None] == [
            ("lookup", {"key": f"k{index}"}),
            ("lookup", {"key": f"k{index}-again"}),
        ]
        last = calls[2]
        assert last is not None and last.name == "shout"
        assert last.result == f"VALUE-K{index} VALUE-K{index}-AGAIN"


def test_concurrency_is_bounded_and_used() -> None:
    in_flight = peak = 0

    async def agent(messages: list[dict[str, Any]]) -> str:
        nonlocal in_flight, peak
        in_flight += 1
        peak = max(peak, in_flight)
        await asyncio.sleep(0.02)
        in_flight -= 1
        return "ok"

    cases = [EvalCase.single_turn(f"c{i}", "?", expected_response="ok") for i in range(40)]
    report = AgentEvaluator(agent, concurrency=7).evaluate_sync(EvalSet(cases=cases))
    assert peak == 7
    assert report.passed_cases == 40


def test_a_timeout_cancels_the_agent_and_is_recorded() -> None:
    cancelled = asyncio.Event()
    finished = []

    async def agent(messages: list[dict[str, Any]]) -> str:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        finished.append(True)
        return "late"

    started = time.perf_counter()
    evaluator = AgentEvaluator(agent, timeout=0.2)
    report = evaluator.evaluate_sync([EvalCase.single_turn("slow", "?", expected_response="x")])
    assert time.perf_counter() - started < 5
    case = report.cases[0]
    assert case.error_kind == "timeout" and not case.passed and case.score is None
    assert "timed out after 0.2 s" in (case.error or "")
    assert cancelled.is_set() and not finished
    assert report.errors["timeout"] == 1 and report.pass_rate == 0.0
    assert report.overall_score is None  # a timeout is never turned into a number


def test_a_sync_agent_that_hangs_is_abandoned_at_the_timeout() -> None:
    release = threading.Event()

    def agent(messages: list[dict[str, Any]]) -> str:
        release.wait(10)
        return "late"

    started = time.perf_counter()
    try:
        report = AgentEvaluator(agent, timeout=0.2).evaluate_sync(
            [EvalCase.single_turn("hung", "?", expected_response="x")]
        )
        # Returned while the thread still hangs: it is abandoned, not waited for.
        assert time.perf_counter() - started < 5
    finally:
        release.set()
    assert report.cases[0].error_kind == "timeout"


def test_agent_errors_fail_their_case_only_and_are_counted_apart() -> None:
    async def agent(messages: list[dict[str, Any]]) -> str:
        if "bad" in messages[-1]["content"]:
            raise ValueError("no such city")
        return "fine"

    cases = [
        EvalCase.single_turn("good", "ok?", expected_response="fine"),
        EvalCase.single_turn("bad", "bad?", expected_response="fine"),
    ]
    report = AgentEvaluator(agent).evaluate_sync(cases)
    good, bad = report.cases
    assert good.passed and good.error is None
    assert not bad.passed and bad.error_kind == "agent_error"
    assert bad.error == "agent error: ValueError: no such city"
    assert bad.criteria_results == {}
    assert report.errors == {
        "agent_error": 1,
        "timeout": 0,
        "infrastructure_error": 0,
        "scorer_error": 0,
    }
    assert report.pass_rate == 0.5


def test_an_agent_calling_sys_exit_fails_its_case_only() -> None:
    import sys

    def agent(messages: list[dict[str, Any]]) -> str:
        if messages[-1]["content"] == "quit":
            sys.exit(3)
        return "fine"

    cases = [EvalCase.single_turn(name, name, expected_response="fine")
             for name in ("quit", "stay")]
    report = AgentEvaluator(agent, concurrency=2).evaluate_sync(cases)
    assert [case.error for case in report.cases] == ["agent error: SystemExit: 3", None]
    assert report.cases[1].passed


def test_an_agent_raising_on_every_case_shows_the_error_on_every_case() -> None:
    def agent(messages: list[dict[str, Any]]) -> str:
        raise RuntimeError("graph is broken")

    cases = [EvalCase.single_turn(f"c{i}", "?", expected_response="x") for i in range(3)]
    report = AgentEvaluator(agent).evaluate_sync(cases)
    assert report.pass_rate == 0.0
    assert all(case.error == "agent error: RuntimeError: graph is broken" for case in report.cases)


def test_infrastructure_errors_are_retried_and_wrong_answers_are_not() -> None:
    calls: dict[str, int] = {}

    async def agent(messages: list[dict[str, Any]]) -> str:
        text = messages[-1]["content"]
        calls[text] = calls.get(text, 0) + 1
        if text == "flaky" and calls[text] < 3:
            raise ModelHTTPError("server error", status=503)
        if text == "down":
            raise ConnectionResetError("reset by peer")
        if text == "rejected":
            raise ModelHTTPError("bad request", status=400)
        return "wrong answer"

    cases = [
        EvalCase.single_turn(name, name, expected_response="right")
        for name in ("flaky", "down", "rejected", "wrong")
    ]
    settings = RunSettings(retries=2, retry_wait_s=0.0)
    engine = Engine(agent, EvalConfig(criteria={"r": CriterionConfig.response_match()}), settings)
    outcomes = asyncio.run(engine.run_all(units_of(cases)))
    kinds = {o.unit.case.eval_id: (o.error_kind, o.attempts) for o in outcomes}
    assert kinds == {
        "flaky": (None, 3),
        "down": ("infrastructure_error", 3),
        "rejected": ("agent_error", 1),
        "wrong": (None, 1),
    }
    assert calls == {"flaky": 3, "down": 3, "rejected": 1, "wrong": 1}


def test_a_reply_that_is_not_text_is_the_agents_error() -> None:
    report = AgentEvaluator(lambda messages: 42).evaluate_sync(
        [EvalCase.single_turn("n", "?", expected_response="42")]
    )
    assert report.cases[0].error == "agent error: AgentReplyError: the agent returned int, not " \
        "text or a dict with `content`"


def test_multi_turn_sends_turns_in_order_in_one_conversation() -> None:
    seen: list[list[str]] = []

    async def agent(messages: list[dict[str, Any]]) -> str:
        seen.append([m["content"] for m in messages])
        return {"Hello": "Hi", "What can you do?": "I can answer questions"}.get(
            messages[-1]["content"], "Python is a snake"
        )

    case = EvalCase(
        eval_id="multi-turn-001",
        turns=[
            ("Hello", "Hi"),
            ("What can you do?", "I can answer questions"),
            ("Tell me about Python", "Python is a programming language"),
        ],
    )
    report = AgentEvaluator(agent).evaluate_sync([case])
    assert seen == [
        ["Hello"],
        ["Hello", "Hi", "What can you do?"],
        ["Hello", "Hi", "What can you do?", "I can answer questions", "Tell me about Python"],
    ]
    result = report.cases[0]
    assert result.actual_response == "Python is a snake"
    assert result.run is not None
    replies = [(s.turn, s.text) for s in result.run.steps if s.text]
    assert replies == [
        (0, "Hi"),
        (1, "I can answer questions"),
        (2, "Python is a snake"),
    ]


def test_a_user_collector_holds_the_last_case_and_cases_still_record_apart() -> None:
    collector = TrajectoryCollector()
    cases = [EvalCase.single_turn(f"c{i}", f"k{i}", expected_tools=["lookup"]) for i in range(3)]
    report = AgentEvaluator(echo_agent, collector=collector).evaluate_sync(cases)
    assert [c.args for c in collector.tool_calls][:1] == [{"key": "k2"}]
    assert all(len(case.actual_trajectory) == 3 for case in report.cases)


def test_a_capture_that_is_not_wired_is_said() -> None:
    async def agent(messages: list[dict[str, Any]]) -> str:
        return "I looked it up"  # calls its tools without the decorator

    report = AgentEvaluator(agent).evaluate_sync(
        [EvalCase.single_turn("a", "?", expected_tools=["search"])]
    )
    assert report.cases[0].criteria_results["tool_match"].score == 0.0
    assert report.warnings and "is the capture wired?" in report.warnings[0]
    assert "Warning: 1 runs expect tool calls" in report.format_summary()


def test_weights_shape_the_overall_score() -> None:
    async def agent(messages: list[dict[str, Any]]) -> str:
        await lookup("x")
        return "nothing useful"

    config = EvalConfig(
        criteria={
            "tools": CriterionConfig.tool_name_match(weight=3.0),
            "answer": CriterionConfig.response_match(weight=1.0),
        }
    )
    case = EvalCase.single_turn("a", "?", expected_response="Paris", expected_tools=["lookup"])
    report = AgentEvaluator(agent, config=config).evaluate_sync([case])
    assert report.overall_score == pytest.approx(0.75)
    assert not report.cases[0].passed


def test_node_steps_of_the_trajectory_are_checked_in_order() -> None:
    from assay.live.capture import current_collector

    async def agent(messages: list[dict[str, Any]]) -> str:
        collector = current_collector()
        assert collector is not None
        for node in ("PLAN", "RESEARCH", "ANSWER"):
            collector.enter_node(node)
        return "done"

    expected = [TrajectoryStep.node("PLAN"), TrajectoryStep.node("ANSWER")]
    config = EvalConfig(
        criteria={"path": CriterionConfig.trajectory(match_type=MatchType.IN_ORDER)}
    )
    good = EvalCase.single_turn("good", "?", expected_trajectory=expected)
    bad = EvalCase.single_turn("bad", "?", expected_trajectory=list(reversed(expected)))
    report = AgentEvaluator(agent, config=config).evaluate_sync([good, bad])
    assert [case.passed for case in report.cases] == [True, False]


def test_repetitions_give_hand_computed_pass_at_k_and_pass_hat_k(tmp_path: Any) -> None:
    calls: dict[str, int] = {}

    async def agent(messages: list[dict[str, Any]]) -> str:
        text = messages[-1]["content"]
        calls[text] = calls.get(text, 0) + 1
        if text == "flaky" and calls[text] % 2 == 0:
            return "wrong"
        return "right"

    cases = [EvalCase.single_turn(name, name, expected_response="right")
             for name in ("flaky", "steady")]
    report = AgentEvaluator(agent, num_runs=4).evaluate_sync(cases, reports_dir=tmp_path)
    assert [case.run_id for case in report.cases][:2] == ["flaky#1", "flaky#2"]
    assert [case.passed for case in report.cases] == [True, False, True, False] + [True] * 4
    repeats = report.repeats
    assert repeats is not None and repeats["flaky"] == ["flaky"]
    # flaky: n=4, c=2: pass@2 = 1 - C(2,2)/C(4,2) = 5/6, pass^2 = C(2,2)/C(4,2) = 1/6;
    # steady: 1 and 1. Averaged over the two cases:
    assert repeats["pass_at_k"]["1"] == pytest.approx(0.75)
    assert repeats["pass_at_k"]["2"] == pytest.approx((5 / 6 + 1) / 2, abs=1e-6)
    assert repeats["pass_hat_k"]["2"] == pytest.approx((1 / 6 + 1) / 2, abs=1e-6)
    assert repeats["pass_at_k"]["4"] == 1.0 and repeats["pass_hat_k"]["4"] == 0.5
    assert "flaky: flaky" in report.format_summary()


def test_resume_reruns_changed_cases_and_drops_runs_of_other_settings(tmp_path: Any) -> None:
    import json

    asked: list[str] = []

    def agent(messages: list[dict[str, Any]]) -> str:
        asked.append(messages[-1]["content"])
        return "yes"

    def lines() -> list[str]:
        text = (tmp_path / "results.jsonl").read_text()
        return sorted(json.loads(line)["run_id"] for line in text.splitlines())

    first = [EvalCase.single_turn("a", "qa", expected_response="yes"),
             EvalCase.single_turn("b", "qb", expected_response="yes")]
    AgentEvaluator(agent).evaluate_sync(first, reports_dir=tmp_path)
    reports_before = {p.name for p in tmp_path.glob("*.json")}
    asked.clear()
    changed = [first[0], EvalCase.single_turn("b", "qb", expected_response="no"),
               EvalCase.single_turn("c", "qc", expected_response="yes")]
    report = AgentEvaluator(agent).evaluate_sync(changed, reports_dir=tmp_path, resume=True)
    assert sorted(asked) == ["qb", "qc"]  # `a` finished and did not change: kept
    assert lines() == ["a", "b", "c"] and report.passed_cases == 2
    assert {p.name for p in tmp_path.glob("*.json")} == reports_before | {"c.json"}
    asked.clear()
    AgentEvaluator(agent, num_runs=2).evaluate_sync(changed, reports_dir=tmp_path, resume=True)
    assert len(asked) == 6  # other run ids: every run is made, the single runs dropped
    assert lines() == ["a#1", "a#2", "b#1", "b#2", "c#1", "c#2"]
    assert not (tmp_path / "a.json").exists()


def test_resume_refuses_runs_checked_with_other_criteria(tmp_path: Any) -> None:
    cases = [EvalCase.single_turn("a", "qa", expected_response="yes")]
    AgentEvaluator(lambda messages: "yes").evaluate_sync(cases, reports_dir=tmp_path)
    before = sorted((p.name, p.stat().st_mtime_ns) for p in tmp_path.iterdir())
    other = EvalConfig(criteria={"r": CriterionConfig.response_match(mode="exact")})
    with pytest.raises(ValueError, match="checked with other criteria"):
        AgentEvaluator(lambda messages: "yes", config=other).evaluate_sync(
            cases, reports_dir=tmp_path, resume=True
        )
    assert sorted((p.name, p.stat().st_mtime_ns) for p in tmp_path.iterdir()) == before
    # Without --resume the directory is simply the new evaluation's.
    AgentEvaluator(lambda messages: "yes", config=other).evaluate_sync(cases, reports_dir=tmp_path)


def test_a_failure_of_the_writer_surfaces_as_itself() -> None:
    def full_disk(result: Any) -> None:
        raise OSError(28, "No space left on device")

    cases = [EvalCase.single_turn(f"c{i}", "q", expected_response="x") for i in range(5)]
    with pytest.raises(OSError, match="No space left"):
        AgentEvaluator(lambda messages: "x", concurrency=3).evaluate_sync(
            cases, on_result=full_disk
        )
