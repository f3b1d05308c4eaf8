"""Builds the run summary (`_aggregate.json`) from results, one result at a time."""

from __future__ import annotations

import heapq
from array import array
from collections import Counter
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, NamedTuple

from assay.reports.red_flags import (
    AVG_LATENCY_S,
    CONTEXT_OVERFLOW_RATE,
    ESCALATION_RATE,
    SCENARIO_PASS_RATE,
    TOOL_SELECTION_ACCURACY,
    RedFlagThresholds,
    red_flags,
)
from assay.results import (
    PARTIALLY_SCORED,
    CaseResult,
    NotScored,
    RunSummary,
    Score,
    ScoreStatus,
)

WORST_KEPT = 10
"""How many failed runs, lowest score first, the summary names."""


class PartFigures(NamedTuple):
    """What the summary reads of one score."""

    scorer: str
    status: ScoreStatus
    passed: bool | None
    value: float | None
    rationale: str
    reason: Any
    """`details["reason"]`, if the score has one."""
    judge: dict[str, Any] | None
    """`details["judge"]`: what a judge's calls cost, if a judge scored."""
    metrics: dict[str, float]
    """The numeric details (booleans excepted), averaged per scorer in the summary."""

    @classmethod
    def of(cls, score: Score) -> PartFigures:
        details = score.details
        judge = details.get("judge")
        return cls(
            score.scorer,
            score.status,
            score.passed,
            score.value,
            score.rationale,
            details.get("reason"),
            judge if isinstance(judge, dict) else None,
            {
                name: value
                for name, value in details.items()
                # int and float first: the usual case, and it leaves bool out (type(True)
                # is bool); subclasses of int and float other than bool count too.
                if (kind := type(value)) is float
                or kind is int
                or (kind is not bool and isinstance(value, int | float))
            },
        )


class ResultFigures(NamedTuple):
    """What the summary reads of one result: small, so that it travels cheaply between
    processes (a worker scores the run, the writing process counts it).

    Example:
        >>> from assay.results import OpsMetrics
        >>> result = CaseResult("11", "r1", "agent", "m", None, "14",
        ...                     Score.scored("static_json", 1.0, passed=True), OpsMetrics())
        >>> figures = ResultFigures.of(result)
        >>> figures.score.passed, figures.parts == (figures.score,)
        (True, True)
    """

    run_id: str | None
    scenario_id: str
    source: str
    runner: str | None
    model: str | None
    scenario_type: str | None
    score: PartFigures
    parts: tuple[PartFigures, ...]
    """Each scorer's score; just `score` when one scorer ran."""
    turn_count: int
    tool_call_count: int
    tokens_in: int | None
    tokens_out: int | None
    duration_ms: float | None
    est_cost_usd: float | None
    context_overflow: bool
    escalated: bool
    repeat: int | None = None
    """Which repetition of a live run this is (`CaseResult.repeat`); None offline."""
    notes: int = 0
    """How many notes its reader left (`CaseResult.notes`)."""
    source_passed: bool | None = None
    """Whether its source passed it (`CaseResult.source_passed`)."""

    @classmethod
    def of(cls, result: CaseResult) -> ResultFigures:
        score = PartFigures.of(result.score)
        ops = result.ops
        return cls(
            result.run_id,
            result.scenario_id,
            result.source,
            result.runner,
            result.model,
            result.scenario_type,
            score,
            tuple(PartFigures.of(part) for part in result.scores) or (score,),
            ops.turn_count,
            ops.tool_call_count,
            ops.tokens_in,
            ops.tokens_out,
            ops.duration_ms,
            ops.est_cost_usd,
            ops.context_overflow,
            ops.escalated,
            result.repeat,
            len(result.notes),
            result.source_passed,
        )


class _Group:
    __slots__ = ("errors", "partially_scored", "passed", "score_sum", "scored", "unscored")

    def __init__(self) -> None:
        self.scored = self.passed = self.unscored = self.partially_scored = self.errors = 0
        self.score_sum = 0.0

    def add(self, score: PartFigures) -> None:
        if score.status is ScoreStatus.SCORED:
            self.scored += 1
            self.passed += bool(score.passed)
            self.score_sum += score.value or 0.0
        elif score.status is ScoreStatus.UNSCORED:
            self.unscored += 1
            self.partially_scored += score.reason == PARTIALLY_SCORED
        else:
            self.errors += 1

    def report(self) -> dict[str, Any]:
        return {
            "scored": self.scored,
            "passed": self.passed,
            "pass_rate": _pass_rate(self.passed, self.scored + self.partially_scored),
            "mean_score": self.score_sum / self.scored if self.scored else None,
            "unscored": self.unscored,
            "partially_scored": self.partially_scored,
            "errors": self.errors,
        }


def _pass_rate(passed: int, judged: int) -> float | None:
    """Passed over the runs that needed a verdict: the scored ones and the partially scored
    ones (a verdict a run needed but did not get is not a pass); None when there are none.

    Example:
        >>> _pass_rate(3, 4), _pass_rate(0, 0)
        (0.75, None)
    """
    return passed / judged if judged else None


def _group(groups: dict[str, _Group], key: str) -> _Group:
    group = groups.get(key)
    if group is None:
        group = groups[key] = _Group()
    return group


class SummaryBuilder:
    """Accumulates results as they stream past; memory grows only with what is not scored.

    Example:
        >>> builder = SummaryBuilder()
        >>> builder.add_not_scored(NotScored("unreadable", "invalid JSON", source="x.json"))
        >>> builder.finish().totals["skipped"]
        1
    """

    def __init__(self, *, red_flag_thresholds: RedFlagThresholds | None = None) -> None:
        self._thresholds = red_flag_thresholds
        self._escalated = 0
        self._overflowed = 0
        self._results = 0
        self._runners: set[str] = set()
        self._models: set[str] = set()
        self._status: Counter[str] = Counter()  # by ScoreStatus, which is a StrEnum
        self._passed = 0
        self._by_type: dict[str, _Group] = {}
        self._by_runner_model: dict[str, _Group] = {}
        self._by_scorer: dict[str, _Group] = {}
        self._judge_usage: dict[str, dict[str, Any]] = {}
        self._metric_sums: dict[str, dict[str, float]] = {}
        self._metric_counts: Counter[str] = Counter()
        self._durations = array("d")  # 8 bytes a run, not a float object each
        self._turns_total = self._tool_calls_total = 0
        self._tokens_in_total: int | None = None
        self._tokens_out_total: int | None = None
        self._groups_of: dict[tuple[str | None, str | None, str | None], tuple[_Group, _Group]] = {}
        self._cost_total: float | None = None
        self._not_scored: dict[str, list[dict[str, Any]]] = {
            "unscored": [],
            "errors": [],
            "unreadable": [],
            "no_scenario": [],
            "no_run": [],
        }
        self._scenarios_loaded = 0
        self._no_answer = 0
        self._with_notes = 0
        self._agreement: dict[str, list[int]] = {}
        """Per scorer: runs compared with their source's verdict, and agreeing."""
        self._partially_scored = 0
        self._worst: list[tuple[float, int, dict[str, Any]]] = []
        self._failures_seen = 0
        # One (scenario id, repeat, passed, value) per repetition of a live run, as
        # `assay.reports.repeats.RepeatRecord` takes it: the `repeats` section's input.
        self._repeats: list[tuple[str, int, bool | None, float | None]] = []

    def add_result(self, result: CaseResult) -> None:
        """Count one scored, unscored or errored run."""
        self.add_figures(ResultFigures.of(result), result.report_file)

    def add_figures(self, result: ResultFigures, report_file: str | None) -> None:
        """Count one run from its figures (what `add_result` reads of a `CaseResult`)."""
        # This runs once per run in the process that writes the reports, beside the workers:
        # the groups of a (type, runner, model) are looked up once, not formatted per run.
        score = result.score
        status = score.status
        self._status[status] += 1  # a StrEnum member counts under its text
        self._with_notes += result.notes > 0
        if result.source_passed is not None:
            for part in result.parts:
                if part.status is ScoreStatus.SCORED:
                    counts = self._agreement.setdefault(part.scorer, [0, 0])
                    counts[0] += 1
                    counts[1] += bool(part.passed) == result.source_passed
        combination = (result.scenario_type, result.runner, result.model)
        groups = self._groups_of.get(combination)
        if groups is None:
            groups = self._groups_of[combination] = self._new_groups(*combination)
        groups[0].add(score)
        groups[1].add(score)
        for part in result.parts:
            _group(self._by_scorer, part.scorer).add(part)
            if part.judge is not None:
                self._add_judge_usage(part.judge)
            if part.status is ScoreStatus.SCORED:
                sums = self._metric_sums.get(part.scorer)
                if sums is None:
                    sums = self._metric_sums[part.scorer] = {}
                self._metric_counts[part.scorer] += 1
                for name, value in part.metrics.items():
                    sums[name] = sums.get(name, 0.0) + value
        if status is ScoreStatus.SCORED:
            if score.passed:
                self._passed += 1
            else:
                self._note_failure(result, report_file)
        else:
            kind = "unscored" if status is ScoreStatus.UNSCORED else "errors"
            if status is ScoreStatus.UNSCORED:
                self._partially_scored += score.reason == PARTIALLY_SCORED
                # A run without an answer is counted so, whatever its other scorers made of it.
                self._no_answer += any(part.reason == "no_answer" for part in result.parts)
            else:
                self._no_answer += score.reason == "no_answer"
            self._not_scored[kind].append(
                {
                    "run_id": result.run_id,
                    "scenario_id": result.scenario_id,
                    "source": result.source,
                    "scorer": score.scorer,
                    "reason": score.rationale,
                    "report_file": report_file,
                }
            )
        if result.repeat is not None:
            scored = status is ScoreStatus.SCORED
            self._repeats.append(
                (
                    result.scenario_id,
                    result.repeat,
                    bool(score.passed) if scored else None,
                    score.value if scored else None,
                )
            )
        self._results += 1
        self._escalated += result.escalated
        self._overflowed += result.context_overflow
        self._turns_total += result.turn_count
        self._tool_calls_total += result.tool_call_count
        # Runs that recorded no tokens add nothing; a total no run recorded stays None.
        if result.tokens_in is not None:
            self._tokens_in_total = (self._tokens_in_total or 0) + result.tokens_in
        if result.tokens_out is not None:
            self._tokens_out_total = (self._tokens_out_total or 0) + result.tokens_out
        if result.duration_ms is not None:
            self._durations.append(result.duration_ms)
        if result.est_cost_usd is not None:
            self._cost_total = (self._cost_total or 0.0) + result.est_cost_usd

    def _new_groups(
        self, scenario_type: str | None, runner: str | None, model: str | None
    ) -> tuple[_Group, _Group]:
        if runner:
            self._runners.add(runner)
        if model:
            self._models.add(model)
        key = f"{runner or '(unknown runner)'} | {model or '(unknown model)'}"
        return _group(self._by_type, scenario_type or "(none)"), _group(self._by_runner_model, key)

    def _add_judge_usage(self, usage: dict[str, Any]) -> None:
        # What judging cost, per judge model: kept apart from what the agents' runs cost.
        model = str(usage.get("model") or "(unknown model)")
        totals = self._judge_usage.setdefault(
            model,
            {
                "calls": 0,
                "cached_calls": 0,
                "input_tokens": 0,
                "output_tokens": 0,
                "cost_usd": 0.0,
            },
        )
        for key in ("calls", "cached_calls", "input_tokens", "output_tokens"):
            value = usage.get(key)
            if isinstance(value, int) and not isinstance(value, bool):
                totals[key] += value
        cost = usage.get("cost_usd")
        if cost is None or totals["cost_usd"] is None:
            totals["cost_usd"] = None  # one call of unknown price makes the total unknown
        else:
            totals["cost_usd"] = round(totals["cost_usd"] + float(cost), 6)

    def _note_failure(self, result: ResultFigures, report_file: str | None) -> None:
        # Only the worst few are kept (a bounded heap), for the console: every failure is in
        # results.jsonl already.
        entry = (
            -(result.score.value or 0.0),
            self._failures_seen,
            {
                "run_id": result.run_id,
                "scenario_id": result.scenario_id,
                "score": result.score.value,
                "reason": result.score.rationale,
                "report_file": report_file,
            },
        )
        self._failures_seen += 1
        if len(self._worst) < WORST_KEPT:
            heapq.heappush(self._worst, entry)
        else:
            heapq.heappushpop(self._worst, entry)

    def add_not_scored(self, item: NotScored) -> None:
        """Count an input that produced no result: unreadable, no scenario, or no run."""
        self._not_scored[item.kind].append(
            {
                "run_id": item.run_id,
                "scenario_id": item.scenario_id,
                "source": item.source,
                "reason": item.reason,
            }
        )

    def set_scenarios_loaded(self, count: int) -> None:
        """How many scenarios the ground truth held."""
        self._scenarios_loaded = count

    def finish(
        self,
        scenario_problems: list[dict[str, Any]] | None = None,
        *,
        interrupted: bool = False,
        pass_rate: float | None = None,
    ) -> RunSummary:
        """The summary of everything added so far. `pass_rate`: the headline pass rate when
        it is not the totals' (a live evaluation's, of every run), which the pass-rate red
        flag then watches, so that the flag and the headline speak of one figure."""
        scored = self._status[ScoreStatus.SCORED.value]
        unscored = self._status[ScoreStatus.UNSCORED.value]
        errors = self._status[ScoreStatus.ERROR.value]
        unreadable = len(self._not_scored["unreadable"])
        no_scenario = len(self._not_scored["no_scenario"])
        skipped = unreadable + no_scenario
        totals = {
            "runs_read": scored + unscored + errors + skipped,
            "scored": scored,
            "passed": self._passed,
            "failed": scored - self._passed,
            "pass_rate": _pass_rate(self._passed, scored + self._partially_scored),
            "unscored": unscored,
            "partially_scored": self._partially_scored,
            "no_answer": self._no_answer,
            "errors": errors,
            "skipped": skipped,
            "unreadable": unreadable,
            "no_scenario": no_scenario,
            "scenarios_loaded": self._scenarios_loaded,
            "scenarios_without_runs": len(self._not_scored["no_run"]),
            "runs_with_notes": self._with_notes,
        }
        ops: dict[str, Any] = {
            "turns_total": self._turns_total,
            "tool_calls_total": self._tool_calls_total,
            "tokens_in_total": self._tokens_in_total,
            "tokens_out_total": self._tokens_out_total,
        }
        ops["duration_ms_p50"] = _percentile(self._durations, 50)
        ops["duration_ms_p95"] = _percentile(self._durations, 95)
        ops["est_cost_usd_total"] = (
            round(self._cost_total, 6) if self._cost_total is not None else None
        )
        means = {
            scorer: {name: total / self._metric_counts[scorer] for name, total in sums.items()}
            for scorer, sums in self._metric_sums.items()
        }
        by_scorer = {k: g.report() for k, g in self._by_scorer.items()}
        headline = totals["pass_rate"] if pass_rate is None else pass_rate
        figures = self._red_flag_figures(headline, means, by_scorer)
        repeated = any(record[1] > 1 for record in self._repeats)
        flags = [
            flag.to_report()
            for flag in red_flags(figures, self._thresholds, repeated=repeated)
        ]
        return RunSummary(
            generated_at=datetime.now(UTC).isoformat(timespec="seconds"),
            runners=sorted(self._runners),
            models=sorted(self._models),
            totals=totals,
            by_scenario_type={k: g.report() for k, g in sorted(self._by_type.items())},
            by_runner_model={k: g.report() for k, g in sorted(self._by_runner_model.items())},
            by_scorer=by_scorer,
            red_flags={"figures": figures, "flags": flags},
            judge_usage=self._judge_usage,
            ops=ops,
            metrics_mean=means,
            not_scored=self._not_scored,
            worst_failures=[
                item for _, _, item in sorted(self._worst, key=lambda e: (-e[0], e[1]))
            ],
            scenario_problems=scenario_problems or [],
            interrupted=interrupted,
            repeats=self._repeats_section(),
            source_agreement={
                scorer: {"compared": n, "agree": k, "rate": k / n if n else None}
                for scorer, (n, k) in sorted(self._agreement.items())
            } or None,
        )

    def _repeats_section(self) -> dict[str, Any] | None:
        """The `repeats` section; None when no run was a repetition of a live run."""
        if not self._repeats:
            return None
        # Imported here: an offline evaluation has no repetitions and need not load it.
        from assay.reports.repeats import RepeatRecord, summarize_repeats

        return summarize_repeats(RepeatRecord._make(record) for record in self._repeats)

    def _red_flag_figures(
        self,
        pass_rate: float | None,
        means: dict[str, dict[str, float]],
        by_scorer: dict[str, dict[str, Any]],
    ) -> dict[str, float | None]:
        """The figures the red flags watch; None for a figure this evaluation cannot give."""
        if "recall" in means.get("trajectory", {}):
            # Share of the expected tool calls the runs made, from the trajectory check.
            tool_accuracy: float | None = means["trajectory"]["recall"]
        elif by_scorer.get("tool_name_match", {}).get("mean_score") is not None:
            tool_accuracy = by_scorer["tool_name_match"]["mean_score"]
        else:
            tool_accuracy = None
        results = self._results
        return {
            TOOL_SELECTION_ACCURACY: tool_accuracy,
            CONTEXT_OVERFLOW_RATE: self._overflowed / results if results else None,
            SCENARIO_PASS_RATE: pass_rate,
            AVG_LATENCY_S: (
                sum(self._durations) / len(self._durations) / 1000 if self._durations else None
            ),
            ESCALATION_RATE: self._escalated / results if results else None,
        }


def _percentile(values: Sequence[float], pct: int) -> float | None:
    """The `pct`th percentile, as `statistics.quantiles(values, n=100, method="inclusive")`
    gives it (linear interpolation between the closest ranks), without importing statistics
    and its dependencies at start-up.

    Example:
        >>> _percentile([4.0, 1.0, 3.0, 2.0], 50), _percentile([1.0, 2.0, 3.0, 4.0], 95)
        (2.5, 3.85)
    """
    if not values:
        return None
    if len(values) == 1:
        return float(values[0])
    data = sorted(values)
    rank, fraction = divmod(pct * (len(data) - 1), 100)
    return float((data[rank] * (100 - fraction) + data[rank + 1] * fraction) / 100)
