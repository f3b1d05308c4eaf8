"""A comparison on the console: the verdict first, a table of each scorer's figures, then the
runs that regressed."""

from __future__ import annotations

import sys
from typing import IO, Any

from assay.reports.compare._figures import (
    cut,
    flaky_changes,
    interval,
    number,
    p_value,
    rate,
    repeats_rows,
    side,
    signed,
    verdict_title,
)
from assay.reports.compare.diff import BY_REPEAT
from assay.reports.console import shown

__all__ = ["print_comparison"]

ROWS_PER_SCORER = 10
"""Regressed runs listed per scorer; `--json` and `--markdown` give more."""

_STYLES = {"regressed": "bold red", "mixed": "bold red", "improved": "bold green"}


def print_comparison(comparison: dict[str, Any], *, file: IO[str] | None = None) -> None:
    """Print the comparison (as `compare_reports` returns it) to stdout, or to `file`.

    Example:
        >>> import io
        >>> from assay.reports.compare.diff import compare_lines
        >>> verdict = {"scorer": "s", "status": "scored", "passed": True, "score": 1.0}
        >>> out = io.StringIO()
        >>> print_comparison(compare_lines(
        ...     [{"scenario_id": "1", "run_id": "a", "score": verdict}],
        ...     [{"scenario_id": "1", "run_id": "a", "score": verdict}]), file=out)
        >>> out.getvalue().splitlines()[0]
        'verdict: no significant change'
    """
    if file is None and sys.stdout is None:  # started with its standard output closed
        return
    from rich import box
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    def cell(value: object, style: str = "") -> Text:
        # A Text, not a str: rich would read markup in a str ("[/]" in a run id).
        return Text(shown(value), style=style)

    on_terminal = file is None and sys.stdout.isatty()
    console = Console(file=file, highlight=False, width=None if on_terminal else 160)
    verdict = comparison.get("verdict")
    console.print(
        Text("verdict: ") + cell(verdict_title(verdict), _STYLES.get(str(verdict), ""))
    )
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, padding=(0, 1))
    for title, justify in (
        ("scorer", "left"), ("verdict", "left"), ("paired", "right"), ("pass rate", "left"),
        ("mean score", "left"), ("mean change [CI]", "left"), ("p→f/f→p", "right"),
        ("p", "right"), ("only B/N", "right"), ("unscored", "right"),
    ):
        table.add_column(title, justify=justify, no_wrap=title not in ("scorer", "verdict"))  # type: ignore[arg-type]
    scorers: dict[str, dict[str, Any]] = comparison.get("scorers", {})
    for name, figures in scorers.items():
        table.add_row(
            cell(name),
            cell(verdict_title(figures["verdict"]), _STYLES.get(figures["verdict"], "")),
            cell(figures["n_paired"]),
            cell(f"{rate(figures['pass_rate_base'])} → {rate(figures['pass_rate_new'])}"),
            cell(f"{number(figures['mean_score_base'])} → {number(figures['mean_score_new'])}"),
            cell(f"{signed(figures['mean_delta'])} {interval(figures['ci'])}"),
            cell(f"{figures['pass_to_fail']}/{figures['fail_to_pass']}"),
            cell(p_value(figures["p_value"])),
            cell(f"{len(figures['only_in_base'])}/{len(figures['only_in_new'])}"),
            cell(len(figures["unscored"])),
        )
    console.print(table)
    console.print(
        Text(
            "p→f/f→p: runs that passed then failed / failed then passed; p: McNemar's exact "
            "test on them; CI: "
            f"{1 - float(comparison.get('alpha', 0.05)):.0%} interval of a sign-flip test "
            f"flipping whole scenarios (up to {comparison.get('resamples')} patterns, seed "
            f"{comparison.get('seed')})"
        )
    )
    repeats = repeats_rows(comparison)
    if repeats:
        by_repeat = comparison.get("matched_by") == BY_REPEAT
        console.print(
            Text(
                "repeats"
                + (" (runs matched by scenario and repeat)" if by_repeat else ""),
                style="bold",
            )
        )
        figures_table = Table(box=box.SIMPLE_HEAD, pad_edge=False, padding=(0, 1))
        for title in ("", "BASE", "NEW"):
            figures_table.add_column(title)
        for row in repeats:
            figures_table.add_row(*(cell(value) for value in row))
        console.print(figures_table)
        for title, cases in flaky_changes(comparison):
            listed = ", ".join(cases[:ROWS_PER_SCORER])
            more = len(cases) - ROWS_PER_SCORER
            console.print(
                cell(f"{title} ({len(cases)}): {listed}")
                + Text(f" … and {more} more" if more > 0 else "")
            )
    for name, figures in scorers.items():
        regressed = [change for change in figures["changes"] if change["outcome"] == "regressed"]
        if not regressed:
            continue
        console.print(Text(f"regressed: {shown(name)} ({len(regressed)})", style="bold"))
        for change in regressed[:ROWS_PER_SCORER]:
            console.print(
                cell(
                    f"  {change['run_id']}  scenario {change['scenario_id']}  "
                    f"{side(change['base'])} → {side(change['new'])}  "
                    f"{cut(change['new']['rationale'], 100)}"
                )
            )
        if len(regressed) > ROWS_PER_SCORER:
            console.print(Text(f"  … and {len(regressed) - ROWS_PER_SCORER} more"))
    problems = comparison.get("problems", [])
    if problems:
        console.print(Text(f"not compared ({len(problems)})", style="bold"))
        for problem in problems[:ROWS_PER_SCORER]:
            console.print(cell(f"  {problem['side'].upper()}: {problem['reason']}"))
        if len(problems) > ROWS_PER_SCORER:
            console.print(Text(f"  … and {len(problems) - ROWS_PER_SCORER} more"))
