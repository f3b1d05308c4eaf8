"""`AgentEvaluator`: the seed's entry point to a live evaluation.

Example:
    >>> import asyncio
    >>> from assay.live.evalset import EvalSet
    >>> from assay.schema.evalset import EvalCase
    >>> async def agent(messages):
    ...     return "Paris" if "France" in messages[-1]["content"] else "no idea"
    >>> cases = EvalSet(cases=[
    ...     EvalCase.single_turn("fr", "Capital of France?", expected_response="Paris"),
    ...     EvalCase.single_turn("de", "Capital of Germany?", expected_response="Berlin")])
    >>> report = AgentEvaluator(agent, concurrency=2).evaluate_sync(cases)
    >>> report.pass_rate, [case.passed for case in report.cases]
    (0.5, [True, False])
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from assay._text import path_text
from assay.limits import MAX_REPLY_CHARS, MAX_TOOL_RESULT_CHARS
from assay.live._loop import run_to_end
from assay.live.criteria import EvalConfig, inferred_config
from assay.live.evalset import EvalSet
from assay.live.executors import Executor, executor_of
from assay.live.output import EVALSET_FILE, RUNS_FILE, LiveReports
from assay.live.runner import (
    Engine,
    RunKey,
    RunSettings,
    Unit,
    UnitOutcome,
    capture_warning,
    units_of,
)
from assay.live.views import EvalCaseResult, EvalReport, live_figures
from assay.reports.red_flags import RedFlagThresholds
from assay.results import CaseResult
from assay.schema.evalset import EvalCase

__all__ = ["AgentEvaluator"]


class AgentEvaluator:
    """Runs an agent over an eval set and scores every run.

    Args:
        graph: The agent: a sync or async callable taking the conversation's messages, a
            LangGraph graph or LangChain runnable, or a `ToolAgent` (see `assay.live.agents`).
        collector: A `TrajectoryCollector` already wired into the agent (the seed's
            `make_trajectory_callback(collector)`); after each case it holds that case's
            record. Each case records into a capture of its own regardless, so cases run
            concurrently never mix.
        config: The criteria; None: those the cases' expectations call for (tool match,
            trajectory, response match).
        concurrency: Runs in flight at once.
        num_runs: How many times each case is run (repetitions find flaky cases).
        timeout: Seconds a run (all its turns) may take; the agent is cancelled then.
        retries: Extra attempts of a run after an infrastructure error.
        judge_options: Options per scorer name for the criteria that ask a model (model,
            `client_options` such as `base_url`, cache settings).
        name: The agent's name in the reports (default: its own).
        max_reply_chars: Longest reply of one turn (default `assay.limits.MAX_REPLY_CHARS`,
            a million characters); a longer one makes its run an `agent_error`, not kept.
        max_tool_result_chars: Longest tool result as JSON text (default
            `assay.limits.MAX_TOOL_RESULT_CHARS`, ten million); the same past it.
        executor: Where runs are made: `"local"` (this process, the default), `"ray"` or a
            `RayExecutor` (the workers of a Ray cluster; see `assay.live.executors`).
        spec: How the workers of a remote executor load the agent: `module:attribute` or
            `path/to/file.py:attribute`. None: the agent object is pickled to them. A
            string `graph` is such a spec, loaded here too.
    """

    def __init__(
        self,
        graph: Any,
        collector: Any = None,
        config: EvalConfig | None = None,
        concurrency: int = 1,
        *,
        num_runs: int = 1,
        timeout: float | None = None,
        retries: int = 2,
        judge_options: Mapping[str, Mapping[str, Any]] | None = None,
        name: str | None = None,
        max_reply_chars: int = MAX_REPLY_CHARS,
        max_tool_result_chars: int = MAX_TOOL_RESULT_CHARS,
        executor: Executor | str | None = None,
        spec: str | None = None,
    ) -> None:
        if isinstance(graph, str):
            from assay.live.loading import load_agent

            spec, graph = graph, load_agent(graph)
        self.graph = graph
        self.spec = spec
        self.executor: Executor = executor_of(executor)
        """Where runs are made."""
        self.name = name
        """The agent's name in the reports (`runner`); None: the agent's own (a function's
        qualified name, a graph's class)."""
        self.collector = collector
        self.config = config
        self.num_runs = num_runs
        self.settings = RunSettings(
            concurrency=concurrency,
            timeout_s=timeout,
            retries=retries,
            judge_options=dict(judge_options or {}),
            max_reply_chars=max_reply_chars,
            max_tool_result_chars=max_tool_result_chars,
        )
        if num_runs < 1:
            raise ValueError("num_runs must be at least 1")

    def _engine(self, cases: Sequence[EvalCase]) -> Engine:
        config = self.config or inferred_config(cases)
        engine = Engine(self.graph, config, self.settings, collector=self.collector,
                        executor=self.executor, spec=self.spec)
        if self.name is not None:
            engine.agent_name = self.name
        return engine

    async def evaluate(
        self,
        eval_set: EvalSet | Iterable[EvalCase],
        *,
        num_runs: int | None = None,
        reports_dir: str | Path | None = None,
        resume: bool = False,
        on_result: Callable[[EvalCaseResult], None] | None = None,
        source: str | None = None,
    ) -> EvalReport:
        """Run every case (`num_runs` times each) and return the report.

        Args:
            eval_set: The cases.
            num_runs: Repetitions of each case (default: the evaluator's).
            reports_dir: When given, write the reports there as runs finish (the same files
                `assay run` writes); with `resume`, keep the runs that finished there before
                and run only the others.
            on_result: Called with each run's result as it finishes.
            source: Where the eval set was read from, for the reports.

        Raises:
            ValueError: two cases share an id, or nothing to check (no config and no
                expectations).
        """
        cases = list(eval_set.cases if isinstance(eval_set, EvalSet) else eval_set)
        _check_ids(cases)
        units = units_of(cases, num_runs or self.num_runs)
        engine = self._engine(cases)

        def view(outcome: UnitOutcome) -> EvalCaseResult:
            return EvalCaseResult.of(
                outcome.result, outcome.run, outcome.collector.trajectory,
                repeat=outcome.unit.repeat,
            )

        try:
            if reports_dir is None:
                def report_each(outcome: UnitOutcome) -> None:
                    if on_result is not None:
                        on_result(view(outcome))

                outcomes = await engine.run_all(units, report_each)
                results = [o.result for o in outcomes]
                return EvalReport(
                    [view(o) for o in outcomes],
                    weights=engine.config.weights(),
                    figures=live_figures(results, engine.config.weights()),
                    repeats=_repeats(results),
                    warnings=_warnings(engine),
                )
            return await _evaluate_into(
                engine, cases, units, Path(reports_dir), resume, view, on_result, source=source
            )
        finally:
            await engine.aclose()

    async def evaluate_case(self, case: EvalCase) -> EvalCaseResult:
        """Run one case once and return its result (the quickest way to see an error)."""
        engine = self._engine([case])
        try:
            outcome = await engine.run_unit(units_of([case])[0])
        finally:
            await engine.aclose()
        return EvalCaseResult.of(outcome.result, outcome.run, outcome.collector.trajectory)

    def evaluate_sync(
        self, eval_set: EvalSet | Iterable[EvalCase], **options: Any
    ) -> EvalReport:
        """`evaluate` from synchronous code; inside a running event loop (a notebook) it runs
        on a loop of its own in a helper thread. From the main thread, an async agent that
        blocks the event loop past the timeout is interrupted (a timeout of its case), and
        Ctrl-C stops the evaluation, keeping what finished."""
        coroutine = self.evaluate(eval_set, **options)
        limit = self.settings.timeout_s
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return run_to_end(coroutine, block_limit_s=limit)
        with ThreadPoolExecutor(1, thread_name_prefix="assay-run") as thread:
            return thread.submit(run_to_end, coroutine, block_limit_s=limit).result()


async def _evaluate_into(
    engine: Engine,
    cases: Sequence[EvalCase],
    units: Sequence[Unit],
    directory: Path,
    resume: bool,
    view: Callable[[UnitOutcome], EvalCaseResult],
    on_result: Callable[[EvalCaseResult], None] | None,
    *,
    source: str | None = None,
) -> EvalReport:
    """Run the units not finished yet, saving each as it ends, then write the aggregate."""
    views: dict[RunKey, EvalCaseResult] = {}
    interrupted = True
    keys = [unit.key for unit in units]
    settings = engine.scoring.document()
    reports = LiveReports(directory, resume=resume, cases=cases, keys=keys, settings=settings)
    with reports:
        reports.write_cases(cases)
        todo = [unit for unit in units if unit.key not in reports.finished]

        def save(outcome: UnitOutcome) -> None:
            reports.save(outcome)
            seen = view(outcome)
            views[outcome.unit.key] = seen
            if on_result is not None:
                on_result(seen)

        try:
            await engine.run_all(todo, save)
            interrupted = False
        finally:
            weights = engine.config.weights()
            summary = reports.finish(
                units,
                cases=len(cases),
                weights=weights,
                interrupted=interrupted,
                options=_options(engine, directory, units, cases, source),
                scorers=_scorer_runs(engine),
                problems=[
                    {"source": f"agent {engine.agent_name}", "reason": warning}
                    for warning in _warnings(engine)
                ],
            )
    for unit in units:
        kept = reports.results.get(unit.key)
        if unit.key not in views and kept is not None:
            views[unit.key] = EvalCaseResult.of(kept, repeat=unit.repeat)
    return EvalReport(
        [views[u.key] for u in units if u.key in views],
        weights=engine.config.weights(),
        figures=summary.live,
        repeats=summary.repeats,
        interrupted=summary.interrupted,
        summary=summary,
        reports_dir=directory,
        warnings=_warnings(engine),
    )


def _repeats(results: Sequence[CaseResult]) -> dict[str, Any] | None:
    """pass@k, pass^k and flaky cases, when cases were repeated (None otherwise)."""
    from assay.reports.repeats import repeat_section

    return repeat_section(results)


def _warnings(engine: Engine) -> list[str]:
    warning = capture_warning(engine.uncaptured, engine.outside_calls_at_start)
    return [] if warning is None else [warning]


def _check_ids(cases: Sequence[EvalCase]) -> None:
    seen: set[str] = set()
    for case in cases:
        if case.eval_id in seen:
            raise ValueError(f"two cases have the eval_id {case.eval_id!r}; ids must be unique")
        seen.add(case.eval_id)


def _options(
    engine: Engine,
    directory: Path,
    units: Sequence[Unit],
    cases: Sequence[EvalCase],
    source: str | None,
) -> dict[str, Any]:
    repeat = max((u.repeat for u in units), default=1)
    return {
        "trajectories": path_text(directory / RUNS_FILE),
        "scenarios": [path_text(directory / EVALSET_FILE)],
        "reports_dir": path_text(directory),
        "scorers": list(engine.config.criteria),
        "red_flag_thresholds": RedFlagThresholds().to_report(),
        "live": {
            "agent": engine.agent_name,
            "eval_set": source,
            "cases": len(cases),
            "repeat": repeat,
            "concurrency": engine.settings.concurrency,
            "timeout_s": engine.settings.timeout_s,
            "retries": engine.settings.retries,
            "max_reply_chars": engine.settings.max_reply_chars,
            "max_tool_result_chars": engine.settings.max_tool_result_chars,
            "criteria": _criteria(engine),
            "executor": engine.executor.describe(),
        },
    }


def _criteria(engine: Engine) -> dict[str, Any]:
    """The criteria as JSON: what `_live.json` and the aggregate's options record."""
    return {
        name: criterion.model_dump(mode="json")
        for name, criterion in engine.config.criteria.items()
    }


def _scorer_runs(engine: Engine) -> list[dict[str, Any]]:
    """What each criterion's scorer ran with (the aggregate's `scorers`)."""
    return engine.scoring.specs()
