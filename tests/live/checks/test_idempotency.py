"""The live idempotency check with toy agents: one that keeps a dict of processed keys
(passes), one that runs again on every call (fails), and replies it cannot read (unscored)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from assay.live.agents import Agent, as_agent
from assay.live.capture import TrajectoryCollector, capturing, tool
from assay.live.checks.idempotency import check_idempotency
from assay.results import Score, ScoreStatus

ORDER = [{"role": "user", "content": "Pay invoice 7"}]


class Payments:
    """A toy payment agent; `remember` decides whether it keeps processed keys."""

    def __init__(self, *, remember: bool) -> None:
        self.remember = remember
        self.processed: dict[str, dict[str, Any]] = {}
        self.charges = 0
        self.configs: list[dict[str, Any]] = []

    def __call__(self, messages: list[dict[str, Any]], config: dict[str, Any]) -> dict[str, Any]:
        self.configs.append(config)
        key = config["idempotency_key"]
        if self.remember and key in self.processed:
            return {"status": "already_processed", "data": self.processed[key]}
        self.charges += 1
        charge(7, self.charges)
        data = {"invoice": 7, "payment_id": f"pay-{self.charges}", "amount": 10.0}
        self.processed[key] = data
        return {"status": "processed", "data": data, "content": "Paid."}


@tool
def charge(invoice: int, attempt: int) -> str:
    return f"charged {invoice} ({attempt})"


def check(agent: Agent, **options: Any) -> tuple[Score, TrajectoryCollector]:
    collector = TrajectoryCollector()

    async def go() -> Score:
        with capturing(collector):
            return await check_idempotency(agent, ORDER, {"tenant": "t1"}, **options)

    return asyncio.run(go()), collector


def test_an_agent_that_remembers_its_keys_passes() -> None:
    payments = Payments(remember=True)
    score, collector = check(as_agent(payments), key="key-1")

    assert (score.scorer, score.status, score.value, score.passed) == (
        "idempotency", ScoreStatus.SCORED, 1.0, True
    )
    assert payments.charges == 1
    assert [c["idempotency_key"] for c in payments.configs] == ["key-1", "key-1"]
    assert all(c["tenant"] == "t1" for c in payments.configs)  # the case's config is kept
    assert score.details == {
        "idempotency_key": "key-1",
        "first_status": "processed",
        "second_status": "already_processed",
        "same_data": True,
    }
    assert [c.name for c in collector.tool_calls] == ["charge"]  # charged once


def test_an_agent_that_runs_again_fails() -> None:
    payments = Payments(remember=False)
    score, collector = check(as_agent(payments))

    assert (score.status, score.value, score.passed) == (ScoreStatus.SCORED, 0.0, False)
    assert payments.charges == 2
    key = score.details["idempotency_key"]
    assert key.startswith("assay-") and len(key) > 20  # a fresh key
    assert score.rationale == (
        f"the second call with key {key!r} was answered 'processed', not 'already_processed': "
        "it was processed again"
    )
    assert score.details["same_data"] is False
    assert score.details["second_data"]["payment_id"] == "pay-2"
    assert [c.result for c in collector.tool_calls] == ["charged 7 (1)", "charged 7 (2)"]


def test_already_processed_with_other_data_fails() -> None:
    calls: list[int] = []

    def forgetful(messages: list[dict[str, Any]], config: dict[str, Any]) -> dict[str, Any]:
        calls.append(1)
        status = "processed" if len(calls) == 1 else "already_processed"
        return {"status": status, "data": {"payment_id": f"pay-{len(calls)}"}}

    score, _ = check(as_agent(forgetful), key="k")
    assert score.passed is False
    assert score.rationale == (
        "the second call with key 'k' was answered 'already_processed', but with other data"
    )


def test_numbers_compare_by_value() -> None:
    calls: list[int] = []

    def agent(messages: list[dict[str, Any]], config: dict[str, Any]) -> dict[str, Any]:
        calls.append(1)
        status = "processed" if len(calls) == 1 else "already_processed"
        return {"status": status, "data": {"amount": 10 if len(calls) == 1 else 10.0}}

    score, _ = check(as_agent(agent))
    assert score.passed is True


@pytest.mark.parametrize(
    ("first", "second", "reason", "calls"),
    [
        ("Paid.", None, "the first reply is not a dict with `status` and `data` (the agent "
         "returned text); the second call was not made", 1),
        ({"content": "Paid.", "status": "processed"}, None,
         "the first reply has no `data`; the second call was not made", 1),
        ({"content": "Paid."}, None,
         "the first reply has no `status` and no `data`; the second call was not made", 1),
        ({"status": "processed", "data": {}}, {"data": {}}, "the second reply has no `status`", 2),
        ({"status": "processed", "data": {}}, {"status": 3, "data": {}},
         "the second reply's `status` is a number, not text", 2),
    ],
)
def test_a_reply_without_status_and_data_is_unscored_never_passed_or_failed(
    first: Any, second: Any, reason: str, calls: int
) -> None:
    replies = [first, second]
    seen: list[int] = []

    def agent(messages: list[dict[str, Any]]) -> Any:
        seen.append(1)
        return replies[len(seen) - 1]

    score, _ = check(as_agent(agent))
    assert (score.status, score.value, score.passed) == (ScoreStatus.UNSCORED, None, None)
    assert score.details["reason"] == "not_exercised"
    assert score.rationale == reason
    assert len(seen) == calls


def test_an_agent_error_propagates() -> None:
    def broken(messages: list[dict[str, Any]]) -> str:
        raise RuntimeError("down")

    with pytest.raises(RuntimeError, match="down"):
        check(as_agent(broken))
