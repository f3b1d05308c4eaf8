"""The live benchmark's agent: answers "answer" after a fixed delay, as a model would.

Usage:
    assay run bench/live_agent.py:agent EVALSET --concurrency 50 --no-progress -q

The delay is 0.2 s, or the number of seconds in the environment variable `LIVE_BENCH_DELAY`
(set by `live_bench.py --delay`), read once when the module is imported.
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

DELAY = float(os.environ.get("LIVE_BENCH_DELAY", "0.2"))


async def agent(messages: list[dict[str, Any]]) -> str:
    """Wait `DELAY` seconds, then answer "answer" whatever was asked."""
    await asyncio.sleep(DELAY)
    return "answer"
