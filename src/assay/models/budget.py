"""What judge calls may spend, and what they did spend.

A `Budget` caps an evaluation's judge calls in tokens and/or US dollars. Every call of the
evaluation shares it: once the spend reaches a cap, no new call starts (it raises
`BudgetExceeded` without touching the network), while calls already in flight finish and are
counted. A budget can therefore be overshot by at most the calls in flight when it ran out.

`JudgeUsage` counts what the judge's calls used, per model: calls, cached calls, retries,
tokens, cost and failures. Reports show it as the judge's cost, kept apart from the agent's.

Both are safe to share between event loops and threads.

Example:
    >>> from assay.models.types import ChatResponse, TokenUsage
    >>> budget = Budget(max_tokens=100)
    >>> budget.record(TokenUsage(60, 40), cost_usd=None)
    >>> budget.exhausted
    True
    >>> usage = JudgeUsage()
    >>> usage.record("openai/gpt-4.1-mini", ChatResponse("{}", TokenUsage(60, 40), cost_usd=0.0001))
    >>> usage.to_report()["calls"]
    1
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from assay.models.types import BudgetExceeded, ChatResponse, ModelError, TokenUsage

__all__ = ["Budget", "JudgeUsage", "ModelUsage"]


class Budget:
    """Caps in total tokens and/or USD, shared by every judge call of an evaluation.

    A cap of None means no cap on that measure. A budget with neither cap only counts.
    Cached replies are not recorded: they spent nothing.

    Args:
        max_tokens: Total tokens (input plus output) the calls may use; None for no cap.
        max_cost_usd: Estimated US dollars the calls may cost; None for no cap. A client with
            this cap refuses models it has no price for, since it could not keep to it.

    Raises:
        ValueError: a cap is negative.

    Example:
        >>> budget = Budget(max_cost_usd=0.01)
        >>> budget.check()  # nothing spent yet: a call may start
        >>> budget.record(TokenUsage(1000, 200), cost_usd=0.012)
        >>> budget.check()  # doctest: +ELLIPSIS
        Traceback (most recent call last):
            ...
        assay.models.types.BudgetExceeded: judge budget spent: $0.012000 of $0.010000 used; ...
    """

    def __init__(self, max_tokens: int | None = None, max_cost_usd: float | None = None) -> None:
        if max_tokens is not None and max_tokens < 0:
            raise ValueError(f"max_tokens must be >= 0, not {max_tokens}")
        if max_cost_usd is not None and max_cost_usd < 0:
            raise ValueError(f"max_cost_usd must be >= 0, not {max_cost_usd}")
        self.max_tokens = max_tokens
        """Cap on total tokens, or None."""
        self.max_cost_usd = max_cost_usd
        """Cap on estimated cost in USD, or None."""
        self._lock = threading.Lock()
        self._tokens = 0
        self._cost = 0.0
        self._calls = 0
        self._refused = 0

    @property
    def tokens_used(self) -> int:
        """Tokens recorded so far."""
        return self._tokens

    @property
    def cost_usd(self) -> float:
        """Estimated USD recorded so far (calls without a price count as 0)."""
        return self._cost

    @property
    def refused(self) -> int:
        """Calls refused because the budget was spent."""
        return self._refused

    @property
    def exhausted(self) -> bool:
        """True once the spend has reached a cap: no new call may start."""
        return self._reason() is not None

    def _reason(self) -> str | None:
        if self.max_tokens is not None and self._tokens >= self.max_tokens:
            return f"{self._tokens} of {self.max_tokens} tokens used"
        if self.max_cost_usd is not None and self._cost >= self.max_cost_usd:
            return f"${self._cost:.6f} of ${self.max_cost_usd:.6f} used"
        return None

    def check(self) -> None:
        """Allow a new call, or refuse it.

        Raises:
            BudgetExceeded: the spend has reached a cap; the refusal is counted.
        """
        with self._lock:
            reason = self._reason()
            if reason is None:
                return
            self._refused += 1
        raise BudgetExceeded(f"judge budget spent: {reason}; no new judge call is made")

    def record(self, usage: TokenUsage, cost_usd: float | None) -> None:
        """Count a finished call's tokens and cost.

        Args:
            usage: Tokens the call used.
            cost_usd: Its estimated cost; None when the model has no price.
        """
        with self._lock:
            self._calls += 1
            self._tokens += max(usage.input_tokens, 0) + max(usage.output_tokens, 0)
            if cost_usd is not None:
                self._cost += cost_usd

    def to_report(self) -> dict[str, Any]:
        """The caps and the spend, as plain data for a report.

        Example:
            >>> Budget(max_tokens=10).to_report()["exhausted"]
            False
        """
        with self._lock:
            return {
                "max_tokens": self.max_tokens,
                "max_cost_usd": self.max_cost_usd,
                "tokens_used": self._tokens,
                "cost_usd": round(self._cost, 6),
                "calls": self._calls,
                "refused_calls": self._refused,
                "exhausted": self._reason() is not None,
            }

    def __repr__(self) -> str:
        return (
            f"Budget(max_tokens={self.max_tokens!r}, max_cost_usd={self.max_cost_usd!r}, "
            f"tokens_used={self._tokens}, cost_usd={self._cost:.6f})"
        )


@dataclass(slots=True)
class ModelUsage:
    """What the judge's calls to one model used."""

    calls: int = 0
    """Calls that got a reply, cached ones included."""

    cached_calls: int = 0
    """Replies served from the cache: no request was made, nothing was spent."""

    retries: int = 0
    """Extra HTTP attempts after 429, 5xx, timeouts or connection errors, failed calls' too."""

    input_tokens: int = 0
    """Input (prompt) tokens of the calls that were made (not of cached replies)."""

    output_tokens: int = 0
    """Output (completion) tokens of the calls that were made."""

    cost_usd: float = 0.0
    """Estimated cost of the priced calls that were made."""

    unpriced_calls: int = 0
    """Calls made whose cost is unknown (model not in the price table, or no usage reported)."""

    errors: dict[str, int] = field(default_factory=dict)
    """Calls that gave no usable reply, by `ModelError.kind`."""

    def to_report(self) -> dict[str, Any]:
        """Plain data for a report; `cost_usd` is None when no call made had a price."""
        made = self.calls - self.cached_calls
        priced = made - self.unpriced_calls
        return {
            "calls": self.calls,
            "cached_calls": self.cached_calls,
            "retries": self.retries,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cost_usd": round(self.cost_usd, 6) if priced > 0 else None,
            "unpriced_calls": self.unpriced_calls,
            "errors": dict(sorted(self.errors.items())),
        }


class JudgeUsage:
    """Judge calls' usage and cost per model, for the report's judge section.

    The HTTP client records every call it makes (and every failure); a cache in front of it
    records the replies it serves, with `cached=True`.

    Example:
        >>> from assay.models.types import ChatResponse, ModelTimeout, TokenUsage
        >>> usage = JudgeUsage()
        >>> usage.record("m", ChatResponse("{}", TokenUsage(10, 2), cost_usd=0.5, attempts=2))
        >>> usage.record("m", ChatResponse("{}", TokenUsage(10, 2), cached=True))
        >>> usage.record_error("m", ModelTimeout("slow"), attempts=3)
        >>> report = usage.to_report()
        >>> report["calls"], report["cached_calls"], report["retries"], report["errors"]
        (2, 1, 3, 1)
        >>> report["models"]["m"]["errors"]
        {'timeout': 1}
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._models: dict[str, ModelUsage] = {}

    def _model(self, model: str) -> ModelUsage:
        found = self._models.get(model)
        if found is None:
            found = self._models[model] = ModelUsage()
        return found

    def record(self, model: str, response: ChatResponse) -> None:
        """Count one reply.

        Args:
            model: The model the request named (`provider/model`).
            response: The reply; a cached one counts as a call but spends nothing.
        """
        with self._lock:
            entry = self._model(model)
            entry.calls += 1
            if response.cached:
                entry.cached_calls += 1
                return
            entry.retries += max(response.attempts - 1, 0)
            entry.input_tokens += max(response.usage.input_tokens, 0)
            entry.output_tokens += max(response.usage.output_tokens, 0)
            if response.cost_usd is None:
                entry.unpriced_calls += 1
            else:
                entry.cost_usd += response.cost_usd

    def record_error(self, model: str, error: ModelError, attempts: int = 0) -> None:
        """Count a call that gave no usable reply.

        Args:
            model: The model the request named.
            error: What went wrong; counted under its `kind`.
            attempts: HTTP attempts it took (0 when it was refused before any).
        """
        with self._lock:
            entry = self._model(model)
            entry.retries += max(attempts - 1, 0)
            entry.errors[error.kind] = entry.errors.get(error.kind, 0) + 1

    def for_model(self, model: str) -> ModelUsage:
        """A copy of one model's counts (all zero when it was never called)."""
        with self._lock:
            found = self._models.get(model)
            if found is None:
                return ModelUsage()
            return ModelUsage(
                calls=found.calls,
                cached_calls=found.cached_calls,
                retries=found.retries,
                input_tokens=found.input_tokens,
                output_tokens=found.output_tokens,
                cost_usd=found.cost_usd,
                unpriced_calls=found.unpriced_calls,
                errors=dict(found.errors),
            )

    def to_report(self) -> dict[str, Any]:
        """Totals and per-model figures, as plain data for a report.

        `cost_usd` is the sum over priced calls, None when no call made had a price;
        `unpriced_calls` says how many calls it leaves out.

        Example:
            >>> JudgeUsage().to_report()["cost_usd"] is None
            True
        """
        with self._lock:
            models = {name: self._models[name].to_report() for name in sorted(self._models)}
        totals: dict[str, Any] = {
            key: sum(entry[key] for entry in models.values())
            for key in (
                "calls",
                "cached_calls",
                "retries",
                "input_tokens",
                "output_tokens",
                "unpriced_calls",
            )
        }
        costs = [entry["cost_usd"] for entry in models.values() if entry["cost_usd"] is not None]
        totals["cost_usd"] = round(sum(costs), 6) if costs else None
        totals["errors"] = sum(sum(entry["errors"].values()) for entry in models.values())
        totals["models"] = models
        return totals
