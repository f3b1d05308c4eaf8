"""A comparison as Markdown, for a pull-request comment: what changed, counted, then what the
tests make of it, each scorer's figures, then the runs that regressed.

Everything that comes from the reports (scorer names, run and scenario ids, directories,
rationales) goes through `escape_markdown`: control characters (line breaks, terminal
escapes) and lone surrogates are written as backslash escapes, as on the console (ESC as
`\\x1b`), then only what Markdown (CommonMark with GitHub's tables, strikethrough and
autolinks) would read as markup at its place is escaped, so that no value can end a table
cell, open a link, an image, a code span, emphasis or HTML, or start a list or heading, and
the rest reads as written (`1.000`, `reports-v1`, `static_json`). No link is written.

Example:
    >>> print(escape_markdown("a|b [x](javascript:alert(1)) <script> reports-v1 1.000"))
    a\\|b \\[x\\](javascript:alert(1)) &lt;script> reports-v1 1.000
"""

from __future__ import annotations

import re
import string
from typing import Any

from assay.reports.compare._figures import (
    cut,
    flaky_changes,
    headline,
    interval,
    number,
    p_value,
    rate,
    repeats_rows,
    side,
    signed,
    verdict_phrase,
    verdict_title,
)
from assay.reports.compare.diff import BY_REPEAT
from assay.reports.console import shown

__all__ = ["escape_markdown", "render_markdown"]

ROWS_PER_SCORER = 50
"""Regressed runs listed per scorer; the rest are counted (the JSON output lists them all)."""

RATIONALE_CHARS = 120
"""A rationale is cut to this many characters in the table of regressed runs."""

_ALWAYS = frozenset("|`[]$")
"""Markup wherever it stands: a cell's end, a code span, a link or image (`![` needs its
`[`), math (GitHub's `$...$`)."""

_FLANKED = frozenset("*~")
"""Emphasis and strikethrough: inert only between two spaces (neither flank can open)."""

_BLOCK_STARTS = frozenset("#>-+=*_")
"""Characters that start a block (heading, quote, list, setext underline, thematic break)
at the start of a line."""

_ENTITY = re.compile(r"#?[0-9A-Za-z]+;")
"""What after `&` makes an entity reference (`&lt;`, `&#60;`)."""

_HTML_OPENERS = frozenset(string.ascii_letters + "/!?")
"""What after `<` opens a tag, a comment, a declaration or an autolink."""

_LIST_NUMBER = re.compile(r"[0-9]{1,9}[.)]")


def escape_markdown(value: object, *, line_start: bool = False) -> str:
    """`value` as Markdown text that renders as itself, on one line, in a table cell or in
    running text (`line_start`: at the start of a line, where `#`, `>`, `-`, `+` or `1.`
    would start a block). A character is escaped only where it would be markup: `|`,
    backticks, brackets and `$` always; `*` and `~` unless between spaces; `_` unless inside a
    word or between spaces; `<` before what would make it a tag; `&` before what would make
    an entity; a backslash before punctuation; the `:` of `://` and the `.` of `www.`, and
    `@` before a word (autolinks).

    Example:
        >>> print(escape_markdown("`run` 1*2 a_b _c_ 2 * 3 R&D &amp; 1 < 2 <b> user@host"))
        \\`run\\` 1\\*2 a_b \\_c\\_ 2 * 3 R&D &amp;amp; 1 < 2 &lt;b> user\\@host
        >>> print(escape_markdown("line\\nbreak"), escape_markdown("C:\\\\runs\\\\*"))
        line\\nbreak C:\\runs\\\\\\*
        >>> print(escape_markdown("see https://x.io or www.x.io"))
        see https\\://x.io or www\\.x.io
        >>> print(escape_markdown("1. # x", line_start=True), escape_markdown("- a"))
        1\\. # x - a
    """
    text = shown(value)
    out: list[str] = []
    for index, char in enumerate(text):
        before = text[index - 1] if index > 0 else ""
        after = text[index + 1] if index + 1 < len(text) else ""
        if char in _ALWAYS:
            out.append("\\" + char)
        elif char in _FLANKED:
            out.append(char if before == after == " " else "\\" + char)
        elif char == "_":
            inert = before == after == " " or (before.isalnum() and after.isalnum())
            out.append(char if inert else "\\_")
        elif char == "\\":
            out.append("\\\\" if not after or after in string.punctuation else char)
        elif char == "<":
            out.append("&lt;" if after in _HTML_OPENERS and after else char)
        elif char == "&":
            out.append("&amp;" if _ENTITY.match(text, index + 1) else char)
        elif char == ":":
            out.append("\\:" if text.startswith("//", index + 1) else char)
        elif char == ".":
            www = text[max(index - 3, 0) : index].lower() == "www"
            out.append("\\." if www and (index == 3 or not text[index - 4].isalnum()) else char)
        elif char == "@":
            out.append("\\@" if after.isalnum() else char)
        else:
            out.append(char)
    if line_start:
        _escape_line_start(text, out)
    return "".join(out)


def _escape_line_start(text: str, out: list[str]) -> None:
    """Escape, in `out` (one entry per character of `text`), what would start a block:
    leading spaces (an indented code block) as `&#32;`, the first other character when it
    starts a heading, quote, list or thematic break, the `.` or `)` of a list number."""
    first = len(text) - len(text.lstrip(" "))
    for index in range(first):
        out[index] = "&#32;"
    if first == len(text):
        return
    if text[first] in _BLOCK_STARTS and not out[first].startswith("\\"):
        out[first] = "\\" + text[first]
    number = _LIST_NUMBER.match(text, first)
    if number is not None:
        out[number.end() - 1] = "\\" + text[number.end() - 1]


def render_markdown(comparison: dict[str, Any]) -> str:
    """The comparison (as `compare_reports` returns it) as a Markdown document.

    Example:
        >>> from assay.reports.compare.diff import compare_lines
        >>> verdict = {"scorer": "s", "status": "scored", "passed": True, "score": 1.0}
        >>> text = render_markdown(compare_lines(
        ...     [{"scenario_id": "1", "run_id": "a", "score": verdict}],
        ...     [{"scenario_id": "1", "run_id": "a", "score": verdict}]))
        >>> title, _, verdict = text.splitlines()[:3]
        >>> print(title.removeprefix("## assay compare — "), verdict, sep="\\n")
        pass rate 100.0% → 100.0% (+0.0 pts): 0 regressions, 0 fixes, 1 unchanged
        Verdict: no change in 1 paired run.
    """
    counts, judged = headline(comparison, escape_markdown)
    verdict = comparison.get("verdict")
    if verdict in ("regressed", "improved"):  # `verdict: REGRESSED significantly: ...`
        label, title, rest = judged.partition(verdict_title(verdict))
        judged = f"{label}**{title}**{rest}"
    out = [f"## assay compare — {counts}", "", f"{judged[0].upper()}{judged[1:]}.", ""]
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
                    f"**{verdict_phrase(figures)}**"
                    if figures["verdict"] != "no significant change"
                    else verdict_phrase(figures),
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
