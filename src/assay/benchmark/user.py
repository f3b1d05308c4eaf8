"""The user an agent talks to in a benchmark task: who asks first, answers each reply, and
says when the conversation is over.

Example:
    >>> user = ScriptedUser(["And the balance?"], initial_query="Move 10 to savings")
    >>> user.get_initial_query(), user.respond("Done."), user.is_done()
    ('Move 10 to savings', 'And the balance?', False)
    >>> user.respond("It is 90."), user.is_done()
    ('', True)
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["LLMUser", "ScriptedUser", "User"]


class User(ABC):
    """A user: `get_initial_query` opens the conversation, `respond` answers each reply of
    the agent, `is_done` says when it is over (the benchmark stops asking the agent then)."""

    @abstractmethod
    def get_initial_query(self) -> str:
        """The first message."""

    @abstractmethod
    def respond(self, message: str) -> str:
        """The answer to the agent's `message`."""

    @abstractmethod
    def is_done(self) -> bool:
        """Whether the user has nothing more to say."""

    def gather_traces(self) -> dict[str, Any]:
        """The user's trace (subclasses add their messages)."""
        return {"type": type(self).__name__, "gathered_at": time.time()}


class ScriptedUser(User):
    """A user who says the given lines in order: the initial query, then one line per reply
    of the agent. It is done once the agent has answered its last line (it then says ""),
    once it has said `max_turns` messages (the initial one included), or on a line holding
    `stop_token` (which is taken out of it)."""

    def __init__(
        self,
        replies: Sequence[str],
        *,
        initial_query: str,
        max_turns: int | None = None,
        stop_token: str | None = None,
    ) -> None:
        if max_turns is not None and max_turns < 1:
            raise ValueError("max_turns must be at least 1")
        self.replies = list(replies)
        self.initial_query = initial_query
        self.max_turns = max_turns
        self.stop_token = stop_token
        self.messages: list[dict[str, str]] = []
        self._said = 0
        """Messages of the user so far, the initial one included."""
        self._next = 0
        self._stopped = False
        self._exhausted = False

    def get_initial_query(self) -> str:
        self._said += 1
        self.messages.append({"role": "user", "content": self.initial_query})
        return self.initial_query

    def respond(self, message: str) -> str:
        self.messages.append({"role": "assistant", "content": message})
        if self._next >= len(self.replies):
            self._exhausted = True
            return ""
        reply = self.replies[self._next]
        self._next += 1
        self._said += 1
        if self.stop_token is not None and self.stop_token in reply:
            self._stopped = True
            reply = reply.replace(self.stop_token, "").strip()
        self.messages.append({"role": "user", "content": reply})
        return reply

    def is_done(self) -> bool:
        out_of_turns = self.max_turns is not None and self._said >= self.max_turns
        return self._stopped or self._exhausted or out_of_turns

    def gather_traces(self) -> dict[str, Any]:
        return {
            **super().gather_traces(),
            "messages": list(self.messages),
            "message_count": len(self.messages),
            "turns_used": self._said,
            "max_turns": self.max_turns,
            "stopped_by_user": self._stopped,
        }


class LLMUser(User):
    """A user a model plays: its persona and goals, asked through assay's model client (the
    same as the live `simulation` check: cache, limits, budget), one message at a time. It
    is done when the model says so (`"done": true`), after `max_turns` messages (the initial
    one included), or when its reply holds `stop_token`. A user model that fails raises
    `UserError` (the repetition is then a `user_error`, not the agent's fault).

    Args:
        persona: Who the user is and what they want.
        model: The user model, `provider/model`.
        goals: What the user wants done (shown to the model).
        initial_query: The first message as written (else the model writes it).
        max_turns: Most messages of the user.
        stop_token: Text that ends the conversation when the user's message holds it.
        client_factory: Makes the model client (default: from `model` and
            `client_options`, as the judges' flags make theirs).
        client_options: `base_url`, `api_key`, `cache`, `budget`, ... for the default client.
    """

    def __init__(
        self,
        persona: str,
        *,
        model: str,
        goals: Sequence[str] = (),
        initial_query: str | None = None,
        max_turns: int = 5,
        stop_token: str | None = None,
        client_factory: Callable[[], Any] | None = None,
        **client_options: Any,
    ) -> None:
        from assay.live.checks.simulation import SimulationOutcome, SimulationSpec

        self.spec = SimulationSpec(
            persona=persona, goals=tuple(goals), max_turns=max_turns, model=model
        )
        self.initial_query = initial_query
        self.stop_token = stop_token
        self.outcome = SimulationOutcome([], 0, "max_turns", model)
        if client_factory is None:
            from assay.scorers._judge_client import default_client_factory

            client_factory = default_client_factory(model, **client_options)
        self._client_factory = client_factory
        self._done = False

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The conversation so far."""
        return self.outcome.conversation

    def get_initial_query(self) -> str:
        message = self.initial_query if self.initial_query is not None else self._ask()
        return self._say(message)

    def respond(self, message: str) -> str:
        self.messages.append({"role": "assistant", "content": message})
        if self.is_done():
            return ""
        return self._say(self._ask())

    def is_done(self) -> bool:
        said = sum(1 for m in self.messages if m["role"] == "user")
        return self._done or said >= self.spec.max_turns

    def _say(self, message: str) -> str:
        if self.stop_token is not None and self.stop_token in message:
            self._done = True
            message = message.replace(self.stop_token, "").strip()
        self.messages.append({"role": "user", "content": message})
        return message

    def _ask(self) -> str:
        """The model's next message for the user (its thread has no event loop running: one
        of its own for the call)."""
        import asyncio

        from assay.benchmark.errors import UserError
        from assay.live.checks.simulation import next_user_message

        async def ask() -> dict[str, Any] | None:
            client = self._client_factory()
            try:
                return await next_user_message(client, self.spec, self.outcome)
            finally:
                close = getattr(client, "aclose", None)
                if close is not None:
                    await close()

        said = asyncio.run(ask())
        if said is None:
            raise UserError(self.outcome.error or "the user model gave no reply",
                            component="user", details={"kind": self.outcome.error_kind})
        if said["done"]:
            self._done = True
            return ""
        return str(said["message"])

    def gather_traces(self) -> dict[str, Any]:
        return {
            **super().gather_traces(),
            "messages": list(self.messages),
            "message_count": len(self.messages),
            "max_turns": self.spec.max_turns,
            "stopped_by_user": self._done,
            **self.outcome.details(),
        }
