"""Whose fault a failure in a benchmark task is: the agent's, the environment's or the
(simulated) user's. A component raises one of these to say so; any other exception from a
task is an `unknown_execution_error` (see `assay.benchmark.status`).

Example:
    >>> str(AgentError("called a tool that does not exist", component="bank"))
    '[bank] called a tool that does not exist'
"""

from __future__ import annotations

from typing import Any

__all__ = ["AgentError", "BenchmarkError", "EnvironmentError", "UserError"]


class BenchmarkError(Exception):
    """A failure a benchmark component reports, with the component it comes from and any
    details worth keeping in the report."""

    def __init__(
        self,
        message: str,
        *,
        component: str | None = None,
        details: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.component = component
        self.details = dict(details or {})

    def __str__(self) -> str:
        return f"[{self.component}] {self.message}" if self.component else self.message


class AgentError(BenchmarkError):
    """The agent did something wrong (a bad tool call, a malformed answer): it counts
    against the agent."""

    def __init__(
        self,
        message: str,
        *,
        component: str | None = None,
        details: dict[str, Any] | None = None,
        suggestion: str | None = None,
    ) -> None:
        super().__init__(message, component=component, details=details)
        self.suggestion = suggestion


class EnvironmentError(BenchmarkError):
    """The environment failed (a tool's backend, the task's state): not the agent's fault."""


class UserError(BenchmarkError):
    """The user, or its simulator, failed: not the agent's fault."""
