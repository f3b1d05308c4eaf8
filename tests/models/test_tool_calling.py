"""Tool calling in the model layer: `tools` and `tool_choice` sent, `message.tool_calls` read,
assistant tool-call and `tool` messages sent as given, and tool calls kept by the cache.

The HTTP client talks to the real local chat-completions server (tests/chat_server.py).
"""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from types import SimpleNamespace as Obj
from typing import Any

import pytest

from assay.models.cache import CachedClient, ResponseCache, cache_file, request_key
from assay.models.litellm_client import LiteLLMClient
from assay.models.openai_compat import OpenAICompatibleClient
from assay.models.types import ChatRequest, ChatResponse, ModelResponseError, TokenUsage
from assay.records import ToolCall
from chat_server import ChatServer, Reply
from tool_replies import tool_call_reply

WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "The weather in a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    },
}

QUESTION = ({"role": "user", "content": "Weather in Paris?"},)


async def _no_wait(seconds: float) -> None:
    pass


def complete(server: ChatServer, request: ChatRequest) -> ChatResponse:
    async def go() -> ChatResponse:
        async with OpenAICompatibleClient(server.base_url, max_retries=0, sleep=_no_wait) as c:
            return await c.complete(request)

    return asyncio.run(go())


def test_tools_and_tool_choice_are_sent_and_tool_calls_read(chat_server: ChatServer) -> None:
    chat_server.enqueue(
        tool_call_reply(("get_weather", {"city": "Paris"}, "c-1"), ("get_time", "", "c-2"))
    )
    request = ChatRequest(
        "local/m", QUESTION, tools=(WEATHER_TOOL,), tool_choice="auto", temperature=None
    )
    reply = complete(chat_server, request)

    assert reply.text == ""
    assert reply.tool_calls == (
        ToolCall("get_weather", {"city": "Paris"}, "c-1"),
        ToolCall("get_time", {}, "c-2"),  # "" from a server means no arguments
    )
    assert reply.usage == TokenUsage(20, 7)
    body = chat_server.requests[0].body
    assert body["tools"] == [WEATHER_TOOL]
    assert body["tool_choice"] == "auto"


def test_a_request_without_tools_sends_no_tool_fields(chat_server: ChatServer) -> None:
    reply = complete(chat_server, ChatRequest("local/m", QUESTION))
    assert (reply.text, reply.tool_calls) == ("OK", ())
    assert "tools" not in chat_server.requests[0].body
    assert "tool_choice" not in chat_server.requests[0].body


def test_content_and_tool_calls_together(chat_server: ChatServer) -> None:
    chat_server.enqueue(tool_call_reply(("get_weather", {"city": "Rome"}), content="Looking."))
    reply = complete(chat_server, ChatRequest("local/m", QUESTION, tools=(WEATHER_TOOL,)))
    assert reply.text == "Looking."
    assert [c.name for c in reply.tool_calls] == ["get_weather"]


def test_arguments_that_are_not_a_json_object_are_kept_raw(chat_server: ChatServer) -> None:
    chat_server.enqueue(tool_call_reply(("f", '{"city": "Par'), ("g", "[1, 2]")))
    reply = complete(chat_server, ChatRequest("local/m", QUESTION, tools=(WEATHER_TOOL,)))
    assert [c.args for c in reply.tool_calls] == ['{"city": "Par', "[1, 2]"]


def test_a_tool_call_without_a_name_is_a_bad_response(chat_server: ChatServer) -> None:
    body = {
        "choices": [
            {
                "message": {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [{"id": "c", "function": {"arguments": "{}"}}],
                }
            }
        ]
    }
    chat_server.enqueue(Reply.json(body))
    with pytest.raises(ModelResponseError, match="tool call 0 of the reply names no function"):
        complete(chat_server, ChatRequest("local/m", QUESTION, tools=(WEATHER_TOOL,)))


def test_no_content_and_no_tool_calls_is_still_a_bad_response(chat_server: ChatServer) -> None:
    chat_server.enqueue(Reply.json({"choices": [{"message": {"content": None, "tool_calls": []}}]}))
    with pytest.raises(ModelResponseError, match=r"no choices\[0\]\.message\.content"):
        complete(chat_server, ChatRequest("local/m", QUESTION))


def test_tool_messages_are_sent_as_given(chat_server: ChatServer) -> None:
    messages = (
        *QUESTION,
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c-1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c-1", "content": "sunny"},
    )
    complete(chat_server, ChatRequest("local/m", messages, tools=(WEATHER_TOOL,)))
    assert chat_server.requests[0].body["messages"] == [dict(m) for m in messages]


# -- the cache --------------------------------------------------------------------------------


class ToolCallingFake:
    """A `ModelClient` that always asks for one tool call, counting its calls."""

    def __init__(self) -> None:
        self.calls = 0

    async def complete(self, request: ChatRequest) -> ChatResponse:
        self.calls += 1
        return ChatResponse(
            "", TokenUsage(3, 2), "m", tool_calls=(ToolCall("get_weather", {"city": "P"}, "c9"),)
        )

    async def aclose(self) -> None:
        pass


def _kept(client: CachedClient, request: ChatRequest) -> ChatResponse:
    async def go() -> ChatResponse:
        reply = await client.complete(request)
        await reply.confirm(True)
        return reply

    return asyncio.run(go())


def test_the_cache_stores_and_replays_tool_calls(tmp_path: Path) -> None:
    inner = ToolCallingFake()
    request = ChatRequest("openai/gpt-4.1-mini", QUESTION, tools=(WEATHER_TOOL,))
    with ResponseCache(cache_file(tmp_path)) as cache:
        first = _kept(CachedClient(inner, cache), request)
        again = _kept(CachedClient(inner, cache), request)
    assert inner.calls == 1
    assert not first.cached and again.cached
    assert again.tool_calls == (ToolCall("get_weather", {"city": "P"}, "c9"),)
    assert again.text == ""
    # Raw (unparsed) arguments come back as they went in.
    with ResponseCache(cache_file(tmp_path)) as cache:
        response = ChatResponse("", tool_calls=(ToolCall("f", '{"broken', None),))
        cache.put("k", request, response)
        assert cache.get("k").tool_calls == (ToolCall("f", '{"broken', None),)  # type: ignore[union-attr]


def test_tools_are_part_of_the_key_and_no_tools_keys_as_before() -> None:
    plain = ChatRequest("openai/gpt-4.1-mini", QUESTION)
    assert request_key(plain) == request_key(ChatRequest("openai/gpt-4.1-mini", QUESTION, tools=()))
    with_tools = ChatRequest("openai/gpt-4.1-mini", QUESTION, tools=(WEATHER_TOOL,))
    assert request_key(with_tools) != request_key(plain)
    chosen = ChatRequest("openai/gpt-4.1-mini", QUESTION, tools=(WEATHER_TOOL,), tool_choice="none")
    assert request_key(chosen) != request_key(with_tools)


_OLD_TABLE = """
CREATE TABLE responses (
    key TEXT PRIMARY KEY NOT NULL, model TEXT NOT NULL, request TEXT NOT NULL,
    text TEXT NOT NULL, input_tokens INTEGER NOT NULL, output_tokens INTEGER NOT NULL,
    response_model TEXT NOT NULL, cost_usd REAL, created_at REAL NOT NULL
)
"""


def test_a_cache_made_before_tool_calls_still_reads_and_gains_the_column(tmp_path: Path) -> None:
    path = cache_file(tmp_path)
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA application_id = 1095979865")
        conn.execute("PRAGMA user_version = 1")
        conn.execute(_OLD_TABLE)
        conn.execute(
            "INSERT INTO responses VALUES ('old', 'm', '{}', 'an old reply', 1, 2, 'm', NULL, 0)"
        )
    conn.close()
    request = ChatRequest("openai/gpt-4.1-mini", QUESTION, tools=(WEATHER_TOOL,))
    with ResponseCache(path) as cache:
        old = cache.get("old")
        assert old is not None and (old.text, old.tool_calls) == ("an old reply", ())
        reply = ChatResponse("", tool_calls=(ToolCall("get_weather", {"city": "P"}, "c"),))
        cache.put("new", request, reply)
        new = cache.get("new")
        assert new is not None and new.tool_calls == reply.tool_calls
        assert cache.get("old") is not None
    with sqlite3.connect(path) as conn:
        columns = {row[1] for row in conn.execute("PRAGMA table_info(responses)")}
        version = conn.execute("PRAGMA user_version").fetchone()[0]
    conn.close()
    assert "tool_calls" in columns and version == 1


def test_damaged_stored_tool_calls_are_a_cache_error(tmp_path: Path) -> None:
    from assay.models.cache import CacheError

    with ResponseCache(cache_file(tmp_path)) as cache:
        cache.put("k", ChatRequest("m", QUESTION), ChatResponse("x"))
        with sqlite3.connect(cache.path) as conn:
            conn.execute("UPDATE responses SET tool_calls = '{not json'")
        conn.close()
        with pytest.raises(CacheError, match="damaged: the tool calls stored under key k"):
            cache.get("k")


# -- LiteLLM ----------------------------------------------------------------------------------


def test_litellm_passes_tools_and_reads_tool_calls() -> None:
    seen: dict[str, Any] = {}

    async def fake_completion(**kwargs: Any) -> Any:
        seen.update(kwargs)
        call = Obj(id="c1", function=Obj(name="get_weather", arguments='{"city": "Oslo"}'))
        message = Obj(content=None, tool_calls=[call])
        return Obj(
            choices=[Obj(message=message)],
            model="x",
            usage=Obj(prompt_tokens=4, completion_tokens=2),
        )

    client = LiteLLMClient(completion=fake_completion)
    request = ChatRequest(
        "litellm/anthropic/claude", QUESTION, tools=(WEATHER_TOOL,), tool_choice="required"
    )
    reply = asyncio.run(client.complete(request))
    assert reply.tool_calls == (ToolCall("get_weather", {"city": "Oslo"}, "c1"),)
    assert reply.text == ""
    assert seen["tools"] == [WEATHER_TOOL] and seen["tool_choice"] == "required"
