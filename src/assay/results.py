"""Results: what scorers return and what the pipeline records per run.

An unscored or errored result carries `value=None` and `passed=None`, so that it can never be
averaged in as 0 or NaN by accident; summaries count them apart.

Example:
    >>> s = Score.scored("static_json", 0.5, passed=False, rationale="1 of 2 keys exact")
    >>> (s.status, s.value, s.passed)
    (<ScoreStatus.SCORED: 'scored'>, 0.5, False)
    >>> Score.unscored("static_json", "run has no answer").value is None
    True
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Final

from assay._jsonable import json_type_phrase
from assay.schema import SCHEMA_VERSION, assay_version

if TYPE_CHECKING:  # the report's shapes are loaded only where a report is written
    from assay.schema.report import TranscriptEntry

NOT_APPLICABLE: Final = "not_applicable"
"""`details["reason"]` of an unscored score whose scenario gives the scorer nothing to check."""

PARTIALLY_SCORED: Final = "partially_scored"
"""`details["reason"]` of a combined verdict some parts scored and another gave none."""

DOES_NOT_APPLY: Final = frozenset(
    {
        # The scenario gives the scorer nothing to check: no expected tools or trajectory, no
        # success criterion for a rule check, no rubrics, no reference for the judge.
        NOT_APPLICABLE,
        # static_json on a scenario that has only a characteristic_form: there is no expected
        # answer to compare with (a judge scores such scenarios).
        "no_expected_answer",
    }
)
"""The `details["reason"]` codes of an unscored score that mean "this check does not apply to
this run": left out of a combined verdict. Every other unscored score is a verdict that could
not be given and makes a combined verdict partially scored: `no_answer` (the run has no answer
to check), `no_turns`, `no_usage`, `no_trajectory` and `no_tool_results` (the run records
nothing the check could read), `not_exercised` (the scenario expects something the run never
did: a sensitive tool never called, an expected sub-agent idle), `self_judge`, a failed judge
(`timeout`, `rate_limited`, `http_error`, `invalid_verdict`, `budget`, `cache_miss`…), a
composite's `no_part_scored` and `no_weight`, and any reason a scorer does not give."""


class ErrorKind(StrEnum):
    """Why a run or a check gave no verdict: the one vocabulary of `details["reason"]` codes that
    the reports count, whichever way the run came in (saved, live or benchmark).

    Example:
        >>> ErrorKind("timeout") in RUN_FAILURES, ErrorKind.SCORER_ERROR.value
        (True, 'scorer_error')
    """

    AGENT_ERROR = "agent_error"
    """The agent raised, or returned nothing a reply can be read from."""
    TIMEOUT = "timeout"
    """The run went past its deadline (whatever the agent did after it)."""
    INFRASTRUCTURE_ERROR = "infrastructure_error"
    """A connection failed or a model answered 429/5xx, on every attempt."""
    SCORER_ERROR = "scorer_error"
    """A criterion's scorer raised while checking the run."""
    UNKNOWN_SCORER = "unknown_scorer"
    """A criterion's scorer does not exist or cannot be built with its options."""
    BAD_GROUND_TRUTH = "bad_ground_truth"
    """The case's ground truth cannot be used."""
    PART_ERROR = "part_error"
    """A combined verdict one of whose parts is an error."""
    NEEDS_AGENT = "needs_agent"
    """A check that drives the agent (a simulated user, a repeated call), asked of a saved run
    whose report does not hold its verdict."""


RUN_FAILURES: Final = frozenset(
    {ErrorKind.AGENT_ERROR, ErrorKind.TIMEOUT, ErrorKind.INFRASTRUCTURE_ERROR}
)
"""The kinds of a run that failed before anything could be checked: counted apart, never
scored."""

CHECK_FAILURES: Final = frozenset({ErrorKind.SCORER_ERROR, ErrorKind.UNKNOWN_SCORER})
"""The kinds of a criterion that could not be checked on a run that was made."""


class ScoreStatus(StrEnum):
    """Whether a scorer could give a score."""

    SCORED = "scored"
    """A score was given; `value` and `passed` are set."""

    UNSCORED = "unscored"
    """The case could not be scored for a reason outside the scorer (no answer, no judge), or
    only some of several scorers scored it (`details["reason"]` "partially_scored")."""

    ERROR = "error"
    """Scoring failed: bad ground truth, a scorer bug, a crashed judge."""


@dataclass(slots=True)
class Score:
    """One scorer's verdict on one run."""

    scorer: str
    """Registered name of the scorer that produced this score."""

    status: ScoreStatus
    """scored, unscored or error."""

    value: float | None = None
    """Score in 0..1 when scored, else None."""

    passed: bool | None = None
    """Pass/fail when scored, else None."""

    rationale: str = ""
    """Why: a short human-readable explanation, or the reason it was not scored."""

    details: dict[str, Any] = field(default_factory=dict)
    """Scorer-specific metrics and records."""

    @classmethod
    def scored(
        cls,
        scorer: str,
        value: float,
        *,
        passed: bool,
        rationale: str = "",
        details: dict[str, Any] | None = None,
    ) -> Score:
        """A successful score."""
        return cls(scorer, ScoreStatus.SCORED, value, passed, rationale, details or {})

    @classmethod
    def no_answer(cls, scorer: str, answer: Any) -> Score:
        """Unscored: the run's answer is missing, null or not text (`reason` "no_answer").

        Example:
            >>> Score.no_answer("static_json", 42).rationale
            'run has no answer (answer is a number, not text)'
        """
        kind = "missing or null" if answer is None else f"{json_type_phrase(answer)}, not text"
        return cls.unscored(
            scorer, f"run has no answer (answer is {kind})", {"reason": "no_answer"}
        )

    @classmethod
    def unscored(cls, scorer: str, reason: str, details: dict[str, Any] | None = None) -> Score:
        """A case that could not be scored, with the reason."""
        return cls(scorer, ScoreStatus.UNSCORED, None, None, reason, details or {})

    @classmethod
    def error(cls, scorer: str, reason: str, details: dict[str, Any] | None = None) -> Score:
        """A case whose scoring failed, with the reason."""
        return cls(scorer, ScoreStatus.ERROR, None, None, reason, details or {})

    def does_not_apply(self) -> bool:
        """True for an unscored score whose reason says the check does not apply to the run
        (a reason in `DOES_NOT_APPLY`); such a score is left out of a combined verdict.

        Example:
            >>> Score.unscored("trajectory", "no expected tools", {"reason": "not_applicable"}
            ...                ).does_not_apply()
            True
            >>> Score.no_answer("static_json", None).does_not_apply()
            False
        """
        reason = self.details.get("reason")
        return (
            self.status is ScoreStatus.UNSCORED
            and isinstance(reason, str)
            and reason in DOES_NOT_APPLY
        )

    def to_report(self) -> dict[str, Any]:
        """The `score` object of a per-run report."""
        return {
            "scorer": self.scorer,
            "status": self.status.value,
            "passed": self.passed,
            "score": self.value,
            "rationale": self.rationale,
            "details": self.details,
        }


@dataclass(slots=True)
class OpsMetrics:
    """Operational figures of one run, derived from its trajectory."""

    turn_count: int = 0
    tool_call_count: int = 0
    unique_tools: list[str] = field(default_factory=list)
    tokens_in: int | None = None
    """Prompt tokens of the run; None when it recorded none."""
    tokens_out: int | None = None
    """Completion tokens of the run; None when it recorded none."""
    duration_ms: float | None = None
    est_cost_usd: float | None = None
    """Estimated from the price table in `assay.models.pricing`; None when the model is unknown."""
    context_overflow: bool = False
    """The run's recorded failure says it ran out of context window."""
    escalated: bool = False
    """The run called an escalation tool (a tool whose name starts with `escalate`)."""


@dataclass(slots=True)
class CaseResult:
    """One run scored against one scenario: the content of a per-run report (written
    through `assay.schema.report.RunReport` by `assay.reports.store.render`)."""

    scenario_id: str
    run_id: str | None
    runner: str | None
    model: str | None
    question: str | None
    answer: Any
    score: Score
    ops: OpsMetrics
    scenario_type: str | None = None
    source: str = ""
    report_file: str | None = None
    """File name of the per-run report inside the reports directory."""
    scores: list[Score] = field(default_factory=list)
    """Each scorer's own score when several scored the run (then `score` combines them, see
    `combine_scores`); empty when one scorer did and `score` is its score."""
    expected_answer: Any = None
    """The scenario's gold answer as written (None when it has none), so that a report can be
    read without its ground truth: in the per-run report only, not in `results.jsonl`."""
    notes: list[str] = field(default_factory=list)
    """What the reader could not read of the run's source (`Trajectory.notes`)."""
    source_passed: bool | None = None
    """Whether the run's source (the tool whose file it came from) passed it, read from its
    `source_verdicts` (`assay.source_verdicts`); None when it says neither."""
    repeat: int | None = None
    """1-based index of this repetition of a live run (`assay run --repeat K`); None for a run
    that was not run live (`assay evaluate`), and then absent from the reports."""
    benchmark: dict[str, Any] | None = None
    """The benchmark's own report of this repetition (`assay.benchmark`: task id, repetition,
    status, error, evaluators' metrics, traces, usage), when a benchmark made the run."""
    transcript: list[TranscriptEntry] | None = field(default=None, repr=False)
    """The run as it happened (`assay.transcript.transcript_of`: every message or step in
    order, with calls, turns, usage and the failure), bounded; None when not projected (a
    result read back from a `results.jsonl` line). In the per-run report only (and left out
    of the result's `repr`, which it would drown)."""
    transcript_left_out: int = 0
    """Entries of the run's transcript left out between its first and its last ones."""

    def parts(self) -> list[Score]:
        """The scores of the individual scorers (just `score` when only one ran)."""
        return self.scores or [self.score]


def combine_scores(parts: list[Score], weights: Mapping[str, float] | None = None) -> Score:
    """One verdict for a run several scorers scored.

    An errored part makes the verdict an error (a check that could not run cannot be counted
    as passed or failed). Parts that do not apply to the run (`Score.does_not_apply`) are left
    out. When every other part scored, the run passes when every one of them passed, with the
    mean of their values. When some parts scored but another gave no verdict (a judge that
    failed, a run without an answer), the run is *partially scored*: unscored with
    `details["reason"] == "partially_scored"`, `value` and `passed` None, and each part's
    verdict in `details["parts"]`; a missing verdict is never counted as a pass. When no part
    scored, the verdict is unscored.

    With `weights` (by part scorer name; a name not given weighs 1.0), the value is the
    weighted mean of the scored parts instead, and `details["weights"]` holds each part's
    weight. A part of weight 0 adds nothing to the value but still counts for pass/fail; when
    every scored part weighs 0, the verdict still stands and the value is their plain mean
    (`details["weights_note"]` says so).

    Raises:
        ValueError: a weight is negative, not finite or not a number.

    Example:
        >>> combined = combine_scores([Score.scored("a", 1.0, passed=True),
        ...                            Score.scored("b", 0.5, passed=False, rationale="x")])
        >>> combined.scorer, combined.value, combined.passed, combined.rationale
        ('a+b', 0.75, False, 'b: x')
        >>> failed = Score.unscored("b", "judge call failed", {"reason": "timeout"})
        >>> partial = combine_scores([Score.scored("a", 1.0, passed=True), failed])
        >>> partial.status.value, partial.passed, partial.details["reason"], partial.rationale
        ('unscored', None, 'partially_scored', 'no verdict from b: judge call failed; a passed')
        >>> combine_scores([Score.scored("a", 1.0, passed=True),
        ...                 Score.scored("b", 0.0, passed=True)], weights={"a": 3}).value
        0.75
    """
    name = "+".join(part.scorer for part in parts)
    details: dict[str, Any] = {"scorers": [part.scorer for part in parts]}
    if weights is not None:
        details["weights"] = _part_weights(parts, weights)
    errors = [part for part in parts if part.status is ScoreStatus.ERROR]
    if errors:
        reason = "; ".join(f"{part.scorer}: {part.rationale}" for part in errors)
        return Score.error(name, reason, {**details, "reason": "part_error"})
    scored = [part for part in parts if part.status is ScoreStatus.SCORED]
    if not scored:
        reason = "; ".join(f"{part.scorer}: {part.rationale}" for part in parts)
        reasons = {part.details.get("reason") for part in parts}
        # When every part gives the same reason (no answer, say), it is the run's reason.
        shared = reasons.pop() if len(reasons) == 1 else None
        if shared is None and all(part.does_not_apply() for part in parts):
            shared = NOT_APPLICABLE
        return Score.unscored(name, reason, {**details, "reason": shared or "no_part_scored"})
    missing = [
        part for part in parts if part.status is ScoreStatus.UNSCORED and not part.does_not_apply()
    ]
    if missing:
        return _partially_scored(name, details, parts, missing)
    failed = [part for part in scored if not part.passed]
    rationale = "; ".join(f"{part.scorer}: {part.rationale}" for part in failed)
    if weights is None:
        value = sum(part.value or 0.0 for part in scored) / len(scored)
    else:
        weight_of = details["weights"]
        top = max(weight_of[part.scorer] for part in scored)
        if top > 0:
            # Weights relative to the largest, so that tiny weights do not underflow to 0.
            relative = [weight_of[part.scorer] / top for part in scored]
            values = [part.value or 0.0 for part in scored]
            weighted = sum(w * v for w, v in zip(relative, values, strict=True))
            value = min(1.0, max(0.0, weighted / sum(relative)))
        else:  # the verdict still stands; only the mean has nothing to weigh by
            value = sum(part.value or 0.0 for part in scored) / len(scored)
            details["weights_note"] = "every scored part weighs 0: the value is their plain mean"
    return Score.scored(name, value, passed=not failed, rationale=rationale, details=details)


def _part_weights(parts: list[Score], weights: Mapping[str, float]) -> dict[str, float]:
    """Each part's weight by scorer name (1.0 when not given); raises on a bad weight."""
    for key, weight in weights.items():
        if (
            isinstance(weight, bool)
            or not isinstance(weight, int | float)
            or not math.isfinite(weight)
            or weight < 0
        ):
            raise ValueError(f"weight of {key!r} must be a finite number >= 0, got {weight!r}")
    return {part.scorer: float(weights.get(part.scorer, 1.0)) for part in parts}


def _partially_scored(
    name: str, details: dict[str, Any], parts: list[Score], missing: list[Score]
) -> Score:
    """Some parts scored, others gave no verdict: neither passed nor failed."""
    said = [
        f"{part.scorer} {'passed' if part.passed else 'failed'}"
        + ("" if part.passed or not part.rationale else f" ({part.rationale})")
        for part in parts
        if part.status is ScoreStatus.SCORED
    ]
    rationale = (
        "; ".join(f"no verdict from {part.scorer}: {part.rationale}" for part in missing)
        + "; "
        + ", ".join(said)
    )
    listed = [
        {
            "scorer": part.scorer,
            "status": part.status.value,
            "score": part.value,
            "passed": part.passed,
            "reason": part.details.get("reason"),
        }
        for part in parts
    ]
    return Score.unscored(
        name,
        rationale,
        {
            **details,
            "reason": PARTIALLY_SCORED,
            "without_verdict": [part.scorer for part in missing],
            "parts": listed,
        },
    )


@dataclass(slots=True)
class NotScored:
    """An input that produced no score, and why: kept so that nothing disappears silently."""

    kind: str
    """`unreadable`, `no_answer`, `no_scenario`, `no_run`, `unscored` or `error`."""

    reason: str
    """One line saying what went wrong."""

    source: str = ""
    """File (and line) the input came from."""

    run_id: str | None = None
    scenario_id: str | None = None


@dataclass(slots=True)
class RunSummary:
    """The aggregate of one evaluation: the content of `_aggregate.json`.

    `totals` always satisfies `scored + unscored + errors + skipped == runs_read`, where
    `runs_read` counts every run record found plus every input that could not be read;
    `partially_scored` runs (see `combine_scores`) are among the `unscored` ones.
    """

    generated_at: str
    runners: list[str]
    models: list[str]
    totals: dict[str, Any]
    by_scenario_type: dict[str, dict[str, Any]]
    by_runner_model: dict[str, dict[str, Any]]
    ops: dict[str, Any]
    metrics_mean: dict[str, dict[str, float]]
    """Mean of every numeric detail metric, per scorer, over that scorer's scored runs."""
    not_scored: dict[str, list[dict[str, Any]]]
    """Everything read but not scored, by kind, each with its reason."""
    scenario_problems: list[dict[str, Any]]
    """Ground-truth inputs that could not be used."""
    interrupted: bool = False
    """True when the evaluation stopped early; the figures cover what finished."""
    worst_failures: list[dict[str, Any]] = field(default_factory=list)
    """The lowest-scoring failed runs (at most ten), lowest first."""
    by_scorer: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Scored, passed, pass rate and mean score per scorer (each part when several ran)."""
    judge_usage: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Per judge model: calls (and how many came from the cache), tokens and cost — what
    judging cost, apart from what the agents' runs cost (`ops`)."""
    red_flags: dict[str, Any] = field(default_factory=dict)
    """`figures` (tool selection accuracy, context overflow rate, scenario pass rate, average
    latency, escalation rate; None when not measured) and the `flags` they raise."""
    options: dict[str, Any] = field(default_factory=dict)
    """What the evaluation was asked to do: inputs, reports directory, scorers, workers,
    red-flag thresholds (see `assay.schema.report.EvaluationOptions`)."""
    scorers: list[dict[str, Any]] = field(default_factory=list)
    """What ran: one `{"name", "options"}` per scorer that scored a run, in the order first
    used, with every option as used (defaults included; secrets redacted)."""
    live: dict[str, Any] = field(default_factory=dict)
    """A live evaluation's figures (`assay run`): runs, passed, pass rate over every run,
    overall score, failed runs by kind, per-criterion figures and weights; empty offline."""
    source_agreement: dict[str, Any] | None = None
    """How often assay's verdicts agree with those of the runs' source (Inspect AI's scores,
    a tau-bench reward, ADK's eval status, ...), per scorer: `{"compared", "agree", "rate"}`;
    None when no run carried a source verdict, and then absent from `_aggregate.json`."""
    repeats: dict[str, Any] | None = None
    """pass@k, pass^k, mean score with its interval and the flaky cases of the runs that were
    repetitions of a live run (see `assay.reports.repeats.summarize_repeats`); None when no
    run was (an offline evaluation), and then absent from `_aggregate.json`."""

    @property
    def pass_rate(self) -> float | None:
        """What `--fail-under` checks: passed over scored and partially scored runs
        (`totals["pass_rate"]`); for a live evaluation, passed over every run, a run whose
        agent failed included (`live["pass_rate"]`). None when there are none."""
        rate = self.live.get("pass_rate") if self.live else self.totals.get("pass_rate")
        return None if rate is None else float(rate)

    def to_report(self) -> dict[str, Any]:
        """The aggregate report as a JSON-ready dict."""
        return {
            "schema_version": SCHEMA_VERSION,
            "assay_version": assay_version(),
            "generated_at": self.generated_at,
            "interrupted": self.interrupted,
            "options": self.options,
            "runners": self.runners,
            "models": self.models,
            "scorers": self.scorers,
            "totals": self.totals,
            "by_scenario_type": self.by_scenario_type,
            "by_runner_model": self.by_runner_model,
            "by_scorer": self.by_scorer,
            "judge_usage": self.judge_usage,
            "red_flags": self.red_flags,
            "ops": self.ops,
            "metrics_mean": self.metrics_mean,
            "not_scored": self.not_scored,
            "scenario_problems": self.scenario_problems,
            "worst_failures": self.worst_failures,
            **({"live": self.live} if self.live else {}),
            **({} if self.repeats is None else {"repeats": self.repeats}),
            **({} if self.source_agreement is None
               else {"source_agreement": self.source_agreement}),
        }
