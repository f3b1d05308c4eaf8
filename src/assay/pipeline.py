"""Offline evaluation: load ground truth, stream saved runs, join, score, write reports.

One run is in memory at a time. Every input is accounted for: a run is scored, unscored, an
error, or skipped (unreadable, or no scenario), each with its reason in `_aggregate.json`, and
scenarios no run answered are listed too. Reports are written as runs finish; if the evaluation
is interrupted, the aggregate of what finished is still written.

Example:
    >>> from pathlib import Path
    >>> import tempfile
    >>> root = Path(tempfile.mkdtemp())
    >>> (root / "runs").mkdir(); (root / "gt" / "scenario_11").mkdir(parents=True)
    >>> _ = (root / "runs" / "11.json").write_text('{"run_id": "11", "answer": "{\\\\"a\\\\": 1}"}')
    >>> _ = (root / "gt" / "scenario_11" / "groundtruth.txt").write_text("{'a': 1}")
    >>> summary = evaluate(EvaluateOptions(root / "runs", (root / "gt",), root / "out"))
    >>> summary.totals["passed"], sorted(p.name for p in (root / "out").iterdir())
    (1, ['11.json', '_aggregate.json', 'results.jsonl'])
"""

from __future__ import annotations

import itertools
import operator
import os
import re
import signal
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import asyncio

from assay._gc import rare_collection
from assay.formats.assetopsbench import (
    ReadProblem,
    jsonl_run_lines,
    read_run_file,
    run_from_line,
    walk_run_files,
)
from assay.formats.ids import scenario_key
from assay.formats.scenarios import ScenarioIndex, index_scenarios
from assay.models.pricing import estimate_cost_usd
from assay.records import Case, Trajectory
from assay.reports.aggregate import ResultFigures, SummaryBuilder
from assay.reports.files import write_temporary
from assay.reports.json_report import ReportWriter, render
from assay.reports.red_flags import RedFlagThresholds
from assay.results import (
    CaseResult,
    NotScored,
    OpsMetrics,
    RunSummary,
    Score,
    combine_scores,
)
from assay.scorers.registry import Scorer, UnknownScorerError, create_scorer


@dataclass(frozen=True, slots=True)
class EvaluateOptions:
    """What to evaluate and where to write the reports."""

    trajectories: Path
    """A run file, or a directory searched recursively for `*.json` and `*.jsonl`."""

    scenarios: tuple[Path, ...]
    """Scenario folders and/or JSON/JSONL scenario files."""

    reports_dir: Path
    """Directory for per-run reports, `results.jsonl` and `_aggregate.json` (created)."""

    scorer_default: str = "static_json"
    """Scorer for scenarios that do not name their own `scoring_method`."""

    scorers: tuple[str, ...] = ()
    """Scorers to run on every run, instead of the scenario's `scoring_method` or the default.
    With several, each run gets each one's score and a combined verdict (`combine_scores`)."""

    scorer_options: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    """Options per scorer name, passed to its factory."""

    workers: int = 1
    """Processes that read and score runs: 1 scores in this process, 0 uses one per CPU.
    Reports are identical either way; workers pay off from a few hundred runs up."""

    red_flag_thresholds: RedFlagThresholds | None = None
    """Where the summary's red flags are raised (default: `RedFlagThresholds()`)."""


def evaluate(
    options: EvaluateOptions,
    *,
    on_result: Callable[[CaseResult | NotScored], None] | None = None,
    on_progress: Callable[[], None] | None = None,
) -> RunSummary:
    """Run the offline evaluation and return its summary (also written as `_aggregate.json`).

    Args:
        options: What to evaluate and where to write the reports.
        on_result: Called with every result and every input not scored, in input order.
            Results then travel whole from worker processes, which costs some speed.
        on_progress: Called once per input handled (a progress bar needs no more).

    Raises:
        UnknownScorerError: the default scorer does not exist (checked before any work).
    """
    with rare_collection():
        return _evaluate(options, on_result, on_progress)


def _evaluate(
    options: EvaluateOptions,
    on_result: Callable[[CaseResult | NotScored], None] | None,
    on_progress: Callable[[], None] | None,
) -> RunSummary:
    scorers = _Scorers(options.scorer_options)
    for name in options.scorers or (options.scorer_default,):
        scorers.get(name)  # fail fast on a typo or bad options, before reading anything
    scenarios = index_scenarios(list(options.scenarios))
    builder = SummaryBuilder(red_flag_thresholds=options.red_flag_thresholds)
    builder.set_scenarios_loaded(len(scenarios))
    problems = _Problems(scenarios.problems)
    walk_problems: list[ReadProblem] = []

    def run_files() -> Iterator[str]:
        for item in walk_run_files(options.trajectories, exclude=[options.reports_dir]):
            if isinstance(item, ReadProblem):
                walk_problems.append(item)
            else:
                yield item

    def take(item: _Scored) -> None:
        if item.problems:
            problems.extend(item.problems)
        if item.key is not None:
            scenarios.mark_answered(item.key)
        outcome, figures = item.outcome, item.figures
        if figures is not None:
            assert item.report is not None and item.line is not None
            wanted = figures.run_id or figures.scenario_id
            # The report, its line and its count: all three or none, even on Ctrl-C.
            with interrupts.step:
                report_file = writer.adopt(wanted, item.report, item.line)
                builder.add_figures(figures, report_file)
            if isinstance(outcome, CaseResult):
                outcome.report_file = report_file
        else:
            assert isinstance(outcome, NotScored)
            builder.add_not_scored(outcome)
        if on_result is not None:
            assert outcome is not None
            on_result(outcome)
        if on_progress is not None:
            on_progress()

    interrupted = True
    with ExitStack() as stack:
        interrupts = stack.enter_context(_DeferrableInterrupts())
        writer = stack.enter_context(ReportWriter(options.reports_dir))
        # Workers write each report under a temporary name; the writer only names it.
        file_scorer = _FileScorer(
            scenarios,
            scorers,
            options.scorer_default,
            options.scorers,
            writer.directory,
            keep_results=on_result is not None,
        )
        try:
            if scorers.uses_models():
                # Verdicts from a model take a round trip each: many runs wait at once, in one
                # process (worker processes would only multiply connections and caches).
                import asyncio  # only here: it costs tens of milliseconds to import

                asyncio.run(_judge_files(file_scorer, run_files(), scorers, take))
            else:
                scored = stack.enter_context(
                    _scored_files(file_scorer, run_files(), options.workers)
                )
                for item in scored:
                    take(item)
            for problem in walk_problems:
                builder.add_not_scored(
                    NotScored("unreadable", problem.reason, source=problem.source)
                )
            for key in scenarios.unanswered():
                builder.add_not_scored(
                    NotScored(
                        "no_run",
                        "no run answered this scenario",
                        source=scenarios.source(key),
                        scenario_id=scenarios.case_id(key),
                    )
                )
            interrupted = False
        finally:
            summary = builder.finish(problems.report(), interrupted=interrupted)
            writer.write_summary(summary)
    return summary


class _DeferrableInterrupts:
    """Ctrl-C that waits for the end of a `step`, in the main thread.

    Python raises KeyboardInterrupt wherever the main thread happens to be; between naming a
    report and counting it, that would leave a report the summary and results.jsonl never
    mention. Outside the steps, and where another handler is installed (or in another thread,
    where handlers cannot be installed), Ctrl-C behaves as it always does.
    """

    def __init__(self) -> None:
        self._previous: Any = None
        self.step = _Step()
        """`with interrupts.step:` runs the block to its end before a Ctrl-C is raised."""

    def __enter__(self) -> _DeferrableInterrupts:
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            try:
                self._previous = signal.signal(signal.SIGINT, self.step.interrupt)
            except ValueError:  # not the main thread
                self._previous = None
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)


class _Step:
    """The step context of `_DeferrableInterrupts` (a class, not a generator: one per run)."""

    __slots__ = ("busy", "pending")

    def __init__(self) -> None:
        self.busy = False
        self.pending = False

    def interrupt(self, signum: int, frame: object) -> None:
        if self.busy:
            self.pending = True
        else:
            raise KeyboardInterrupt

    def __enter__(self) -> None:
        self.busy = True

    def __exit__(self, *exc_info: object) -> None:
        self.busy = False
        if self.pending:
            self.pending = False
            raise KeyboardInterrupt


_JUDGED_IN_FLIGHT = 256
"""Runs being judged at once; the model client's own limit decides how many calls are open."""


async def _judge_files(
    file_scorer: _FileScorer,
    files: Iterator[str],
    scorers: _Scorers,
    take: Callable[[_Scored], None],
) -> None:
    """Score every run, many at a time, handing results to `take` in input order."""
    import asyncio

    pending: deque[asyncio.Task[_Scored]] = deque()
    try:
        for path in files:
            for item in read_run_file(path):
                pending.append(asyncio.ensure_future(file_scorer.score_async(item)))
                await asyncio.sleep(0)  # let the new run's calls start
                while pending and (pending[0].done() or len(pending) >= _JUDGED_IN_FLIGHT):
                    take(await pending.popleft())
        while pending:
            take(await pending.popleft())
    finally:
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
        await scorers.aclose()


@dataclass(slots=True)
class _Scored:
    """One input's outcome, rendered where it was scored, ready for the writer.

    From a worker process, a scored run comes as its figures, its report file and its
    results.jsonl line: what the writing process needs, and a fraction of the full result to
    pickle. The full result comes along only when someone asked to see every result.
    """

    outcome: CaseResult | NotScored | None
    """The result, or what was not scored; None for a result sent as `figures` only."""
    figures: ResultFigures | None = None
    """What the summary reads of a result (None for what was not scored)."""
    report: str | None = None
    """The per-run report, written under a temporary name (for a result)."""
    line: bytes | None = None
    """Its results.jsonl line, without the report file's name."""
    key: str | None = None
    """The scenario key the run answered, if it joined one."""
    problems: list[ReadProblem] = field(default_factory=list)
    """Ground-truth problems first met while scoring this run."""

    def __reduce__(self) -> tuple[type[_Scored], tuple[Any, ...]]:
        # A plain tuple of the fields pickles faster than the dataclass's own state handling.
        return (_Scored, _scored_fields(self))


_scored_fields = operator.attrgetter(*_Scored.__slots__)
"""All of a `_Scored`'s fields, in order, as a tuple (what `__reduce__` sends)."""


class _FileScorer:
    """Reads one run file and scores its runs: the unit of work, in this process or a worker."""

    def __init__(
        self,
        scenarios: ScenarioIndex,
        scorers: _Scorers,
        default: str,
        every_run: tuple[str, ...],
        reports_dir: Path,
        *,
        keep_results: bool = True,
    ) -> None:
        self.scenarios = scenarios
        self.scorers = scorers
        self.default = default
        self.every_run = every_run
        self.reports_dir = reports_dir
        self.keep_results = keep_results
        """Whether a scored run's `_Scored` holds its full result, not only its figures."""

    def __call__(self, path: str) -> Iterator[_Scored]:
        """The outcomes of the file's runs, one at a time."""
        for item in read_run_file(path):
            yield self.score(item)

    def units(self, units: list[_Unit]) -> list[_Scored]:
        """The outcomes of a batch of work units, in order (what a worker is handed)."""
        scored: list[_Scored] = []
        for unit in units:
            if isinstance(unit, str):
                scored.extend(self(unit))
            elif isinstance(unit, ReadProblem):
                scored.append(self.score(unit))
            else:
                scored.append(self.score(run_from_line(*unit)))
        return scored

    def score(self, item: Trajectory | ReadProblem) -> _Scored:
        """Score one run (or record one unreadable input) and write its report."""
        known = len(self.scenarios.problems)
        outcome, key = _score_item(item, self.scenarios, self.scorers, self.default, self.every_run)
        return self._written(outcome, key, self.scenarios.problems[known:])

    async def score_async(self, item: Trajectory | ReadProblem) -> _Scored:
        """`score` for scorers that ask a model: many runs wait for their verdicts together."""
        known = len(self.scenarios.problems)
        outcome, key = await _score_item_async(
            item, self.scenarios, self.scorers, self.default, self.every_run
        )
        return self._written(outcome, key, self.scenarios.problems[known:])

    def _written(
        self, outcome: CaseResult | NotScored, key: str | None, problems: list[ReadProblem]
    ) -> _Scored:
        if isinstance(outcome, CaseResult):
            report, line = render(outcome)
            temporary = write_temporary(self.reports_dir, report)
            figures = ResultFigures.of(outcome)
            if not self.keep_results:
                return _Scored(None, figures, temporary, line, key, problems)
            # The rendered report holds the per-key records; nothing downstream needs them.
            for part in outcome.parts():
                part.details.pop("details", None)
            return _Scored(outcome, figures, temporary, line, key, problems)
        return _Scored(outcome, key=key, problems=problems)


_Unit = str | tuple[bytes, str] | ReadProblem
"""A unit of work: a `.json` run file's path, one `.jsonl` line with its source, or a
problem met while reading a `.jsonl` file (passed through so it keeps its place in order)."""


class _Problems:
    """Ground-truth problems, each once (workers may each meet the same broken folder)."""

    def __init__(self, initial: list[ReadProblem]) -> None:
        self._seen: set[tuple[str, str]] = set()
        self._items: list[ReadProblem] = []
        self.extend(initial)

    def extend(self, problems: list[ReadProblem]) -> None:
        for problem in problems:
            if (problem.source, problem.reason) not in self._seen:
                self._seen.add((problem.source, problem.reason))
                self._items.append(problem)

    def report(self) -> list[dict[str, Any]]:
        return [{"source": p.source, "reason": p.reason} for p in self._items]


_CHUNK = 64
"""Work units (files or JSONL lines) handed to a worker at a time. Each round trip costs the
parent process CPU that the workers then miss; a chunk is still only some 20 ms of work, so
little is left waiting at the end."""

_MIN_FILES_PER_WORKER = 32
"""Below this many files per worker, starting processes costs more than it saves."""


def _chunks(files: Iterator[str]) -> Iterator[list[_Unit]]:
    """The work units of `files` in order, `_CHUNK` at a time.

    A `.json` file is one unit; a `.jsonl` file is read here line by line and each line is a
    unit, so a file of any size is shared out in small pieces like the rest.
    """
    chunk: list[_Unit] = []
    for path in files:
        units: Iterable[_Unit] = (
            jsonl_run_lines(path) if path.lower().endswith(".jsonl") else (path,)
        )
        for unit in units:
            chunk.append(unit)
            if len(chunk) == _CHUNK:
                yield chunk
                chunk = []
    if chunk:
        yield chunk


@contextmanager
def _scored_files(
    file_scorer: _FileScorer, files: Iterator[str], workers: int
) -> Iterator[Iterator[_Scored]]:
    """Score the files in order, here or in forked worker processes.

    Workers start only when there are enough files to pay for them, on platforms that can
    fork (they inherit the ground-truth index and scorers instead of rebuilding them); the
    results come back in file order either way, so reports are the same.
    """
    count = workers if workers > 0 else (os.cpu_count() or 1)
    head = list(itertools.islice(files, _MIN_FILES_PER_WORKER * count))
    files = itertools.chain(head, files)
    parallel = count > 1 and len(head) == _MIN_FILES_PER_WORKER * count and hasattr(os, "fork")
    if not parallel:
        yield (scored for path in files for scored in file_scorer(path))
        return
    from assay._forkpool import ForkPool

    with ForkPool(file_scorer.units, count) as pool:
        results = pool.map(_chunks(files), in_flight=2 * count)
        yield (scored for chunk in results for scored in chunk)


class _Scorers:
    """Scorers built once per name; a name that cannot be built is remembered as an error on
    every run that asks for it, not raised."""

    def __init__(self, options: Mapping[str, Mapping[str, Any]]) -> None:
        self._options = options
        self._built: dict[str, Scorer | str] = {}

    def get(self, name: str) -> Scorer:
        """The scorer `name`, built on first use.

        Raises:
            UnknownScorerError: no such scorer, or it cannot be built with these options.
        """
        built = self._built.get(name)
        if built is None:
            try:
                built = create_scorer(name, **self._options.get(name, {}))
            except UnknownScorerError as exc:
                built = str(exc)
            except Exception as exc:  # bad options, a judge without its server: said per run
                built = f"cannot use scorer {name!r}: {exc}"
            self._built[name] = built
        if isinstance(built, str):
            raise UnknownScorerError(built)
        return built

    def uses_models(self) -> bool:
        """Whether scorers ask a model: one built so far has `score_async`, or one is
        configured with a `model` (a scenario may name it later)."""
        return any(hasattr(scorer, "score_async") for scorer in self._built.values()) or any(
            "model" in options for options in self._options.values()
        )

    def score(self, name: str, case: Case, run: Trajectory) -> Score:
        try:
            scorer = self.get(name)
        except UnknownScorerError as exc:
            return Score.error(name, str(exc), {"reason": "unknown_scorer"})
        try:
            return scorer(case, run)
        except Exception as exc:  # a scorer bug must not lose the other runs' results
            return _scorer_exception(name, exc)

    async def score_async(self, name: str, case: Case, run: Trajectory) -> Score:
        """Like `score`, awaiting scorers that ask a model so that many runs wait together."""
        try:
            scorer = self.get(name)
        except UnknownScorerError as exc:
            return Score.error(name, str(exc), {"reason": "unknown_scorer"})
        judged = getattr(scorer, "score_async", None)
        try:
            if judged is not None:
                score: Score = await judged(case, run)
                return score
            return scorer(case, run)
        except Exception as exc:  # a scorer bug must not lose the other runs' results
            return _scorer_exception(name, exc)

    async def aclose(self) -> None:
        """Close the model clients of the scorers that ask a model."""
        for scorer in self._built.values():
            close = getattr(scorer, "aclose", None)
            if close is not None:
                await close()


def _scorer_exception(name: str, exc: Exception) -> Score:
    return Score.error(
        name, f"scorer raised {type(exc).__name__}: {exc}"[:500], {"reason": "scorer_exception"}
    )


@dataclass(slots=True)
class _Joined:
    """A run joined to its scenario, with the names of the scorers to run on it."""

    run: Trajectory
    key: str
    case: Case
    names: tuple[str, ...]
    failure: Score | None = None
    """Set when the ground truth is unusable: the run's score, no scorer is asked."""


def _join(
    item: Trajectory | ReadProblem,
    scenarios: ScenarioIndex,
    default: str,
    every_run: tuple[str, ...],
) -> _Joined | NotScored:
    if isinstance(item, ReadProblem):
        return NotScored("unreadable", item.reason, source=item.source)
    key = _join_key(item, scenarios)
    if key is None:
        tried = ", ".join(repr(k) for k in _candidate_ids(item)) or "none"
        return NotScored(
            "no_scenario",
            f"no scenario matches this run (ids tried: {tried})",
            source=item.source,
            run_id=item.run_id,
            scenario_id=item.scenario_id,
        )
    case = scenarios.get(key, with_question=item.question is None)
    if isinstance(case, ReadProblem):
        failure = Score.error(
            "+".join(every_run or (default,)),
            f"ground truth unusable: {case.reason}",
            {"reason": "bad_ground_truth"},
        )
        return _Joined(item, key, Case(id=scenarios.case_id(key), source=case.source), (), failure)
    names = every_run or (case.scoring_method or default,)
    return _Joined(item, key, case, names)


def _result(joined: _Joined, scores: list[Score]) -> CaseResult:
    run, case = joined.run, joined.case
    if joined.failure is not None:
        score, parts = joined.failure, []
    elif len(scores) > 1:
        score, parts = combine_scores(scores), scores
    else:
        score, parts = scores[0], []
    return CaseResult(
        scenario_id=case.id,
        run_id=run.run_id,
        runner=run.runner,
        model=run.model,
        question=run.question if run.question is not None else case.question,
        answer=run.answer,
        score=score,
        ops=ops_metrics(run),
        scenario_type=case.type,
        source=run.source,
        scores=parts,
    )


def _score_item(
    item: Trajectory | ReadProblem,
    scenarios: ScenarioIndex,
    scorers: _Scorers,
    default: str,
    every_run: tuple[str, ...] = (),
) -> tuple[CaseResult | NotScored, str | None]:
    joined = _join(item, scenarios, default, every_run)
    if isinstance(joined, NotScored):
        return joined, None
    scores = [scorers.score(name, joined.case, joined.run) for name in joined.names]
    return _result(joined, scores), joined.key


async def _score_item_async(
    item: Trajectory | ReadProblem,
    scenarios: ScenarioIndex,
    scorers: _Scorers,
    default: str,
    every_run: tuple[str, ...] = (),
) -> tuple[CaseResult | NotScored, str | None]:
    import asyncio

    joined = _join(item, scenarios, default, every_run)
    if isinstance(joined, NotScored):
        return joined, None
    scores = await asyncio.gather(
        *(scorers.score_async(name, joined.case, joined.run) for name in joined.names)
    )
    return _result(joined, list(scores)), joined.key


def _candidate_ids(run: Trajectory) -> Iterator[str]:
    """Ids a run may name its scenario by, each once: its scenario_id, its file's stem, its
    run_id. Lazily: the join usually stops at the first."""
    if run.scenario_id:
        yield run.scenario_id
    stem = None
    if run.source.endswith(".json"):  # one run per file: the file is named after the scenario
        stem = os.path.basename(run.source)[: -len(".json")]  # noqa: PTH119
        if stem and stem != run.scenario_id:
            yield stem
    if run.run_id and run.run_id not in (run.scenario_id, stem):
        yield run.run_id


def _join_key(run: Trajectory, scenarios: ScenarioIndex) -> str | None:
    for candidate in _candidate_ids(run):
        key = scenario_key(candidate)
        if key is not None and key in scenarios:
            return key
    return None


def ops_metrics(run: Trajectory) -> OpsMetrics:
    """Operational figures of a run: turns, tool calls, tokens, duration and estimated cost."""
    names = run.tool_names()
    tokens_in, tokens_out = run.usage.input_tokens, run.usage.output_tokens
    unique = sorted({name for name in names if name})
    return OpsMetrics(
        turn_count=run.step_count(),
        tool_call_count=len(names),
        unique_tools=unique,
        tokens_in=tokens_in,
        tokens_out=tokens_out,
        duration_ms=run.duration_ms,
        est_cost_usd=estimate_cost_usd(run.model, tokens_in, tokens_out),
        context_overflow=run.error is not None and _CONTEXT_OVERFLOW.search(run.error) is not None,
        escalated=any(name.lower().startswith("escalate") for name in unique),
    )


_CONTEXT_OVERFLOW = re.compile(
    r"context[ _-]?(?:length|window)|maximum context|too many tokens|prompt is too long",
    re.IGNORECASE,
)
"""How providers word a request that did not fit the model's context window."""
