"""The report's shape: a per-run report, a `results.jsonl` line and `_aggregate.json`.

One typed definition per shape, used three ways: the writer builds a `RunReport` for every
run and encodes it (`assay.reports.store.render`) and passes the aggregate through
`Aggregate` before writing it; the readers check what they read back against these models
(`validate`); and `assay schema` prints their JSON Schema (`json_schema_of`). They are
msgspec structs rather than pydantic models because a report is written for every run:
building and encoding one costs about a third of what a pydantic model does
(`bench/README.md`, "The report's model"). Unknown fields are refused.

Example:
    >>> line = validate({
    ...     "scenario_id": "11", "scenario_type": None, "run_id": "r1", "runner": None,
    ...     "model": None, "question": None, "answer": "{}", "source": "r1.json",
    ...     "report_file": "r1.json",
    ...     "score": {"scorer": "static_json", "status": "scored", "passed": True, "score": 1.0,
    ...               "rationale": "", "details": {}},
    ...     "ops": {"turn_count": 0, "tool_call_count": 0, "unique_tools": [], "tokens_in": 0,
    ...             "tokens_out": 0, "duration_ms": None, "est_cost_usd": None,
    ...             "context_overflow": False, "escalated": False}}, ResultLine)
    >>> line.score.passed
    True
    >>> validate({"scenario_id": 11}, ResultLine)
    Traceback (most recent call last):
    ...
    ValueError: scenario_id: Expected `str`, got `int`
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal, TypeVar

from msgspec import UNSET, Meta, Struct, UnsetType, ValidationError, convert
from msgspec.json import schema as _msgspec_schema

__all__ = [
    "Aggregate",
    "OpsRecord",
    "ResultLine",
    "RunReport",
    "ScoreRecord",
    "TranscriptCall",
    "TranscriptEntry",
    "json_schema_of",
    "validate",
]

Count = Annotated[int, Meta(ge=0)]
Unit = Annotated[float, Meta(ge=0.0, le=1.0)]
Interval = Annotated[list[float], Meta(min_length=2, max_length=2)]


def doc(text: str) -> Meta:
    """A field's description, as the JSON Schema gives it."""
    return Meta(description=text)


class _Record(Struct, forbid_unknown_fields=True):
    """A part of a report: every field written, none unknown read."""


class _Sparse(_Record, omit_defaults=True):
    """A part of a report whose optional fields are left out when they do not apply."""


class ScoreRecord(_Record):
    """One scorer's verdict on one run."""

    scorer: Annotated[
        str, doc("The scorer's registered name (`a+b` for a verdict combining several).")
    ]
    status: Annotated[
        Literal["scored", "unscored", "error"],
        doc(
            "`scored`: `score` and `passed` are set. `unscored`: the run could not be scored "
            "(no answer, nothing to check, a judge that gave no verdict; `details.reason` is "
            "`partially_scored` when some of several scorers scored it and another gave "
            "none). `error`: scoring failed (bad ground truth, a scorer bug)."
        ),
    ]
    passed: Annotated[bool | None, doc("Pass or fail when scored, else null.")]
    score: Annotated[
        Unit | None,
        doc("The score in 0..1 when scored, else null (never 0 for a run not scored)."),
    ]
    rationale: Annotated[
        str, doc("Why: a short explanation, or the reason the run was not scored.")
    ]
    details: Annotated[
        dict[str, Any],
        doc("Scorer-specific figures and records (`reason` says why a run was not scored)."),
    ]


class OpsRecord(_Record):
    """Operational figures of one run, from its trajectory."""

    turn_count: Count
    tool_call_count: Count
    unique_tools: list[str]
    tokens_in: Annotated[Count | None, doc("Prompt tokens; null when the run did not record them.")]
    tokens_out: Annotated[
        Count | None, doc("Completion tokens; null when the run did not record them.")
    ]
    duration_ms: float | None
    est_cost_usd: Annotated[
        float | None, doc("Estimated from the price table; null when the model's price is unknown.")
    ]
    context_overflow: bool
    escalated: bool


class TranscriptCall(_Sparse, kw_only=True):
    """One tool call in a transcript entry."""

    name: Annotated[str, doc("The tool's name as the agent called it.")]
    id: Annotated[
        str | None, doc("The provider's id of the call (what a `tool` entry's `call_id` names).")
    ] = None
    args: Annotated[
        Any,
        doc(
            "The arguments as recorded (an object, or the raw text when they did not parse); "
            "past 4,000 characters of JSON, that text cut, ending `… (cut, N chars)`; a value "
            "JSON cannot hold, its Python `repr`."
        ),
    ] = None
    result: Annotated[
        Any,
        doc(
            "What the tool returned, cut as `args` are; absent when not recorded, or when a "
            "`tool` entry of the transcript carries it."
        ),
    ] = None


class TranscriptEntry(_Sparse, kw_only=True):
    """One message of a run, or one step of a run recorded as steps (a model call and the
    tool calls it made)."""

    role: Annotated[
        str,
        doc(
            "`system`, `user`, `assistant`, `tool`, or the source's own role; `error` for the "
            "last entry of a run that failed (its text: the failure, after its kind)."
        ),
    ]
    text: Annotated[
        str | None,
        doc("What the entry says; past 8,000 characters, cut, ending `… (cut, N chars)`."),
    ] = None
    calls: Annotated[
        list[TranscriptCall], doc("The tool calls an assistant entry made, in order.")
    ] = []
    call_id: Annotated[str | None, doc("A `tool` entry: the id of the call it answers.")] = None
    turn: Annotated[
        Count | None,
        doc("The conversation turn, from 0 (a turn starts with a user message)."),
    ] = None
    node: Annotated[
        str | None, doc("The agent or graph node that made this model call, when known.")
    ] = None
    tokens_in: Annotated[
        Count | None, doc("Prompt tokens of this model call, when recorded.")
    ] = None
    tokens_out: Annotated[
        Count | None, doc("Completion tokens of this model call, when recorded.")
    ] = None
    duration_ms: Annotated[
        float | None, doc("Wall time of this model call, when recorded.")
    ] = None


class RunReport(_Sparse, kw_only=True):
    """A per-run report: `<run id>.json` in the reports directory."""

    scenario_id: str
    scenario_type: str | None
    run_id: str | None
    runner: str | None
    model: str | None
    question: str | None
    answer: Annotated[Any, doc("The run's final answer as recorded (normally text).")]
    score: Annotated[
        ScoreRecord, doc("The verdict: the one scorer's, or the combination of `scores`.")
    ]
    ops: OpsRecord
    source: Annotated[str, doc("Where the run was read from (`path` or `path:line`).")]
    scores: Annotated[
        list[ScoreRecord],
        doc("Each scorer's own verdict, when several scored the run (absent when one did)."),
    ] = []
    expected_answer: Annotated[
        Any,
        doc(
            "The scenario's gold answer as written, when it has one (per-run reports only; a "
            "`results.jsonl` line leaves it out)."
        ),
    ] = None
    repeat: Annotated[
        Annotated[int, Meta(ge=1)] | None,
        doc(
            "Which repetition of a live run this is, from 1 (`assay run --repeat K`); absent "
            "for a run that was not run live."
        ),
    ] = None
    source_passed: Annotated[
        bool | None,
        doc(
            "Whether the run's source (the tool whose file it came from) passed it, read from "
            "its own verdicts (Inspect AI's scores, a tau-bench reward, ...); absent when it "
            "says neither."
        ),
    ] = None
    notes: Annotated[
        list[str] | None,
        doc(
            "What the reader met in the run's source and could not read (an item of a type "
            "it does not know, a content part that is not text), one line each; absent when "
            "it read everything."
        ),
    ] = None
    benchmark: Annotated[
        dict[str, Any] | None,
        doc(
            "For a run a benchmark made (`assay bench`): its own report of the repetition, "
            "as `Benchmark.run` returns it (`task_id`, `repeat_idx`, `status`, `error`, "
            "`eval`, `traces`, `config`, `usage`, `task`); a `results.jsonl` line keeps "
            "`task_id`, `repeat_idx`, `status` and `error`."
        ),
    ] = None
    transcript: Annotated[
        list[TranscriptEntry] | None,
        doc(
            "The run as it happened, for reading why it failed: every message in order (or, "
            "for a run recorded as steps, the question, each model call and the answer), with "
            "its role, turn, tool calls with their arguments and results, and the usage of "
            "each model call; a last `error` entry for a run that failed. At most 400 entries: "
            "past that, the first 200 and the last 200 (`transcript_left_out` counts the "
            "rest). Per-run reports only: a `results.jsonl` line leaves it out."
        ),
    ] = None
    transcript_left_out: Annotated[
        Count | None,
        doc(
            "Entries of the transcript left out between its first 200 and its last 200; "
            "absent when none was."
        ),
    ] = None


class ResultLine(RunReport, kw_only=True):
    """A line of `results.jsonl`: the run's report without per-key records, and its file."""

    report_file: Annotated[str, doc("The per-run report's file name in the reports directory.")]


class Group(_Record, kw_only=True):
    """Counts for one slice of the results (a scenario type, a runner and model, a scorer)."""

    scored: Count
    passed: Count
    pass_rate: Annotated[
        float | None,
        doc("Passed over scored plus partially scored; null when there are none."),
    ]
    mean_score: Annotated[
        float | None, doc("Mean score of the scored runs; null when none was scored.")
    ]
    unscored: Count
    partially_scored: Annotated[
        Count,
        doc("Of `unscored`: runs some scorers scored while another gave no verdict."),
    ] = 0
    errors: Count


class SourceAgreement(_Record, kw_only=True):
    """One scorer's agreement with the runs' source verdicts."""

    compared: Annotated[Count, doc("Runs the scorer scored and the source judged.")]
    agree: Annotated[Count, doc("Of those, the runs where both passed or both failed.")]
    rate: Annotated[float | None, doc("`agree / compared`; null when nothing was compared.")]


class Totals(_Record, kw_only=True):
    """Every input read, accounted for: `scored + unscored + errors + skipped == runs_read`."""

    runs_read: Count
    scored: Count
    passed: Count
    failed: Count
    pass_rate: Annotated[
        float | None,
        doc(
            "Passed over `scored + partially_scored` (a run that did not get every verdict it "
            "needed is not a pass; `--fail-under` checks this rate); null when both are 0."
        ),
    ]
    unscored: Count
    partially_scored: Annotated[
        Count,
        doc(
            "Of `unscored`: runs some scorers scored while another gave no verdict (a judge "
            "that failed, say); neither passed nor failed, and counted in the pass rate as not "
            "passed."
        ),
    ] = 0
    no_answer: Annotated[
        Count,
        doc("Of `unscored`: runs a scorer found without an answer (partially scored ones too)."),
    ]
    errors: Count
    skipped: Annotated[
        Count, doc("Inputs that never reached a scorer: `unreadable + no_scenario`.")
    ]
    unreadable: Count
    no_scenario: Count
    runs_with_notes: Annotated[
        Count,
        doc(
            "Runs read whole but for content their reader could not read (their `notes` say "
            "what: an item of an unknown type, a part that is not text); counted among the "
            "others, never dropped in silence."
        ),
    ] = 0
    scenarios_loaded: Count
    scenarios_without_runs: Count


class NotScoredEntry(_Record):
    """An input that produced no score, with its reason (the fields that do not apply to
    its kind are absent)."""

    source: str
    reason: str
    run_id: str | UnsetType | None = UNSET
    scenario_id: str | UnsetType | None = UNSET
    scorer: Annotated[
        str | UnsetType | None,
        doc("For a run that reached a scorer: the scorer that did not score it."),
    ] = UNSET
    report_file: Annotated[
        str | UnsetType | None, doc("For a run that reached a scorer: its report.")
    ] = UNSET


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
    """A failed run, among the lowest scores."""

    run_id: str | None
    scenario_id: str
    score: float | None
    reason: str
    report_file: str | None


class JudgeUsage(_Record):
    """What one judge model's calls cost."""

    calls: Count
    cached_calls: Count
    input_tokens: Count
    output_tokens: Count
    cost_usd: Annotated[float | None, doc("Estimated; null when a call's price is unknown.")]


class RedFlag(_Record):
    """One red flag: a figure past its threshold, or not measured."""

    metric: str
    red_flag: str
    value: float | None
    threshold: float
    comparison: Literal["<", ">"]
    action: str
    status: Literal["raised", "not_measured"]


class RedFlags(_Record):
    """The figures the red flags watch, and the flags."""

    figures: Annotated[
        dict[str, float | None],
        doc("The figures the flags watch; null for one this evaluation cannot give."),
    ]
    flags: list[RedFlag]


class Ops(_Record):
    """Operational totals over the scored runs."""

    turns_total: Count
    tool_calls_total: Count
    tokens_in_total: Count | None
    tokens_out_total: Count | None
    duration_ms_p50: float | None
    duration_ms_p95: float | None
    est_cost_usd_total: float | None


class EvaluationOptions(_Sparse, kw_only=True):
    """What the evaluation was asked to do (scorer options are in `scorers`)."""

    trajectories: str
    scenarios: list[str]
    reports_dir: str
    scorer_default: Annotated[
        str | None,
        doc(
            "The scorer for scenarios that name none (absent when every run is checked on "
            "`scorers`)."
        ),
    ] = None
    scorers: Annotated[
        list[str],
        doc(
            "The criteria every run is checked on (empty: each scenario's own scorer, or the "
            "default); what each checks is in `_config.json`."
        ),
    ]
    workers: Annotated[
        int | None,
        doc(
            "Processes that scored runs (`assay evaluate --workers`); absent for a live evaluation."
        ),
    ] = None
    red_flag_thresholds: Annotated[
        dict[str, float | None], doc("Where each red flag is raised (null: switched off).")
    ]
    max_file_bytes: Annotated[
        Annotated[int, Meta(ge=1)] | None,
        doc(
            "Largest input file read whole (`--max-file-size`); absent in reports of versions "
            "that did not cap input."
        ),
    ] = None
    max_line_bytes: Annotated[
        Annotated[int, Meta(ge=1)] | None,
        doc("Longest line of a JSON-lines run file read (`--max-line-size`)."),
    ] = None
    live: Annotated[
        dict[str, Any] | None,
        doc(
            "A live evaluation's settings (`assay run`): the agent, the eval set, the criteria "
            "(kind, scorer, options, weight), concurrency, repetitions, timeout, retries. Its "
            "runs are `trajectories` (the directory's runs.jsonl), its cases `scenarios` "
            "(evalset.jsonl)."
        ),
    ] = None


class ScorerRun(_Record):
    """A scorer that scored runs, and what it ran with."""

    name: Annotated[str, doc("The scorer's registered name (`assay scorers NAME` describes it).")]
    options: Annotated[
        dict[str, Any],
        doc("Every option as used, defaults included (API keys and other secrets: `<redacted>`)."),
    ]


class CriterionFigures(_Record):
    """One criterion of a live evaluation, over its runs."""

    scored: int
    passed: int
    unscored: Annotated[
        int,
        doc("Runs on which it gave no verdict (a check that did not apply is not counted)."),
    ]
    errors: int
    mean_score: float | None
    pass_rate: float | None


class LiveFigures(_Record):
    """A live evaluation's own figures (`assay run`, `assay.evaluation`)."""

    runs: Annotated[int, doc("Runs finished (cases times repetitions, when none was interrupted).")]
    passed: int
    pass_rate: Annotated[
        float | None,
        doc(
            "Runs passed over every finished run: a run whose agent failed did not pass "
            "(unlike `totals.pass_rate`, which leaves errors out)."
        ),
    ]
    overall_score: Annotated[
        float | None,
        doc(
            "Weighted mean of every criterion's score over every run (criteria without a "
            "verdict and failed runs left out); null when nothing was scored."
        ),
    ]
    errors: Annotated[
        dict[str, int],
        doc(
            "Runs that failed, by kind: agent_error, timeout, infrastructure_error, and runs "
            "with a criterion that could not be checked (scorer_error)."
        ),
    ]
    criteria: dict[str, CriterionFigures]
    weights: dict[str, float]
    units: Annotated[int, doc("Runs asked for (cases times repetitions).")]
    finished: Annotated[
        int,
        doc("Runs finished (kept from an interrupted evaluation included, when resumed)."),
    ]


class RepeatCase(_Record):
    """One case's repetitions."""

    scenario_id: str
    n: Annotated[
        Annotated[int, Meta(ge=1)],
        doc("Repetitions of the case that finished (passed, failed or not scored)."),
    ]
    passed: Annotated[Count, doc("Of `n`: repetitions that passed.")]
    not_scored: Annotated[
        Count,
        doc(
            "Of `n`: repetitions without a verdict (agent error, timeout, unscored): they did "
            "not pass."
        ),
    ]
    pass_at_k: Annotated[
        dict[str, float],
        doc(
            'k ("1".."n") -> 1 - C(n-passed, k)/C(n, k): the chance that one of k repetitions '
            "passes."
        ),
    ]
    pass_hat_k: Annotated[
        dict[str, float],
        doc('k ("1".."n") -> C(passed, k)/C(n, k): the chance that all k repetitions pass.'),
    ]
    mean_score: Annotated[
        Unit | None, doc("Mean score of the scored repetitions; null when none was scored.")
    ]
    ci95: Annotated[
        Interval | None,
        doc(
            "95% t-interval of `mean_score` over the repetitions, cut to [0, 1]; null with "
            "fewer than 2 scored repetitions."
        ),
    ]
    flaky: Annotated[bool, doc("Some repetitions passed and others did not.")]


class Repeats(_Record):
    """`repeats`: the figures of repeated live runs (absent when no run was one)."""

    n: Annotated[
        Annotated[int, Meta(ge=1)],
        doc("The smallest repetition count of any case: `pass_at_k` and `pass_hat_k` go up to it."),
    ]
    n_max: Annotated[
        Annotated[int, Meta(ge=1)],
        doc("The largest repetition count of any case (above `n` when a run was cut short)."),
    ]
    runs: Annotated[Annotated[int, Meta(ge=1)], doc("Repetitions counted, over all cases.")]
    not_scored: Annotated[Count, doc("Of `runs`: repetitions without a verdict.")]
    cases: Annotated[list[RepeatCase], doc("One per case, sorted by id.")]
    pass_at_k: Annotated[
        dict[str, float],
        doc('k ("1".."n") -> mean over cases of their pass@k (each case weighs the same).'),
    ]
    pass_hat_k: Annotated[dict[str, float], doc('k ("1".."n") -> mean over cases of their pass^k.')]
    mean_score: Annotated[
        Unit | None,
        doc("Mean over cases of their mean scores (cases without one left out)."),
    ]
    ci95: Annotated[
        Interval | None,
        doc("95% t-interval of `mean_score` over cases, cut to [0, 1]; null with fewer than 2."),
    ]
    flaky: Annotated[list[str], doc("Ids of the flaky cases, sorted.")]
    duplicates: Annotated[
        list[tuple[str, int]],
        doc("[case, repeat] of each repetition recorded more than once (counted once)."),
    ] = []


class Aggregate(_Sparse, kw_only=True):
    """`_aggregate.json`: the whole evaluation."""

    schema_version: Annotated[
        Literal[1, 2],
        doc(
            "The version of this shape (see `assay.schema.SCHEMA_VERSION`): 2 is written; a "
            "report of version 1 reads as one of version 2 does."
        ),
    ]
    assay_version: Annotated[str, doc("The version of assay that wrote the report.")]
    generated_at: str
    interrupted: Annotated[
        bool, doc("True when the evaluation stopped early; the figures cover what finished.")
    ]
    options: EvaluationOptions
    runners: list[str]
    models: list[str]
    scorers: Annotated[
        list[ScorerRun], doc("One per scorer that scored a run, in the order first used.")
    ]
    totals: Totals
    by_scenario_type: dict[str, Group]
    by_runner_model: dict[str, Group]
    by_scorer: dict[str, Group]
    judge_usage: dict[str, JudgeUsage]
    red_flags: RedFlags
    ops: Ops
    metrics_mean: Annotated[
        dict[str, dict[str, float]],
        doc("Mean of every numeric detail, per scorer, over its scored runs."),
    ]
    not_scored: NotScored
    scenario_problems: list[ScenarioProblem]
    worst_failures: list[WorstFailure]
    live: Annotated[LiveFigures | None, doc("Present for live evaluations only.")] = None
    source_agreement: Annotated[
        dict[str, SourceAgreement] | None,
        doc(
            "Per scorer, how often its verdicts agree with those of the runs' source "
            "(`source_passed`), over the runs both judged; absent when no run carried a "
            "source verdict."
        ),
    ] = None
    repeats: Annotated[
        Repeats | None,
        doc(
            "pass@k, pass^k, mean score and flaky cases of repeated live runs (`assay run "
            "--repeat K`); absent for an evaluation of saved runs."
        ),
    ] = None


_Shape = TypeVar("_Shape", bound=_Record)
_MISSING = re.compile(r"Object missing required field `(.+)`")


def validate(value: Any, shape: type[_Shape]) -> _Shape:
    """`value` (parsed JSON) read as `shape`, strictly: no field missing, none unknown, no
    value of another type (`"1"` is not a number, `true` not a count).

    Raises:
        ValueError: the first field that breaks the shape, by its path.

    Example:
        >>> validate({"scored": 1, "passed": 1, "pass_rate": 1.0, "mean_score": None,
        ...           "unscored": 0, "errors": 0}, Group).partially_scored
        0
        >>> validate({"scored": 1}, Group)
        Traceback (most recent call last):
        ...
        ValueError: passed: required, missing
        >>> validate({"runs_read": -1}, Totals)
        Traceback (most recent call last):
        ...
        ValueError: runs_read: Expected `int` >= 0
    """
    try:
        return convert(value, shape, strict=True)
    except ValidationError as error:
        message, _, where = str(error).partition(" - at `$")
        path = where.rstrip("`").lstrip(".")
        missing = _MISSING.fullmatch(message)
        if missing:
            path, message = f"{path}.{missing[1]}" if path else missing[1], "required, missing"
        raise ValueError(f"{path or '(top)'}: {message}") from None


def json_schema_of(shape: type[_Record]) -> dict[str, Any]:
    """The JSON Schema of one shape, the shape itself at the top and its parts in `$defs`.

    Example:
        >>> json_schema_of(RunReport)["properties"]["repeat"]["anyOf"][0]["minimum"]
        1
    """
    document: dict[str, Any] = _msgspec_schema(shape)
    definitions: dict[str, Any] = document.pop("$defs")
    top: dict[str, Any] = definitions.pop(shape.__name__)
    return {**top, **({"$defs": definitions} if definitions else {})}
