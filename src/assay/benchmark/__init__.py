"""Benchmarks: an environment with tools and state, a simulated user, agents and evaluators
around each task, repeated, on assay's runner and into assay's reports (see
`assay.benchmark.benchmark` for the lifecycle and the statuses).

Example:
    >>> from assay.benchmark import Benchmark, Evaluator, Task
    >>> Task("What is 2 + 2?", id="sum").id
    'sum'
"""

from __future__ import annotations

from assay.benchmark.agent import AgentAdapter
from assay.benchmark.benchmark import (
    Benchmark,
    BenchmarkCallback,
    TaskExecutionStatus,
    judge_settings,
)
from assay.benchmark.environment import Environment, RecordedTool
from assay.benchmark.errors import AgentError, BenchmarkError, EnvironmentError, UserError
from assay.benchmark.evaluator import Evaluator, verdict_of
from assay.benchmark.scorer_evaluator import ScorerEvaluator
from assay.benchmark.seeding import SeedGenerator
from assay.benchmark.task import (
    SequentialTaskQueue,
    Task,
    TaskProtocol,
    TaskQueue,
    load_tasks,
    tasks_of,
)
from assay.benchmark.user import LLMUser, ScriptedUser, User

__all__ = [
    "AgentAdapter",
    "AgentError",
    "Benchmark",
    "BenchmarkCallback",
    "BenchmarkError",
    "Environment",
    "EnvironmentError",
    "Evaluator",
    "LLMUser",
    "RecordedTool",
    "ScorerEvaluator",
    "ScriptedUser",
    "SeedGenerator",
    "SequentialTaskQueue",
    "Task",
    "TaskExecutionStatus",
    "TaskProtocol",
    "TaskQueue",
    "User",
    "UserError",
    "judge_settings",
    "load_tasks",
    "tasks_of",
    "verdict_of",
]
