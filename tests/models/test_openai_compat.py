"""The OpenAI-compatible client against a real chat-completions server over a socket.

Waits between attempts go through an injected sleep that records them, so retry timing is
checked on the recorded waits, not on the clock; only one test uses the real sleep, and it
checks the server's arrival times.
"""

from __future__ import annotations

import asyncio
import re
import socket
from collections.abc import Sequence
from datetime import UTC, datetime
from types import MappingProxyType
from typing import Any

import pytest

from assay.models import (
    ChatRequest,
    ChatResponse,
    JudgeUsage,
    ModelClient,
    ModelConfigError,
    ModelError,
    ModelHTTPError,
    ModelRateLimited,
    ModelResponseError,
    ModelTimeout,
    OpenAICompatibleClient,
    TokenUsage,
)
from assay.models.openai_compat import _retry_after_seconds
from assay.models.pricing import estimate_cost_usd
from chat_server import ChatServer, Reply

KEY = "sk-test-0123456789abcdef"
HI = ({"role": "user", "content": "Hi"},)
SCHEMA = {
    "type": "object",
    "properties": {"score": {"type": "number"}},
    "required": ["score"],
    "additionalProperties": False,
}


class Waits:
    """An injected sleep that returns at once and records what it was asked to wait."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


def client_for_server(server: ChatServer, **options: Any) -> OpenAICompatibleClient:
    options.setdefault("sleep", Waits())
    options.setdefault("timeout", 5.0)
    return OpenAICompatibleClient(server.base_url, **options)


def request(model: str = "openai/gpt-4.1-mini", **fields: Any) -> ChatRequest:
    return ChatRequest(model=model, messages=fields.pop("messages", HI), **fields)


def ask(client: OpenAICompatibleClient, *requests: ChatRequest) -> list[ChatResponse]:
    """Send the requests one after another on one event loop, then close the client."""

    async def go() -> list[ChatResponse]:
        async with client:
            return [await client.complete(r) for r in requests]

    return asyncio.run(go())


def ask_one(client: OpenAICompatibleClient, req: ChatRequest | None = None) -> ChatResponse:
    return ask(client, req or request())[0]


def waits_of(client: OpenAICompatibleClient) -> list[float]:
    sleep = client._sleep
    assert isinstance(sleep, Waits)
    return sleep.waits


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _completion(content: Any, **extra: Any) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if "refusal" in extra:
        message["refusal"] = extra.pop("refusal")
    return {
        "model": "test-model",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        **extra,
    }


# -- what is sent --------------------------------------------------------------------------


def test_request_body_and_headers(chat_server: ChatServer) -> None:
    client = client_for_server(chat_server, api_key=KEY, headers={"X-Route": "judges"})
    ask_one(client, request(max_tokens=100, seed=7))

    [sent] = chat_server.requests
    assert sent.method == "POST"
    assert sent.path == "/v1/chat/completions"
    assert sent.headers["authorization"] == f"Bearer {KEY}"
    assert sent.headers["content-type"] == "application/json"
    assert sent.headers["x-route"] == "judges"
    assert sent.body == {
        "model": "gpt-4.1-mini",
        "messages": [{"role": "user", "content": "Hi"}],
        "temperature": 0.0,
        "max_tokens": 100,
        "seed": 7,
    }


def test_response_format_only_with_a_schema(chat_server: ChatServer) -> None:
    client = client_for_server(chat_server)
    ask(client, request(json_schema=SCHEMA, schema_name="grade"), request())

    with_schema, without = chat_server.requests
    assert with_schema.body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "grade", "schema": SCHEMA, "strict": True},
    }
    assert "response_format" not in without.body


def test_unset_options_are_left_to_the_server(chat_server: ChatServer) -> None:
    client = client_for_server(chat_server)
    ask_one(client, request(model="litellm_proxy/Azure/gpt-5-mini", temperature=None))

    [sent] = chat_server.requests
    assert sent.body == {
        "model": "Azure/gpt-5-mini",
        "messages": [{"role": "user", "content": "Hi"}],
    }
    assert "authorization" not in sent.headers


def test_messages_that_are_mappings_but_not_dicts_are_sent(chat_server: ChatServer) -> None:
    message = MappingProxyType({"role": "user", "content": MappingProxyType({"nested": (1, 2)})})
    ask_one(client_for_server(chat_server), request(messages=[message]))

    assert chat_server.requests[0].body["messages"] == [
        {"role": "user", "content": {"nested": [1, 2]}}
    ]


def test_a_request_that_is_not_json_is_an_error_without_a_call(chat_server: ChatServer) -> None:
    client = client_for_server(chat_server)
    with pytest.raises(ModelError, match="cannot be sent as JSON"):
        ask_one(client, request(messages=[{"role": "user", "content": object()}]))
    assert chat_server.requests == []


# -- what comes back -----------------------------------------------------------------------


def test_reply_text_usage_cost_and_timing(chat_server: ChatServer) -> None:
    chat_server.enqueue(Reply.ok({"score": 0.5}, input_tokens=2000, output_tokens=500))
    client = client_for_server(chat_server)
    reply = ask_one(client)

    assert isinstance(client, ModelClient)
    assert reply.text == '{"score": 0.5}'
    assert reply.usage == TokenUsage(2000, 500)
    assert reply.model == "test-model"
    assert reply.cost_usd == pytest.approx(estimate_cost_usd("gpt-4.1-mini", 2000, 500))
    assert reply.cost_usd == pytest.approx((2000 * 0.40 + 500 * 1.60) / 1e6)
    assert reply.attempts == 1
    assert reply.latency_ms > 0
    assert not reply.cached


def test_usage_in_responses_naming(chat_server: ChatServer) -> None:
    chat_server.enqueue(Reply.ok("OK", input_tokens=7, output_tokens=3, usage_names="responses"))
    assert ask_one(client_for_server(chat_server)).usage == TokenUsage(7, 3)


def test_no_usage_reported_means_zero_tokens_and_unknown_cost(chat_server: ChatServer) -> None:
    chat_server.enqueue(Reply.ok("OK", input_tokens=None, output_tokens=None))
    client = client_for_server(chat_server)
    reply = ask_one(client)
    assert reply.usage == TokenUsage(0, 0)
    assert reply.cost_usd is None
    assert client.usage.to_report()["unpriced_calls"] == 1


def test_malformed_usage_counts_as_zero(chat_server: ChatServer) -> None:
    body = _completion("OK", usage={"prompt_tokens": "many", "completion_tokens": True})
    chat_server.enqueue(Reply.json(body))
    assert ask_one(client_for_server(chat_server)).usage == TokenUsage(0, 0)


def test_a_token_count_past_any_real_one_counts_as_zero(chat_server: ChatServer) -> None:
    # Regression: a reply with prompt_tokens of 2**64 - 1 overflowed the aggregate (and the
    # cache's integers), losing a valid verdict.
    body = _completion("OK", usage={"prompt_tokens": 2**64 - 1, "completion_tokens": 3})
    chat_server.enqueue(Reply.json(body))
    assert ask_one(client_for_server(chat_server)).usage == TokenUsage(0, 3)


def test_user_prices_extend_and_override_the_table(chat_server: ChatServer) -> None:
    prices = {"Azure/My-Model-2025-01-01": (1.0, 2.0), "gpt-4.1-mini": (0.0, 0.0)}
    client = client_for_server(chat_server, prices=prices)
    own, overridden, unknown = ask(
        client,
        request(model="litellm_proxy/Azure/my-model"),
        request(model="openai/gpt-4.1-mini"),
        request(model="ollama/llama3.1"),
    )
    assert own.cost_usd == pytest.approx((10 * 1.0 + 5 * 2.0) / 1e6)
    assert overridden.cost_usd == 0.0
    assert unknown.cost_usd is None
    assert client.prices["gpt-4o"] == (2.50, 10.00)


def test_invalid_json_content_is_returned_as_is(chat_server: ChatServer) -> None:
    # Whether the text is a valid verdict is for the judge to decide (and repair).
    chat_server.enqueue(Reply.ok('{"score": 0.5,'))
    assert ask_one(client_for_server(chat_server), request(json_schema=SCHEMA)).text == (
        '{"score": 0.5,'
    )


def test_content_as_a_list_of_parts_is_joined(chat_server: ChatServer) -> None:
    parts = [{"type": "text", "text": '{"score": '}, {"type": "text", "text": "1}"}]
    chat_server.enqueue(Reply.json(_completion(parts)))
    assert ask_one(client_for_server(chat_server)).text == '{"score": 1}'


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        (Reply.raw("<html>502 Bad Gateway</html>"), "not JSON: <html>502 Bad Gateway</html>"),
        (Reply.raw(b"\xff\xfe binary"), "not JSON"),
        (Reply.raw(""), r"not JSON: \(empty body\)"),
        (Reply.json(["a", "list"]), "not a JSON object"),
        (Reply.json({"object": "chat.completion"}), r"no choices\[0\]\.message"),
        (Reply.json({"choices": []}), r"no choices\[0\]\.message"),
        (Reply.json({"choices": ["text"]}), r"no choices\[0\]\.message"),
        (Reply.json({"error": {"message": "upstream exploded"}}), "upstream exploded"),
        (Reply.json(_completion(None)), r"no choices\[0\]\.message\.content"),
        (Reply.json(_completion(42)), r"finish_reason='stop'"),
        (Reply.json(_completion(None, refusal="I can't grade that.")), "refused: I can't grade"),
    ],
)
def test_malformed_replies_are_clear_errors_and_not_retried(
    chat_server: ChatServer, reply: Reply, message: str
) -> None:
    chat_server.default = reply
    client = client_for_server(chat_server)
    with pytest.raises(ModelResponseError, match=message) as raised:
        ask_one(client)
    assert raised.value.kind == "bad_response"
    assert "openai/gpt-4.1-mini" in str(raised.value)
    assert len(chat_server.requests) == 1
    assert client.usage.for_model("openai/gpt-4.1-mini").errors == {"bad_response": 1}


def test_a_reply_over_the_size_limit_is_not_read(chat_server: ChatServer) -> None:
    chat_server.enqueue(Reply.ok("x" * 50_000))
    client = client_for_server(chat_server, max_response_bytes=10_000)
    with pytest.raises(ModelResponseError, match="over 10000 bytes"):
        ask_one(client)


# -- faults and retries --------------------------------------------------------------------


def test_429_honours_retry_after_seconds(chat_server: ChatServer) -> None:
    chat_server.enqueue(Reply.rate_limited(retry_after=7), Reply.rate_limited(retry_after="0.5"))
    client = client_for_server(chat_server)
    reply = ask_one(client)

    assert waits_of(client) == [7.0, 0.5]
    assert reply.attempts == 3
    assert [r.status for r in chat_server.replies] == [429, 429, 200]


def test_retry_after_is_capped(chat_server: ChatServer) -> None:
    chat_server.enqueue(Reply.rate_limited(retry_after=3600))
    client = client_for_server(chat_server, retry_after_max=20.0)
    ask_one(client)
    assert waits_of(client) == [20.0]


def test_retry_after_as_an_http_date(chat_server: ChatServer) -> None:
    chat_server.enqueue(
        Reply.rate_limited(retry_after="Wed, 21 Oct 2099 07:28:00 GMT"),
        Reply.rate_limited(retry_after="Wed, 21 Oct 2015 07:28:00 GMT"),
    )
    client = client_for_server(chat_server, retry_after_max=45.0)
    ask_one(client)
    # A date far ahead is capped; a date already past means "now".
    assert waits_of(client) == [45.0, 0.0]


def test_retry_after_ms_on_a_503(chat_server: ChatServer) -> None:
    chat_server.enqueue(Reply.error(503, headers={"retry-after-ms": "250"}))
    client = client_for_server(chat_server)
    ask_one(client)
    assert waits_of(client) == [0.25]


def test_retry_after_parsing() -> None:
    now = datetime(2030, 1, 1, 12, 0, 0, tzinfo=UTC)
    assert _retry_after_seconds({"retry-after": "12"}, now) == 12.0
    assert _retry_after_seconds({"retry-after": " 1.5 "}, now) == 1.5
    assert _retry_after_seconds({"retry-after": "Tue, 01 Jan 2030 12:00:30 GMT"}, now) == 30.0
    assert _retry_after_seconds({"retry-after": "Tue, 01 Jan 2030 11:00:00 GMT"}, now) == 0.0
    assert _retry_after_seconds({"retry-after-ms": "1500", "retry-after": "9"}, now) == 1.5
    for junk in ("soon", "-3", "nan", "inf", ""):
        assert _retry_after_seconds({"retry-after": junk}, now) is None
    assert _retry_after_seconds({}, now) is None


def test_backoff_is_capped_exponential_with_full_jitter(chat_server: ChatServer) -> None:
    chat_server.default = Reply.rate_limited()
    client = client_for_server(
        chat_server, max_retries=5, backoff_base=0.5, backoff_max=3.0, jitter=lambda: 1.0
    )
    with pytest.raises(ModelRateLimited, match="rate limited on all 6 attempts"):
        ask_one(client)
    assert waits_of(client) == [0.5, 1.0, 2.0, 3.0, 3.0]
    assert len(chat_server.requests) == 6


def test_jitter_scales_each_wait(chat_server: ChatServer) -> None:
    draws = iter([0.25, 0.0, 0.5])
    chat_server.enqueue(Reply.error(500), Reply.error(502), Reply.error(504))
    client = client_for_server(chat_server, backoff_base=1.0, jitter=lambda: next(draws))
    ask_one(client)
    assert waits_of(client) == [0.25, 0.0, 2.0]


def test_an_unusable_retry_after_falls_back_to_backoff(chat_server: ChatServer) -> None:
    chat_server.enqueue(Reply.rate_limited(retry_after="whenever"))
    client = client_for_server(chat_server, backoff_base=0.5, jitter=lambda: 1.0)
    ask_one(client)
    assert waits_of(client) == [0.5]


def test_the_real_sleep_waits_as_asked(chat_server: ChatServer) -> None:
    chat_server.enqueue(Reply.rate_limited(retry_after="0.2"))
    client = OpenAICompatibleClient(chat_server.base_url, timeout=5.0)
    ask_one(client)
    first, second = chat_server.requests
    # asyncio may fire a timer up to its clock resolution early.
    assert second.received_at - first.received_at >= 0.19


def test_500_then_success(chat_server: ChatServer) -> None:
    chat_server.enqueue(Reply.error(500))
    client = client_for_server(chat_server)
    reply = ask_one(client)
    assert reply.attempts == 2
    assert [r.status for r in chat_server.replies] == [500, 200]
    assert client.usage.for_model("openai/gpt-4.1-mini").retries == 1


def test_timeout_then_success(chat_server: ChatServer) -> None:
    chat_server.enqueue(Reply.ok("late").after(5.0), Reply.ok("on time"))
    client = client_for_server(chat_server, timeout=0.2)
    reply = ask_one(client)
    assert reply.text == "on time"
    assert reply.attempts == 2
    assert len(waits_of(client)) == 1


def test_timeouts_until_retries_run_out(chat_server: ChatServer) -> None:
    chat_server.default = Reply.ok("late").after(5.0)
    client = client_for_server(chat_server, timeout=0.2, max_retries=1)
    expected = r"timed out on all 2 attempts in [0-9.]+ s.*; last: no reply within 0\.2 s"
    with pytest.raises(ModelTimeout, match=expected) as raised:
        ask_one(client)
    assert raised.value.kind == "timeout"
    assert len(chat_server.requests) == 2


def test_5xx_until_retries_run_out(chat_server: ChatServer) -> None:
    chat_server.default = Reply.error(503, "overloaded")
    client = client_for_server(chat_server, max_retries=2)
    with pytest.raises(ModelHTTPError, match=r"HTTP 503: .*overloaded") as raised:
        ask_one(client)
    assert raised.value.status == 503
    assert len(chat_server.requests) == 3
    assert len(waits_of(client)) == 2


def test_the_last_failure_decides_the_error(chat_server: ChatServer) -> None:
    chat_server.enqueue(Reply.error(500), Reply.rate_limited(), Reply.error(502))
    client = client_for_server(chat_server, max_retries=2)
    with pytest.raises(ModelHTTPError) as raised:
        ask_one(client)
    assert raised.value.status == 502


def test_zero_retries_means_one_attempt(chat_server: ChatServer) -> None:
    chat_server.enqueue(Reply.rate_limited(retry_after=1))
    client = client_for_server(chat_server, max_retries=0)
    with pytest.raises(ModelRateLimited, match=r"all 1 attempt in [0-9.]+ s;"):
        ask_one(client)
    assert waits_of(client) == []
    assert len(chat_server.requests) == 1


def test_connection_refused_is_retried_then_an_http_error() -> None:
    client = OpenAICompatibleClient(
        f"http://127.0.0.1:{free_port()}/v1", max_retries=2, sleep=Waits(), timeout=5.0
    )
    with pytest.raises(ModelHTTPError, match=r"could not reach .* in 3 attempts") as raised:
        ask_one(client)
    assert raised.value.status is None
    assert len(waits_of(client)) == 2


@pytest.mark.parametrize("status", [400, 401, 403, 404, 422, 501])
def test_other_error_statuses_fail_at_once(chat_server: ChatServer, status: int) -> None:
    chat_server.default = Reply.error(status, "schema is not supported")
    client = client_for_server(chat_server)
    with pytest.raises(ModelHTTPError, match=f"HTTP {status} .*schema is not supported") as raised:
        ask_one(client)
    assert raised.value.status == status
    assert len(chat_server.requests) == 1
    assert waits_of(client) == []


def test_a_long_error_body_is_cut(chat_server: ChatServer) -> None:
    chat_server.default = Reply.error(400, "x" * 5000)
    with pytest.raises(ModelHTTPError, match="more chars") as raised:
        ask_one(client_for_server(chat_server))
    assert len(str(raised.value)) < 600


def test_the_key_never_appears_in_messages_or_repr(chat_server: ChatServer) -> None:
    chat_server.enqueue(
        Reply.error(401, f"Incorrect API key provided: {KEY}"),
        Reply.raw(f"bad key {KEY}"),
    )
    chat_server.default = Reply.error(503, f"upstream rejected {KEY}")
    client = client_for_server(chat_server, api_key=KEY, max_retries=1)
    messages = [repr(client), str(client)]

    async def go() -> None:
        async with client:
            for _ in range(3):
                try:
                    await client.complete(request())
                except ModelError as err:
                    messages.extend([str(err), repr(err)])

    asyncio.run(go())
    assert len(messages) == 8
    assert chat_server.requests[0].headers["authorization"] == f"Bearer {KEY}"
    assert all(KEY not in text for text in messages), messages
    assert "<api key>" in messages[2]


def test_a_closed_client_refuses_calls(chat_server: ChatServer) -> None:
    client = client_for_server(chat_server)
    ask_one(client)
    with pytest.raises(RuntimeError, match="closed"):
        asyncio.run(client.complete(request()))


# -- limits --------------------------------------------------------------------------------


def _concurrently(client: OpenAICompatibleClient, requests: Sequence[ChatRequest]) -> None:
    async def go() -> None:
        async with client:
            await asyncio.gather(*(client.complete(r) for r in requests))

    asyncio.run(go())


def test_concurrency_is_capped(chat_server: ChatServer) -> None:
    chat_server.default = Reply.ok().after(0.03)
    client = client_for_server(chat_server, max_concurrency=4)
    _concurrently(client, [request()] * 50)
    assert len(chat_server.requests) == 50
    assert 1 < chat_server.peak_in_flight <= 4


def test_the_cap_is_per_model(chat_server: ChatServer) -> None:
    # Long enough for the second model's requests to arrive while the first's are held, even
    # on a loaded machine (at 0.1 s the overlap was once missed in a full run of the suite).
    chat_server.default = Reply.ok().after(0.3)
    client = client_for_server(chat_server, max_concurrency=3)
    _concurrently(client, [request("vllm/a"), request("vllm/b")] * 9)
    assert chat_server.peak_in_flight_for("a") <= 3
    assert chat_server.peak_in_flight_for("b") <= 3
    # Two models do not share one slot pool.
    assert 3 < chat_server.peak_in_flight <= 6


def test_the_pool_allows_the_whole_cap(chat_server: ChatServer) -> None:
    chat_server.default = Reply.ok().after(0.2)
    client = client_for_server(chat_server, max_concurrency=12)
    _concurrently(client, [request()] * 12)
    assert chat_server.peak_in_flight == 12


def test_usage_is_counted_per_model(chat_server: ChatServer) -> None:
    chat_server.enqueue(Reply.error(500), Reply.ok(input_tokens=100, output_tokens=10))
    shared = JudgeUsage()
    client = client_for_server(chat_server, usage=shared)
    ask(client, request(), request(model="ollama/llama3.1"))
    chat_server.default = Reply.error(400)
    other = client_for_server(chat_server, usage=shared)
    with pytest.raises(ModelHTTPError):
        ask_one(other)

    report = shared.to_report()
    assert report["calls"] == 2
    assert report["retries"] == 1
    assert report["input_tokens"] == 110
    assert report["output_tokens"] == 15
    assert report["errors"] == 1
    mini = report["models"]["openai/gpt-4.1-mini"]
    assert mini["errors"] == {"http_error": 1}
    assert mini["cost_usd"] == pytest.approx((100 * 0.40 + 10 * 1.60) / 1e6)
    assert report["models"]["ollama/llama3.1"]["cost_usd"] is None


# -- set-up --------------------------------------------------------------------------------


@pytest.mark.parametrize("url", ["", "127.0.0.1:8000/v1", "ftp://host/v1", "http:///v1"])
def test_a_base_url_must_be_http(url: str) -> None:
    with pytest.raises(ModelConfigError, match="http:// or https://"):
        OpenAICompatibleClient(url)


@pytest.mark.parametrize(
    "options",
    [
        {"timeout": 0},
        {"call_timeout": 0},
        {"call_timeout": -1.0},
        {"max_retries": -1},
        {"max_concurrency": 0},
        {"backoff_max": -1},
        {"max_response_bytes": 0},
        {"prices": {"m": (1.0, -2.0)}},
        {"prices": {"m": (1.0,)}},
        {"prices": {"m": "cheap"}},
    ],
)
def test_bad_options_are_refused(options: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        OpenAICompatibleClient("http://127.0.0.1:1/v1", **options)


def test_the_base_url_may_end_with_a_slash_and_hide_its_userinfo() -> None:
    client = OpenAICompatibleClient("https://user:pw@proxy.example/v1/")
    assert client.url == "https://user:pw@proxy.example/v1/chat/completions"
    assert "pw" not in repr(client)


# -- the bound on one call -----------------------------------------------------------------


def test_a_retry_after_past_the_call_bound_ends_the_call_at_once(chat_server: ChatServer) -> None:
    chat_server.default = Reply.rate_limited(retry_after=30)
    client = client_for_server(chat_server, call_timeout=0.5)
    with pytest.raises(ModelRateLimited) as raised:
        ask_one(client)
    message = str(raised.value)
    assert "call gave up after 1 attempt in" in message
    assert "the server asked for Retry-After 30 s, more than the" in message
    assert "s left of the 0.5 s call bound; last: HTTP 429" in message
    assert waits_of(client) == [], "no wait that could not end in time was begun"
    assert len(chat_server.requests) == 1
    assert client.usage.for_model("openai/gpt-4.1-mini").errors == {"rate_limited": 1}


def test_retry_after_is_honoured_in_full_within_the_bound(chat_server: ChatServer) -> None:
    """The fixed 60 s cap is gone: a wait the bound allows is waited as asked."""
    chat_server.enqueue(Reply.rate_limited(retry_after=120))
    client = client_for_server(chat_server)
    assert ask_one(client).attempts == 2
    assert waits_of(client) == [120.0]
    chat_server.enqueue(Reply.rate_limited(retry_after=181))
    late = client_for_server(chat_server)
    with pytest.raises(ModelRateLimited, match=r"Retry-After 181 s, .* the 180 s call bound"):
        ask_one(late)
    assert waits_of(late) == []


def test_the_error_says_how_long_the_call_waited(chat_server: ChatServer) -> None:
    chat_server.enqueue(
        Reply.rate_limited(retry_after=7), Reply.error(503), Reply.rate_limited(retry_after=2)
    )
    client = client_for_server(chat_server, max_retries=2, backoff_base=0.5, jitter=lambda: 1.0)
    with pytest.raises(ModelRateLimited) as raised:
        ask_one(client)
    assert waits_of(client) == [7.0, 1.0]
    # The injected sleep takes no time: the waits are what was asked, the clock what passed.
    assert "rate limited on all 3 attempts in " in str(raised.value)
    assert "(waited 7.0 s on Retry-After, 1.0 s in backoff)" in str(raised.value)


def test_the_call_bound_cuts_a_slow_attempt_short(chat_server: ChatServer) -> None:
    chat_server.default = Reply.ok("late").after(30.0)
    client = client_for_server(chat_server, timeout=60.0, call_timeout=0.3, max_retries=5)
    with pytest.raises(ModelTimeout) as raised:
        ask_one(client)
    message = str(raised.value)
    assert "call gave up after 1 attempt in" in message
    bound = r"no time left of the 0\.3 s call bound; last: no reply within 0\.[0-3]"
    assert re.search(bound, message)
    assert len(chat_server.requests) == 1


def test_a_call_waiting_to_retry_gives_its_slot_to_others(chat_server: ChatServer) -> None:
    def reply(recorded: Any) -> Reply:
        first = recorded.body["messages"][0]["content"] == "A" and not seen
        seen.append(recorded.body["messages"][0]["content"])
        return Reply.rate_limited(retry_after=5) if first else Reply.ok("fine")

    seen: list[str] = []
    chat_server.handler = reply
    b_done = asyncio.Event()

    async def sleep_until_b_is_done(seconds: float) -> None:
        # A hang guard only: with the slot held while sleeping, B could never be done.
        await asyncio.wait_for(b_done.wait(), timeout=30)

    client = client_for_server(chat_server, max_concurrency=1, sleep=sleep_until_b_is_done)
    a = request(messages=({"role": "user", "content": "A"},))
    b = request(messages=({"role": "user", "content": "B"},))

    async def go() -> list[ChatResponse]:
        async def then_done() -> ChatResponse:
            reply = await client.complete(b)
            b_done.set()
            return reply

        async with client:
            return list(await asyncio.gather(client.complete(a), then_done()))

    first, second = asyncio.run(go())
    assert (first.attempts, second.attempts) == (2, 1)
    assert seen == ["A", "B", "A"]
    assert chat_server.peak_in_flight == 1


def test_waiting_for_the_slot_again_counts_against_the_bound(chat_server: ChatServer) -> None:
    def reply(recorded: Any) -> Reply:
        if recorded.body["messages"][0]["content"] == "A":
            return Reply.rate_limited(retry_after=0)
        return Reply.ok("slow").after(30.0)

    chat_server.handler = reply
    client = client_for_server(chat_server, max_concurrency=1, timeout=60.0, call_timeout=0.5)
    a = request(messages=({"role": "user", "content": "A"},))
    b = request(messages=({"role": "user", "content": "B"},))

    async def go() -> list[Any]:
        async with client:
            return list(
                await asyncio.gather(client.complete(a), client.complete(b), return_exceptions=True)
            )

    first, second = asyncio.run(go())
    assert isinstance(first, ModelRateLimited)
    assert "no time left of the 0.5 s call bound" in str(first)
    assert isinstance(second, ModelTimeout)
    assert [r.body["messages"][0]["content"] for r in chat_server.requests] == ["A", "B"]
