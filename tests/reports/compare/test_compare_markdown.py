"""The Markdown of `assay compare`: data never breaks a table, opens a link or writes HTML, and
is escaped only where Markdown would read it as markup (numbers and ids read as written).

What a value renders as is read back with markdown-it (CommonMark with GitHub's tables and
strikethrough, and its autolinks when linkify-it-py is installed)."""

from __future__ import annotations

import string
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from markdown_it.token import Token

from assay.reports.compare.diff import compare_lines
from assay.reports.compare.markdown import escape_markdown, render_markdown
from assay.reports.console import shown

HOSTILE = [
    "a|b",
    "`code`",
    "<script>alert(1)</script>",
    "[x](javascript:alert(1))",
    "![img](http://example.com/x.png)",
    "https://example.com/",
    "line\nbreak\r\n| new | row |",
    "\\|escaped",
    "*bold* _it_ ~~s~~ # h",
    "&lt;already&gt;",
]

MARKUP = st.sampled_from([*string.punctuation, " ", "a", "1", "www.", "://", "&lt;", "\n"])
"""Characters (and runs) that Markdown may read as markup, drawn often."""


def markdown() -> MarkdownIt:
    """A parser that reads Markdown as GitHub does, as far as markdown-it goes."""
    try:
        parser = MarkdownIt("gfm-like")
    except ModuleNotFoundError:  # linkify-it-py, for the autolinks, is not installed
        parser = None
    if parser is None or parser.linkify is None:  # (some versions say so this way)
        return MarkdownIt("commonmark").enable(["table", "strikethrough"])
    # GitHub links `www.` and `scheme://` only: neither bare domains nor `//host`.
    parser.linkify.set({"fuzzy_link": False})
    parser.linkify.add("//", None)
    return parser


PARSER = markdown()


def inlines(text: str) -> list[Token]:
    """The inline runs of a document (a cell, a paragraph, a heading each)."""
    return [token for token in PARSER.parse(text) if token.type == "inline"]


def plain(token: Token) -> str:
    """An inline run's text, which must be text alone: no emphasis, code, link or HTML."""
    kinds = {child.type for child in token.children or []}
    assert kinds <= {"text"}, (kinds, token.content)
    return "".join(child.content for child in token.children or [])


@given(st.lists(st.one_of(MARKUP, st.characters())).map("".join))
@example("a|b [x](javascript:alert(1)) <script> `c` *d* _e_ ~~f~~ https://g.io www.h.io i@j.io")
@example("# h")
@example("    code")
@example("1. item")
@example("---")
@example("&amp; &#60; \\")
def test_escaped_text_renders_as_itself_in_a_cell_in_a_line_and_at_its_start(text: str) -> None:
    escaped = escape_markdown(text)
    assert "\n" not in escaped and "\r" not in escaped
    table = f"| head |\n|---|\n| {escaped} |\n"
    assert [token.type for token in PARSER.parse(table) if token.type.endswith("_open")] == [
        "table_open", "thead_open", "tr_open", "th_open", "tbody_open", "tr_open", "td_open"
    ]
    assert plain(inlines(table)[1]) == shown(text).strip()
    (line,) = inlines(f"x {escaped} y\n")
    assert plain(line) == f"x {shown(text)} y"
    if shown(text).strip():
        start = f"{escape_markdown(text, line_start=True)}\n"
        assert PARSER.parse(start)[0].type == "paragraph_open"
        assert plain(inlines(start)[0]).strip() == shown(text).strip()


@pytest.mark.parametrize(
    "text",
    ["1.000", "0.625", "85.7% → 57.1%", "reports-v1", "static_json", "static_json+trajectory",
     "/tmp/reports-v1", "run-3 (retry)", "2 * 3", "R&D", "x < y", "it's \"ok\"!", "#12", "50%"],
)
def test_numbers_and_ids_are_written_as_they_are(text: str) -> None:
    assert escape_markdown(text) == text


def cells(row: str) -> list[str]:
    """A row of a table of four columns, its cells read back."""
    return [plain(token) for token in inlines(f"| a | b | c | d |\n|---|---|---|---|\n{row}")[4:]]


def hostile_comparison() -> dict[str, Any]:
    def line(run: str, passed: bool, why: str) -> dict[str, Any]:
        score = {"scorer": "s|`<b>`", "status": "scored", "passed": passed,
                 "score": float(passed), "rationale": why}
        return {"scenario_id": f"scn {run}", "run_id": run, "score": score}

    base = [line(run, True, "") for run in HOSTILE]
    new = [line(run, False, f"why: {run} " + "x" * 300) for run in HOSTILE]
    return compare_lines(base, new, resamples=100)


def test_hostile_ids_neither_break_the_tables_nor_make_links_or_html() -> None:
    text = render_markdown(hostile_comparison())
    rows = [row for row in text.splitlines() if row.startswith("|")]
    assert len(rows[0].split(" | ")) == 12
    regressed_rows = [row for row in rows if row.count("scn") >= 1]
    assert len(regressed_rows) == len(HOSTILE)
    shown_runs = set()
    for row in regressed_rows:
        run, scenario, _, why = cells(row)
        assert scenario == f"scn {run}" and why.startswith("why: "), row
        shown_runs.add(run)
    assert shown_runs == {shown(run).strip() for run in HOSTILE}
    html = PARSER.render(text)
    assert "<script" not in html and "<a " not in html and "<img" not in html
    assert "<b>" not in html and "<code>" not in html and "<em>" not in html
    assert "<s>" not in html and "javascript:" in html  # kept as text
    for token in inlines(text):
        assert {child.type for child in token.children or []} <= {
            "text", "strong_open", "strong_close"  # the verdicts the page itself stresses
        }


def test_rationales_are_cut_short() -> None:
    text = render_markdown(hostile_comparison())
    longest = max(len(cells(row)[3]) for row in text.splitlines() if "scn" in row)
    assert longest < 300


def test_the_counts_come_first_then_the_verdict() -> None:
    lines = render_markdown(hostile_comparison()).splitlines()
    assert lines[0] == (
        "## assay compare — pass rate 100.0% → 0.0% (-100.0 pts): 10 regressions, 0 fixes, "
        "0 unchanged"
    )
    assert lines[2] == "Verdict: **REGRESSED** significantly: s\\|\\`&lt;b>\\`."
