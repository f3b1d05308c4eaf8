"""The Markdown of `assay compare`: data never breaks a table, opens a link or writes HTML."""

from __future__ import annotations

import re
import string
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

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

_ENTITIES = {"&amp;": "&", "&lt;": "<", "&gt;": ">"}


def read_back(text: str) -> str:
    """What CommonMark shows for `text`: escapes and the three entities decoded, and fails
    on any punctuation that is not escaped (it could be markup)."""
    out = []
    i = 0
    while i < len(text):
        char = text[i]
        if char == "\\":
            assert text[i + 1] in string.punctuation, text
            out.append(text[i + 1])
            i += 2
        elif char == "&":
            entity = next(e for e in _ENTITIES if text.startswith(e, i))
            out.append(_ENTITIES[entity])
            i += len(entity)
        else:
            assert char not in string.punctuation and char not in "\r\n", (char, text)
            out.append(char)
            i += 1
    return "".join(out)


@given(st.text())
def test_escaped_text_reads_back_as_itself_with_no_markup_left(text: str) -> None:
    assert read_back(escape_markdown(text)) == shown(text)


def cells(row: str) -> list[str]:
    """A table row's cells, split on the pipes that are not escaped."""
    assert row.startswith("| ") and row.endswith(" |")
    return re.split(r"(?<!\\) \| ", row[2:-2])


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
    header = rows[0]
    assert len(cells(header)) == 12
    regressed_rows = [row for row in rows if row.count("scn") >= 1]
    assert len(regressed_rows) == len(HOSTILE)
    for row in regressed_rows:
        parts = cells(row)
        assert len(parts) == 4, row
        for part in (parts[0], parts[1], parts[3]):
            read_back(part)  # every punctuation character is escaped
    assert "<script" not in text and "](" not in text and "<b>" not in text
    assert "`" not in text.replace("\\`", "")
    assert "javascript\\:" in text  # kept as text
    assert "http://" not in text and "https://" not in text


def test_rationales_are_cut_short() -> None:
    text = render_markdown(hostile_comparison())
    longest = max(len(cells(row)[3]) for row in text.splitlines() if "scn" in row)
    assert longest < 300


def test_the_verdict_comes_first() -> None:
    text = render_markdown(hostile_comparison())
    assert text.splitlines()[0] == "## assay compare: REGRESSED"
