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
