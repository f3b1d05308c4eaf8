"""The LiteLLM path: what it sends, what it makes of replies and failures, its limits.

Most tests give the client a stand-in for `litellm.acompletion`; the last one runs the real
LiteLLM library against the local chat server, when the `litellm` extra is installed.
"""

from __future__ import annotations

import asyncio
import sys
from types import SimpleNamespace as Obj
from typing import Any

import pytest

from assay.models import Budget, BudgetExceeded, ChatRequest, client_for
from assay.models.litellm_client import LiteLLMClient
from assay.models.types import (
    ModelConfigError,
    ModelHTTPError,
    ModelRateLimited,
    ModelTimeout,
)
from chat_server import ChatServer, Reply

HI = ({"role": "user", "content": "hi"},)
MODEL = "litellm/anthropic/claude-3-5-haiku-latest"


def reply(content: Any = '{"ok": true}', prompt: int = 40, completion: int = 5) -> Any:
    return Obj(
        choices=[Obj(message=Obj(content=content))],
        model="claude-3-5-haiku",
        usage=Obj(prompt_tokens=prompt, completion_tokens=completion),
    )


class Recorder:
    def __init__(self, answer: Any = None, raises: Exception | None = None) -> None:
        self.calls: list[dict[str, Any]] = []
        self.answer = reply() if answer is None else answer
        self.raises = raises
        self.in_flight = self.peak = 0

    async def __call__(self, **kwargs: Any) -> Any:
        self.calls.append(kwargs)
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)
        await asyncio.sleep(0.01)
        self.in_flight -= 1
        if self.raises is not None:
            raise self.raises
        return self.answer


def ask(client: LiteLLMClient, **request: Any) -> Any:
    return asyncio.run(client.complete(ChatRequest(model=MODEL, messages=HI, **request)))


def test_the_request_goes_to_litellm_with_the_schema_and_limits() -> None:
    fake = Recorder()
    client = LiteLLMClient(completion=fake, timeout=12, max_retries=2, api_key="sk-secret")
    response = ask(client, json_schema={"type": "object"}, schema_name="verdict", seed=7)
    sent = fake.calls[0]
    assert sent["model"] == "anthropic/claude-3-5-haiku-latest"
    assert sent["messages"] == [{"role": "user", "content": "hi"}]
    assert sent["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "verdict", "schema": {"type": "object"}, "strict": True},
    }
    assert (sent["timeout"], sent["num_retries"], sent["temperature"], sent["seed"]) == (
        12.0,
        2,
        0.0,
        7,
    )
    assert sent["api_key"] == "sk-secret" and "sk-secret" not in repr(client)
    assert (response.text, response.usage.input_tokens, response.usage.output_tokens) == (
        '{"ok": true}',
        40,
        5,
    )
    assert client.usage.to_report()["calls"] == 1


@pytest.mark.parametrize(
    ("error", "kind"),
    [
        (type("RateLimitError", (Exception,), {})("slow down"), ModelRateLimited),
        (type("Timeout", (Exception,), {})("too slow"), ModelTimeout),
        (type("APIConnectionError", (Exception,), {"status_code": 503})("down"), ModelHTTPError),
    ],
)
def test_failures_become_model_errors_of_their_kind(error: Exception, kind: type) -> None:
    client = LiteLLMClient(completion=Recorder(raises=error))
    with pytest.raises(kind):
        ask(client)
    assert client.usage.to_report()["errors"] >= 1


def test_a_reply_without_content_is_a_model_error() -> None:
    client = LiteLLMClient(completion=Recorder(answer=Obj(choices=[], usage=None)))
    with pytest.raises(Exception, match="no choices"):
        ask(client)


def test_concurrency_is_capped_and_the_budget_stops_new_calls() -> None:
    fake = Recorder()
    client = LiteLLMClient(completion=fake, max_concurrency=3)

    async def many() -> None:
        await asyncio.gather(
            *(client.complete(ChatRequest(model=MODEL, messages=HI, sample=i)) for i in range(12))
        )

    asyncio.run(many())
    assert fake.peak <= 3 and len(fake.calls) == 12
    budget = Budget(max_tokens=50)
    spender = LiteLLMClient(completion=Recorder(), budget=budget)
    ask(spender)  # 45 tokens
    ask(spender)  # 90: over the cap now
    with pytest.raises(BudgetExceeded):
        ask(spender)


def test_client_for_routes_litellm_names_to_the_library(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("assay.models.litellm_client.find_spec", lambda name: object())
    client = client_for(MODEL, env={}, max_concurrency=2)
    assert isinstance(client, LiteLLMClient) and client.max_concurrency == 2


def test_without_the_extra_the_error_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "litellm", None)  # an import of it now fails
    with pytest.raises(ModelConfigError, match=r"pip install litellm$"):
        ask(LiteLLMClient())


def test_the_real_library_against_the_local_server(chat_server: ChatServer) -> None:
    pytest.importorskip("litellm", reason="the litellm extra is not installed")
    chat_server.enqueue(Reply.ok('{"score": 1}', input_tokens=30, output_tokens=4))
    client = LiteLLMClient(api_base=chat_server.base_url, api_key="sk-local", max_retries=0)
    response = asyncio.run(
        client.complete(ChatRequest(model="litellm/openai/judge-1", messages=HI))
    )
    assert response.text == '{"score": 1}'
    assert response.usage.total == 34
    assert chat_server.requests[0].body["model"] == "judge-1"


def test_the_whole_call_is_bounded_litellms_own_retries_included() -> None:
    async def retries_forever(**kwargs: Any) -> Any:
        await asyncio.Event().wait()  # LiteLLM waiting out a long Retry-After, say

    client = LiteLLMClient(completion=retries_forever, call_timeout=0.2)
    with pytest.raises(ModelTimeout, match=r"call gave up after .* the 0\.2 s call bound"):
        ask(client)
    assert client.usage.for_model(MODEL).errors == {"timeout": 1}
    with pytest.raises(ValueError, match="call_timeout"):
        LiteLLMClient(call_timeout=0)
