"""Agents the Ray tests run on workers, imported there by name (the tests' folder is on the
driver's import path, which the executor gives workers on this machine)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from assay.live.capture import tool


@tool
def lookup(city: str) -> str:
    """A deterministic tool the agent calls, so that a run has steps to compare."""
    return {"fr": "Paris", "de": "Berlin", "it": "Rome"}.get(city, "unknown")


async def capital(messages: list[dict[str, Any]]) -> str:
    """Answers `capital of XX` through the tool; a question ending in `?!` is answered
    wrongly, so that runs differ in their verdicts."""
    asked = str(messages[-1]["content"])
    city = asked.split()[-1].strip("?!")
    await asyncio.sleep(0.01)
    answer = lookup(city)
    return "no idea" if asked.endswith("?!") else answer


async def slow(messages: list[dict[str, Any]]) -> str:
    """Answers after 0.3 s (long enough to be killed under)."""
    await asyncio.sleep(0.3)
    return "done"


async def sleeper(messages: list[dict[str, Any]]) -> str:
    """Hangs on `hang`, cooperatively; answers the rest at once."""
    if "hang" in str(messages[-1]["content"]):
        await asyncio.sleep(60)
    return "done"


def sync_sleeper(messages: list[dict[str, Any]]) -> str:
    """A sync agent that hangs its thread on `hang`."""
    if "hang" in str(messages[-1]["content"]):
        time.sleep(60)
    return "done"


async def blocker(messages: list[dict[str, Any]]) -> str:
    """Holds its worker's event loop on `block` (time.sleep in async code)."""
    if "block" in str(messages[-1]["content"]):
        time.sleep(20)
    await asyncio.sleep(0.2)
    return "done"


@tool
def open_lock(name: str) -> Any:
    """A tool whose result cannot be pickled (a lock): it cannot travel back from a worker."""
    import threading

    return threading.Lock()


def locker(messages: list[dict[str, Any]]) -> str:
    """Calls `open_lock`, then answers."""
    open_lock("door")
    return "done"


from assay.benchmark import (  # noqa: E402
    AgentAdapter,
    Benchmark,
    Environment,
    ScorerEvaluator,
)


class _Echo(AgentAdapter):
    def _run_agent(self, query: str) -> str:
        return "Paris" if "France" in query else "no idea"


class _Plain(Environment):
    def setup_state(self, data: Any) -> Any:
        return data

    def create_tools(self) -> dict[str, Any]:
        return {}


class JudgedBench(Benchmark):
    """A benchmark whose check is a model judge (`llm_judge` as a `ScorerEvaluator`)."""

    def setup_environment(self, agent_data: Any, task: Any, seed_generator: Any = None) -> Any:
        return _Plain(task.environment_data)

    def setup_agents(self, agent_data: Any, environment: Any, task: Any, user: Any,
                     seed_generator: Any = None) -> Any:
        agent = _Echo(None, "echo")
        return [agent], {"echo": agent}

    def setup_evaluators(self, environment: Any, task: Any, agents: Any, user: Any,
                         seed_generator: Any = None) -> Any:
        return [ScorerEvaluator(task, environment, scorer="llm_judge", prompt="Right?")]

    def run_agents(self, agents: Any, task: Any, environment: Any, query: str) -> Any:
        return agents[0].run(query)
