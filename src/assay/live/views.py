"""The results of a live evaluation, as the seed names them: thin views over `CaseResult`s.

`EvalReport.cases` holds one `EvalCaseResult` per run (per case and repetition), each a view
of the same `CaseResult` the reports directory holds, with the captured run beside it.

The rules, in one place (`live_figures` computes them for the API and `_aggregate.json`):
- a run **passed** when every criterion that applies to it scored and passed; a criterion that
  could not give a verdict (a judge that failed, nothing to check against) keeps the run from
  passing without failing it (it is *unscored*, with its reason); a run whose agent failed
  (an error, a timeout, an infrastructure failure) did not pass and is counted apart;
- `pass_rate` = runs passed / runs (every run, failed ones included, as the seed defines it);
- `overall_score` = the weighted mean of every criterion's score over every run, each
  criterion by its weight; criteria without a verdict and runs that failed are left out (no
  failure is ever turned into a number), and `None` when nothing was scored.

Example:
    >>> from assay.results import OpsMetrics, Score
    >>> result = CaseResult("a", "a", "agent", None, "?", "hi",
    ...                     Score.scored("response", 1.0, passed=True), OpsMetrics())
    >>> live_figures([result], {"response": 1.0})["pass_rate"]
    1.0
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay.records import Trajectory, TrajectoryStep
from assay.reports.console import shown
from assay.results import (
    CHECK_FAILURES,
    RUN_FAILURES,
    CaseResult,
    ErrorKind,
    RunSummary,
    Score,
    ScoreStatus,
)

if TYPE_CHECKING:
    from pandas import DataFrame

__all__ = ["CriterionResult", "EvalCaseResult", "EvalReport", "live_figures"]

_ERROR_KINDS = tuple(
    kind.value
    for kind in ErrorKind
    if kind in RUN_FAILURES or kind is ErrorKind.SCORER_ERROR
)
"""What the figures count apart: runs that failed, by kind, and runs with a criterion that
could not be checked (`scorer_error`, also counting `unknown_scorer`)."""


@dataclass(slots=True)
class CriterionResult:
    """One criterion's verdict on one run."""

    criterion_name: str
    """The criterion's key in `EvalConfig.criteria`."""
    passed: bool | None
    """True or False when scored; None when the criterion gave no verdict."""
    score: float | None
    """0..1 when scored; None otherwise (never a made-up number)."""
    reason: str | None
    """The matcher's or judge's explanation, or why there is no verdict."""
    status: str = "scored"
    """`scored`, `unscored` or `error`."""
    details: dict[str, Any] = field(default_factory=dict)
    """The scorer's details (matched steps, the judge's rationale and usage...)."""

    @classmethod
    def of(cls, score: Score) -> CriterionResult:
        """The view of one criterion's `Score`."""
        return cls(
            score.scorer,
            score.passed if score.status is ScoreStatus.SCORED else None,
            score.value if score.status is ScoreStatus.SCORED else None,
            score.rationale or None,
            score.status.value,
            score.details,
        )


@dataclass(slots=True)
class EvalCaseResult:
    """One run of one case: its verdicts, what the agent answered, what it did."""

    eval_id: str
    """The case's id."""
    passed: bool
    """Whether every criterion that applies scored and passed (see the module's rules)."""
    score: float | None
    """The run's score: the weighted mean of its criteria's scores (None if none scored)."""
    criteria_results: dict[str, CriterionResult]
    """Each criterion's verdict, by criterion name."""
    actual_response: str | None
    """The agent's reply (the last turn's in a multi-turn case)."""
    actual_trajectory: list[TrajectoryStep]
    """Node entries and tool calls as captured, in order."""
    error: str | None
    """Why the run itself failed, when it did (the agent raised, timed out...)."""
    error_kind: str | None = None
    """`agent_error`, `timeout`, `infrastructure_error`, or None."""
    repeat: int = 1
    """Which repetition of the case this run is (from 1)."""
    run_id: str = ""
    """The run's id in the reports (`eval_id`, or `eval_id#repeat` when repeated)."""
    result: CaseResult | None = None
    """The full result, as the reports directory holds it."""
    run: Trajectory | None = None
    """The captured run, as `runs.jsonl` holds it."""

    @classmethod
    def of(
        cls,
        result: CaseResult,
        run: Trajectory | None = None,
        trajectory: Sequence[TrajectoryStep] = (),
        *,
        repeat: int = 1,
    ) -> EvalCaseResult:
        """The view of one result."""
        reason = result.score.details.get("reason")
        error_kind = (
            reason if result.score.status is ScoreStatus.ERROR and reason in RUN_FAILURES else None
        )
        criteria = {} if error_kind else {
            part.scorer: CriterionResult.of(part) for part in result.parts()
        }
        return cls(
            eval_id=result.scenario_id,
            passed=result.score.status is ScoreStatus.SCORED and result.score.passed is True,
            score=result.score.value if result.score.status is ScoreStatus.SCORED else None,
            criteria_results=criteria,
            actual_response=result.answer if isinstance(result.answer, str) else None,
            actual_trajectory=list(trajectory),
            error=result.score.rationale if error_kind else None,
            error_kind=error_kind,
            repeat=repeat,
            run_id=result.run_id or result.scenario_id,
            result=result,
            run=run,
        )


@dataclass(slots=True)
class EvalReport:
    """The results of evaluating an agent over an eval set."""

    cases: list[EvalCaseResult]
    """One result per run, case by case, repetitions in order."""
    weights: dict[str, float] = field(default_factory=dict)
    """Criterion name to weight (what `overall_score` weighs by)."""
    figures: dict[str, Any] = field(default_factory=dict)
    """`live_figures` of the results (also `_aggregate.json`'s `live` section)."""
    repeats: dict[str, Any] | None = None
    """pass@k, pass^k and flaky cases when cases were repeated (see `assay.reports.repeats`)."""
    interrupted: bool = False
    """True when the evaluation was stopped before every run finished."""
    summary: RunSummary | None = None
    """The aggregate as `_aggregate.json` holds it, when the reports were written."""
    reports_dir: Path | None = None
    """Where the reports were written, if they were."""
    warnings: list[str] = field(default_factory=list)
    """What looks wrong with the evaluation itself (a capture that is not wired)."""

    @property
    def total_cases(self) -> int:
        """Runs evaluated (cases times repetitions)."""
        return len(self.cases)

    @property
    def passed_cases(self) -> int:
        """Runs that passed."""
        return sum(1 for case in self.cases if case.passed)

    @property
    def pass_rate(self) -> float:
        """Runs passed over all runs (0.0 for none)."""
        return self.passed_cases / self.total_cases if self.cases else 0.0

    @property
    def overall_score(self) -> float | None:
        """Weighted mean of the criteria's scores over all runs (see the module's rules)."""
        value = self.figures.get("overall_score")
        return None if value is None else float(value)

    @property
    def errors(self) -> dict[str, int]:
        """Runs that failed, by kind of failure."""
        return dict(self.figures.get("errors", {}))

    def to_pandas(self) -> DataFrame:
        """The runs as a pandas DataFrame, one row per run: the frame
        `assay.load_dataframe(reports_dir)` gives of the reports this evaluation wrote (run
        and scenario id, repeat, passed, score, status, error kind, each criterion's score
        as `score_<criterion>`, tokens, cost, duration; see
        `assay.reports.load.load_dataframe`). Needs pandas (`pip install pandas`).

        Raises:
            ImportError: pandas is not installed.

        Example:
            >>> EvalReport([]).to_pandas().columns[:4].tolist()
            ['run_id', 'scenario_id', 'repeat', 'runner']
        """
        from assay.reports.load import results_dataframe

        return results_dataframe(case.result for case in self.cases if case.result is not None)

    def format_summary(self) -> str:
        """A human-readable summary: the figures, then each run that did not pass and why.

        Example:
            >>> print(EvalReport([]).format_summary().splitlines()[0])
            Evaluated 0 runs: 0 passed (pass rate 0%), overall score n/a
        """
        score = self.overall_score
        lines = [
            f"Evaluated {self.total_cases} runs: {self.passed_cases} passed "
            f"(pass rate {self.pass_rate:.0%}), overall score "
            + ("n/a" if score is None else f"{score:.3f}")
        ]
        errors = {kind: n for kind, n in self.errors.items() if n}
        if errors:
            lines.append("Failed runs: " + ", ".join(f"{n} {kind}" for kind, n in errors.items()))
        if self.repeats:
            pass_at = self.repeats.get("pass_at_k") or {}
            pass_hat = self.repeats.get("pass_hat_k") or {}
            if pass_at:
                k = max(pass_at, key=int)
                lines.append(
                    f"Repeated x{self.repeats.get('n')}: pass@{k} {pass_at[k]:.2f}, "
                    f"pass^{k} {pass_hat.get(k, 0.0):.2f}, "
                    f"flaky: {', '.join(self.repeats.get('flaky') or []) or 'none'}"
                )
        if self.interrupted:
            lines.append("Interrupted: the figures cover the runs that finished.")
        lines.extend(f"Warning: {warning}" for warning in self.warnings)
        for case in self.cases:
            if case.passed:
                continue
            name = case.run_id or case.eval_id
            if case.error is not None:
                lines.append(f"  {name}: {case.error}")
                continue
            said = [
                f"{crit}: {'no verdict' if r.passed is None else 'failed'}"
                + (f" ({_short(r.reason)})" if r.reason else "")
                for crit, r in case.criteria_results.items()
                if r.passed is not True and not (r.status == "unscored" and _not_applicable(r))
            ]
            lines.append(f"  {name}: " + ("; ".join(said) or "not passed"))
        # Ids, replies and reasons are data: a control character in them is written as an
        # escape, never sent to the terminal (one line per entry, whatever they hold).
        return "\n".join(shown(line) for line in lines)


def _short(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _not_applicable(result: CriterionResult) -> bool:
    return result.details.get("reason") in ("not_applicable", "no_expected_answer")


def live_figures(results: Iterable[CaseResult], weights: Mapping[str, float]) -> dict[str, Any]:
    """The live evaluation's figures: runs, passed, pass rate, overall score, failures by kind.

    Example:
        >>> from assay.results import OpsMetrics, Score
        >>> ok = CaseResult("a", "a#1", None, None, None, "x",
        ...                 Score.scored("r", 0.5, passed=False), OpsMetrics())
        >>> down = CaseResult("a", "a#2", None, None, None, None,
        ...                   Score.error("r", "boom", {"reason": "agent_error"}), OpsMetrics())
        >>> figures = live_figures([ok, down], {"r": 1.0})
        >>> figures["pass_rate"], figures["overall_score"], figures["errors"]["agent_error"]
        (0.0, 0.5, 1)
    """
    runs = passed = 0
    errors: Counter[str] = Counter({kind: 0 for kind in _ERROR_KINDS})
    total = weight_sum = 0.0
    criteria: dict[str, dict[str, Any]] = {}
    for result in results:
        runs += 1
        score = result.score
        if score.status is ScoreStatus.SCORED and score.passed:
            passed += 1
        reason = score.details.get("reason")
        if score.status is ScoreStatus.ERROR and reason in RUN_FAILURES:
            errors[str(reason)] += 1
            continue
        if any(
            p.status is ScoreStatus.ERROR and p.details.get("reason") in CHECK_FAILURES
            for p in result.parts()
        ):
            errors[ErrorKind.SCORER_ERROR.value] += 1
        for part in result.parts():
            if part.does_not_apply():
                continue
            entry = criteria.setdefault(
                part.scorer, {"scored": 0, "passed": 0, "unscored": 0, "errors": 0, "sum": 0.0}
            )
            if part.status is ScoreStatus.SCORED and part.value is not None:
                entry["scored"] += 1
                entry["passed"] += bool(part.passed)
                entry["sum"] += part.value
                weight = weights.get(part.scorer, 1.0)
                total += weight * part.value
                weight_sum += weight
            elif part.status is ScoreStatus.ERROR:
                entry["errors"] += 1
            else:
                entry["unscored"] += 1
    for entry in criteria.values():
        scored = entry["scored"]
        summed = entry.pop("sum")
        entry["mean_score"] = summed / scored if scored else None
        entry["pass_rate"] = entry["passed"] / scored if scored else None
    return {
        "runs": runs,
        "passed": passed,
        "pass_rate": passed / runs if runs else None,
        "overall_score": total / weight_sum if weight_sum > 0 and math.isfinite(total) else None,
        "errors": dict(errors),
        "criteria": criteria,
        "weights": dict(weights),
    }
