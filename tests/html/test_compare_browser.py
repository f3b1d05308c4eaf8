"""The comparison page in a real browser: two evaluations of the examples (with XSS probes in
run ids and answers) compared by `assay compare --html`, opened from a `file://` URL in headless
Chromium."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from compare_fixture import XSS_ID, XSS_NEW_ID, evaluate_both

from assay.cli.main import main

KINDS = ("regressed", "improved", "unchanged", "unscored", "only_in_base", "only_in_new")


@pytest.fixture(scope="module")
def compared(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """The page and the JSON comparison of the same two evaluations."""
    root = tmp_path_factory.mktemp("compare-page")
    base, new = evaluate_both(root)
    page, report = root / "compare.html", root / "compare.json"
    code = main(["compare", str(base), str(new), "--html", str(page), "--json", str(report)])
    assert code == 0
    return page, json.loads(report.read_text())


def _rows(page: Any) -> Any:
    return page.locator('[data-testid="change-row"]')


def test_rows_per_kind_are_the_json_lists_for_every_scorer(
    compared: Any, open_report: Any
) -> None:
    page_file, comparison = compared
    opened = open_report(page_file)
    page = opened.page
    verdict = page.locator('[data-testid="verdict"]')
    assert verdict.get_attribute("data-verdict") == comparison["verdict"]
    assert page.locator('[data-testid="scorer-figures"]').count() == len(comparison["scorers"])
    for name, figures in comparison["scorers"].items():
        page.locator('[data-testid="scorer-select"]').select_option(name)
        page.locator('[data-testid="change-filter"][data-kind="all"]').click()
        assert _rows(page).count() == sum(len(figures[kind]) for kind in KINDS)
        for kind in KINDS:
            page.locator(f'[data-testid="change-filter"][data-kind="{kind}"]').click()
            assert _rows(page).count() == len(figures[kind]), (name, kind)
            shown = _rows(page).evaluate_all("rows => rows.map(r => r.dataset.kind)")
            assert set(shown) <= {kind}
            ids = _rows(page).evaluate_all("rows => rows.map(r => r.cells[0].textContent)")
            assert ids == figures[kind], (name, kind)
    assert page.evaluate("window.__xss") is None
    assert opened.console == []
    assert opened.requests == [page_file.resolve().as_uri()]


def test_search_and_drill_down_show_both_sides(compared: Any, open_report: Any) -> None:
    page_file, _ = compared
    opened = open_report(page_file)
    page = opened.page
    page.locator('[data-testid="scorer-select"]').select_option("static_json")
    search = page.locator('[data-testid="search"]')
    search.fill("ONERROR")  # the NEW answer of the probe both sides have, and the NEW-only id
    ids = _rows(page).evaluate_all("rows => rows.map(r => r.cells[0].textContent)")
    assert sorted(ids) == sorted([XSS_ID, XSS_NEW_ID])
    search.fill("no such text anywhere")
    assert _rows(page).count() == 0
    search.fill("")
    page.locator('[data-testid="change-filter"][data-kind="regressed"]').click()
    row = _rows(page).filter(has_text="window.__xss=1")
    assert row.locator("td").all_text_contents() == [
        XSS_ID, "16", "pass 1.000", "→", "fail 0.000", "regressed"
    ]
    row.click()
    detail = page.locator('[data-testid="change-detail"]')
    assert detail.is_visible()
    answer = detail.locator('tr[data-field="answer"]')
    assert answer.get_attribute("data-differs") == "true"
    assert answer.locator('[data-side="base"]').text_content().startswith("javascript:")
    assert answer.locator('[data-side="new"]').text_content().startswith("<img src=x onerror=")
    assert detail.locator('tr[data-field="status"]').get_attribute("data-differs") == "false"
    assert detail.locator('tr[data-field="passed"]').get_attribute("data-differs") == "true"
    differing = detail.locator('tr[data-differs="true"] td.differs')
    assert differing.count() == 2 * detail.locator('tr[data-differs="true"]').count()
    # A run only NEW has: its BASE side says so.
    page.locator('[data-testid="change-filter"][data-kind="only_in_new"]').click()
    _rows(page).filter(has_text="onerror").click()
    base_answer = detail.locator('tr[data-field="answer"] [data-side="base"]')
    assert base_answer.text_content() == "(no such run or verdict on this side)"
    # Opened from the keyboard too.
    page.locator('[data-testid="change-filter"][data-kind="improved"]').click()
    _rows(page).first.focus()
    page.keyboard.press("Enter")
    assert "improved" in detail.locator("h2").text_content()
    assert page.evaluate("window.__xss") is None
    assert page.locator("img").count() == 0
    assert opened.console == []
    assert opened.requests == [page_file.resolve().as_uri()]
