"""The data an HTML report page holds: a compact projection of a loaded reports directory.

Everything here is read from the reports as written (nothing is scored again); every string is
cut to a size a page for 20,000 runs can carry, with a visible "(cut, N chars)" note, and made
safe to hold as JSON (lone surrogates and bidirectional controls written as escapes).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import orjson

from assay.reports.load import LoadedReports

STATUSES = ("passed", "failed", "unscored", "error")
"""A run's status in the page: its overall score's verdict, or why it has none."""


@dataclass(frozen=True, slots=True)
class Limits:
    """How much of each run the page carries; past these, a string is cut with a note and a
    list is shortened with a count of what was left out."""

    answer: int = 600
    """Characters of a run's answer (also what the search box searches)."""

    question: int = 400
    """Characters of a run's question."""

    text: int = 200
    """Characters of a rationale, a call or any other string."""

    value: int = 80
    """Characters of a key, gold value or model value in a per-key table (the table is most
    of the page's size)."""

    rows: int = 15
    """Rows of a per-key table, calls of each kind of a trajectory, rubrics or criteria."""

    cases: int = 1000
    """Cases in the table of repeated runs (flaky cases first)."""

    not_scored: int = 300
    """Inputs not scored listed (the aggregate lists them all)."""

    transcript_text: int = 4000
    """Characters of a message in a transcript (a call's arguments or result: `text`)."""

    page: int = 19_000_000
    """Bytes of data a static page may hold: the transcripts of failed and errored runs go
    in, in the order of the runs, while the page stays under this; a run left out says so
    (`assay view` shows every transcript, loaded when its run is opened)."""


_UNSAFE = re.compile(r"[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff\x00]")
"""Characters shown as escapes: bidirectional controls (they reorder the text around them, so
an id could read as another), lone surrogates (not encodable as UTF-8) and NUL."""


def text(value: Any, limit: int) -> str:
    r"""`value` as page text: JSON for what is not a string, unsafe characters as escapes, and
    at most `limit` characters followed by a note of the full length.

    Example:
        >>> text("a\u202eb", 10), text({"k": 1}, 10), text("x" * 12, 5)
        ('a\\u202eb', '{"k":1}', 'xxxxx… (cut, 12 chars)')
    """
    if not isinstance(value, str):
        try:
            value = orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
        except (TypeError, orjson.JSONEncodeError):
            try:
                value = repr(value)
            except RecursionError:
                value = "(a value nested too deeply to show)"
    if _UNSAFE.search(value) is not None:
        value = _UNSAFE.sub(lambda found: found.group().encode("unicode_escape").decode(), value)
    shown: str = value
    if len(shown) <= limit:
        return shown
    return f"{shown[:limit]}… (cut, {len(shown)} chars)"


class Pool:
    """Strings that repeat across runs (runner, model, question, scenario type, scorer names,
    statuses, reasons and rationales), each held once in the page: a field holds the string's
    index in `strings` (the page's script puts the strings back when it loads).

    Example:
        >>> pool = Pool()
        >>> pool("gpt"), pool("judge"), pool("gpt"), pool(None), pool.strings
        (0, 1, 0, None, ['gpt', 'judge'])
    """

    def __init__(self) -> None:
        self.strings: list[str] = []
        """The strings, in the order first met."""
        self._index: dict[str, int] = {}

    def __call__(self, value: str | None) -> int | None:
        if value is None:
            return None
        found = self._index.get(value)
        if found is None:
            found = self._index[value] = len(self.strings)
            self.strings.append(value)
        return found


def _short(value: Any) -> float | int | None:
    """A number for display only, with 6 significant digits (a cost of 0.008716400000000001
    is 0.0087164 in the page)."""
    number = _num(value)
    return float(f"{number:.6g}") if isinstance(number, float) else number


def _opt(value: Any, limit: int) -> str | None:
    return None if value is None else text(value, limit)


def _num(value: Any) -> float | int | None:
    """A number from the reports, or None; an integer past what JSON readers hold exactly
    (2**53) becomes a float, one past a float's range None (JSON cannot hold it)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, int) and abs(value) > 2**53:
        try:
            return float(value)
        except OverflowError:
            return None
    return value if value == value and abs(value) != float("inf") else None


def status(score: Any) -> str:
    """The page status of a run from its overall score record (`passed`, `failed`,
    `unscored` or `error`); a record that is not one is `error`.

    Example:
        >>> status({"status": "scored", "passed": False}), status({"status": "unscored"})
        ('failed', 'unscored')
    """
    if not isinstance(score, dict):
        return "error"
    kind = score.get("status")
    if kind == "scored":
        return "passed" if score.get("passed") is True else "failed"
    return kind if kind in ("unscored", "error") else "error"


def _rows(items: Any, limit: int) -> tuple[list[Any], int]:
    """The first `limit` items of a list, and how many were left out."""
    if not isinstance(items, list):
        return [], 0
    return items[:limit], max(0, len(items) - limit)


def _scorer(record: Any, limits: Limits, pool: Pool) -> dict[str, Any]:
    if not isinstance(record, dict):
        return {
            "n": pool("(not a score record)"),
            "st": pool("error"),
            "why": pool(text(record, limits.text)),
        }
    n = limits.text
    out: dict[str, Any] = {
        "n": pool(text(record.get("scorer"), 80)),
        "st": pool(text(record.get("status"), 20)),
        "p": record.get("passed") if isinstance(record.get("passed"), bool) else None,
        "v": _num(record.get("score")),
        "why": pool(text(record.get("rationale") or "", n)),
    }
    details = record.get("details")
    if not isinstance(details, dict):
        return out
    if isinstance(details.get("reason"), str):
        out["reason"] = pool(text(details["reason"], n))
    keys, cut = _rows(details.get("details"), limits.rows)
    if keys:
        out["k"] = [_key_row(k, limits, pool) for k in keys if isinstance(k, dict)]
        out["kcut"] = cut
    for field, short in (("missing_keys", "mk"), ("extra_keys", "xk")):
        items, cut = _rows(details.get(field), limits.rows)
        if items or cut:
            out[short] = [text(item, n) for item in items] + ([f"… {cut} more"] if cut else [])
    if any(field in details for field in ("matched", "missing", "unexpected", "args_differ")):
        out["tj"] = _trajectory(details, limits)
    rubrics, cut = _rows(details.get("rubrics"), limits.rows)
    if rubrics:
        out["rb"] = [
            [
                text(r.get("rubric_id"), n),
                _num(r.get("weight")),
                _num(r.get("score")),
                r.get("passed") if isinstance(r.get("passed"), bool) else None,
                text(r.get("rationale") or "", n),
            ]
            for r in rubrics
            if isinstance(r, dict)
        ]
    criteria = details.get("criteria")
    if isinstance(criteria, dict):
        out["cr"] = [[text(k, 80), text(v, n)] for k, v in list(criteria.items())[: limits.rows]]
    judge = details.get("judge")
    if isinstance(judge, dict):
        out["j"] = {
            "model": _opt(judge.get("model"), 120),
            "calls": _num(judge.get("calls")),
            "in": _num(judge.get("input_tokens")),
            "out": _num(judge.get("output_tokens")),
            "cost": _num(judge.get("cost_usd")),
        }
    notes = details.get("notes")
    if notes:
        out["notes"] = text(notes, n)
    return out


def _key_row(record: dict[str, Any], limits: Limits, pool: Pool) -> list[Any]:
    """[key, gold value, model value, match type, similarity] of a static_json per-key record;
    the model value is None when the answer lacks the key, and true when it is the gold value's
    text (most rows of a passing run: the page shows the gold value again)."""
    gold = text(record.get("gold_value"), limits.value)
    model: str | bool | None = None
    if "model_value" in record:
        model = text(record.get("model_value"), limits.value)
        model = True if model == gold else model
    return [
        text(record.get("key"), limits.value),
        gold,
        model,
        pool(text(record.get("match_type"), 40)),
        _short(record.get("similarity")),
    ]


def _trajectory(details: dict[str, Any], limits: Limits) -> dict[str, Any]:
    """The calls as the trajectory scorer paired them: matched pairs, calls of the right tool
    whose arguments differ (with each differing argument), missing expected calls and
    unexpected actual calls, each with its step (or None when the report has none).

    A pair whose arguments differ is `[expected step, expected call, actual step, actual
    call, [[argument, kind, expected value, actual value], ...]]`; its two calls are not
    listed again as missing and unexpected.
    """
    n = limits.text
    pairs: list[list[Any]] = []
    matched, cut_m = _rows(details.get("matched"), limits.rows)
    for item in matched:
        if isinstance(item, dict):
            pairs.append(
                [
                    _num(item.get("expected_step")),
                    _opt(item.get("expected"), n),
                    _num(item.get("actual_step")),
                    _opt(item.get("actual"), n),
                ]
            )
    differ, cut_d = _rows(details.get("args_differ"), limits.rows)
    shown: list[tuple[Any, Any, Any, Any]] = []  # (step, call) of each side, as reported
    for item in differ:
        if isinstance(item, dict):
            pairs.append(
                [
                    _num(item.get("expected_step")),
                    _opt(item.get("expected"), n),
                    _num(item.get("actual_step")),
                    _opt(item.get("actual"), n),
                    _arguments(item, limits),
                ]
            )
            shown.append(
                (item.get("expected_step"), item.get("expected"),
                 item.get("actual_step"), item.get("actual"))
            )  # fmt: skip
    missing, cut_x = _rows(_without(details.get("missing"), [s[:2] for s in shown]), limits.rows)
    for item in missing:
        if isinstance(item, dict):
            pairs.append([_num(item.get("step")), _opt(item.get("call"), n), None, None])
    unexpected, cut_u = _rows(
        _without(details.get("unexpected"), [s[2:] for s in shown]), limits.rows
    )
    for item in unexpected:
        if isinstance(item, dict):
            pairs.append([None, None, _num(item.get("step")), _opt(item.get("call"), n)])
    return {
        "pairs": pairs,
        "cut": cut_m + cut_d + cut_x + cut_u,
        "mode": _opt(details.get("mode"), 40),
        "expected": _num(details.get("expected_calls")),
        "actual": _num(details.get("actual_calls")),
    }


def _arguments(pair: dict[str, Any], limits: Limits) -> list[list[Any]]:
    """[argument, kind, expected value, actual value] of each differing argument of a pair
    (a value None where that side has none), with a last row `["… N more", ...]` for those
    left out."""
    found, cut = _rows(pair.get("differences"), limits.rows)
    more = pair.get("more_differences")
    cut += more if type(more) is int and more > 0 else 0
    rows = [
        [
            text(d.get("argument"), limits.value),
            text(d.get("kind"), 20),
            _opt(d.get("expected"), limits.value),
            _opt(d.get("actual"), limits.value),
        ]
        for d in found
        if isinstance(d, dict)
    ]
    if cut:
        rows.append([f"… {cut} more", "more", None, None])
    return rows


def _without(items: Any, shown: list[tuple[Any, Any]]) -> list[Any]:
    """`items` (missing or unexpected calls) less one entry for each (step, call) in
    `shown`, the calls already in a pair whose arguments differ."""
    if not isinstance(items, list):
        return []
    left = list(shown)
    kept = []
    for item in items:
        key = (item.get("step"), item.get("call")) if isinstance(item, dict) else None
        if key is not None and key in left:
            left.remove(key)
        else:
            kept.append(item)
    return kept


def run_data(
    line: dict[str, Any],
    limits: Limits,
    report: dict[str, Any] | None = None,
    pool: Pool | None = None,
    *,
    lazy: bool = False,
) -> dict[str, Any]:
    """One run as the page holds it, from its `results.jsonl` line and, for the per-scorer
    details that the line leaves out (static_json's per-key records), its per-run report.

    Example:
        >>> line = {"run_id": "r1", "scenario_id": "7", "answer": "<b>", "report_file": "r1.json",
        ...         "score": {"scorer": "static_json", "status": "scored", "passed": True,
        ...                   "score": 1.0, "rationale": "", "details": {}}}
        >>> run = run_data(line, Limits())
        >>> run["i"], run["st"], run["a"]
        ('r1', 'passed', '<b>')
    """
    strings = pool if pool is not None else Pool()
    score = line.get("score")
    ops: dict[str, Any] = line["ops"] if isinstance(line.get("ops"), dict) else {}
    # The line leaves static_json's per-key records out; the run's own report has them.
    source = report if report is not None else line
    scores: list[Any] = source["scores"] if isinstance(source.get("scores"), list) else []
    if not scores and isinstance(source.get("score"), dict):
        scores = [source["score"]]  # one scorer: its record is the overall score
    details = score.get("details") if isinstance(score, dict) else None
    answer = line.get("answer")
    gold = report.get("expected_answer") if report is not None else None
    return {
        "i": _opt(line.get("run_id"), limits.text),
        "s": text(line.get("scenario_id"), limits.text),
        "t": strings(_opt(line.get("scenario_type"), limits.text)),
        "st": status(score),
        "ps": isinstance(details, dict) and details.get("reason") == "partially_scored",
        "v": _num(score.get("score")) if isinstance(score, dict) else None,
        "r": strings(_opt(line.get("runner"), limits.text)),
        "m": strings(_opt(line.get("model"), limits.text)),
        "q": strings(_opt(line.get("question"), limits.question)),
        "a": None if answer is None else text(answer, limits.answer),
        "g": None if gold is None else text(gold, limits.answer),
        "why": text(score.get("rationale") or "", limits.text) if isinstance(score, dict) else "",
        "o": [
            _num(ops.get("tokens_in")),
            _num(ops.get("tokens_out")),
            _short(ops.get("est_cost_usd")),
            _short(ops.get("duration_ms")),
            _num(ops.get("turn_count")),
            _num(ops.get("tool_call_count")),
        ],
        # `assay view`'s table needs no scorer's details: they come when the run is opened.
        "sc": [] if lazy else [_scorer(record, limits, strings) for record in scores],
        "f": _opt(line.get("report_file"), limits.text),
        "nr": report is None and not lazy,
        "p": _repeat(line.get("repeat")),
        **({"lazy": True} if lazy else {}),  # its details not read yet: `assay view`
    }


def transcript_data(report: dict[str, Any] | None, limits: Limits) -> list[list[Any]] | None:
    r"""A run's transcript as the page holds it (None: the report has none): an entry per
    message or step, `[role, text, calls, call id, turn, node, tokens in, tokens out,
    duration ms]`, a call `[name, arguments, result, id]` with arguments and results as
    pretty-printed JSON text (`None`: not recorded); an entry `["cut", N]` stands for the N
    entries the report left out.

    Example:
        >>> transcript_data({"transcript": [{"role": "user", "text": "2+2?"}, {"role":
        ...     "assistant", "calls": [{"name": "add", "args": {"a": 2}, "result": 4}]}]},
        ...     Limits())[1][2]
        [['add', '{\n  "a": 2\n}', '4', None]]
    """
    entries = report.get("transcript") if isinstance(report, dict) else None
    if not isinstance(entries, list):
        return None
    n, short = limits.transcript_text, limits.text
    out: list[list[Any]] = []
    left_out = report.get("transcript_left_out") if isinstance(report, dict) else None
    half = len(entries) // 2 if isinstance(left_out, int) and left_out > 0 else None
    for index, entry in enumerate(entries):
        if index == half:
            out.append(["cut", left_out])
        if not isinstance(entry, dict):
            continue
        calls = entry.get("calls")
        out.append([
            text(entry.get("role"), 40),
            _opt(entry.get("text"), n),
            [
                [text(c.get("name"), short), _pretty(c.get("args"), n),
                 _pretty(c.get("result"), n), _opt(c.get("id"), short)]
                for c in (calls if isinstance(calls, list) else [])
                if isinstance(c, dict)
            ],
            _opt(entry.get("call_id"), short),
            _num(entry.get("turn")),
            _opt(entry.get("node"), short),
            _num(entry.get("tokens_in")),
            _num(entry.get("tokens_out")),
            _short(entry.get("duration_ms")),
        ])
    return out


def _pretty(value: Any, limit: int) -> str | None:
    """A call's arguments or result as page text: JSON indented (a string that holds JSON
    too), else the text as it is."""
    if value is None:
        return None
    if isinstance(value, str):
        stripped = value.strip()
        if stripped[:1] in ("{", "[") and len(stripped) <= 64 * limit:
            try:
                value = orjson.loads(stripped)
            except orjson.JSONDecodeError:
                return text(value, limit)
        else:
            return text(value, limit)
    try:
        shown = orjson.dumps(value, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS)
    except (TypeError, orjson.JSONEncodeError):
        return text(value, limit)
    return text(shown.decode(), limit)


def _repeat(value: Any) -> int | None:
    """A run's repeat number, or None when it has none (or what it has is not one)."""
    return value if type(value) is int and 1 <= value <= 2**53 else None


def _mapping(value: Any) -> dict[Any, Any]:
    return value if isinstance(value, dict) else {}


def _interval(value: Any) -> list[Any] | None:
    """[low, high] of an interval as numbers, or None when `value` is not a pair."""
    if not isinstance(value, list) or len(value) != 2:
        return None
    return [_num(value[0]), _num(value[1])]


def _repeats(section: Any, limits: Limits) -> dict[str, Any] | None:
    """The aggregate's `repeats` section as the page shows it: the figures per k
    (`[k, pass@k, pass^k]`), the mean score and its interval, the flaky case ids, and one row
    per case (flaky ones first, at most `limits.cases`): `[id, runs, passed, not scored,
    pass@1, pass^n, mean score, interval low, interval high, flaky]`, n being the case's own
    repetition count."""
    if not isinstance(section, dict):
        return None
    n = limits.text
    at, hat = _mapping(section.get("pass_at_k")), _mapping(section.get("pass_hat_k"))
    ks = sorted(
        {int(k) for k in (*at, *hat) if isinstance(k, str) and k.isdigit() and len(k) < 10}
    )
    cases = [case for case in section.get("cases") or [] if isinstance(case, dict)]
    cases.sort(key=lambda case: case.get("flaky") is not True)  # stable: ids stay in order
    rows = []
    for case in cases[: limits.cases]:
        case_at, case_hat = _mapping(case.get("pass_at_k")), _mapping(case.get("pass_hat_k"))
        low, high = _interval(case.get("ci95")) or (None, None)
        rows.append(
            [
                text(case.get("scenario_id"), n),
                _num(case.get("n")),
                _num(case.get("passed")),
                _num(case.get("not_scored")),
                _num(case_at.get("1")),
                _num(case_hat.get(str(case.get("n")))),
                _num(case.get("mean_score")),
                low,
                high,
                case.get("flaky") is True,
            ]
        )
    flaky = [text(case, n) for case in section.get("flaky") or []]
    return {
        "n": _num(section.get("n")),
        "n_max": _num(section.get("n_max")),
        "runs": _num(section.get("runs")),
        "not_scored": _num(section.get("not_scored")),
        "k": [[k, _num(at.get(str(k))), _num(hat.get(str(k)))] for k in ks],
        "mean": _num(section.get("mean_score")),
        "ci": _interval(section.get("ci95")),
        "flaky": flaky[: limits.cases],
        "flaky_count": len(flaky),
        "cases": rows,
        "case_count": len(cases),
    }


def _summary(loaded: LoadedReports, limits: Limits) -> dict[str, Any]:
    """The aggregate's figures, with every name and reason as safe text."""
    summary = loaded.summary
    n = limits.text

    def groups(table: dict[str, Any]) -> list[list[Any]]:
        return [
            [
                text(name, n),
                *(_num(g.get(k)) for k in ("scored", "passed", "pass_rate", "mean_score")),
                *(_num(g.get(k)) for k in ("unscored", "partially_scored", "errors")),
            ]
            for name, g in table.items()
            if isinstance(g, dict)
        ]

    listed = [
        (kind, item)
        for kind, items in summary.not_scored.items()
        if isinstance(items, list)
        for item in items
        if isinstance(item, dict)
    ]
    # The first of them: a page lists a few hundred, and says how many the aggregate has.
    not_scored = [
        [
            text(kind, 40),
            text(item.get("source"), n),
            text(item.get("reason"), n),
            _opt(item.get("run_id"), n),
            _opt(item.get("scenario_id"), n),
        ]
        for kind, item in listed[: limits.not_scored]
    ]
    flags = summary.red_flags.get("flags", []) if isinstance(summary.red_flags, dict) else []
    return {
        "generated": text(summary.generated_at, 80),
        "version": text(loaded.aggregate.get("assay_version"), 80),
        "interrupted": bool(summary.interrupted),
        "totals": {text(k, 80): _num(v) for k, v in summary.totals.items()},
        "ops": {text(k, 80): _num(v) for k, v in summary.ops.items()},
        "judge": [
            [text(model, n), _num(u.get("calls")), _num(u.get("cost_usd"))]
            for model, u in summary.judge_usage.items()
            if isinstance(u, dict)
        ],
        "flags": [
            [
                text(f.get("red_flag"), n),
                text(f.get("metric"), n),
                _num(f.get("value")),
                text(f.get("comparison"), 4),
                _num(f.get("threshold")),
                text(f.get("status"), 20),
                text(f.get("action"), n),
            ]
            for f in flags
            if isinstance(f, dict)
        ],
        "not_scored": not_scored,
        "not_scored_count": len(listed),
        "scenario_problems": [
            [text(p.get("source"), n), text(p.get("reason"), n)]
            for p in summary.scenario_problems
            if isinstance(p, dict)
        ],
        "by_scorer": groups(summary.by_scorer),
        "by_type": groups(summary.by_scenario_type),
        "by_runner_model": _runner_model(summary.by_runner_model, summary.runners, summary.models),
        "repeats": _repeats(summary.repeats, limits),
        "live": _live(summary.live),
        "line_problems": [[p.line, text(p.reason, n)] for p in loaded.problems[: limits.rows]],
        "line_problem_count": len(loaded.problems),
    }


def _live(live: Any) -> dict[str, Any] | None:
    """A live evaluation's headline figures (numbers only): pass rate over every run, the
    weighted overall score, and the runs that failed by kind; None for saved runs."""
    if not isinstance(live, dict) or not live:
        return None
    found = live.get("errors")
    errors: dict[str, Any] = found if isinstance(found, dict) else {}
    return {
        "pass_rate": _num(live.get("pass_rate")),
        "overall_score": _num(live.get("overall_score")),
        "errors": {
            kind: _num(errors.get(kind))
            for kind in ("agent_error", "timeout", "infrastructure_error", "scorer_error")
        },
    }


def _runner_model(
    table: dict[str, Any], runners: list[str], models: list[str]
) -> list[list[Any]]:
    """Rows of [runner, model, scored, passed, pass rate, mean score]: each group's key split
    into the runner and model it was made of (the aggregate joins them with " | "); a key
    that matches no known pair keeps its whole text as the runner and no model."""
    names = {
        f"{r} | {m}": (r, m)
        for r in [*runners, "(unknown runner)"]
        for m in [*models, "(unknown model)"]
    }
    rows = []
    for key, group in table.items():
        if not isinstance(group, dict):
            continue
        runner, model = names.get(key, (key, None))
        rows.append(
            [
                text(runner, 300),
                _opt(model, 300),
                *(_num(group.get(k)) for k in ("scored", "passed", "pass_rate", "mean_score")),
            ]
        )
    return rows


def _histogram(runs: list[dict[str, Any]]) -> list[int]:
    """How many runs' overall scores fall in each tenth of [0, 1] (1.0 in the last)."""
    bins = [0] * 10
    for run in runs:
        value = run["v"]
        if value is not None and 0 <= value <= 1:
            bins[min(int(value * 10), 9)] += 1
    return bins


def page_data(
    loaded: LoadedReports, limits: Limits | None = None, *, lazy: bool = False
) -> dict[str, Any]:
    """Everything the page shows, from a loaded reports directory: with the transcripts of
    failed and errored runs while they fit `Limits.transcripts`; with `lazy` (`assay view`),
    none, each loaded when its run is opened.

    Example:
        >>> import tempfile
        >>> from pathlib import Path
        >>> from assay.offline import EvaluateOptions, evaluate
        >>> from assay.reports.load import load_reports
        >>> root = Path(tempfile.mkdtemp())
        >>> (root / "runs").mkdir(); (root / "gt" / "scenario_1").mkdir(parents=True)
        >>> _ = (root / "runs" / "1.json").write_text('{"scenario_id": "1", "answer": "7"}')
        >>> _ = (root / "gt" / "scenario_1" / "groundtruth.txt").write_text("7")
        >>> _ = evaluate(EvaluateOptions(root / "runs", (root / "gt",), root / "out"))
        >>> data = page_data(load_reports(root / "out"))
        >>> [run["st"] for run in data["runs"]], data["summary"]["totals"]["passed"]
        (['passed'], 1)
    """
    chosen = limits or Limits()
    pool = Pool()
    # `assay view` reads no run's own report here: the table needs only results.jsonl, and
    # a run's details come from its report when it is opened (`run_detail`).
    runs = [
        run_data(line, chosen, None if lazy else loaded.run_report(line), pool, lazy=lazy)
        for line in loaded.results
    ]
    data = {
        "summary": _summary(loaded, chosen),
        "runs": runs,
        "lazy": lazy,
        "strings": pool.strings,
        "histogram": _histogram(runs),
        "limits": {"answer": chosen.answer, "text": chosen.text, "rows": chosen.rows},
    }
    if not lazy:
        _add_transcripts(loaded, runs, chosen, chosen.page - len(orjson.dumps(data)))
    return data


def _add_transcripts(
    loaded: LoadedReports, runs: list[dict[str, Any]], limits: Limits, budget: int
) -> None:
    """The transcripts of failed and errored runs, in order, while `budget` bytes last. Each
    run's report is read again here rather than held from the first pass: the budget is known
    only once the page's other data is, and holding every failed run's report would make the
    memory of a page follow the size of the evaluation."""
    for line, run in zip(loaded.results, runs, strict=True):
        if budget <= 0:
            return
        if run["st"] not in ("failed", "error"):
            continue
        transcript = transcript_data(loaded.run_report(line), limits)
        if transcript is None:
            continue
        size = len(orjson.dumps(transcript)) + 8
        if size > budget:
            return  # the rest are left out too: each says so in the page
        run["tr"] = transcript
        budget -= size


def run_detail(loaded: LoadedReports, index: int, limits: Limits) -> dict[str, Any] | None:
    """What `assay view` sends when a run is opened: the run as a static page holds it, with
    its own report's details and its transcript, and the strings its fields name; None past
    the last run.

    Example:
        >>> run_detail(type("L", (), {"results": []})(), 0, Limits()) is None
        True
    """
    if not 0 <= index < len(loaded.results):
        return None
    line = loaded.results[index]
    report = loaded.run_report(line)
    pool = Pool()
    run = run_data(line, limits, report, pool)
    run["tr"] = transcript_data(report, limits)
    return {"run": run, "strings": pool.strings}
