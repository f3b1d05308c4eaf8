"""A comparison as Markdown, for a pull-request comment: the verdict first, then each
scorer's figures, then the runs that regressed.

Everything that comes from the reports (scorer names, run and scenario ids, rationales) is
escaped: control characters (line breaks, terminal escapes) and lone surrogates are written as
backslash escapes, as on the console (ESC as `\\x1b`), then each ASCII punctuation character is
backslash-escaped (`&`, `<` and `>` become entities), so that no value can end a table cell,
open a link, an image, a code span or HTML, or start a list or heading. No link is written.

Example:
    >>> escape_markdown("a|b [x](javascript:alert(1)) <script>")
    'a\\\\|b \\\\[x\\\\]\\\\(javascript\\\\:alert\\\\(1\\\\)\\\\) &lt;script&gt;'
"""

from __future__ import annotations

import string
from typing import Any

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

__all__ = ["escape_markdown", "render_markdown"]

ROWS_PER_SCORER = 50
"""Regressed runs listed per scorer; the rest are counted (the JSON output lists them all)."""

RATIONALE_CHARS = 120
"""A rationale is cut to this many characters in the table of regressed runs."""

_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
_ESCAPES = {
    char: _ENTITIES.get(char, "\\" + char) for char in string.punctuation
}
_TABLE = str.maketrans(_ESCAPES)


def escape_markdown(value: object) -> str:
    """`value` as Markdown text that renders as itself, on one line and inside a table cell.

    Example:
        >>> print(escape_markdown("`run` 1*2"), escape_markdown("line\\nbreak"))
        \\`run\\` 1\\*2 line\\\\nbreak
    """
    return shown(value).translate(_TABLE)


def render_markdown(comparison: dict[str, Any]) -> str:
    """The comparison (as `compare_reports` returns it) as a Markdown document.

    Example:
        >>> from assay.reports.compare.diff import compare_lines
        >>> verdict = {"scorer": "s", "status": "scored", "passed": True, "score": 1.0}
        >>> text = render_markdown(compare_lines(
        ...     [{"scenario_id": "1", "run_id": "a", "score": verdict}],
        ...     [{"scenario_id": "1", "run_id": "a", "score": verdict}]))
        >>> text.splitlines()[0]
        '## assay compare: no significant change'
    """
    out = [f"## assay compare: {verdict_title(comparison.get('verdict'))}", ""]
    base, new = comparison.get("base"), comparison.get("new")
    if isinstance(base, dict) and isinstance(new, dict):
        out += [
            f"BASE {escape_markdown(base.get('directory'))} ({base.get('results')} runs) → "
            f"NEW {escape_markdown(new.get('directory'))} ({new.get('results')} runs)",
            "",
        ]
    out += [
        f"Significance level {comparison.get('alpha')}: McNemar's exact test on pass/fail "
        "flips, and the interval of a sign-flip test of the mean score change (whole "
        f"scenarios flipped; up to {comparison.get('resamples')} patterns, seed "
        f"{comparison.get('seed')}).",
        "",
    ]
    for warning in comparison.get("warnings", []):
        out.append(f"> **Warning:** {escape_markdown(warning)}")
    if comparison.get("warnings"):
        out.append("")
    out += [
        "| scorer | verdict | paired runs | pass rate | mean score | mean change [CI] "
        "| pass→fail | fail→pass | p (McNemar) | only BASE | only NEW | unscored |",
        "|---|---|---:|---|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    scorers: dict[str, dict[str, Any]] = comparison.get("scorers", {})
    for name, figures in scorers.items():
        out.append(
            "| "
            + " | ".join(
                [
                    escape_markdown(name),
                    f"**{verdict_title(figures['verdict'])}**"
                    if figures["verdict"] != "no significant change"
                    else verdict_title(figures["verdict"]),
                    str(figures["n_paired"]),
                    f"{rate(figures['pass_rate_base'])} → {rate(figures['pass_rate_new'])}",
                    f"{number(figures['mean_score_base'])} → "
                    f"{number(figures['mean_score_new'])}",
                    f"{signed(figures['mean_delta'])} {interval(figures['ci'])}",
                    str(figures["pass_to_fail"]),
                    str(figures["fail_to_pass"]),
                    p_value(figures["p_value"]),
                    str(len(figures["only_in_base"])),
                    str(len(figures["only_in_new"])),
                    str(len(figures["unscored"])),
                ]
            )
            + " |"
        )
    repeats = repeats_rows(comparison)
    if repeats:
        matched = comparison.get("matched_by") == BY_REPEAT
        out += [
            "",
            "### Repeats" + (" (runs matched by scenario and repeat)" if matched else ""),
            "",
            "| | BASE | NEW |",
            "|---|---|---|",
            *(f"| {' | '.join(escape_markdown(value) for value in row)} |" for row in repeats),
        ]
        for title, cases in flaky_changes(comparison):
            listed = ", ".join(escape_markdown(case) for case in cases[:ROWS_PER_SCORER])
            more = len(cases) - ROWS_PER_SCORER
            out += ["", f"{title.capitalize()} ({len(cases)}): {listed}"
                    + (f" … and {more} more" if more > 0 else "")]  # fmt: skip
    for name, figures in scorers.items():
        regressed = [change for change in figures["changes"] if change["outcome"] == "regressed"]
        if not regressed:
            continue
        out += [
            "",
            f"### Regressed: {escape_markdown(name)} ({len(regressed)})",
            "",
            "| run | scenario | before → after | rationale (NEW) |",
            "|---|---|---|---|",
        ]
        for change in regressed[:ROWS_PER_SCORER]:
            out.append(
                f"| {escape_markdown(change['run_id'])} | {escape_markdown(change['scenario_id'])}"
                f" | {escape_markdown(side(change['base']))} → "
                f"{escape_markdown(side(change['new']))}"
                f" | {escape_markdown(cut(change['new']['rationale'], RATIONALE_CHARS))} |"
            )
        if len(regressed) > ROWS_PER_SCORER:
            out += ["", f"… and {len(regressed) - ROWS_PER_SCORER} more (see the JSON output)."]
    problems = comparison.get("problems", [])
    if problems:
        out += ["", f"{len(problems)} result(s) could not be compared; the JSON output lists them."]
    return "\n".join(out) + "\n"
