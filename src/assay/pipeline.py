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

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assay.formats import ReadProblem, ScenarioIndex, index_scenarios, read_runs, scenario_key
from assay.records import Case, Trajectory
from assay.reports.aggregate import SummaryBuilder
from assay.reports.json_report import ReportWriter
from assay.reports.pricing import estimate_cost_usd
from assay.results import CaseResult, NotScored, OpsMetrics, RunSummary, Score
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

    scorer_options: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    """Options per scorer name, passed to its factory."""


def evaluate(
    options: EvaluateOptions,
    *,
    on_result: Callable[[CaseResult | NotScored], None] | None = None,
) -> RunSummary:
    """Run the offline evaluation and return its summary (also written as `_aggregate.json`).

    Raises:
        UnknownScorerError: the default scorer does not exist (checked before any work).
    """
    scorers = _Scorers(options.scorer_options)
    scorers.get(options.scorer_default)  # fail fast on a typo, before reading anything
    scenarios = index_scenarios(list(options.scenarios))
    builder = SummaryBuilder()
    builder.set_scenarios_loaded(len(scenarios))
    unanswered = set(scenarios.keys())  # shares the index's key strings: no copy per scenario
    interrupted = True
    with ReportWriter(options.reports_dir) as writer:
        try:
            for item in read_runs(options.trajectories, exclude=[options.reports_dir]):
                outcome = _score_item(item, scenarios, scorers, options.scorer_default, unanswered)
                if isinstance(outcome, CaseResult):
                    writer.write(outcome)
                    builder.add_result(outcome)
                else:
                    builder.add_not_scored(outcome)
                if on_result is not None:
                    on_result(outcome)
            for key in scenarios:
                if key in unanswered:
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
            summary = builder.finish(
                [{"source": p.source, "reason": p.reason} for p in scenarios.problems],
                interrupted=interrupted,
            )
            writer.write_summary(summary)
    return summary


class _Scorers:
    """Scorers built once per name; an unknown name is remembered as an error, not re-raised."""

    def __init__(self, options: Mapping[str, Mapping[str, Any]]) -> None:
        self._options = options
        self._built: dict[str, Scorer | str] = {}

    def get(self, name: str) -> Scorer:
        built = self._built.get(name)
        if built is None:
            built = create_scorer(name, **self._options.get(name, {}))
            self._built[name] = built
        if isinstance(built, str):
            raise UnknownScorerError(built)
        return built

    def score(self, name: str, case: Case, run: Trajectory) -> Score:
        try:
            scorer = self.get(name)
        except UnknownScorerError as exc:
            self._built[name] = str(exc)
            return Score.error(name, str(exc), {"reason": "unknown_scorer"})
        try:
            return scorer(case, run)
        except Exception as exc:  # a scorer bug must not lose the other runs' results
            return Score.error(
                name,
                f"scorer raised {type(exc).__name__}: {exc}"[:500],
                {"reason": "scorer_exception"},
            )


def _score_item(
    item: Trajectory | ReadProblem,
    scenarios: ScenarioIndex,
    scorers: _Scorers,
    default: str,
    unanswered: set[str],
) -> CaseResult | NotScored:
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
    unanswered.discard(key)
    case = scenarios.get(key)
    if isinstance(case, ReadProblem):
        score = Score.error(
            default, f"ground truth unusable: {case.reason}", {"reason": "bad_ground_truth"}
        )
        case = Case(id=scenarios.case_id(key), source=case.source)
    else:
        score = scorers.score(case.scoring_method or default, case, item)
    return CaseResult(
        scenario_id=case.id,
        run_id=item.run_id,
        runner=item.runner,
        model=item.model,
        question=item.question if item.question is not None else case.question,
        answer=item.answer,
        score=score,
        ops=ops_metrics(item),
        scenario_type=case.type,
        source=item.source,
    )


def _candidate_ids(run: Trajectory) -> list[str]:
    """Ids a run may name its scenario by: its scenario_id, its file's stem, its run_id."""
    candidates = [run.scenario_id]
    if run.source.endswith(".json"):  # one run per file: the file is named after the scenario
        candidates.append(Path(run.source).stem)
    candidates.append(run.run_id)
    return list(dict.fromkeys(c for c in candidates if c))


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
    return OpsMetrics(
        turn_count=len(run.steps),
        tool_call_count=len(names),
        unique_tools=sorted({name for name in names if name}),
        tokens_in=tokens_in,
        tokens_out=tokens_out,
        duration_ms=run.duration_ms,
        est_cost_usd=estimate_cost_usd(run.model, tokens_in, tokens_out),
    )
