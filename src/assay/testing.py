"""Using assay from pytest: assertions on an evaluation's figures, and tests run once per
scenario.

pytest loads this module as a plugin (the `pytest11` entry point `assay`) wherever assay is
installed. Loading it imports nothing but the standard library: the reports and scenario
readers are imported when a test uses them.

- `assert_pass_rate(reports, min_rate)` and `assert_scorer(reports, scorer, min_mean=...,
  min_pass_rate=...)` fail a test with a message naming the figures and the worst failing
  runs with their rationales. `reports` is a reports directory (a path), or the `RunSummary`
  that `assay.evaluate` returned.
- `@pytest.mark.assay_scenarios("scenarios/")` runs a test once per scenario of the scenario
  folders and files named (relative to the test file's folder), passing each `assay.Case` as
  the argument `assay_case`; `scenarios("scenarios/")` gives the same as `pytest.param`s for
  `@pytest.mark.parametrize`. A scenario that cannot be read is a test that fails with the
  reason, never one left out.

Example:
    >>> import tempfile
    >>> from pathlib import Path
    >>> from assay import EvaluateOptions, evaluate
    >>> root = Path(tempfile.mkdtemp())
    >>> (root / "runs").mkdir(); (root / "gt" / "scenario_1").mkdir(parents=True)
    >>> _ = (root / "runs" / "a.json").write_text('{"scenario_id": "1", "answer": "6"}')
    >>> _ = (root / "gt" / "scenario_1" / "groundtruth.txt").write_text("7")
    >>> summary = evaluate(EvaluateOptions(root / "runs", (root / "gt",), root / "out"))
    >>> assert_pass_rate(summary, 0.5)
    Traceback (most recent call last):
    ...
    AssertionError: pass rate 0.000 is below 0.5: 0 of 1 runs passed; 1 runs read
    worst failing runs:
      scenario 1, score 0.000: static_json: 0 of 1 gold keys exact [1.json]
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pytest

    from assay.reports.load import LoadedReports
    from assay.results import RunSummary

__all__ = ["CASE_ARGUMENT", "assert_pass_rate", "assert_scorer", "scenarios"]

CASE_ARGUMENT = "assay_case"
"""The argument through which `@pytest.mark.assay_scenarios` passes each scenario."""

WORST_SHOWN = 5
"""Failing runs a failed assertion names (the lowest scores first)."""

_RATIONALE_SHOWN = 300
"""Longest rationale quoted in a message; the report holds it whole."""


# --- assertions ----------------------------------------------------------------------------


def assert_pass_rate(
    reports: RunSummary | LoadedReports | str | os.PathLike[str], min_rate: float
) -> None:
    """Fail unless the evaluation's pass rate (passed over scored plus partially scored runs,
    what `--fail-under` checks) is at least `min_rate`.

    Args:
        reports: A reports directory, or the `RunSummary` of `assay.evaluate`.
        min_rate: The lowest pass rate accepted, 0..1.

    Raises:
        AssertionError: the rate is below `min_rate`, or nothing was scored; the message names
            the figures and the worst failing runs with their rationales.
        ValueError: `min_rate` is not a number in 0..1.
    """
    __tracebackhide__ = True  # pytest shows the test's line, not this one
    _check_rate("min_rate", min_rate)
    source = _Source.of(reports)
    totals = source.summary.totals
    rate = source.summary.pass_rate
    if rate is not None and rate >= min_rate:
        return
    partial = totals.get("partially_scored", 0)
    figures = f"{totals['passed']} of {totals['scored'] + partial} runs passed"
    if partial:
        figures += f" ({partial} partially scored, counted as not passed)"
    besides = {
        "unscored": totals["unscored"] - partial,
        "errors": totals["errors"],
        "not read or without a scenario": totals["skipped"],
    }
    figures += f"; {totals['runs_read']} runs read" + "".join(
        f", {count} {label}" for label, count in besides.items() if count
    )
    head = (
        f"no pass rate: nothing was scored; {figures}"
        if rate is None
        else f"pass rate {rate:.3f} is below {min_rate}: {figures}"
    )
    raise AssertionError(head + source.worst(None))


def assert_scorer(
    reports: RunSummary | LoadedReports | str | os.PathLike[str],
    scorer: str,
    min_mean: float | None = None,
    min_pass_rate: float | None = None,
) -> None:
    """Fail unless the scorer `scorer` scored runs with at least the mean score `min_mean`
    and the pass rate `min_pass_rate` (each checked when given; with several scorers, each
    scorer's own verdicts).

    Args:
        reports: A reports directory, or the `RunSummary` of `assay.evaluate`.
        scorer: A scorer's registered name, as `by_scorer` in `_aggregate.json` names it.
        min_mean: The lowest mean score accepted, 0..1.
        min_pass_rate: The lowest pass rate accepted, 0..1.

    Raises:
        AssertionError: a figure is below its minimum, or the scorer scored no run; the
            message names the figures and the scorer's worst failing runs.
        ValueError: neither minimum given, or one not in 0..1.
    """
    __tracebackhide__ = True
    if min_mean is None and min_pass_rate is None:
        raise ValueError("assert_scorer needs min_mean, min_pass_rate or both")
    for name, value in (("min_mean", min_mean), ("min_pass_rate", min_pass_rate)):
        if value is not None:
            _check_rate(name, value)
    source = _Source.of(reports)
    group = source.summary.by_scorer.get(scorer)
    if group is None or not group.get("scored"):
        known = ", ".join(sorted(source.summary.by_scorer)) or "none"
        said = "is not among the scorers that ran" if group is None else "scored no run"
        raise AssertionError(f"scorer {scorer!r} {said} (scorers that ran: {known})")
    mean, rate = group.get("mean_score"), group.get("pass_rate")
    below = [
        f"{label} {'n/a' if value is None else f'{value:.3f}'} is below {minimum}"
        for label, value, minimum in (
            ("mean score", mean, min_mean),
            ("pass rate", rate, min_pass_rate),
        )
        if minimum is not None and (value is None or value < minimum)
    ]
    if not below:
        return
    figures = (
        f"{group['passed']} of {group['scored']} scored runs passed, mean score "
        f"{'n/a' if mean is None else f'{mean:.3f}'}; {group.get('unscored', 0)} unscored, "
        f"{group.get('errors', 0)} errors"
    )
    raise AssertionError(f"{scorer}: {'; '.join(below)} ({figures})" + source.worst(scorer))


def _check_rate(name: str, value: Any) -> None:
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or not 0 <= value <= 1
    ):
        raise ValueError(f"{name} must be a number between 0 and 1, got {value!r}")


@dataclass(slots=True)
class _Source:
    """An evaluation's summary, and the lines of its `results.jsonl` when they can be read."""

    summary: RunSummary
    lines: list[dict[str, Any]] | None

    @classmethod
    def of(cls, reports: RunSummary | LoadedReports | str | os.PathLike[str]) -> _Source:
        """`reports` read: a path is loaded as a reports directory; a summary's own reports
        directory is read for its lines when it still holds that evaluation."""
        __tracebackhide__ = True
        from assay.reports.load import LoadedReports, ReportsError, load_reports
        from assay.results import RunSummary

        if isinstance(reports, LoadedReports):
            return cls(reports.summary, reports.results)
        if isinstance(reports, RunSummary):
            return cls(reports, _lines_of(reports))
        if isinstance(reports, str | os.PathLike):
            try:
                loaded = load_reports(os.fspath(reports))
            except ReportsError as error:
                raise AssertionError(f"cannot read the reports: {error}") from None
            return cls(loaded.summary, loaded.results)
        raise TypeError(
            "expected a reports directory or the RunSummary of assay.evaluate, got "
            f"{type(reports).__name__}"
        )

    def worst(self, scorer: str | None) -> str:
        """The worst failing runs (of `scorer`, or of the whole verdict), as message lines."""
        if self.lines is not None:
            failing = _failing(self.lines, scorer)
        elif scorer is None:
            failing = [_Failing.of_entry(entry) for entry in self.summary.worst_failures]
        else:
            return f"\n(the failing runs of {scorer} are in the reports directory)"
        if not failing and scorer is None:
            # Nothing failed outright: the runs that were not scored explain the rate.
            unscored = self.summary.not_scored.get("unscored", [])
            if unscored:
                listed = unscored[:WORST_SHOWN]
                shown = "\n".join(f"  {_Failing.of_entry(entry).line()}" for entry in listed)
                return f"\nruns not scored:\n{shown}"
            return ""
        if not failing:
            return ""
        failing.sort(key=lambda run: run.score if run.score is not None else 0.0)
        title = "worst failing runs" + ("" if scorer is None else f" of {scorer}")
        shown = "\n".join(f"  {run.line()}" for run in failing[:WORST_SHOWN])
        more = len(failing) - WORST_SHOWN
        return f"\n{title}:\n{shown}" + (f"\n  ... and {more} more" if more > 0 else "")


@dataclass(slots=True)
class _Failing:
    """A failing run, as a message names it."""

    run_id: Any
    scenario_id: Any
    score: float | None
    rationale: str
    report_file: Any

    @classmethod
    def of_entry(cls, entry: dict[str, Any]) -> _Failing:
        reason = entry.get("reason")
        return cls(
            entry.get("run_id"),
            entry.get("scenario_id"),
            _number(entry.get("score")),
            reason if isinstance(reason, str) else "",
            entry.get("report_file"),
        )

    def line(self) -> str:
        from assay.reports.console import shown

        named = [f"run {self.run_id}"] if self.run_id is not None else []
        named.append(f"scenario {self.scenario_id}")
        score = "" if self.score is None else f", score {self.score:.3f}"
        rationale = self.rationale
        if len(rationale) > _RATIONALE_SHOWN:
            rationale = rationale[: _RATIONALE_SHOWN - 1] + "…"
        where = f" [{self.report_file}]" if self.report_file else ""
        return shown(f"{', '.join(named)}{score}: {rationale}{where}")


def _failing(lines: Iterable[dict[str, Any]], scorer: str | None) -> list[_Failing]:
    """The runs of `results.jsonl` that failed (the verdict of `scorer`, or the whole one)."""
    found = []
    for line in lines:
        verdict = line.get("score")
        parts = line.get("scores") or [verdict]
        if scorer is not None:
            verdict = next(
                (p for p in parts if isinstance(p, dict) and p.get("scorer") == scorer), None
            )
        if not isinstance(verdict, dict):
            continue
        if verdict.get("status") != "scored" or verdict.get("passed") is not False:
            continue
        rationale = verdict.get("rationale")
        if not isinstance(rationale, str):
            rationale = ""
        elif scorer is None and not line.get("scores"):
            # One scorer's verdict: its rationale does not name it (a combined one names each).
            rationale = f"{verdict.get('scorer')}: {rationale}"
        found.append(
            _Failing(
                line.get("run_id"),
                line.get("scenario_id"),
                _number(verdict.get("score")),
                rationale,
                line.get("report_file"),
            )
        )
    return found


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _lines_of(summary: RunSummary) -> list[dict[str, Any]] | None:
    """The lines of the summary's reports directory, when it still holds this evaluation."""
    from assay.reports.load import ReportsError, load_reports

    directory = summary.options.get("reports_dir")
    if not isinstance(directory, str):
        return None
    try:
        loaded = load_reports(directory)
    except ReportsError:
        return None
    same = (
        loaded.summary.generated_at == summary.generated_at
        and loaded.summary.totals == summary.totals
    )
    return loaded.results if same else None


# --- scenarios -----------------------------------------------------------------------------


def scenarios(
    *paths: str | os.PathLike[str], relative_to: str | os.PathLike[str] | None = None
) -> list[Any]:
    """One `pytest.param(case, id=case.id)` per scenario of the scenario folders and files
    `paths` (read as `assay evaluate --scenarios` reads them), for `@pytest.mark.parametrize`.

    A scenario that cannot be read, or a path that does not exist, is a param too: its test
    fails in setup with the reason (when this plugin is loaded, as it is wherever assay is
    installed), never left out.

    Args:
        paths: Scenario folders and files.
        relative_to: The folder relative paths start from (`Path(__file__).parent` for the
            test file's own), and that problems are named from; default: the current one.

    Example:
        >>> import tempfile
        >>> folder = Path(tempfile.mkdtemp())
        >>> _ = (folder / "s.json").write_text('[{"id": "7", "expected_answer": 3}, {"x": 1}]')
        >>> [param.id for param in scenarios("s.json", relative_to=folder)]
        ['7', 'problem: s.json#1']
    """
    import pytest

    from assay.formats.scenarios import load_scenarios

    base = None if relative_to is None else Path(relative_to)
    read = [Path(path) if base is None else base / path for path in paths]
    cases, problems = load_scenarios(read)
    params = [pytest.param(case, id=case.id) for case in cases.values()]
    prefix = None if base is None else f"{base}{os.sep}"
    for problem in problems:
        source = problem.source
        if prefix is not None and source.startswith(prefix):
            source = source[len(prefix) :]
        params.append(
            pytest.param(
                problem,
                id=f"problem: {source}",
                marks=pytest.mark.assay_problem(f"{source}: {problem.reason}"),
            )
        )
    return params


# --- the plugin's hooks --------------------------------------------------------------------


def pytest_configure(config: pytest.Config) -> None:
    """Register the markers, so that `--strict-markers` accepts them."""
    config.addinivalue_line(
        "markers",
        "assay_scenarios(*paths): run the test once per scenario of the scenario folders and "
        f"files (relative to the test file), each passed as the argument `{CASE_ARGUMENT}`",
    )
    config.addinivalue_line(
        "markers", "assay_problem(reason): a scenario that could not be read (fails the test)"
    )


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Parametrize tests marked `assay_scenarios` over the scenarios of their paths."""
    marker = metafunc.definition.get_closest_marker("assay_scenarios")
    if marker is None:
        return
    import pytest

    if CASE_ARGUMENT not in metafunc.fixturenames:
        pytest.fail(
            f"{metafunc.definition.nodeid}: @pytest.mark.assay_scenarios passes each scenario "
            f"as the argument {CASE_ARGUMENT!r}, which the test does not take",
            pytrace=False,
        )
    if not marker.args:
        pytest.fail(
            f"{metafunc.definition.nodeid}: @pytest.mark.assay_scenarios needs at least one "
            "scenario folder or file",
            pytrace=False,
        )
    here = metafunc.definition.path.parent
    metafunc.parametrize(CASE_ARGUMENT, scenarios(*marker.args, relative_to=here))


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Fail the test of a scenario that could not be read, with the reason."""
    marker = item.get_closest_marker("assay_problem")
    if marker is not None:
        import pytest

        pytest.fail(f"scenario not readable: {marker.args[0]}", pytrace=False)
