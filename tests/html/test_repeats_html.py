"""The HTML report of repeated live runs: the repeats card and table, and the repeat column,
in the page's data and in a real browser."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from assay.cli.main import main
from assay.reports.html import Limits
from assay.reports.html._page_data import page_data
from assay.reports.html.render import write_html
from assay.reports.load import load_reports
from repeats_reports import repeat_result, results_of, write_reports

VERDICTS = {"weather": "PFP", "capital": "PPP", "refund": "EFF", "<b>odd</b>": "FPF"}


@pytest.fixture
def repeated_page(tmp_path: Path) -> Path:
    write_reports(tmp_path / "out", results_of(VERDICTS))
    page = tmp_path / "report.html"
    write_html(load_reports(tmp_path / "out"), page)
    return page


def test_the_page_data_holds_the_repeats(tmp_path: Path) -> None:
    write_reports(tmp_path / "out", results_of(VERDICTS))
    data = page_data(load_reports(tmp_path / "out"), Limits(cases=2))
    repeats = data["summary"]["repeats"]
    assert (repeats["n"], repeats["runs"], repeats["not_scored"]) == (3, 12, 1)
    assert [row[0] for row in repeats["k"]] == [1, 2, 3]
    assert repeats["flaky"] == ["<b>odd</b>", "weather"]
    # Flaky cases first, cut to the limit; the count says how many there are.
    assert [row[0] for row in repeats["cases"]] == ["<b>odd</b>", "weather"]
    assert repeats["case_count"] == 4
    assert [run["p"] for run in data["runs"]][:3] == [1, 2, 3]


def test_an_offline_page_has_no_repeats(tmp_path: Path) -> None:
    write_reports(tmp_path / "out", [repeat_result("a", None, "P")])
    data = page_data(load_reports(tmp_path / "out"))
    assert data["summary"]["repeats"] is None
    assert data["runs"][0]["p"] is None


def test_the_browser_shows_the_repeats_table_and_column(
    repeated_page: Path, open_report: Any
) -> None:
    opened = open_report(repeated_page)
    page = opened.page
    ks = page.locator('[data-testid="repeats-k"] tbody tr')
    # pass@1: (2/3 + 1 + 0 + 1/3) / 4 = 0.5; pass^3: (0 + 1 + 0 + 0) / 4: breakdowns in the
    # repetitions' section, not beside the headline pass rate.
    assert ks.nth(0).locator("td").all_text_contents()[1] == "50.0 %"
    assert ks.nth(2).locator("td").all_text_contents()[2] == "25.0 %"
    assert page.locator('[data-card="pass@1"]').count() == 0
    rows = page.locator('[data-testid="repeats-table"] tbody tr')
    assert rows.count() == 4
    first = rows.nth(0).locator("td").all_text_contents()
    assert first[0] == "<b>odd</b>"  # shown as text, never markup
    assert first[1:6] == ["3", "1", "0", "33.3 %", "0.0 %"]
    assert first[-1] == "flaky"
    refund = rows.nth(3).locator("td").all_text_contents()
    assert refund[:4] == ["refund", "3", "0", "1"]  # its error counted apart
    # pass@2: (1 + 1 + 0 + 2/3) / 4; pass^2: (1/3 + 1 + 0 + 0) / 4.
    assert ks.nth(1).locator("td").all_text_contents() == ["2", "66.7 %", "33.3 %"]
    flaky = page.locator('[data-testid="flaky"]').text_content()
    assert flaky == "flaky cases (2): <b>odd</b>, weather"
    # The runs table has a repeat column, sortable like the others.
    head = page.locator('[data-testid="runs-table"] thead th').all_text_contents()
    assert head[:3] == ["run id", "scenario", "repeat"]
    repeats = page.locator('[data-testid="repeat"]').all_text_contents()
    assert repeats[:3] == ["1", "2", "3"]
    page.locator('[data-testid="runs-table"] thead th', has_text="repeat").click()
    shown = page.locator('[data-testid="repeat"]').all_text_contents()
    assert shown == sorted(shown)
    opened.rows().first.click()
    detail = page.locator('[data-testid="case-detail"]').text_content()
    assert detail is not None and "repeat 1 ·" in detail
    assert opened.console == []


def test_the_comparison_page_shows_each_sides_repeats(tmp_path: Path, open_report: Any) -> None:
    write_reports(tmp_path / "base", results_of({"weather": "PFP", "<i>x</i>": "PPP"}))
    write_reports(tmp_path / "new", results_of({"weather": "PPP", "<i>x</i>": "PFP"}))
    page_file = tmp_path / "compare.html"
    assert main(["compare", str(tmp_path / "base"), str(tmp_path / "new"),
                 "--html", str(page_file)]) == 0  # fmt: skip
    opened = open_report(page_file)
    page = opened.page
    table = page.locator('[data-testid="repeats"]')
    assert table.locator('tr[data-figure="pass@1"] td').all_text_contents() == [
        "pass@1", "83.3%", "83.3%"
    ]  # fmt: skip
    assert table.locator('tr[data-figure="flaky cases"] td').all_text_contents() == [
        "flaky cases", "1", "1"
    ]  # fmt: skip
    changes = page.locator('[data-testid="flaky-change"]').all_text_contents()
    assert changes == ["newly flaky (1): <i>x</i>", "no longer flaky (1): weather"]
    assert page.get_by_text("Runs are matched by scenario and repeat").count() == 1
    rows = page.locator('[data-testid="change-row"]')
    assert rows.count() == 6
    assert opened.console == []
