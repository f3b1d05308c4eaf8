"""The built-in tool agent against the real local chat-completions server (tests/chat_server.py):
scripted tool-call replies, tool errors fed back to the model, the step limit, model errors,
and fifty concurrent runs each recorded into its own capture."""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any, Literal

import pytest

from assay.evaluation import AgentEvaluator, EvalCase
from assay.live.agents import Agent, AgentReply, as_agent
from assay.live.agents.tool_agent import MAX_STEPS_REACHED, ToolAgent
from assay.live.capture import TrajectoryCollector, capturing, tool
from assay.models import ModelHTTPError, ModelRateLimited, OpenAICompatibleClient
from assay.records import ToolCall, Usage
from chat_server import ChatServer, RecordedRequest, Reply
from tool_replies import tool_call_reply


async def _no_wait(seconds: float) -> None:
    pass


def http_client(server: ChatServer, **options: Any) -> OpenAICompatibleClient:
    options.setdefault("max_retries", 0)
    return OpenAICompatibleClient(server.base_url, sleep=_no_wait, **options)


def respond(
    agent: ToolAgent, text: str = "Weather in Paris?"
) -> tuple[AgentReply, TrajectoryCollector]:
    collector = TrajectoryCollector()

    async def go() -> AgentReply:
        try:
            with capturing(collector):
                return await agent.respond([{"role": "user", "content": text}], {})
        finally:
            await _close(agent)

    return asyncio.run(go()), collector


async def _close(agent: ToolAgent) -> None:
    client = agent._client
    if client is not None:
        await client.aclose()
    await agent.aclose()


# Tools: one decorated sync tool, one plain async tool, one that raises.


@tool
def get_weather(city: str, units: Literal["C", "F"] = "C") -> dict[str, Any]:
    """The weather in a city today.

    Args:
        city: The city's name.
        units: Degrees Celsius or Fahrenheit.
    """
    return {"city": city, "sky": "sunny", "temperature": 21 if units == "C" else 70}


async def get_time(city: str) -> str:
    """The local time in a city."""
    await asyncio.sleep(0)
    return f"12:00 in {city}"


def book_table(restaurant: str, people: int) -> str:
    """Book a table."""
    raise RuntimeError(f"{restaurant} is full")


def test_a_scripted_tool_loop(chat_server: ChatServer) -> None:
    chat_server.enqueue(
        tool_call_reply(("get_weather", {"city": "Paris"}, "c1"), ("get_time", {"city": "Paris"})),
        Reply.ok("Sunny and 21 °C in Paris; it is noon.", input_tokens=30, output_tokens=9),
    )
    agent = ToolAgent(
        "local/m", [get_weather, get_time], system="Be brief.", client=http_client(chat_server)
    )
    reply, collector = respond(agent)

    assert reply.content == "Sunny and 21 °C in Paris; it is noon."
    assert [m["role"] for m in reply.messages] == ["assistant", "tool", "tool", "assistant"]
    first, second = (r.body for r in chat_server.requests)
    # What the model was told: the system prompt, the conversation, the tools' schemas.
    assert first["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Weather in Paris?"},
    ]
    weather = first["tools"][0]["function"]
    assert weather["name"] == "get_weather"
    assert weather["description"] == "The weather in a city today."
    assert weather["parameters"] == {
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "The city's name."},
            "units": {
                "enum": ["C", "F"],
                "type": "string",
                "description": "Degrees Celsius or Fahrenheit.",
            },
        },
        "required": ["city"],
        "additionalProperties": False,
    }
    assert "temperature" not in first  # left to the server unless set
    # What it was sent back: its own tool calls, then each result under the call's id.
    assert second["messages"][2]["tool_calls"][0]["id"] == "c1"
    assert second["messages"][3:] == [
        {
            "role": "tool",
            "tool_call_id": "c1",
            "content": '{"city":"Paris","sky":"sunny","temperature":21}',
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "12:00 in Paris"},
    ]
    # What was captured: each call once (the decorated tool is not recorded twice).
    assert collector.tool_calls == [
        ToolCall("get_weather", {"city": "Paris"}, "c1", {"city": "Paris", "sky": "sunny",
                                                           "temperature": 21}),
        ToolCall("get_time", {"city": "Paris"}, "call_1", "12:00 in Paris"),
    ]
    steps = collector.to_steps()
    assert [(s.text, [c.name for c in s.tool_calls]) for s in steps] == [
        (None, ["get_weather", "get_time"]),
        ("Sunny and 21 °C in Paris; it is noon.", []),
    ]
    assert steps[0].tool_calls[1].result == "12:00 in Paris"
    assert [s.usage for s in steps] == [Usage(20, 7), Usage(30, 9)]
    assert {call.model for call in collector.model_calls} == {"test-model"}


def test_it_is_an_agent_the_runner_takes_as_it_is(chat_server: ChatServer) -> None:
    agent = ToolAgent("local/m", [get_time], client=http_client(chat_server))
    assert isinstance(agent, Agent) and as_agent(agent) is agent
    assert agent.name == "ToolAgent(local/m)"


def test_tool_failures_go_back_to_the_model_and_into_the_capture(
    chat_server: ChatServer,
) -> None:
    chat_server.enqueue(
        tool_call_reply(
            ("book_table", {"restaurant": "Chez Nous", "people": 2}, "raises"),
            ("send_email", {"to": "x"}, "unknown"),
            ("get_weather", {"city": 3}, "wrong_type"),
            ("get_weather", {}, "missing"),
            ("get_weather", {"city": "Oslo", "when": "now"}, "extra"),
            ("get_weather", '{"city": "Os', "not_json"),
            ("get_weather", {"city": "Oslo", "units": "K"}, "not_a_choice"),
        ),
        Reply.ok("Sorry, I could not book it."),
    )
    agent = ToolAgent("local/m", [get_weather, book_table], client=http_client(chat_server))
    reply, collector = respond(agent, "Book a table")

    assert reply.content == "Sorry, I could not book it."
    sent = chat_server.requests[1].body["messages"]
    errors = {
        m["tool_call_id"]: json.loads(m["content"])["error"] for m in sent if m["role"] == "tool"
    }
    assert errors == {
        "raises": "RuntimeError: Chez Nous is full",
        "unknown": "unknown tool 'send_email' (the tools are: get_weather, book_table)",
        "wrong_type": "bad arguments for get_weather: city: expected a string, got number",
        "missing": "bad arguments for get_weather: missing required argument 'city'",
        "extra": "bad arguments for get_weather: unknown argument 'when' (parameters: city, "
        "units)",
        "not_json": "bad arguments for get_weather: arguments are not a JSON object: "
        "'{\"city\": \"Os'",
        "not_a_choice": "bad arguments for get_weather: units: 'K' is not one of 'C', 'F'",
    }
    recorded = {call.call_id: call.result for call in collector.tool_calls}
    assert recorded == {key: {"error": error} for key, error in errors.items()}
    [step, final] = collector.to_steps()
    assert [c.result for c in step.tool_calls] == [{"error": e} for e in errors.values()]
    assert final.text == "Sorry, I could not book it."


def test_max_steps_stops_the_loop_and_says_so(chat_server: ChatServer) -> None:
    calls: list[int] = []

    def ping() -> str:
        """Ping."""
        calls.append(1)
        return "pong"

    chat_server.handler = lambda request: tool_call_reply(("ping", {}))
    agent = ToolAgent("local/m", [ping], max_steps=3, client=http_client(chat_server))
    reply, collector = respond(agent)

    assert len(chat_server.requests) == 3 and len(calls) == 3
    assert reply.content is None
    assert reply.data is not None and reply.data["stop_reason"] == MAX_STEPS_REACHED
    assert "stopped after 3 model calls" in reply.data["error"]
    # The conversation ends with the last step's tool results, as a model accepts it.
    assert [m["role"] for m in reply.messages] == ["assistant", "tool"] * 3
    assert len(collector.model_calls) == 3 and len(collector.tool_calls) == 3
    with pytest.raises(ValueError, match="max_steps must be 1 or more"):
        ToolAgent("local/m", [ping], max_steps=0)


def test_a_run_stopped_at_max_steps_is_an_agent_error_saying_so(chat_server: ChatServer) -> None:
    def ping() -> str:
        """Ping."""
        return "pong"

    chat_server.handler = lambda request: tool_call_reply(("ping", {}))
    agent = ToolAgent("local/m", [ping], max_steps=2, client=http_client(chat_server))
    case = EvalCase.single_turn("a", "ping it", expected_response="pong")
    score = AgentEvaluator(agent).evaluate_sync([case]).cases[0].result.score
    assert (score.passed, score.details.get("reason")) == (None, "agent_error")
    assert "stop_reason: max_steps" in score.rationale
    assert "stopped after 2 model calls" in score.rationale


@pytest.mark.parametrize(
    ("reply", "error", "status"),
    [(Reply.error(500), ModelHTTPError, 500), (Reply.error(400), ModelHTTPError, 400),
     (Reply.rate_limited(), ModelRateLimited, None)],
)
def test_model_errors_propagate_for_the_runner(
    chat_server: ChatServer, reply: Reply, error: type[Exception], status: int | None
) -> None:
    chat_server.enqueue(tool_call_reply(("get_time", {"city": "Rome"})), reply)
    agent = ToolAgent("local/m", [get_time], client=http_client(chat_server))
    collector = TrajectoryCollector()

    async def go() -> None:
        with capturing(collector):
            await agent.respond([{"role": "user", "content": "time?"}], {})

    with pytest.raises(error) as raised:
        asyncio.run(go())
    assert getattr(raised.value, "status", None) == status
    # What happened before the failure is kept.
    assert [c.result for c in collector.tool_calls] == ["12:00 in Rome"]


def test_fifty_concurrent_runs_never_mix_their_captures(chat_server: ChatServer) -> None:
    def script(request: RecordedRequest) -> Reply:
        messages = request.body["messages"]
        last = messages[-1]
        if last["role"] == "user":
            number = int(last["content"].split()[-1])
            return tool_call_reply(("echo", {"n": number}, f"id-{number}")).after(0.01)
        return Reply.ok(f"done {json.loads(last['content'])['n']}").after(0.01)

    chat_server.handler = script

    async def echo(n: int) -> dict[str, int]:
        """Echo a number."""
        await asyncio.sleep(0.01)
        return {"n": n}

    client = http_client(chat_server, max_concurrency=50)
    agent = ToolAgent("local/m", [echo], client=client)

    async def one(number: int) -> tuple[int, AgentReply, TrajectoryCollector]:
        collector = TrajectoryCollector()
        with capturing(collector):
            reply = await agent.respond([{"role": "user", "content": f"case {number}"}], {})
        return number, reply, collector

    async def all_of_them() -> list[tuple[int, AgentReply, TrajectoryCollector]]:
        async with client:
            return await asyncio.gather(*(one(n) for n in range(50)))

    results = asyncio.run(all_of_them())
    assert chat_server.peak_in_flight > 1  # they really ran at once
    for number, reply, collector in results:
        assert reply.content == f"done {number}"
        expected = ToolCall("echo", {"n": number}, f"id-{number}", {"n": number})
        assert collector.tool_calls == [expected]
        assert [s.text for s in collector.to_steps()] == [None, f"done {number}"]


def test_a_client_from_the_options_with_the_cache_off_by_default(
    chat_server: ChatServer, tmp_path: Any
) -> None:
    chat_server.default = Reply.ok("Hello.")
    agent = ToolAgent(
        "openai/m", [get_time], base_url=chat_server.base_url, api_key="sk-test",
        max_retries=0, cache_dir=tmp_path,
    )
    for _ in range(2):
        reply, _collector = respond(agent, "hi")
        assert reply.content == "Hello."
    assert len(chat_server.requests) == 2  # a repeated run is really repeated
    assert chat_server.requests[0].headers["authorization"] == "Bearer sk-test"
    assert not list(tmp_path.iterdir())
    with pytest.raises(TypeError, match="unknown client option 'base'"):
        ToolAgent("openai/m", [get_time], base="x")


class Point:
    """A type with no JSON schema."""


def test_tools_that_cannot_be_described_are_refused_at_once() -> None:
    def spread(*names: str) -> None:
        """Takes *args."""

    def locate(point: Point) -> None:
        """Takes an object."""

    with pytest.raises(TypeError, match="parameter 'names' cannot be given by name"):
        ToolAgent("local/m", [spread])
    with pytest.raises(TypeError, match=re.escape("tool locate: parameter 'point': type")):
        ToolAgent("local/m", [locate])
    with pytest.raises(ValueError, match="two tools are named 'get_time'"):
        ToolAgent("local/m", [get_time, get_time])
