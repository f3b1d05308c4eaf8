"""`@tool` calls made from threads the agent starts itself (a `ThreadPoolExecutor`, a plain
`threading.Thread`, `run_in_executor`), which do not inherit the case's context: recorded into
the case when it is the only one in flight or when the thread carries the context over
(`ContextThreadPoolExecutor`, `propagate`); otherwise never given to a case that may not have
made them, but counted, so that the warning names the cause."""

from __future__ import annotations

import asyncio
import gc
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from assay.evaluation import (
    AgentEvaluator,
    ContextThreadPoolExecutor,
    EvalCase,
    EvalSet,
    TrajectoryCollector,
    capturing,
    propagate,
    record_tool_call,
    tool,
)
from assay.live.capture import capture_advice, collector, outside_calls


@tool
def search(query: str) -> str:
    time.sleep(0.001)  # the pool's threads overlap
    return f"found {query}"


CALLS = 40


def _cases(count: int) -> EvalSet:
    return EvalSet(
        cases=[
            EvalCase.single_turn(f"c{i}", f"q{i}", expected_tools=["search"]) for i in range(count)
        ]
    )


def _queries(report: Any) -> list[list[str]]:
    """The queries of the `search` calls recorded for each case, in case order."""
    return [
        sorted(str(step.call.args["query"]) for step in case.actual_trajectory if step.call)
        for case in report.cases
    ]


@pytest.fixture(autouse=True)
def _no_other_case_in_flight(monkeypatch: pytest.MonkeyPatch) -> None:
    # Sync agents that other tests abandoned at their timeouts may still run, each keeping its
    # case in flight: these tests start with none.
    monkeypatch.setattr(collector, "_holds", {})
    monkeypatch.setattr(collector, "_contexts", [])
    monkeypatch.setattr(collector, "_outside_calls", 0)  # nor calls counted before


def pooled_agent(messages: list[dict[str, Any]]) -> str:
    """A sync agent that runs its searches in a thread pool of its own."""
    key = messages[-1]["content"]
    with ThreadPoolExecutor(max_workers=8) as pool:
        found = list(pool.map(search, [f"{key}-{n}" for n in range(CALLS)]))
    return f"{len(found)} results"


def test_tool_calls_from_the_agents_own_thread_pool_are_recorded() -> None:
    report = AgentEvaluator(pooled_agent).evaluate_sync(_cases(3))
    assert _queries(report) == [
        sorted(f"q{i}-{n}" for n in range(CALLS)) for i in range(3)
    ]
    assert report.warnings == []
    assert report.pass_rate == 1.0


def test_tool_calls_from_run_in_executor_are_recorded() -> None:
    async def agent(messages: list[dict[str, Any]]) -> str:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(None, search, messages[-1]["content"])

    report = AgentEvaluator(agent).evaluate_sync(_cases(2))
    assert _queries(report) == [["q0"], ["q1"]]


def test_concurrent_cases_never_get_a_call_they_may_not_have_made() -> None:
    report = AgentEvaluator(pooled_agent, concurrency=4).evaluate_sync(_cases(8))
    for index, queries in enumerate(_queries(report)):
        # A call is recorded only where it surely belongs (while a case ran alone at the
        # start or the end of the evaluation); never into another case.
        assert all(query.startswith(f"q{index}-") for query in queries), (index, queries)
    assert report.warnings == [] or "ran outside the case's context" in report.warnings[0]
    advice = capture_advice(since=0)
    assert "@tool calls ran outside the case's context" in advice
    assert "ContextThreadPoolExecutor" in advice


def test_the_advice_says_what_the_evaluation_saw_since_it_started() -> None:
    start = outside_calls()
    assert capture_advice(start).startswith("is the capture wired? Decorate the tools")
    first, second = TrajectoryCollector(), TrajectoryCollector()
    with capturing(first), capturing(second):
        thread = threading.Thread(target=search, args=("lost",))
        thread.start()
        thread.join()
    assert first.empty and second.empty
    # Asked as often as the evaluation's reports need, the same answer.
    for _ in range(2):
        assert capture_advice(start).startswith("1 @tool calls ran outside the case's context")
    # The next evaluation counts from where it starts.
    assert capture_advice(outside_calls()).startswith("is the capture wired?")


def test_the_context_thread_pool_records_into_each_case_at_any_concurrency() -> None:
    def agent(messages: list[dict[str, Any]]) -> str:
        key = messages[-1]["content"]
        with ContextThreadPoolExecutor(max_workers=8) as pool:
            found = list(pool.map(search, [f"{key}-{n}" for n in range(CALLS)]))
        return f"{len(found)} results"

    report = AgentEvaluator(agent, concurrency=8).evaluate_sync(_cases(16))
    assert _queries(report) == [
        sorted(f"q{i}-{n}" for n in range(CALLS)) for i in range(16)
    ]
    assert report.warnings == []


def test_propagate_carries_the_case_into_a_plain_thread() -> None:
    def agent(messages: list[dict[str, Any]]) -> str:
        threads = [
            threading.Thread(target=propagate(search), args=(f"{messages[-1]['content']}-{n}",))
            for n in range(5)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        return "done"

    report = AgentEvaluator(agent, concurrency=4).evaluate_sync(_cases(4))
    assert _queries(report) == [sorted(f"q{i}-{n}" for n in range(5)) for i in range(4)]


def test_record_tool_call_from_a_plain_thread_follows_the_same_rule() -> None:
    alone = TrajectoryCollector()
    with capturing(alone):
        thread = threading.Thread(target=record_tool_call, args=("search", {"query": "x"}))
        thread.start()
        thread.join()
    assert [call.name for call in alone.tool_calls] == ["search"]


def test_a_timed_out_case_left_running_keeps_its_calls_from_the_next_case() -> None:
    # The first case's agent is abandoned at its timeout but goes on, and a thread it started
    # calls a tool while the second case runs alone: that call is not the second case's.
    second_started, late_call_made = threading.Event(), threading.Event()

    def late_call() -> None:
        second_started.wait(10)
        gc.collect()  # the first case's task, ended, is no more
        search("late")
        late_call_made.set()

    def agent(messages: list[dict[str, Any]]) -> str:
        if messages[-1]["content"] == "q0":
            threading.Thread(target=late_call).start()
            late_call_made.wait(10)  # past the timeout: abandoned, still running
        else:
            second_started.set()
            late_call_made.wait(10)
            search("q1")
        return "done"

    report = AgentEvaluator(agent, timeout=0.5).evaluate_sync(_cases(2))
    assert report.cases[0].error is not None and "timed out" in report.cases[0].error
    assert report.cases[1].error is None
    assert _queries(report) == [[], ["q1"]]
