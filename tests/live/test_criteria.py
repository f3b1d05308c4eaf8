"""The criteria that drive the agent themselves, through `AgentEvaluator`: a simulated user
(against a local chat server) and the idempotency check; and the built-in tool agent run by
the runner."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from assay.evaluation import (
    AgentEvaluator,
    CriterionConfig,
    EvalCase,
    EvalConfig,
    ToolAgent,
    tool,
)
from chat_server import ChatServer, RecordedRequest, Reply


def _client_options(server: ChatServer, tmp_path: Path) -> dict[str, Any]:
    return {"base_url": server.base_url, "cache": "off", "cache_dir": str(tmp_path),
            "max_retries": 0}


def test_a_simulated_user_talks_to_the_agent_and_its_goals_are_judged(
    chat_server: ChatServer, tmp_path: Path
) -> None:
    user_lines = iter([
        {"message": "Where is my order 42?", "done": False},
        {"message": "Thanks, bye", "done": True},
    ])

    def server(request: RecordedRequest) -> Reply:
        schema = request.body.get("response_format", {}).get("json_schema", {})
        if schema.get("name") == "simulation_goals":
            return Reply.ok({"goal_1": {"achieved": True, "reason": "the order was found"}})
        return Reply.ok(next(user_lines))

    chat_server.handler = server
    heard: list[str] = []

    def agent(messages: list[dict[str, Any]]) -> str:
        heard.append(messages[-1]["content"])
        return "Order 42 is at the Lyon depot."

    config = EvalConfig(criteria={
        "angry_customer": CriterionConfig.simulation(
            "an angry customer asking about a delayed order", max_turns=4,
            goals=["the agent says where the order is"], model="local/user"),
    })
    evaluator = AgentEvaluator(
        agent, config=config,
        judge_options={"simulation": {"model": "local/judge",
                                      "client_options": _client_options(chat_server, tmp_path)}},
    )
    report = evaluator.evaluate_sync(
        [EvalCase.single_turn("late-order", "My order is late!")], reports_dir=tmp_path / "out"
    )
    result = report.cases[0].criteria_results["angry_customer"]
    assert (result.passed, result.score) == (True, 1.0)
    # The case's own message opens the simulation; the user model goes on until it is done.
    assert heard == ["My order is late!", "My order is late!", "Where is my order 42?"]
    line = json.loads((tmp_path / "out" / "results.jsonl").read_text().splitlines()[0])
    assert line["score"]["scorer"] == "angry_customer" and line["score"]["passed"] is True


def test_a_simulator_that_fails_is_unscored_with_its_reason(
    chat_server: ChatServer, tmp_path: Path
) -> None:
    chat_server.default = Reply.error(500)
    config = EvalConfig(criteria={"sim": CriterionConfig.simulation("a customer", max_turns=2)})
    evaluator = AgentEvaluator(
        lambda messages: "hello", config=config,
        judge_options={"simulation": {"model": "local/judge",
                                      "client_options": _client_options(chat_server, tmp_path)}},
    )
    report = evaluator.evaluate_sync([EvalCase.single_turn("a", "hi")])
    result = report.cases[0].criteria_results["sim"]
    assert result.passed is None and result.score is None
    assert result.details["reason"] == "http_error"
    assert not report.cases[0].passed and report.overall_score is None


class _Orders:
    """An order service: `remembers` decides whether a retried key is recognised."""

    def __init__(self, remembers: bool) -> None:
        self.remembers = remembers
        self.done: dict[str, dict[str, Any]] = {}
        self.executed = 0

    def __call__(self, messages: list[dict[str, Any]], config: dict[str, Any]) -> Any:
        key = config.get("idempotency_key")
        if self.remembers and key in self.done:
            return {"content": "already done", "status": "already_processed",
                    "data": self.done[key]}
        self.executed += 1
        data = {"order": 1000 + self.executed}
        self.done[key] = data
        return {"content": "placed", "status": "processed", "data": data}


def test_the_idempotency_check_runs_live() -> None:
    config = EvalConfig(criteria={"idem": CriterionConfig.idempotency()})
    case = EvalCase.single_turn("order", "Place my order")
    good = AgentEvaluator(_Orders(remembers=True), config=config).evaluate_sync([case])
    bad = AgentEvaluator(_Orders(remembers=False), config=config).evaluate_sync([case])
    assert good.cases[0].criteria_results["idem"].passed is True
    assert bad.cases[0].criteria_results["idem"].passed is False


@tool
def get_weather(city: str) -> str:
    """The weather in a city."""
    return {"Paris": "sunny"}.get(city, "unknown")


def test_the_built_in_tool_agent_is_run_and_captured(
    chat_server: ChatServer, tmp_path: Path
) -> None:
    def server(request: RecordedRequest) -> Reply:
        messages = request.body["messages"]
        if messages[-1]["role"] == "tool":
            return Reply.ok(f"It is {messages[-1]['content']} in Paris.")
        call = {"id": "c1", "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}
        return Reply.json({"id": "x", "object": "chat.completion", "model": "m", "choices": [
            {"index": 0, "finish_reason": "tool_calls",
             "message": {"role": "assistant", "content": None, "tool_calls": [call]}}],
            "usage": {"prompt_tokens": 20, "completion_tokens": 5, "total_tokens": 25}})

    chat_server.handler = server
    agent = ToolAgent("local/agent", [get_weather], system="Answer briefly.",
                      base_url=chat_server.base_url, api_key="k", max_retries=0)
    case = EvalCase.single_turn("paris", "Weather in Paris?", expected_response="sunny",
                                expected_trajectory=[{"name": "get_weather",
                                                      "args": {"city": "Paris"}}])
    report = AgentEvaluator(agent, concurrency=4).evaluate_sync([case])
    result = report.cases[0]
    assert result.passed, result.criteria_results
    assert result.run is not None and result.run.usage.input_tokens == 20 + 10
    [call] = [c for s in result.run.steps for c in s.tool_calls]
    assert (call.name, call.args, call.result) == ("get_weather", {"city": "Paris"}, "sunny")


def test_the_idempotency_check_is_tried_again_after_an_infrastructure_error() -> None:
    orders = _Orders(remembers=True)
    calls = 0

    def flaky(messages: list[dict[str, Any]], config: dict[str, Any]) -> Any:
        nonlocal calls
        calls += 1
        if calls == 2:  # the check's first call (the run itself was the first)
            raise ConnectionResetError("reset by peer")
        return orders(messages, config)

    config = EvalConfig(criteria={"idem": CriterionConfig.idempotency()})
    report = AgentEvaluator(flaky, config=config).evaluate_sync(
        [EvalCase.single_turn("order", "Place my order")]
    )
    assert report.cases[0].criteria_results["idem"].passed is True
    assert calls == 4  # the run, the failed call, then the check's two calls


def test_a_case_can_say_it_must_call_no_tools_under_exact() -> None:
    @tool
    def lookup(key: str) -> str:
        return key

    async def busy(messages: list[dict[str, Any]]) -> str:
        return lookup("x")

    async def quiet(messages: list[dict[str, Any]]) -> str:
        return "hello"

    cases = [EvalCase.single_turn("greet", "Hi", expected_trajectory=[]),
             EvalCase.single_turn("greet-tools", "Hi", expected_tools=[])]  # fmt: skip
    exact = EvalConfig(criteria={"path": CriterionConfig.trajectory(match_type="EXACT")})
    for agent, passed in ((busy, False), (quiet, True)):
        report = AgentEvaluator(agent, config=exact).evaluate_sync(cases)
        for result in report.cases:
            verdict = result.criteria_results["path"]
            assert (verdict.status, verdict.passed) == ("scored", passed), verdict.reason
    # Under another match type an empty expectation checks nothing.
    in_order = EvalConfig(criteria={"path": CriterionConfig.trajectory(match_type="IN_ORDER")})
    report = AgentEvaluator(busy, config=in_order).evaluate_sync(cases)
    verdicts = [r.criteria_results["path"] for r in report.cases]
    assert [(v.status, v.details.get("reason")) for v in verdicts] == [
        ("unscored", "not_applicable")] * 2
