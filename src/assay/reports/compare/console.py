"""A comparison on the console, to fit the terminal (80 columns when it is not one): what
changed, counted, then what the tests make of it, each scorer's figures, then the runs that
regressed (every changed run with `verbose`)."""

from __future__ import annotations

import sys
from typing import IO, TYPE_CHECKING, Any

from assay.reports.compare._figures import (
    cut,
    flaky_changes,
    headline,
    headline_scorer,
    interval,
    number,
    p_value,
    rate,
    repeats_rows,
    side,
    signed,
    verdict_phrase,
)
from assay.reports.compare.diff import BY_REPEAT
from assay.reports.console import shown

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["print_comparison"]

ROWS_PER_SCORER = 10
"""Regressed runs listed per scorer without `verbose`; `--json` and `--markdown` give more."""

RATIONALE_CHARS = 100
"""A rationale is cut to this many characters (or to the width left on its line)."""

_STYLES = {"regressed": "bold red", "mixed": "bold red", "improved": "bold green"}


def print_comparison(
    comparison: dict[str, Any], *, file: IO[str] | None = None, verbose: bool = False
) -> None:
    """Print the comparison (as `compare_reports` returns it) to stdout, or to `file`, as wide
    as the terminal (`COLUMNS`, else 80 columns off a terminal); `verbose` lists every changed
    run, not only the first regressed ones.

    Example:
        >>> import io
        >>> from assay.reports.compare.diff import compare_lines
        >>> verdict = {"scorer": "s", "status": "scored", "passed": True, "score": 1.0}
        >>> out = io.StringIO()
        >>> print_comparison(compare_lines(
        ...     [{"scenario_id": "1", "run_id": "a", "score": verdict}],
        ...     [{"scenario_id": "1", "run_id": "a", "score": verdict}]), file=out)
        >>> print(*out.getvalue().splitlines()[:2], sep="\\n")
        pass rate 100.0% → 100.0% (+0.0 pts): 0 regressions, 0 fixes, 1 unchanged
        verdict: no change in 1 paired run
    """
    if file is None and sys.stdout is None:  # started with its standard output closed
        return
    from rich.console import Console
    from rich.text import Text

    console = Console(file=file, highlight=False)
    counts, judged = headline(comparison, shown)
    verdict = str(comparison.get("verdict"))
    console.print(Text(shown(counts), style="bold"))
    console.print(Text(shown(judged), style=_STYLES.get(verdict, "")))
    scorers: dict[str, dict[str, Any]] = comparison.get("scorers", {})
    chosen = headline_scorer(scorers)
    # The scorer the first lines count comes first.
    for name in sorted(scorers, key=lambda name: name != chosen):
        _print_scorer(console, name, scorers[name], combined=len(scorers) > 1 and name == chosen)
    if scorers:
        console.print()
        _print_wrapped(
            console,
            "",
            "p: McNemar's exact test on the runs that passed then failed and those that "
            f"failed then passed; CI: {1 - float(comparison.get('alpha', 0.05)):.0%} "
            "interval of a sign-flip test flipping whole scenarios (up to "
            f"{comparison.get('resamples')} patterns, seed {comparison.get('seed')})",
        )
    _print_repeats(console, comparison, verbose=verbose)
    kinds = ("regressed", "improved") if verbose else ("regressed",)
    for name, figures in scorers.items():
        for kind in kinds:
            _print_changes(console, name, figures, kind, verbose=verbose)
    problems = comparison.get("problems", [])
    if problems:
        console.print(Text(f"not compared ({len(problems)})", style="bold"))
        shown_problems = problems if verbose else problems[:ROWS_PER_SCORER]
        for problem in shown_problems:
            console.print(Text(shown(f"  {problem['side'].upper()}: {problem['reason']}")))
        _print_more(console, len(problems) - len(shown_problems))


def _print_scorer(
    console: Console, name: str, figures: dict[str, Any], *, combined: bool
) -> None:
    """One scorer's figures: its name and verdict on a line of their own (a long name wraps,
    never the figures), then a line each for the pass rate, the mean score, the runs paired
    and those that are not."""
    from rich.text import Text

    console.print()
    console.print(
        Text(shown(name), style="bold")
        + Text(" (combined)" if combined else "")
        + Text(": ")
        + Text(verdict_phrase(figures), style=_STYLES.get(figures["verdict"], ""))
    )
    apart = [
        f"{len(figures[key])} {title}"
        for key, title in (
            ("unscored", "unscored on a side"),
            ("only_in_base", "only in BASE"),
            ("only_in_new", "only in NEW"),
        )
        if figures[key]
    ]
    rows = [
        (
            "pass rate",
            f"{rate(figures['pass_rate_base'])} → {rate(figures['pass_rate_new'])}",
            f"p={p_value(figures['p_value'])} ({figures['pass_to_fail']} pass→fail, "
            f"{figures['fail_to_pass']} fail→pass)",
        ),
        (
            "mean score",
            f"{number(figures['mean_score_base'])} → {number(figures['mean_score_new'])}",
            f"{signed(figures['mean_delta'])} CI {interval(figures['ci'])}",
        ),
        (
            "runs",
            f"{figures['n_paired']} paired",
            f"{len(figures['regressed'])} regressed, {len(figures['improved'])} improved, "
            f"{len(figures['unchanged'])} unchanged",
        ),
    ]
    if apart:
        rows.append(("not paired", "", ", ".join(apart)))
    middle = max(len(row[1]) for row in rows)
    for label, change, detail in rows:
        indent = f"  {label:<10}  {change:<{middle}}  "
        _print_wrapped(console, indent, detail)


def _print_wrapped(console: Console, indent: str, text: str) -> None:
    """`indent` then `text`, wrapped under itself when it does not fit the width (figures,
    never data: their words are short)."""
    import textwrap

    from rich.text import Text

    room = console.width - len(indent)
    if room < 20:  # a very narrow terminal: rich folds what does not fit
        console.print(Text(indent + text))
        return
    lines = textwrap.wrap(text, room) or [""]
    console.print(Text(indent + lines[0]))
    for line in lines[1:]:
        console.print(Text(" " * len(indent) + line))


def _print_repeats(console: Console, comparison: dict[str, Any], *, verbose: bool) -> None:
    from rich import box
    from rich.table import Table
    from rich.text import Text

    repeats = repeats_rows(comparison)
    if not repeats:
        return
    by_repeat = comparison.get("matched_by") == BY_REPEAT
    console.print()
    console.print(
        Text(
            "repeats" + (" (runs matched by scenario and repeat)" if by_repeat else ""),
            style="bold",
        )
    )
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, padding=(0, 1))
    for title in ("", "BASE", "NEW"):
        table.add_column(title)
    for row in repeats:
        table.add_row(*(Text(shown(value)) for value in row))
    console.print(table)
    for title, cases in flaky_changes(comparison):
        listed = cases if verbose else cases[:ROWS_PER_SCORER]
        more = len(cases) - len(listed)
        console.print(
            Text(shown(f"{title} ({len(cases)}): {', '.join(listed)}"))
            + Text(f" … and {more} more (-v lists them all)" if more > 0 else "")
        )


def _print_changes(
    console: Console, name: str, figures: dict[str, Any], kind: str, *, verbose: bool
) -> None:
    """The runs of one kind (`regressed`, `improved`) under one scorer: each on a line (the
    run, its scenario, its verdict before and after), its rationale in NEW after it when it
    fits, else on a line of its own; a run id too long to share a line has its own (whole)."""
    from rich.cells import cell_len
    from rich.text import Text

    changes = [change for change in figures["changes"] if change["outcome"] == kind]
    if not changes:
        return
    console.print()
    console.print(Text(shown(f"{kind}: {name} ({len(changes)})"), style="bold"))
    listed = changes if verbose else changes[:ROWS_PER_SCORER]
    for change in listed:
        run = shown(change["run_id"])
        where = shown(
            f"scenario {change['scenario_id']}  {side(change['base'])} → {side(change['new'])}"
        )
        line = f"  {run}  {where}"
        if cell_len(line) > console.width:
            console.print(Text(f"  {run}"))
            line = f"    {where}"
        why = " ".join(shown(change["new"]["rationale"]).split())
        if why and cell_len(f"{line}  {why}") <= console.width and len(why) <= RATIONALE_CHARS:
            line = f"{line}  {why}"
            why = ""
        console.print(Text(line))
        if why:
            console.print(Text("    " + cut(why, min(console.width - 4, RATIONALE_CHARS))))
    _print_more(console, len(changes) - len(listed))


def _print_more(console: Console, more: int) -> None:
    from rich.text import Text

    if more > 0:
        console.print(Text(f"  … and {more} more (-v lists them all)"))
