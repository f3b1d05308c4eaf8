"""The report's shape: a per-run report, a `results.jsonl` line and `_aggregate.json`.

The writer builds these files with orjson on the hot path; these models say what it must
write, validate a reports directory when asked (the test suite validates every report it
writes), and give `assay schema` its JSON Schema. Unknown fields are refused, so a change to
what is written that is not made here too is caught.

Example:
    >>> line = ResultLine.model_validate({
    ...     "scenario_id": "11", "scenario_type": None, "run_id": "r1", "runner": None,
    ...     "model": None, "question": None, "answer": "{}", "source": "r1.json",
    ...     "report_file": "r1.json",
    ...     "score": {"scorer": "static_json", "status": "scored", "passed": True, "score": 1.0,
    ...               "rationale": "", "details": {}},
    ...     "ops": {"turn_count": 0, "tool_call_count": 0, "unique_tools": [], "tokens_in": 0,
    ...             "tokens_out": 0, "duration_ms": None, "est_cost_usd": None,
    ...             "context_overflow": False, "escalated": False}})
    >>> line.score.passed
    True
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from assay.schema import SCHEMA_VERSION


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)


class ScoreRecord(_Record):
    """One scorer's verdict on one run."""

    scorer: str
    """The scorer's registered name (`a+b` for a verdict combining several)."""

    status: Literal["scored", "unscored", "error"]
    """`scored`: `score` and `passed` are set. `unscored`: the run could not be scored (no
    answer, nothing to check, a judge that gave no verdict; `details.reason` is
    `partially_scored` when some of several scorers scored it and another gave none).
    `error`: scoring failed (bad ground truth, a scorer bug)."""

    passed: bool | None
    """Pass or fail when scored, else null."""

    score: float | None = Field(ge=0.0, le=1.0)
    """The score in 0..1 when scored, else null (never 0 for a run not scored)."""

    rationale: str
    """Why: a short explanation, or the reason the run was not scored."""

    details: dict[str, Any]
    """Scorer-specific figures and records (`reason` says why a run was not scored)."""


class OpsRecord(_Record):
    """Operational figures of one run, from its trajectory."""

    turn_count: int = Field(ge=0)
    tool_call_count: int = Field(ge=0)
    unique_tools: list[str]
    tokens_in: int | None = Field(ge=0)
    """Prompt tokens; null when the run did not record them."""
    tokens_out: int | None = Field(ge=0)
    """Completion tokens; null when the run did not record them."""
    duration_ms: float | None
    est_cost_usd: float | None
    """Estimated from the price table; null when the model's price is unknown."""
    context_overflow: bool
    escalated: bool


class RunReport(_Record):
    """A per-run report: `<run id>.json` in the reports directory."""

    scenario_id: str
    scenario_type: str | None
    run_id: str | None
    runner: str | None
    model: str | None
    question: str | None
    answer: Any
    """The run's final answer as recorded (normally text)."""
    score: ScoreRecord
    """The verdict: the one scorer's, or the combination of `scores`."""
    ops: OpsRecord
    source: str
    """Where the run was read from (`path` or `path:line`)."""
    scores: list[ScoreRecord] = Field(default_factory=list)
    """Each scorer's own verdict, when several scored the run (absent when one did)."""
    expected_answer: Any = None
    """The scenario's gold answer as written, when it has one (per-run reports only; a
    `results.jsonl` line leaves it out)."""
    repeat: int | None = Field(default=None, ge=1)
    """Which repetition of a live run this is, from 1 (`assay run --repeat K`); absent for a
    run that was not run live."""


class ResultLine(RunReport):
    """A line of `results.jsonl`: the run's report without per-key records, and its file."""

    report_file: str
    """The per-run report's file name in the reports directory."""


class Group(_Record):
    """Counts for one slice of the results (a scenario type, a runner and model, a scorer)."""

    scored: int = Field(ge=0)
    passed: int = Field(ge=0)
    pass_rate: float | None
    """Passed over scored plus partially scored; null when there are none."""
    mean_score: float | None
    """Mean score of the scored runs; null when none was scored."""
    unscored: int = Field(ge=0)
    partially_scored: int = Field(default=0, ge=0)
    """Of `unscored`: runs some scorers scored while another gave no verdict."""
    errors: int = Field(ge=0)


class Totals(_Record):
    """Every input read, accounted for: `scored + unscored + errors + skipped == runs_read`."""

    runs_read: int = Field(ge=0)
    scored: int = Field(ge=0)
    passed: int = Field(ge=0)
    failed: int = Field(ge=0)
    pass_rate: float | None
    """Passed over `scored + partially_scored` (a run that did not get every verdict it
    needed is not a pass; `--fail-under` checks this rate); null when both are 0."""
    unscored: int = Field(ge=0)
    partially_scored: int = Field(default=0, ge=0)
    """Of `unscored`: runs some scorers scored while another gave no verdict (a judge that
    failed, say); neither passed nor failed, and counted in the pass rate as not passed."""
    no_answer: int = Field(ge=0)
    """Of `unscored`: runs a scorer found without an answer (partially scored ones too)."""
    errors: int = Field(ge=0)
    skipped: int = Field(ge=0)
    """Inputs that never reached a scorer: `unreadable + no_scenario`."""
    unreadable: int = Field(ge=0)
    no_scenario: int = Field(ge=0)
    scenarios_loaded: int = Field(ge=0)
    scenarios_without_runs: int = Field(ge=0)


class NotScoredEntry(_Record):
    """An input that produced no score, with its reason."""

    source: str
    reason: str
    run_id: str | None = None
    scenario_id: str | None = None
    scorer: str | None = None
    """For a run that reached a scorer: the scorer that did not score it."""
    report_file: str | None = None
    """For a run that reached a scorer: its report."""


class NotScored(_Record):
    """Everything read but not scored, by kind."""

    unscored: list[NotScoredEntry]
    errors: list[NotScoredEntry]
    unreadable: list[NotScoredEntry]
    no_scenario: list[NotScoredEntry]
    no_run: list[NotScoredEntry]


class ScenarioProblem(_Record):
    """A ground-truth input that could not be used."""

    source: str
    reason: str


class WorstFailure(_Record):
    run_id: str | None
    scenario_id: str
    score: float | None
    reason: str
    report_file: str | None


class JudgeUsage(_Record):
    """What one judge model's calls cost."""

    calls: int = Field(ge=0)
    cached_calls: int = Field(ge=0)
    input_tokens: int = Field(ge=0)
    output_tokens: int = Field(ge=0)
    cost_usd: float | None
    """Estimated; null when a call's price is unknown."""


class RedFlag(_Record):
    metric: str
    red_flag: str
    value: float | None
    threshold: float
    comparison: Literal["<", ">"]
    action: str
    status: Literal["raised", "not_measured"]


class RedFlags(_Record):
    figures: dict[str, float | None]
    """The figures the flags watch; null for one this evaluation cannot give."""
    flags: list[RedFlag]


class Ops(_Record):
    """Operational totals over the scored runs."""

    turns_total: int = Field(ge=0)
    tool_calls_total: int = Field(ge=0)
    tokens_in_total: int | None = Field(ge=0)
    tokens_out_total: int | None = Field(ge=0)
    duration_ms_p50: float | None
    duration_ms_p95: float | None
    est_cost_usd_total: float | None


class EvaluationOptions(_Record):
    """What the evaluation was asked to do (scorer options are in `scorers`)."""

    trajectories: str
    scenarios: list[str]
    reports_dir: str
    scorer_default: str | None = None
    """The scorer for scenarios that name none (absent when every run is checked on
    `scorers`)."""
    scorers: list[str]
    """The criteria every run is checked on (empty: each scenario's own scorer, or the
    default); what each checks is in `_config.json`."""
    workers: int | None = None
    """Processes that scored runs (`assay evaluate --workers`); absent for a live
    evaluation."""
    red_flag_thresholds: dict[str, float | None]
    """Where each red flag is raised (null: switched off)."""
    max_file_bytes: int | None = Field(default=None, ge=1)
    """Largest input file read whole (`--max-file-size`); absent in reports of versions that
    did not cap input."""
    max_line_bytes: int | None = Field(default=None, ge=1)
    """Longest line of a JSON-lines run file read (`--max-line-size`)."""
    live: dict[str, Any] | None = None
    """A live evaluation's settings (`assay run`): the agent, the eval set, the criteria
    (kind, scorer, options, weight), concurrency, repetitions, timeout, retries. Its runs are
    `trajectories` (the directory's runs.jsonl), its cases `scenarios` (evalset.jsonl)."""


class ScorerRun(_Record):
    """A scorer that scored runs, and what it ran with."""

    name: str
    """The scorer's registered name (`assay scorers NAME` describes it)."""

    options: dict[str, Any]
    """Every option as used, defaults included (API keys and other secrets: `<redacted>`)."""


class CriterionFigures(_Record):
    """One criterion of a live evaluation, over its runs."""

    scored: int
    passed: int
    unscored: int
    """Runs on which it gave no verdict (a check that did not apply is not counted)."""
    errors: int
    mean_score: float | None
    pass_rate: float | None


class LiveFigures(_Record):
    """A live evaluation's own figures (`assay run`, `assay.evaluation`)."""

    runs: int
    """Runs finished (cases times repetitions, when none was interrupted)."""
    passed: int
    pass_rate: float | None
    """Runs passed over every finished run: a run whose agent failed did not pass (unlike
    `totals.pass_rate`, which leaves errors out)."""
    overall_score: float | None
    """Weighted mean of every criterion's score over every run (criteria without a verdict
    and failed runs left out); null when nothing was scored."""
    errors: dict[str, int]
    """Runs that failed, by kind: agent_error, timeout, infrastructure_error, and runs with a
    criterion that could not be checked (scorer_error)."""
    criteria: dict[str, CriterionFigures]
    weights: dict[str, float]
    units: int
    """Runs asked for (cases times repetitions)."""
    finished: int
    """Runs finished (kept from an interrupted evaluation included, when resumed)."""


class RepeatCase(_Record):
    """One case's repetitions."""

    scenario_id: str
    n: int = Field(ge=1)
    """Repetitions of the case that finished (passed, failed or not scored)."""
    passed: int = Field(ge=0)
    """Of `n`: repetitions that passed."""
    not_scored: int = Field(ge=0)
    """Of `n`: repetitions without a verdict (agent error, timeout, unscored): they did not
    pass."""
    pass_at_k: dict[str, float]
    """k ("1".."n") -> 1 - C(n-passed, k)/C(n, k): the chance that one of k repetitions
    passes."""
    pass_hat_k: dict[str, float]
    """k ("1".."n") -> C(passed, k)/C(n, k): the chance that all k repetitions pass."""
    mean_score: float | None = Field(ge=0.0, le=1.0)
    """Mean score of the scored repetitions; null when none was scored."""
    ci95: list[float] | None = Field(min_length=2, max_length=2)
    """95% t-interval of `mean_score` over the repetitions, cut to [0, 1]; null with fewer
    than 2 scored repetitions."""
    flaky: bool
    """Some repetitions passed and others did not."""


class Repeats(_Record):
    """`repeats`: the figures of repeated live runs (absent when no run was one)."""

    n: int = Field(ge=1)
    """The smallest repetition count of any case: `pass_at_k` and `pass_hat_k` go up to it."""
    n_max: int = Field(ge=1)
    """The largest repetition count of any case (above `n` when a run was cut short)."""
    runs: int = Field(ge=1)
    """Repetitions counted, over all cases."""
    not_scored: int = Field(ge=0)
    """Of `runs`: repetitions without a verdict."""
    cases: list[RepeatCase]
    """One per case, sorted by id."""
    pass_at_k: dict[str, float]
    """k ("1".."n") -> mean over cases of their pass@k (each case weighs the same)."""
    pass_hat_k: dict[str, float]
    """k ("1".."n") -> mean over cases of their pass^k."""
    mean_score: float | None = Field(ge=0.0, le=1.0)
    """Mean over cases of their mean scores (cases without one left out)."""
    ci95: list[float] | None = Field(min_length=2, max_length=2)
    """95% t-interval of `mean_score` over cases, cut to [0, 1]; null with fewer than 2."""
    flaky: list[str]
    """Ids of the flaky cases, sorted."""
    duplicates: list[tuple[str, int]] = Field(default_factory=list)
    """[case, repeat] of each repetition recorded more than once (counted once)."""


class Aggregate(_Record):
    """`_aggregate.json`: the whole evaluation."""

    schema_version: Literal[1, 2] = SCHEMA_VERSION
    """The version of this shape (see `assay.schema.SCHEMA_VERSION`): 2 is written; a report
    of version 1 reads as one of version 2 does."""
    assay_version: str
    """The version of assay that wrote the report."""
    generated_at: str
    interrupted: bool
    """True when the evaluation stopped early; the figures cover what finished."""
    options: EvaluationOptions
    runners: list[str]
    models: list[str]
    scorers: list[ScorerRun]
    """One per scorer that scored a run, in the order first used."""
    totals: Totals
    by_scenario_type: dict[str, Group]
    by_runner_model: dict[str, Group]
    by_scorer: dict[str, Group]
    judge_usage: dict[str, JudgeUsage]
    red_flags: RedFlags
    ops: Ops
    metrics_mean: dict[str, dict[str, float]]
    """Mean of every numeric detail, per scorer, over its scored runs."""
    not_scored: NotScored
    scenario_problems: list[ScenarioProblem]
    worst_failures: list[WorstFailure]
    live: LiveFigures | None = None
    """Present for live evaluations only."""
    repeats: Repeats | None = None
    """pass@k, pass^k, mean score and flaky cases of repeated live runs (`assay run
    --repeat K`); absent for an evaluation of saved runs."""
