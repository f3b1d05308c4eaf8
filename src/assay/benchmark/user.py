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
from collections.abc import Sequence
from typing import Any

__all__ = ["ScriptedUser", "User"]


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
