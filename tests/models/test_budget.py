"""Budgets stop new judge calls cleanly; JudgeUsage counts what the calls used."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from assay.models import (
    Budget,
    BudgetExceeded,
    ChatRequest,
    ChatResponse,
    JudgeUsage,
    ModelConfigError,
    ModelRateLimited,
    ModelTimeout,
    OpenAICompatibleClient,
    TokenUsage,
)
from chat_server import ChatServer, Reply

HI = ({"role": "user", "content": "Hi"},)


async def _no_wait(seconds: float) -> None:
    pass


def _request(model: str = "openai/gpt-4.1-mini") -> ChatRequest:
    return ChatRequest(model=model, messages=HI)


def _client(server: ChatServer, **options: Any) -> OpenAICompatibleClient:
    return OpenAICompatibleClient(server.base_url, sleep=_no_wait, timeout=5.0, **options)


def _run_in_order(client: OpenAICompatibleClient, count: int) -> list[ChatResponse | Exception]:
    """`count` calls one after another; each result or the error it raised."""

    async def go() -> list[ChatResponse | Exception]:
        results: list[ChatResponse | Exception] = []
        async with client:
            for _ in range(count):
                try:
                    results.append(await client.complete(_request()))
                except Exception as exc:
                    results.append(exc)
        return results

    return asyncio.run(go())


# -- Budget on its own ---------------------------------------------------------------------


def test_a_budget_without_caps_only_counts() -> None:
    budget = Budget()
    budget.record(TokenUsage(10**9, 10**9), cost_usd=10**6)
    budget.check()
    assert not budget.exhausted
    assert budget.tokens_used == 2 * 10**9


def test_the_token_cap_is_reached_at_equality() -> None:
    budget = Budget(max_tokens=30)
    budget.record(TokenUsage(10, 5), None)
    assert not budget.exhausted
    budget.record(TokenUsage(10, 5), None)
    assert budget.exhausted
    with pytest.raises(BudgetExceeded, match="30 of 30 tokens used") as raised:
        budget.check()
    assert raised.value.kind == "budget"
    assert budget.refused == 1


def test_the_cost_cap_ignores_unpriced_calls() -> None:
    budget = Budget(max_cost_usd=0.01)
    budget.record(TokenUsage(1, 1), None)
    budget.record(TokenUsage(1, 1), 0.004)
    assert not budget.exhausted
    budget.record(TokenUsage(1, 1), 0.007)
    with pytest.raises(BudgetExceeded, match=r"\$0\.011000 of \$0\.010000"):
        budget.check()


def test_a_zero_budget_allows_no_call() -> None:
    with pytest.raises(BudgetExceeded):
        Budget(max_tokens=0).check()


@pytest.mark.parametrize("caps", [{"max_tokens": -1}, {"max_cost_usd": -0.5}])
def test_negative_caps_are_refused(caps: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        Budget(**caps)


def test_budget_report() -> None:
    budget = Budget(max_tokens=100, max_cost_usd=1.0)
    budget.record(TokenUsage(60, 40), 0.25)
    with pytest.raises(BudgetExceeded):
        budget.check()
    assert budget.to_report() == {
        "max_tokens": 100,
        "max_cost_usd": 1.0,
        "tokens_used": 100,
        "cost_usd": 0.25,
        "calls": 1,
        "refused_calls": 1,
        "exhausted": True,
    }
    assert "100" in repr(budget)


def test_a_budget_is_safe_to_share_between_threads() -> None:
    budget = Budget()

    def spend() -> None:
        for _ in range(1000):
            budget.record(TokenUsage(1, 1), 0.001)

    threads = [threading.Thread(target=spend) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert budget.tokens_used == 16_000
    assert budget.cost_usd == pytest.approx(8.0)


# -- JudgeUsage on its own -----------------------------------------------------------------


def test_judge_usage_counts_calls_cache_hits_retries_and_errors() -> None:
    usage = JudgeUsage()
    usage.record("openai/a", ChatResponse("{}", TokenUsage(100, 20), cost_usd=0.002, attempts=3))
    usage.record("openai/a", ChatResponse("{}", TokenUsage(100, 20), cost_usd=0.002, cached=True))
    usage.record("vllm/b", ChatResponse("{}", TokenUsage(5, 5), cost_usd=None))
    usage.record_error("vllm/b", ModelTimeout("slow"), attempts=5)
    usage.record_error("vllm/b", ModelRateLimited("busy"), attempts=5)
    usage.record_error("vllm/b", BudgetExceeded("spent"))

    report = usage.to_report()
    assert report == {
        "calls": 3,
        "cached_calls": 1,
        "retries": 10,
        "input_tokens": 105,
        "output_tokens": 25,
        "unpriced_calls": 1,
        "cost_usd": 0.002,
        "errors": 3,
        "models": {
            "openai/a": {
                "calls": 2,
                "cached_calls": 1,
                "retries": 2,
                "input_tokens": 100,
                "output_tokens": 20,
                "cost_usd": 0.002,
                "unpriced_calls": 0,
                "errors": {},
            },
            "vllm/b": {
                "calls": 1,
                "cached_calls": 0,
                "retries": 8,
                "input_tokens": 5,
                "output_tokens": 5,
                "cost_usd": None,
                "unpriced_calls": 1,
                "errors": {"budget": 1, "rate_limited": 1, "timeout": 1},
            },
        },
    }
    assert usage.for_model("vllm/b").errors == {"budget": 1, "rate_limited": 1, "timeout": 1}
    assert usage.for_model("never/called").calls == 0


def test_an_empty_usage_report() -> None:
    report = JudgeUsage().to_report()
    assert report["calls"] == 0
    assert report["cost_usd"] is None
    assert report["models"] == {}


# -- budgets on the real client ------------------------------------------------------------


def test_the_token_budget_stops_new_calls_without_a_request(chat_server: ChatServer) -> None:
    chat_server.default = Reply.ok(input_tokens=10, output_tokens=5)
    budget = Budget(max_tokens=30)
    client = _client(chat_server, budget=budget)
    first, second, third, fourth = _run_in_order(client, 4)

    assert isinstance(first, ChatResponse)
    assert isinstance(second, ChatResponse)
    assert isinstance(third, BudgetExceeded)
    assert isinstance(fourth, BudgetExceeded)
    assert "30 of 30 tokens used" in str(third)
    assert len(chat_server.requests) == 2
    assert budget.tokens_used == 30
    assert budget.refused == 2
    assert client.usage.for_model("openai/gpt-4.1-mini").errors == {"budget": 2}


def test_the_cost_budget_stops_new_calls(chat_server: ChatServer) -> None:
    # gpt-4.1-mini: 1,000 input tokens cost $0.0004; two calls reach a $0.0008 cap.
    chat_server.default = Reply.ok(input_tokens=1000, output_tokens=0)
    budget = Budget(max_cost_usd=0.0008)
    results = _run_in_order(_client(chat_server, budget=budget), 3)

    assert [type(r).__name__ for r in results] == ["ChatResponse", "ChatResponse", "BudgetExceeded"]
    assert len(chat_server.requests) == 2
    assert budget.cost_usd == pytest.approx(0.0008)


def test_a_cost_budget_refuses_a_model_without_a_price(chat_server: ChatServer) -> None:
    client = _client(chat_server, budget=Budget(max_cost_usd=1.0))

    async def go() -> None:
        async with client:
            await client.complete(_request("vllm/unpriced-model"))

    with pytest.raises(ModelConfigError, match=r"no price .*'unpriced-model'.*prices="):
        asyncio.run(go())
    assert chat_server.requests == []

    priced = _client(
        chat_server, budget=Budget(max_cost_usd=1.0), prices={"unpriced-model": (1, 1)}
    )
    assert isinstance(_run_in_order(priced, 1)[0], ChatResponse)


def test_calls_in_flight_finish_and_are_counted(chat_server: ChatServer) -> None:
    # The budget covers one call, but four start before any has finished: all four finish
    # and are counted; the next call is refused.
    chat_server.default = Reply.ok(input_tokens=10, output_tokens=5).after(0.1)
    budget = Budget(max_tokens=15)
    client = _client(chat_server, budget=budget)

    async def go() -> tuple[list[ChatResponse], BaseException | None]:
        async with client:
            replies = await asyncio.gather(*(client.complete(_request()) for _ in range(4)))
            try:
                await client.complete(_request())
            except BudgetExceeded as exc:
                return list(replies), exc
            return list(replies), None

    replies, refused = asyncio.run(go())
    assert len(replies) == 4
    assert isinstance(refused, BudgetExceeded)
    assert budget.tokens_used == 60
    assert len(chat_server.requests) == 4


def test_calls_waiting_for_a_slot_do_not_start_once_the_budget_is_spent(
    chat_server: ChatServer,
) -> None:
    chat_server.default = Reply.ok(input_tokens=10, output_tokens=5).after(0.05)
    budget = Budget(max_tokens=15)
    client = _client(chat_server, budget=budget, max_concurrency=1)

    async def go() -> list[ChatResponse | BaseException]:
        async with client:
            return await asyncio.gather(
                *(client.complete(_request()) for _ in range(5)), return_exceptions=True
            )

    results = asyncio.run(go())
    assert isinstance(results[0], ChatResponse)
    assert all(isinstance(r, BudgetExceeded) for r in results[1:])
    assert len(chat_server.requests) == 1


def test_one_budget_is_shared_by_clients(chat_server: ChatServer) -> None:
    chat_server.default = Reply.ok(input_tokens=10, output_tokens=5)
    budget = Budget(max_tokens=15)
    assert isinstance(_run_in_order(_client(chat_server, budget=budget), 1)[0], ChatResponse)
    assert isinstance(_run_in_order(_client(chat_server, budget=budget), 1)[0], BudgetExceeded)
    assert len(chat_server.requests) == 1
