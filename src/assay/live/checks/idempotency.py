"""The idempotency check, live: the same request sent twice with one idempotency key must be
answered the second time as already processed, with the same data, and not run again.

The agent gets the key as `config["idempotency_key"]` (a callable agent that takes a `config`
argument receives it) and answers with a dict that has a `status` and the `data` it produced
(`AgentReply.data`). The check passes when the second reply's status is `already_processed`
and its `data` equals the first reply's (numbers by value, as JSON compares them); it fails
when the second reply ran again (another status) or changed the data. A reply that is not a
dict with both fields cannot say either way: the score is unscored (`not_exercised`) with
what was missing, and after such a first reply the second call is not made.

Both calls run in whatever capture the caller set, so the run's trajectory shows what each
one did.

Example:
    >>> import asyncio
    >>> from assay.live.agents import as_agent
    >>> done: dict[str, dict] = {}
    >>> def pay(messages, config):
    ...     key = config["idempotency_key"]
    ...     if key in done:
    ...         return {"status": "already_processed", "data": done[key]}
    ...     done[key] = {"payment": len(done) + 1}
    ...     return {"status": "processed", "data": done[key]}
    >>> score = asyncio.run(check_idempotency(
    ...     as_agent(pay), [{"role": "user", "content": "Pay 10 EUR"}], {}, key="k-1"))
    >>> score.passed, score.rationale
    (True, "the second call with key 'k-1' was answered already_processed, with the same data")
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from typing import Any, Final

import orjson

from assay._jsonable import dumps_lenient, json_type_phrase, same
from assay.live.agents import Agent, AgentReply
from assay.results import Score

__all__ = ["ALREADY_PROCESSED", "CONFIG_KEY", "SCORER_NAME", "check_idempotency"]

SCORER_NAME: Final = "idempotency"
"""The `scorer` of the scores `check_idempotency` gives."""

CONFIG_KEY: Final = "idempotency_key"
"""The key of the runtime configuration the idempotency key is passed under."""

ALREADY_PROCESSED: Final = "already_processed"
"""The status a second call with a key already used must answer."""


async def check_idempotency(
    agent: Agent,
    conversation: Sequence[Mapping[str, Any]],
    config: Mapping[str, Any],
    *,
    key: str | None = None,
) -> Score:
    """Send `conversation` to `agent` twice with one idempotency key and compare the replies.

    Args:
        agent: The agent, as the runner drives it (`assay.live.agents.as_agent`).
        conversation: The case's messages (OpenAI-style), sent as they are both times.
        config: The case's runtime configuration; `idempotency_key` is set in a copy.
        key: The idempotency key; None makes a new one (`assay-<uuid>`), so that no earlier
            run's key is reused.

    Returns:
        Passed when the second reply is `already_processed` with the first reply's data;
        failed when it is not; unscored (`not_exercised`) when a reply has no `status` and
        `data` to compare.

    Raises:
        Exception: whatever the agent raised.
    """
    key = key if key is not None else f"assay-{uuid.uuid4().hex}"
    settings = {**config, CONFIG_KEY: key}
    details: dict[str, Any] = {"idempotency_key": key}
    first = await agent.respond([dict(m) for m in conversation], settings)
    problem = _unreadable(first, "first")
    if problem is not None:
        return _not_exercised(f"{problem}; the second call was not made", details)
    second = await agent.respond([dict(m) for m in conversation], settings)
    problem = _unreadable(second, "second")
    if problem is not None:
        return _not_exercised(problem, details)
    assert first.data is not None and second.data is not None
    status = second.data["status"]
    same_data = same(first.data["data"], second.data["data"])
    details.update(
        first_status=first.data["status"], second_status=status, same_data=same_data
    )
    if not same_data:
        details["first_data"] = _plain(first.data["data"])
        details["second_data"] = _plain(second.data["data"])
    if status != ALREADY_PROCESSED:
        why = (
            f"the second call with key {key!r} was answered {status!r}, not "
            f"{ALREADY_PROCESSED!r}: it was processed again"
        )
    elif not same_data:
        why = f"the second call with key {key!r} was answered {status!r}, but with other data"
    else:
        return Score.scored(
            SCORER_NAME,
            1.0,
            passed=True,
            rationale=(
                f"the second call with key {key!r} was answered {ALREADY_PROCESSED}, with the "
                "same data"
            ),
            details=details,
        )
    return Score.scored(SCORER_NAME, 0.0, passed=False, rationale=why, details=details)


def _unreadable(reply: AgentReply, which: str) -> str | None:
    """What keeps `reply` from being compared, or None."""
    data = reply.data
    if data is None:
        returned = "text" if reply.content is not None else "no reply"
        return (
            f"the {which} reply is not a dict with `status` and `data` (the agent returned "
            f"{returned})"
        )
    missing = [name for name in ("status", "data") if name not in data]
    if missing:
        return f"the {which} reply has no {' and no '.join(f'`{m}`' for m in missing)}"
    if not isinstance(data["status"], str):
        return f"the {which} reply's `status` is {json_type_phrase(data['status'])}, not text"
    return None


def _not_exercised(reason: str, details: dict[str, Any]) -> Score:
    return Score.unscored(SCORER_NAME, reason, {"reason": "not_exercised", **details})


def _plain(value: Any) -> Any:
    """`value` as JSON would keep it (a report holds it)."""
    return orjson.loads(dumps_lenient(value))
