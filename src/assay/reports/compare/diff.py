"""Two evaluations side by side: runs matched (see `match_key`), each scorer's verdicts
compared, and the paired statistics (`assay.reports.compare.stats`) computed.

Only the reports are read, never re-scored. A `results.jsonl` line is untrusted data: a line
without a usable scenario id, a repeated run, or a score that is not a verdict is listed as a
problem and left out of the figures, never guessed at.

Example:
    >>> def line(run, passed, score):
    ...     verdict = {"scorer": "static_json", "status": "scored", "passed": passed,
    ...                "score": score, "rationale": ""}
    ...     return {"scenario_id": "1", "run_id": run, "score": verdict}
    >>> result = compare_lines([line("a", True, 1.0), line("b", False, 0.0)],
    ...                        [line("a", False, 0.5), line("b", False, 0.0)])
    >>> figures = result["scorers"]["static_json"]
    >>> figures["regressed"], figures["unchanged"], figures["mean_delta"]
    (['a'], ['b'], -0.25)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from assay.reports.compare.stats import mcnemar_exact, mean, sign_flip_test

__all__ = [
    "BY_REPEAT",
    "BY_RUN_ID",
    "CHANGE_KINDS",
    "DEFAULT_ALPHA",
    "DEFAULT_RESAMPLES",
    "DEFAULT_SEED",
    "Pair",
    "change_kind",
    "compare_lines",
    "has_repeats",
    "match_key",
    "pair_lines",
    "setting_warnings",
]

CHANGE_KINDS = ("regressed", "improved", "unchanged", "unscored", "only_in_base", "only_in_new")
"""What happened to one run under one scorer; each is a list of run ids in a scorer's
figures."""

DEFAULT_ALPHA = 0.05
DEFAULT_RESAMPLES = 10_000
DEFAULT_SEED = 20240521
"""Fixed, so that the same two reports always give the same interval."""

SCORE_TOLERANCE = 1e-9
"""Score changes smaller than this are rounding, not a change."""

RATIONALE_LIMIT = 500
"""Longest rationale kept per side of a change in the comparison (the per-run reports hold
the whole text)."""

BY_RUN_ID = "scenario_id+run_id"
"""How runs are matched unless both sides repeated their runs: by scenario and run id."""

BY_REPEAT = "scenario_id+repeat"
"""How runs are matched when both sides are repeated live runs: by scenario and repeat."""

_Key = tuple[str, str | None, int | None]


@dataclass(frozen=True, slots=True)
class _Label:
    """How the comparison names a run: from the first line it was seen in."""

    name: str
    """The run's id, or its report's file name without `.json` when it has none."""
    has_run_id: bool
    repeat: int | None


@dataclass(frozen=True, slots=True)
class _Verdict:
    status: str
    passed: bool | None
    score: float | None
    rationale: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "passed": self.passed,
            "score": self.score,
            "rationale": self.rationale,
        }


def compare_lines(
    base: Iterable[dict[str, Any]],
    new: Iterable[dict[str, Any]],
    *,
    alpha: float = DEFAULT_ALPHA,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> dict[str, Any]:
    """Compare the `results.jsonl` lines of two evaluations, scorer by scorer.

    A line's `score` (the combined verdict, named `a+b` with several scorers) and each of its
    `scores` are compared apart, under their scorer's name. For each scorer, a run present in
    both with a verdict on both sides is `regressed` (passed then failed, or the same pass/fail
    with a lower score), `improved`, or `unchanged`; a run not scored on either side is
    `unscored`, never a change; runs present on one side only are `only_in_base` or
    `only_in_new`. These lists hold run ids; a run without one is named by its report's file
    name without `.json` (`changes` says which: `has_run_id`).

    A scorer's change is `significant` when McNemar's exact test on the pass/fail flips gives
    p < alpha, or the confidence interval of the mean score difference (a sign-flip test
    flipping whole scenarios, inverted) excludes 0.
    Its `verdict` is `regressed` when a significant test points down (more pass->fail than
    fail->pass flips with p < alpha, or an interval entirely below 0), `improved` when one
    points up, `mixed` when both happen, else `no significant change`.

    Args:
        base: The lines of the earlier evaluation.
        new: The lines of the later one.
        alpha: The significance level, in (0, 1).
        resamples: Sign patterns drawn for the score test when there are more than this
            many (otherwise all are enumerated).
        seed: The seed of those draws.

    Returns:
        A JSON-able dict (`assay schema compare` without the `base`/`new` descriptions and
        warnings, which `assay.reports.compare.load` adds).
    """
    problems: list[dict[str, Any]] = []
    labels: dict[_Key, _Label] = {}
    base, new = list(base), list(new)
    by_repeat = has_repeats(base) and has_repeats(new)
    base_runs = _runs(base, "base", problems, labels, by_repeat)
    new_runs = _runs(new, "new", problems, labels, by_repeat)
    names = sorted(
        {name for runs in (base_runs, new_runs) for run in runs.values() for name in run}
    )
    scorers = {
        name: _compare_scorer(name, base_runs, new_runs, labels, alpha, resamples, seed)
        for name in names
    }
    return {
        "verdict": _overall([figures["verdict"] for figures in scorers.values()]),
        "matched_by": BY_REPEAT if by_repeat else BY_RUN_ID,
        "alpha": alpha,
        "seed": seed,
        "resamples": resamples,
        "scorers": scorers,
        "problems": problems,
    }


def setting_warnings(base: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """What differs between two aggregates in ways that make their verdicts not comparable
    as they stand: the schema version, and each scorer's presence and options.

    Example:
        >>> for warning in setting_warnings(
        ...     {"schema_version": 1, "scorers": [
        ...         {"name": "static_json", "options": {"list_order": "content"}}]},
        ...     {"schema_version": 1, "scorers": [
        ...         {"name": "static_json", "options": {"list_order": "position"}},
        ...         {"name": "trajectory", "options": {}}]}):
        ...     print(warning)
        static_json options differ: list_order content -> position
        scorer trajectory only in NEW
    """
    warnings = []
    if base.get("schema_version") != new.get("schema_version"):
        warnings.append(
            "schema versions differ: "
            f"{_setting(base.get('schema_version'))} -> {_setting(new.get('schema_version'))}"
        )
    base_specs = _specs(base)
    new_specs = _specs(new)
    for name in sorted(base_specs.keys() | new_specs.keys()):
        if name not in new_specs:
            warnings.append(f"scorer {name} only in BASE")
        elif name not in base_specs:
            warnings.append(f"scorer {name} only in NEW")
        else:
            before, after = base_specs[name], new_specs[name]
            changed = [
                f"{option} {_option(before, option)} -> {_option(after, option)}"
                for option in sorted(before.keys() | after.keys())
                if option not in before
                or option not in after
                or before[option] != after[option]
            ]
            if changed:
                warnings.append(f"{name} options differ: {'; '.join(changed)}")
    return warnings


def _specs(aggregate: dict[str, Any]) -> dict[str, dict[str, Any]]:
    specs: dict[str, dict[str, Any]] = {}
    for spec in aggregate.get("scorers") or []:
        if isinstance(spec, dict) and isinstance(spec.get("name"), str):
            options = spec.get("options")
            specs[spec["name"]] = options if isinstance(options, dict) else {}
    return specs


def _option(options: dict[str, Any], name: str) -> str:
    return _setting(options[name]) if name in options else "(absent)"


def _setting(value: Any) -> str:
    if isinstance(value, str):
        return value
    try:
        return orjson.dumps(value).decode()
    except TypeError:
        return repr(value)


def _runs(
    lines: Iterable[dict[str, Any]],
    side: str,
    problems: list[dict[str, Any]],
    labels: dict[_Key, _Label],
    by_repeat: bool,
) -> dict[_Key, dict[str, _Verdict]]:
    """Each run of one side, by key: its verdicts by scorer name; each run's label goes into
    `labels` (the first side's wins)."""
    runs: dict[_Key, dict[str, _Verdict]] = {}
    for number, line in enumerate(lines, start=1):
        key, reason = match_key(line, by_repeat=by_repeat)
        if key is None:
            problems.append({"side": side, "reason": f"result {number}: {reason}"})
            continue
        if key in runs:
            problems.append(
                {
                    "side": side,
                    "reason": f"result {number}: {_described(key)} appears again; "
                    "the first is compared",
                }
            )
            continue
        labels.setdefault(key, _label(key, line))
        verdicts: dict[str, _Verdict] = {}
        entries = [line.get("score"), *(_list(line.get("scores")))]
        for entry in entries:
            name, verdict, why = _verdict(entry)
            if name is None or verdict is None:
                problems.append(
                    {"side": side, "reason": f"result {number}: {_described(key)}: {why}"}
                )
                continue
            verdicts.setdefault(name, verdict)
        runs[key] = verdicts
    return runs


def _label(key: _Key, line: dict[str, Any]) -> _Label:
    """The run's id; for a run without one, its report's file name without `.json`."""
    run, repeat = line.get("run_id"), line.get("repeat")
    repeat = repeat if type(repeat) is int else None
    if isinstance(run, str):
        return _Label(run, True, repeat)
    name = line.get("report_file")
    if isinstance(name, str) and name:
        return _Label(name.removesuffix(".json"), False, repeat)
    return _Label(f"scenario {key[0]}", False, repeat)


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def has_repeats(lines: Iterable[dict[str, Any]]) -> bool:
    """Whether any of a side's lines is a repetition of a live run (has a `repeat`).

    Example:
        >>> has_repeats([{"scenario_id": "a"}, {"scenario_id": "a", "repeat": 2}])
        True
    """
    return any(line.get("repeat") is not None for line in lines)


def match_key(line: dict[str, Any], *, by_repeat: bool) -> tuple[_Key | None, str]:
    """What a run is matched by across the two sides, or None and why it cannot be matched.

    When both sides are repeated live runs (`by_repeat`, see `has_repeats`), a run with a
    repeat is matched by (scenario, repeat): the k-th repetition of a case with the k-th,
    whatever the two runs' ids (a case run once is named after the case, one run K times
    `case#k`). Otherwise a run is matched by (scenario, run id), its repeat ignored, so that a
    live run pairs with the same run scored again offline from `runs.jsonl`; a run without an
    id falls back to its repeat.

    Example:
        >>> match_key({"scenario_id": "a", "run_id": "a#2", "repeat": 2}, by_repeat=True)
        (('a', None, 2), '')
        >>> match_key({"scenario_id": "a", "run_id": "a#2", "repeat": 2}, by_repeat=False)
        (('a', 'a#2', None), '')
        >>> match_key({"scenario_id": "a", "repeat": "2"}, by_repeat=True)
        (None, 'scenario a: repeat is not an integer')
    """
    scenario = line.get("scenario_id")
    run = line.get("run_id")
    repeat = line.get("repeat")
    if not isinstance(scenario, str):
        return None, "no scenario_id (a string)"
    if run is not None and not isinstance(run, str):
        return None, f"scenario {scenario}: run_id is not a string"
    if repeat is not None and (not isinstance(repeat, int) or isinstance(repeat, bool)):
        return None, f"scenario {scenario}: repeat is not an integer"
    if repeat is not None and (by_repeat or run is None):
        return (scenario, None, repeat), ""
    return (scenario, run, None), ""


def _described(key: _Key) -> str:
    scenario, run, repeat = key
    if run is None and repeat is not None:
        return f"repeat {repeat} of scenario {scenario}"
    text = f"run {run} of scenario {scenario}"
    return text if repeat is None else f"{text} (repeat {repeat})"


def _verdict(entry: Any) -> tuple[str | None, _Verdict | None, str]:
    if not isinstance(entry, dict):
        return None, None, "a score that is not an object"
    name = entry.get("scorer")
    status = entry.get("status")
    if not isinstance(name, str) or not name:
        return None, None, "a score without its scorer's name"
    rationale = entry.get("rationale")
    text = rationale[:RATIONALE_LIMIT] if isinstance(rationale, str) else ""
    if status != "scored":
        shown_status = status if isinstance(status, str) else "unscored"
        return name, _Verdict(shown_status, None, None, text), ""
    passed = entry.get("passed")
    score = entry.get("score")
    if (
        not isinstance(passed, bool)
        or not isinstance(score, int | float)
        or isinstance(score, bool)
        or not math.isfinite(score)
        or not 0.0 <= score <= 1.0
    ):
        return name, None, f"{name}: a scored verdict without passed and a score in 0..1"
    return name, _Verdict("scored", passed, float(score), text), ""


def _compare_scorer(
    name: str,
    base: dict[_Key, dict[str, _Verdict]],
    new: dict[_Key, dict[str, _Verdict]],
    labels: dict[_Key, _Label],
    alpha: float,
    resamples: int,
    seed: int,
) -> dict[str, Any]:
    lists: dict[str, list[str]] = {
        "regressed": [], "improved": [], "unchanged": [], "unscored": [],
        "only_in_base": [], "only_in_new": [],
    }
    changes: list[dict[str, Any]] = []
    deltas: dict[str, list[float]] = {}
    before_scores: list[float] = []
    after_scores: list[float] = []
    pass_to_fail = fail_to_pass = passed_before = passed_after = 0
    keys = sorted(base.keys() | new.keys(), key=_order)
    for key in keys:
        before = base.get(key, {}).get(name)
        after = new.get(key, {}).get(name)
        label = labels[key]
        run_id = label.name
        outcome = _outcome(before, after)
        if outcome is None:
            continue
        lists[outcome].append(run_id)
        if before is None or after is None or before.score is None or after.score is None:
            continue
        delta = after.score - before.score
        deltas.setdefault(key[0], []).append(delta)
        before_scores.append(before.score)
        after_scores.append(after.score)
        passed_before += before.passed is True
        passed_after += after.passed is True
        pass_to_fail += bool(before.passed and not after.passed)
        fail_to_pass += bool(after.passed and not before.passed)
        if outcome != "unchanged":
            changes.append(
                {
                    "run_id": run_id,
                    "has_run_id": label.has_run_id,
                    "scenario_id": key[0],
                    "repeat": label.repeat,
                    "outcome": outcome,
                    "base": before.as_dict(),
                    "new": after.as_dict(),
                }
            )
    paired = len(before_scores)
    clusters = [deltas[scenario] for scenario in sorted(deltas)]
    mean_delta = mean([delta for cluster in clusters for delta in cluster])
    flip = sign_flip_test(clusters, resamples=resamples, alpha=alpha, seed=seed)
    ci = flip.ci if flip is not None else None
    p_value = mcnemar_exact(fail_to_pass, pass_to_fail)
    pass_down = p_value < alpha and pass_to_fail > fail_to_pass
    pass_up = p_value < alpha and fail_to_pass > pass_to_fail
    score_down = ci is not None and ci[1] < 0
    score_up = ci is not None and ci[0] > 0
    down, up = pass_down or score_down, pass_up or score_up
    verdict = (
        "mixed" if down and up
        else "regressed" if down
        else "improved" if up
        else "no significant change"
    )
    return {
        "verdict": verdict,
        "significant": p_value < alpha or score_down or score_up,
        "n_base": sum(1 for run in base.values() if name in run),
        "n_new": sum(1 for run in new.values() if name in run),
        "n_paired": paired,
        "n_scenarios": len(clusters),
        "pass_to_fail": pass_to_fail,
        "fail_to_pass": fail_to_pass,
        "pass_rate_base": passed_before / paired if paired else None,
        "pass_rate_new": passed_after / paired if paired else None,
        "mean_score_base": mean(before_scores),
        "mean_score_new": mean(after_scores),
        "p_value": p_value,
        "mean_delta": mean_delta,
        "ci": list(ci) if ci is not None else None,
        "score_p_value": flip.p_value if flip is not None else None,
        "score_test_exact": flip.exact if flip is not None else None,
        **lists,
        "changes": changes,
    }


def _outcome(before: _Verdict | None, after: _Verdict | None) -> str | None:
    """The change kind of one run under one scorer (None when neither side has a verdict)."""
    if before is None and after is None:
        return None
    if after is None:
        return "only_in_base"
    if before is None:
        return "only_in_new"
    if before.score is None or after.score is None:
        return "unscored"
    delta = after.score - before.score
    if before.passed and not after.passed:
        return "regressed"
    if after.passed and not before.passed:
        return "improved"
    if delta < -SCORE_TOLERANCE:
        return "regressed"
    if delta > SCORE_TOLERANCE:
        return "improved"
    return "unchanged"


@dataclass(frozen=True, slots=True)
class Pair:
    """One run as the comparison matches it: its key, its label, and its line on each side."""

    scenario_id: str
    """The scenario's id."""

    run_id: str | None
    """The run's id, when it has one."""

    repeat: int | None
    """The repeat number, when the run is one of several."""

    label: str
    """The name the comparison's lists give the run (see `compare_lines`)."""

    base: dict[str, Any] | None
    """Its `results.jsonl` line in BASE, or None when only NEW has it."""

    new: dict[str, Any] | None
    """Its line in NEW, or None when only BASE has it."""


def pair_lines(base: Iterable[dict[str, Any]], new: Iterable[dict[str, Any]]) -> list[Pair]:
    """The runs of two evaluations matched as `compare_lines` matches them (lines it lists as
    problems are left out; of a repeated run, the first line), in its order.

    Example:
        >>> pairs = pair_lines([{"scenario_id": "1", "run_id": "a"}],
        ...                    [{"scenario_id": "1", "run_id": "a"}, {"scenario_id": "2"}])
        >>> [(pair.label, pair.base is not None, pair.new is not None) for pair in pairs]
        [('a', True, True), ('scenario 2', False, True)]
    """
    sides: list[dict[_Key, dict[str, Any]]] = []
    labels: dict[_Key, _Label] = {}
    base, new = list(base), list(new)
    by_repeat = has_repeats(base) and has_repeats(new)
    for lines in (base, new):
        runs: dict[_Key, dict[str, Any]] = {}
        for line in lines:
            key, _ = match_key(line, by_repeat=by_repeat)
            if key is not None and key not in runs:
                runs[key] = line
                labels.setdefault(key, _label(key, line))
        sides.append(runs)
    pairs = []
    for key in sorted(sides[0].keys() | sides[1].keys(), key=_order):
        label = labels[key]
        run_id = label.name if label.has_run_id else None
        pairs.append(
            Pair(key[0], run_id, label.repeat, label.name, sides[0].get(key), sides[1].get(key))
        )
    return pairs


def change_kind(base: dict[str, Any] | None, new: dict[str, Any] | None, scorer: str) -> str | None:
    """What happened to a run under `scorer`, from its lines on each side (None for a side
    without it): one of `CHANGE_KINDS`, as `compare_lines` lists it, or None when neither side
    has a usable verdict of that scorer.

    Example:
        >>> verdict = {"scorer": "s", "status": "scored", "passed": True, "score": 1.0}
        >>> change_kind({"score": verdict}, {"score": {**verdict, "passed": False}}, "s")
        'regressed'
        >>> change_kind({"score": verdict}, None, "s"), change_kind(None, None, "s")
        ('only_in_base', None)
    """
    return _outcome(_verdicts(base).get(scorer), _verdicts(new).get(scorer))


def _verdicts(line: dict[str, Any] | None) -> dict[str, _Verdict]:
    found: dict[str, _Verdict] = {}
    if line is None:
        return found
    for entry in [line.get("score"), *(_list(line.get("scores")))]:
        name, verdict, _ = _verdict(entry)
        if name is not None and verdict is not None:
            found.setdefault(name, verdict)
    return found


def _order(key: _Key) -> tuple[str, str, int]:
    scenario, run, repeat = key
    return scenario, run or "", -1 if repeat is None else repeat


def _overall(verdicts: Sequence[str]) -> str:
    if any(verdict in ("regressed", "mixed") for verdict in verdicts):
        return "regressed"
    if "improved" in verdicts:
        return "improved"
    return "no significant change"
