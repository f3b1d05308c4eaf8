"""The live benchmark's workload as an Inspect AI task (the peer of `live_agent.py`).

Usage:
    inspect eval bench/live_inspect.py@live_bench --model mockllm/model -T cases=1000 \\
        -T delay=0.2 --max-samples 50 --max-connections 50 --display none --log-dir DIR

`cases` samples, each asking the same kind of question as the assay eval set of
`live_bench.py` with the target "answer"; the solver waits `delay` seconds (the agent's
latency) and sets "answer" as the output, without calling the model; the `includes()` scorer
checks it, as assay's response check does. Needs `pip install -e '.[bench]'`.
"""

from __future__ import annotations

import asyncio

from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from inspect_ai.scorer import includes
from inspect_ai.solver import Generate, Solver, TaskState, solver


@solver
def sleepy_answer(delay: float = 0.2) -> Solver:
    """A solver that answers "answer" after `delay` seconds, as the assay agent does."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        await asyncio.sleep(delay)
        state.output.completion = "answer"
        return state

    return solve


@task
def live_bench(cases: int = 1000, delay: float = 0.2) -> Task:
    """`cases` samples answered by `sleepy_answer(delay)` and scored by `includes()`."""
    return Task(
        dataset=[
            Sample(id=f"c{i:04d}", input=f"Question {i}: what is the answer?", target="answer")
            for i in range(1, cases + 1)
        ],
        solver=sleepy_answer(delay),
        scorer=includes(),
    )
