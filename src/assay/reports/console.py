"""Console output of `assay evaluate` and `assay run`: a progress bar while it runs, a summary
table at the end."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import IO, TYPE_CHECKING, Any

from assay.results import RunSummary

if TYPE_CHECKING:
    from rich.console import Console

_CONTROL = re.compile(
    r"[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)
"""Characters a terminal would act on (escape sequences, carriage returns, ...), the
bidirectional controls (which reorder what is shown around them: a runner named
`x<U+202E>txt.exe` reads as `xexe.txt`), and lone surrogates (a file name that is not UTF-8),
none of which may reach the terminal raw."""


def shown(value: object) -> str:
    r"""`value` as text to print: control characters and lone surrogates written as escapes,
    so that data (a runner's name, a file name, a judge server's reply) prints as written and
    never drives the terminal.

    Example:
        >>> shown("ok\x1b[2Jgone"), shown("[bold]x[/bold]"), shown("a\u202eb")
        ('ok\\x1b[2Jgone', '[bold]x[/bold]', 'a\\u202eb')
    """
    text = str(value)
    if _CONTROL.search(text) is None:
        return text
    return _CONTROL.sub(lambda found: found.group().encode("unicode_escape").decode(), text)


_REASON_LIMIT = 3
"""Without -v, how many inputs of each not-scored kind are listed before "… and N more"."""

_KIND_TITLES = {
    "unscored": "unscored",
    "errors": "errors",
    "unreadable": "unreadable inputs",
    "no_scenario": "runs with no scenario",
    "no_run": "scenarios with no run",
}


_FLAKY_LIMIT = 10
"""Without -v, how many flaky case ids the summary names before "… and N more"."""


def repeats_summary(
    section: dict[str, Any], *, flaky_limit: int | None = _FLAKY_LIMIT, more_note: str = ""
) -> list[str]:
    """The lines that show the `repeats` section of an aggregate: repetitions per case,
    pass@1, pass@n and pass^n (n the smallest repetition count), the mean score with its
    interval, and the flaky cases (at most `flaky_limit` named, None names all; `more_note`
    follows the count of those left out). Case ids are made safe to print (`shown`).

    Example:
        >>> section = {"n": 3, "n_max": 3, "runs": 6, "not_scored": 1,
        ...            "cases": [{}, {}], "pass_at_k": {"1": 0.5, "2": 0.666667, "3": 0.75},
        ...            "pass_hat_k": {"1": 0.5, "2": 0.333333, "3": 0.25},
        ...            "mean_score": 0.5, "ci95": [0.1, 0.9], "flaky": ["a", "b", "c"]}
        >>> for line in repeats_summary(section, flaky_limit=2):
        ...     print(line)
        3 repetitions of 2 cases (6 runs, 1 not scored)
        pass@1 50.0%  pass@3 75.0%  pass^3 25.0%
        mean score 0.500 [95% CI 0.100, 0.900]
        flaky (3): a, b … and 1 more
    """
    n, n_max = section.get("n"), section.get("n_max")
    cases = section.get("cases") or []
    counted = f"{n}" if n == n_max else f"{n} to {n_max}"
    not_scored = section.get("not_scored") or 0
    lines = [
        f"{counted} repetitions of {len(cases)} case{'s' if len(cases) != 1 else ''} "
        f"({section.get('runs')} runs"
        + (f", {not_scored} not scored)" if not_scored else ")")
    ]
    at, hat = section.get("pass_at_k") or {}, section.get("pass_hat_k") or {}
    figures = [f"pass@1 {_percent(at.get('1'))}"]
    if n != 1:
        figures.append(f"pass@{n} {_percent(at.get(str(n)))}")
        figures.append(f"pass^{n} {_percent(hat.get(str(n)))}")
    lines.append("  ".join(figures))
    mean, ci = section.get("mean_score"), section.get("ci95")
    if mean is not None:
        lines.append(
            f"mean score {mean:.3f}"
            + (f" [95% CI {ci[0]:.3f}, {ci[1]:.3f}]" if isinstance(ci, list) else "")
        )
    flaky = [shown(case) for case in section.get("flaky") or []]
    named = flaky if flaky_limit is None else flaky[:flaky_limit]
    more = len(flaky) - len(named)
    lines.append(
        f"flaky ({len(flaky)}): "
        + (", ".join(named) if named else "none")
        + (f" … and {more} more{more_note}" if more else "")
    )
    return lines


def _percent(value: Any) -> str:
    return "n/a" if value is None else f"{value:.1%}"


class Progress:
    """A rich progress counter on stderr, or nothing when disabled (not a terminal, -q)."""

    def __init__(
        self, *, enabled: bool, label: str = "scoring runs", total: int | None = None
    ) -> None:
        self._enabled = enabled
        self._label = label
        self._total = total
        self._progress: Any = None
        self._task: Any = None

    def __enter__(self) -> Progress:
        return self

    def _start(self) -> None:
        # Started on the first result, not on entry: worker processes are forked before that,
        # and must not inherit the display's refresh thread.
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            SpinnerColumn,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )
        from rich.progress import Progress as RichProgress

        self._enabled = False
        # With a total, a bar and the time left; without one, a count and the time spent.
        known = self._total is not None
        columns = [
            SpinnerColumn(),
            TextColumn(self._label),
            *([BarColumn()] if known else []),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            *([TextColumn("eta"), TimeRemainingColumn()] if known else []),
        ]
        self._progress = RichProgress(*columns, console=Console(stderr=True), transient=True)
        self._progress.__enter__()
        self._task = self._progress.add_task("runs", total=self._total)

    def advance(self) -> None:
        """Count one more input handled."""
        if self._enabled:
            self._start()
        if self._progress is not None:
            self._progress.advance(self._task)

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._progress is not None:
            self._progress.__exit__(exc_type, exc, traceback)


def print_summary(
    summary: RunSummary, reports_dir: Path, *, verbose: bool = False, file: IO[str] | None = None
) -> None:
    """Print the summary table and what was not scored (to stdout, or to `file`)."""
    if file is None and sys.stdout is None:  # started with its standard output closed
        return
    _print_summary(_summary_console(file), summary, reports_dir, verbose=verbose)


def _summary_console(file: IO[str] | None) -> Console:
    from rich.console import Console

    # Piped into a log, rich would assume 80 columns and cut runner and model names short.
    on_terminal = file is None and sys.stdout.isatty()
    return Console(file=file, highlight=False, width=None if on_terminal else 140)


def _print_summary(
    console: Console, summary: RunSummary, reports_dir: Path, *, verbose: bool
) -> None:
    from rich.text import Text

    def cell(value: object) -> Text:
        # A Text, not a str: rich would read markup in a str ("[/]" in a runner's name).
        return Text(shown(value))

    if summary.live:
        console.print(_live_table(summary))
    else:
        console.print(_totals_table(summary))
    _print_details(console, summary, reports_dir, verbose=verbose, cell=cell)


def _live_table(summary: RunSummary) -> Any:
    """The headline figures of a live evaluation (`assay run`): every run counts, failed
    runs included, and failures are counted by kind."""
    from rich.table import Table

    live, totals = summary.live, summary.totals
    settings = summary.options.get("live") or {}
    title = "assay bench" if "benchmark" in settings else "assay run"
    table = Table(title=title, show_header=False, title_justify="left")
    table.add_column("what")
    table.add_column("count", justify="right")
    rate, score = live.get("pass_rate"), live.get("overall_score")
    errors = live.get("errors") or {}
    table.add_row("runs", f"{live.get('runs', 0)}" + (
        f" of {live['units']}" if live.get("units", 0) != live.get("runs", 0) else ""))
    table.add_row("  passed", str(live.get("passed", 0)))
    table.add_row("  failed", str(totals["failed"]))
    table.add_row("  no verdict", str(totals["unscored"]))
    table.add_row("  agent errors", str(errors.get("agent_error", 0)))
    table.add_row("  timeouts", str(errors.get("timeout", 0)))
    table.add_row("  infrastructure errors", str(errors.get("infrastructure_error", 0)))
    if errors.get("scorer_error"):
        table.add_row("  with a criterion not checked", str(errors["scorer_error"]))
    table.add_row("pass rate (of all runs)", "n/a" if rate is None else f"{rate:.1%}")
    table.add_row("overall score (weighted)", "n/a" if score is None else f"{score:.3f}")
    return table


def _totals_table(summary: RunSummary) -> Any:
    from rich.table import Table

    totals = summary.totals
    table = Table(title="assay evaluate", show_header=False, title_justify="left")
    table.add_column("what")
    table.add_column("count", justify="right")
    rate = totals["pass_rate"]
    table.add_row("runs read", str(totals["runs_read"]))
    table.add_row("scored", str(totals["scored"]))
    table.add_row("  passed", str(totals["passed"]))
    table.add_row("  failed", str(totals["failed"]))
    partial = totals.get("partially_scored", 0)
    table.add_row(
        "pass rate (of scored + partially scored)" if partial else "pass rate (of scored)",
        "n/a" if rate is None else f"{rate:.1%}",
    )
    table.add_row(
        "unscored",
        f"{totals['unscored']}"
        + (f" ({totals['no_answer']} without an answer)" if totals["no_answer"] else ""),
    )
    if partial:  # some scorers gave a verdict, another none: not a pass
        table.add_row("  partially scored", str(partial))
    table.add_row("errors", str(totals["errors"]))
    table.add_row("skipped: unreadable", str(totals["unreadable"]))
    table.add_row("skipped: no scenario", str(totals["no_scenario"]))
    table.add_row("scenarios without runs", str(totals["scenarios_without_runs"]))
    if totals.get("runs_with_notes"):  # content their reader could not read: see `notes`
        table.add_row("runs with content not read", str(totals["runs_with_notes"]))
    if summary.scenario_problems:
        table.add_row("ground-truth problems", str(len(summary.scenario_problems)))
    return table


def _print_details(
    console: Console,
    summary: RunSummary,
    reports_dir: Path,
    *,
    verbose: bool,
    cell: Callable[[object], Any],
) -> None:
    from rich.table import Table
    from rich.text import Text

    totals = summary.totals
    partial = totals.get("partially_scored", 0)
    if len(summary.by_runner_model) > 1:
        breakdown = Table(title="by runner and model", title_justify="left")
        columns = ["runner", "model", "scored", "passed", "pass rate", "mean score"]
        if partial:
            columns.insert(3, "partially scored")
        for column in columns:
            breakdown.add_column(
                column, justify="left" if column in ("runner", "model") else "right"
            )
        for key, group in summary.by_runner_model.items():
            runner, _, model = key.partition(" | ")
            row: list[str | Text] = [cell(runner), cell(model), str(group["scored"])]
            if partial:
                row.append(str(group.get("partially_scored", 0)))
            breakdown.add_row(
                *row,
                str(group["passed"]),
                "n/a" if group["pass_rate"] is None else f"{group['pass_rate']:.1%}",
                "n/a" if group["mean_score"] is None else f"{group['mean_score']:.3f}",
            )
        console.print(breakdown)

    if len(summary.by_scorer) > 1:
        scorers = Table(title="by scorer", title_justify="left")
        for column in (
            "scorer",
            "scored",
            "passed",
            "pass rate",
            "mean score",
            "unscored",
            "errors",
        ):
            scorers.add_column(column, justify="left" if column == "scorer" else "right")
        for name, group in summary.by_scorer.items():
            scorers.add_row(
                cell(name),
                str(group["scored"]),
                str(group["passed"]),
                "n/a" if group["pass_rate"] is None else f"{group['pass_rate']:.1%}",
                "n/a" if group["mean_score"] is None else f"{group['mean_score']:.3f}",
                str(group["unscored"]),
                str(group["errors"]),
            )
        console.print(scorers)

    for model, usage in summary.judge_usage.items():
        cost = "cost unknown" if usage["cost_usd"] is None else f"${usage['cost_usd']:.4f}"
        console.print(
            f"judge {shown(model)}: {usage['calls']} calls "
            f"({usage['cached_calls']} from the cache), "
            f"{usage['input_tokens'] + usage['output_tokens']:,} tokens, {cost}",
            markup=False,
        )

    if summary.source_agreement:
        console.print("[bold]agreement with the runs' source[/bold]")
        for scorer, figures in summary.source_agreement.items():
            console.print(
                f"  {shown(scorer)}: {figures['agree']} of {figures['compared']} runs "
                f"({figures['rate']:.0%}) judged as their source judged them",
                markup=False,
            )

    if summary.repeats:
        lines = repeats_summary(
            summary.repeats,
            flaky_limit=None if verbose else _FLAKY_LIMIT,
            more_note=" (-v lists all)",
        )
        console.print("[bold]repeats[/bold]")
        for line in lines:
            console.print(f"  {line}", markup=False, soft_wrap=True)

    flags = summary.red_flags.get("flags", [])
    raised = [flag for flag in flags if flag["status"] == "raised"]
    unmeasured = [flag["metric"] for flag in flags if flag["status"] == "not_measured"]
    if raised:
        console.print("[bold]red flags[/bold]")
        for flag in raised:
            console.print(
                f"  {flag['red_flag']}: {flag['metric']} {flag['value']:.3g} "
                f"{flag['comparison']} {flag['threshold']:g}; {shown(flag['action'])}",
                markup=False,
                soft_wrap=True,
            )
    if unmeasured and verbose:
        console.print(f"red flags not measured: {', '.join(unmeasured)}", markup=False)

    if summary.worst_failures:
        console.print("[bold]lowest-scoring failures[/bold]")
        for item in summary.worst_failures:
            console.print(
                f"  {shown(item['report_file'] or item['run_id'])}  score {item['score']:.3f}  "
                f"{shown(item['reason'])}",
                markup=False,
                soft_wrap=True,
            )

    groups = [(_KIND_TITLES[kind], items) for kind, items in summary.not_scored.items() if items]
    if summary.scenario_problems:
        groups.append(("ground-truth problems", summary.scenario_problems))
    for title, items in groups:
        # A few of each kind, so that one noisy kind cannot hide the others; -v shows all.
        listed = items if verbose else items[:_REASON_LIMIT]
        console.print(f"[bold]{title}[/bold] ({len(items)})")
        for item in listed:
            where = item.get("source") or item.get("scenario_id") or ""
            console.print(
                f"  {shown(where)}: {shown(item['reason'])}", markup=False, soft_wrap=True
            )
        if len(listed) < len(items):
            console.print(f"  … and {len(items) - len(listed)} more (-v lists all)")
    console.print(f"reports: {shown(reports_dir)}", markup=False)
