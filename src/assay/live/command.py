"""What `assay run` does once its arguments are checked: the evaluation, with Ctrl-C and
SIGTERM stopping it cleanly (the runs that finished are saved and the aggregate of them is
written; `--resume` finishes the rest)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assay.limits import MAX_REPLY_CHARS, MAX_TOOL_RESULT_CHARS
from assay.live._loop import run_to_end
from assay.live.api import AgentEvaluator
from assay.live.criteria import EvalConfig
from assay.live.evalset import EvalSet
from assay.live.executors import Executor
from assay.live.views import EvalReport
from assay.results import RunSummary

__all__ = ["RunRequest", "run_live"]


@dataclass(slots=True)
class RunRequest:
    """Everything `assay run` was asked."""

    agent: Any
    agent_name: str
    eval_set: EvalSet
    eval_set_path: str
    config: EvalConfig | None
    concurrency: int
    repeat: int
    timeout_s: float | None
    retries: int
    reports_dir: Path
    max_reply_chars: int = MAX_REPLY_CHARS
    max_tool_result_chars: int = MAX_TOOL_RESULT_CHARS
    resume: bool = False
    judge_options: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    executor: Executor | None = None
    """Where runs are made (None: this process); a remote one loads the agent from
    `agent_name`, the spec the command was given."""


def run_live(
    request: RunRequest, *, on_progress: Callable[[], None] | None = None
) -> tuple[EvalReport, RunSummary]:
    """Run the evaluation; the report and the aggregate written.

    Raises:
        KeyboardInterrupt: Ctrl-C or SIGTERM stopped it (what finished is saved; an agent
            blocking the event loop is interrupted so that it can be).
    """
    evaluator = AgentEvaluator(
        request.agent,
        config=request.config,
        concurrency=request.concurrency,
        num_runs=request.repeat,
        timeout=request.timeout_s,
        retries=request.retries,
        judge_options=request.judge_options,
        max_reply_chars=request.max_reply_chars,
        max_tool_result_chars=request.max_tool_result_chars,
        name=request.agent_name,
        executor=request.executor,
        spec=request.agent_name,
    )

    async def main() -> EvalReport:
        return await evaluator.evaluate(
            request.eval_set,
            reports_dir=request.reports_dir,
            resume=request.resume,
            on_result=(lambda _: on_progress()) if on_progress is not None else None,
            source=request.eval_set_path,
        )

    report = run_to_end(main(), block_limit_s=request.timeout_s)
    assert report.summary is not None
    return report, report.summary
