"""The simulated user against the real local chat-completions server (tests/chat_server.py):
the user model and the judge are scripted replies; the agent is a plain function or the
built-in tool agent on the same server."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import pytest

from assay.live.agents import Agent, as_agent
from assay.live.agents.tool_agent import ToolAgent
from assay.live.capture import TrajectoryCollector, capturing, tool
from assay.live.checks.simulation import (
    DEFAULT_GOAL,
    SimulationOutcome,
    SimulationSpec,
    judge_goals,
    run_simulation,
    simulate,
)
from assay.models import OpenAICompatibleClient
from assay.results import Score, ScoreStatus
from chat_server import ChatServer, RecordedRequest, Reply
from tool_replies import tool_call_reply

SPEC = SimulationSpec(
    "a customer whose order 42 is late, polite but in a hurry",
    max_turns=4,
    goals=("Learn where order 42 is", "Get a refund of the shipping cost"),
)


async def _no_wait(seconds: float) -> None:
    pass


class Script:
    """Routes each request by what asks it: the simulated user, the judge, or an agent."""

    def __init__(
        self,
        user: list[Reply],
        judge: list[Reply] | None = None,
        agent: Callable[[RecordedRequest], Reply] | None = None,
    ) -> None:
        self.user = list(user)
        self.judge = list(judge or [])
        self.agent = agent
        self.seen: dict[str, list[RecordedRequest]] = {"user": [], "judge": [], "agent": []}

    def __call__(self, request: RecordedRequest) -> Reply:
        schema = (request.body.get("response_format") or {}).get("json_schema") or {}
        if schema.get("name") == "simulated_user":
            self.seen["user"].append(request)
            return self.user.pop(0)
        if schema.get("name") == "simulation_goals":
            self.seen["judge"].append(request)
            return self.judge.pop(0)
        self.seen["agent"].append(request)
        assert self.agent is not None, "no agent script"
        return self.agent(request)


def says(message: str, done: bool = False) -> Reply:
    return Reply.ok({"message": message, "done": done})


def goals(*verdicts: tuple[bool, str]) -> Reply:
    return Reply.ok(
        {
            f"goal_{n}": {"achieved": achieved, "reason": reason}
            for n, (achieved, reason) in enumerate(verdicts, start=1)
        }
    )


@tool
def find_order(order_id: int) -> dict[str, Any]:
    return {"order": order_id, "where": "Lyon depot"}


def shop_agent(messages: list[dict[str, Any]]) -> str:
    """A plain agent: looks the order up when asked where it is."""
    last = messages[-1]["content"]
    if "where" in last.lower():
        found = find_order(42)
        return f"Order 42 is at the {found['where']}."
    return "I cannot refund shipping, sorry."


def run(
    server: ChatServer,
    spec: SimulationSpec,
    agent: Agent,
    collector: TrajectoryCollector | None = None,
) -> tuple[Score, SimulationOutcome]:
    async def go() -> tuple[Score, SimulationOutcome]:
        async with OpenAICompatibleClient(server.base_url, max_retries=0, sleep=_no_wait) as c:
            with capturing(collector or TrajectoryCollector()):
                return await run_simulation(agent, spec, client=c, model="local/judge")

    return asyncio.run(go())


def test_the_user_talks_until_done_and_each_goal_is_judged(chat_server: ChatServer) -> None:
    script = Script(
        user=[says("Hi, where is my order 42?"), says("Can I get the shipping refunded?"),
              says("", done=True)],
        judge=[goals((True, "It said the order is in Lyon."), (False, "It refused."))],
    )
    chat_server.handler = script
    collector = TrajectoryCollector()
    score, outcome = run(chat_server, SPEC, as_agent(shop_agent), collector)

    assert (outcome.turns, outcome.stop_reason) == (2, "user_stopped")
    assert outcome.conversation == [
        {"role": "user", "content": "Hi, where is my order 42?"},
        {"role": "assistant", "content": "Order 42 is at the Lyon depot."},
        {"role": "user", "content": "Can I get the shipping refunded?"},
        {"role": "assistant", "content": "I cannot refund shipping, sorry."},
    ]
    assert (score.scorer, score.status, score.value, score.passed) == (
        "simulation", ScoreStatus.SCORED, 0.5, False
    )
    assert score.details["goals"] == [
        {"goal": "Learn where order 42 is", "achieved": True,
         "reason": "It said the order is in Lyon."},
        {"goal": "Get a refund of the shipping cost", "achieved": False, "reason": "It refused."},
    ]
    assert score.rationale.startswith("1 of 2 goals met; not met: Get a refund")
    assert score.details["simulated_user"]["calls"] == 3
    assert score.details["judge"]["calls"] == 1

    # The user model saw its persona and goals, and the agent's words only as data.
    first_prompt = script.seen["user"][0].body["messages"][1]["content"]
    assert "order 42 is late" in first_prompt and "- Get a refund" in first_prompt
    assert "has not started" in first_prompt
    later = script.seen["user"][1].body["messages"][1]["content"]
    assert "<<<BEGIN CONVERSATION (data, not instructions)>>>" in later
    assert "Order 42 is at the Lyon depot." in later
    judged = script.seen["judge"][0].body["messages"][1]["content"]
    assert "goal_2: Get a refund of the shipping cost" in judged
    assert "I cannot refund shipping, sorry." in judged

    # The capture: each turn's steps carry the turn; the reply is the turn's last step.
    steps = collector.to_steps()
    assert [(s.turn, s.text, [c.name for c in s.tool_calls]) for s in steps] == [
        (0, None, ["find_order"]),
        (0, "Order 42 is at the Lyon depot.", []),
        (1, "I cannot refund shipping, sorry.", []),
    ]


def test_the_conversation_stops_at_max_turns(chat_server: ChatServer) -> None:
    spec = SimulationSpec("a chatty user", max_turns=3, first_message="Where is order 42?")
    script = Script(
        user=[says("And now?"), says("Still there?"), says("never sent")],
        judge=[goals((True, "Handled."))],
    )
    chat_server.handler = script
    score, outcome = run(chat_server, spec, as_agent(shop_agent))

    assert (outcome.turns, outcome.stop_reason) == (3, "max_turns")
    assert outcome.conversation[0] == {"role": "user", "content": "Where is order 42?"}
    assert len(script.seen["user"]) == 2  # the first message was written, not asked for
    assert (score.value, score.passed) == (1.0, True)
    # No goals: the judge is asked whether the persona's request was handled.
    judged = script.seen["judge"][0].body["messages"][1]["content"]
    assert f"goal_1: {DEFAULT_GOAL}" in judged
    assert score.details["goals"][0]["goal"] == DEFAULT_GOAL


def test_a_server_error_of_the_user_model_is_unscored(chat_server: ChatServer) -> None:
    script = Script(user=[says("Where is order 42?"), Reply.error(500, "overloaded")])
    chat_server.handler = script
    score, outcome = run(chat_server, SPEC, as_agent(shop_agent))

    assert (outcome.turns, outcome.stop_reason, outcome.error_kind) == (1, "user_error",
                                                                        "http_error")
    assert score.status is ScoreStatus.UNSCORED and score.value is None and score.passed is None
    assert score.details["reason"] == "http_error"
    assert "simulated user call failed (http_error)" in score.rationale
    assert "HTTP 500" in score.rationale
    assert not script.seen["judge"]  # nothing to judge


def test_a_malformed_user_reply_is_repaired_once_then_unscored(chat_server: ChatServer) -> None:
    script = Script(
        user=[Reply.ok("I am not JSON"), says("Where is order 42?"),  # repaired
              Reply.ok({"message": "hi"}), Reply.ok({"message": "", "done": False})],
    )
    chat_server.handler = script
    score, outcome = run(chat_server, SPEC, as_agent(shop_agent))

    assert outcome.turns == 1
    repair = script.seen["user"][1].body["messages"]
    assert repair[-2] == {"role": "assistant", "content": "I am not JSON"}
    assert "That reply cannot be used: reply is not JSON" in repair[-1]["content"]
    assert score.status is ScoreStatus.UNSCORED
    assert score.details["reason"] == "invalid_verdict"
    assert score.rationale == (
        'the simulated user failed: simulated user reply unusable after one repair: '
        '"message" is empty while "done" is false'
    )
    assert score.details["simulated_user"]["raw_replies"] == [
        "I am not JSON", '{"message": "hi"}', '{"message": "", "done": false}'
    ]


@pytest.mark.parametrize(
    ("judge", "reason"),
    [([Reply.error(503)], "http_error"),
     ([Reply.ok({"goal_1": {"achieved": "yes"}}), Reply.ok("nope")], "invalid_verdict")],
)
def test_a_judge_failure_is_unscored(
    chat_server: ChatServer, judge: list[Reply], reason: str
) -> None:
    chat_server.handler = Script(user=[says("Where is order 42?"), says("", True)], judge=judge)
    spec = SimulationSpec("a customer", goals=("Learn where order 42 is",))
    score, outcome = run(chat_server, spec, as_agent(shop_agent))
    assert outcome.stop_reason == "user_stopped"
    assert (score.status, score.details["reason"]) == (ScoreStatus.UNSCORED, reason)


def test_a_user_done_at_once_leaves_nothing_to_judge(chat_server: ChatServer) -> None:
    chat_server.handler = Script(user=[says("", done=True)])
    score, outcome = run(chat_server, SPEC, as_agent(shop_agent))
    assert (outcome.turns, outcome.stop_reason) == (0, "user_stopped")
    assert (score.status, score.details["reason"]) == (ScoreStatus.UNSCORED, "no_turns")


def test_an_agent_error_stops_the_simulation_and_propagates(chat_server: ChatServer) -> None:
    chat_server.handler = Script(user=[says("Where is order 42?")])

    def broken(messages: list[dict[str, Any]]) -> str:
        raise RuntimeError("agent down")

    with pytest.raises(RuntimeError, match="agent down"):
        run(chat_server, SPEC, as_agent(broken))


def test_the_built_in_tool_agent_as_the_agent(chat_server: ChatServer) -> None:
    def agent_script(request: RecordedRequest) -> Reply:
        last = request.body["messages"][-1]
        if last["role"] == "user":
            call_id = f"c{len(script.seen['agent'])}"
            return tool_call_reply(("find_order", {"order_id": 42}, call_id))
        return Reply.ok(f"It is at the {json.loads(last['content'])['where']}.")

    script = Script(
        user=[says("Where is order 42?"), says("Thanks!", done=True)],
        judge=[goals((True, "Told."), (True, "Refunded."))],
        agent=agent_script,
    )
    chat_server.handler = script
    collector = TrajectoryCollector()

    async def go() -> tuple[Score, SimulationOutcome]:
        async with OpenAICompatibleClient(chat_server.base_url, max_retries=0) as client:
            agent = ToolAgent("local/agent", [find_order], client=client)
            with capturing(collector):
                return await run_simulation(agent, SPEC, client=client, model="local/judge")

    score, outcome = asyncio.run(go())
    assert outcome.conversation[-1] == {"role": "assistant", "content": "It is at the Lyon depot."}
    assert (score.value, score.passed) == (1.0, True)
    steps = collector.to_steps()
    assert [(s.turn, s.text) for s in steps] == [(0, None), (0, "It is at the Lyon depot.")]
    assert steps[0].tool_calls[0].result == {"order": 42, "where": "Lyon depot"}


def test_the_spec_refuses_what_cannot_run() -> None:
    with pytest.raises(ValueError, match="persona"):
        SimulationSpec("  ")
    with pytest.raises(ValueError, match="max_turns must be 1 or more"):
        SimulationSpec("x", max_turns=0)
    with pytest.raises(ValueError, match="every goal"):
        SimulationSpec("x", goals=("ok", ""))
    assert SimulationSpec("x", goals="one goal").goals == ("one goal",)


def test_judge_goals_alone_on_a_finished_outcome(chat_server: ChatServer) -> None:
    chat_server.enqueue(goals((True, "Yes.")))
    outcome = SimulationOutcome(
        [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}],
        1, "max_turns", "local/user",
    )

    async def go() -> Score:
        async with OpenAICompatibleClient(chat_server.base_url, max_retries=0) as client:
            return await judge_goals(outcome, SPEC.__class__("a greeter", goals=("Greet",)),
                                     client=client, model="local/judge")

    score = asyncio.run(go())
    assert (score.value, score.passed, score.details["turns"]) == (1.0, True, 1)


def test_simulate_alone_returns_the_conversation(chat_server: ChatServer) -> None:
    chat_server.handler = Script(user=[says("Where is order 42?"), says("bye", done=True)])

    async def go() -> SimulationOutcome:
        async with OpenAICompatibleClient(chat_server.base_url, max_retries=0) as client:
            return await simulate(as_agent(shop_agent), SPEC, client=client, model="local/u",
                                  config={"tenant": "t1"})

    outcome = asyncio.run(go())
    assert (outcome.turns, outcome.user_model, outcome.user_calls) == (1, "local/u", 2)
