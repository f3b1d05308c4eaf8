"""The run drill-down as a person uses it, in headless Chromium: a panel that opens in view
with its own address, keyboard and back-button manners, the run's transcript (from a saved
OpenAI-format run and from a live run), hostile strings in transcripts shown as text, a
phone-width screen, and `assay view` loading transcripts when a run is opened."""

from __future__ import annotations

import json
import re
import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from _cli import assay, explain, popen

HOSTILE = '<img src=x onerror="window.pwned=1"></script><script>window.pwned=2</script>'


def _chat(index: int) -> dict[str, Any]:
    """A saved OpenAI-format run: a question, a tool call and its result, an answer (every
    third one wrong, run 7 hostile)."""
    city = "Lyon" if index % 3 == 0 or index == 7 else "Paris"  # 7: failed, so in the page
    answer = f"It is sunny in {city}." + (HOSTILE if index == 7 else "")
    return {
        "run_id": f"r{index:03d}", "scenario_id": f"s{index:03d}", "model": "gpt-4o",
        "messages": [
            {"role": "system", "content": "You report the weather."},
            {"role": "user", "content": f"Weather in Paris? ({index})"},
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": f"call_{index}", "type": "function", "function": {
                    "name": "get_weather",
                    "arguments": json.dumps({"city": city, "note": HOSTILE if index == 7
                                             else "x" * 1500})}}]},
            {"role": "tool", "tool_call_id": f"call_{index}",
             "content": json.dumps({"sky": "sunny", "city": city})},
            {"role": "assistant", "content": answer},
        ],
    }


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A reports directory of 100 saved runs, and its static page (`report.html`)."""
    root = tmp_path_factory.mktemp("drill")
    (root / "runs.jsonl").write_text("\n".join(json.dumps(_chat(i)) for i in range(100)) + "\n")
    (root / "scenarios.json").write_text(json.dumps([
        {"id": f"s{i:03d}", "expected_answer": "It is sunny in Paris."} for i in range(100)
    ]))
    proc = assay("evaluate", "--trajectories", "runs.jsonl", "--scenarios", "scenarios.json",
                 "--scorer-default", "response_match", "-S", "response_match.mode=contains",
                 "--reports-dir", "out", "--html", "report.html", cwd=root)
    assert proc.returncode == 0, explain(proc)
    return root


def _failed_row(page: Any, last: bool = True) -> Any:
    rows = page.locator('[data-testid="case-row"][data-status="failed"]')
    return rows.last if last else rows.first


def test_the_drill_down_opens_in_view_with_its_own_address(saved: Path, open_report: Any) -> None:
    opened = open_report(saved / "report.html")
    page = opened.page
    row = _failed_row(page)
    index = row.get_attribute("data-index")
    row.click()
    panel = page.locator('[data-testid="case-detail"]')
    expect(panel).to_be_visible()
    box = panel.bounding_box()
    assert box is not None and box["y"] >= 0 and box["y"] + 100 <= 900  # in the viewport
    assert page.evaluate("() => document.activeElement.id") == "detail-title"
    assert page.evaluate("() => location.hash") == f"#run={index}"
    # Escape closes it, the address goes back, focus returns to the row.
    page.keyboard.press("Escape")
    expect(panel).to_be_hidden()
    page.wait_for_function("() => location.hash === ''")  # history.back() lands after
    assert page.evaluate("() => document.activeElement.dataset.index") == index
    # The back button closes it too.
    row.click()
    expect(panel).to_be_visible()
    page.go_back()
    expect(panel).to_be_hidden()
    assert opened.console == []


def test_an_address_with_a_run_opens_it_and_the_keyboard_drives_the_table(
    saved: Path, open_report: Any
) -> None:
    page = open_report(saved / "report.html").page
    page.goto((saved / "report.html").resolve().as_uri() + "#run=4")
    page.wait_for_selector("html[data-ready]")
    panel = page.locator('[data-testid="case-detail"]')
    expect(panel).to_be_visible()
    assert "r004" in (panel.locator("h2").text_content() or "")
    page.locator('[data-testid="detail-close"]').click()
    expect(panel).to_be_hidden()
    first = page.locator('[data-testid="case-row"]').first
    first.focus()
    page.keyboard.press("Enter")
    expect(panel).to_be_visible()
    assert page.evaluate("() => document.activeElement.id") == "detail-title"


def test_a_failed_saved_run_shows_its_transcript(saved: Path, open_report: Any) -> None:
    page = open_report(saved / "report.html").page
    _failed_row(page, last=False).click()
    transcript = page.locator('[data-testid="transcript"]')
    roles = transcript.locator('[data-testid="entry"]').evaluate_all(
        "items => items.map(i => i.dataset.role)")
    assert roles == ["system", "user", "assistant", "tool", "assistant"]
    call = transcript.locator('[data-testid="tool-call"]')
    assert "get_weather" in (call.locator(".call-name").text_content() or "")
    arguments = call.locator('[data-testid="call-args"]').text_content() or ""
    assert '"city": "Lyon"' in arguments  # pretty-printed JSON
    assert arguments.endswith("…")  # 1,500 characters of note: folded
    call.locator("button.unfold").click()
    assert '"note"' in (call.locator('[data-testid="call-args"]').text_content() or "")
    # A passed run's transcript is not in a static page, and the page says so.
    page.locator('[data-testid="case-row"][data-status="passed"]').first.click()
    said = page.locator('[data-testid="no-transcript"]').text_content() or ""
    assert "failed and errored runs only" in said


def test_hostile_strings_in_a_transcript_are_text(saved: Path, open_report: Any) -> None:
    opened = open_report(saved / "report.html")
    page = opened.page
    page.locator('[data-testid="search"]').fill("r007")
    page.locator('[data-testid="case-row"]').first.click()
    transcript = page.locator('[data-testid="transcript"]')
    assert HOSTILE in (transcript.text_content() or "")
    assert page.evaluate("() => window.pwned") is None
    assert page.locator('[data-testid="case-detail"] img, [data-testid="case-detail"] script'
                        ).count() == 0
    assert opened.console == []
    assert opened.requests == [(saved / "report.html").resolve().as_uri()]


def test_a_phone_screen_has_no_sideways_scroll(saved: Path, open_report: Any) -> None:
    page = open_report(saved / "report.html", viewport={"width": 420, "height": 800}).page
    wider = "() => document.documentElement.scrollWidth - window.innerWidth"
    assert page.evaluate(wider) <= 0
    _failed_row(page).click()
    assert page.evaluate(wider) <= 0
    expect(page.locator('[data-testid="case-detail"]')).to_be_visible()


def test_assay_view_loads_a_transcript_when_its_run_is_opened(
    saved: Path, open_report: Any
) -> None:
    server = popen("view", "out", "--no-browser", cwd=saved, stdout=subprocess.PIPE,
                   stderr=subprocess.PIPE)
    try:
        assert server.stdout is not None
        said = server.stdout.readline()
        found = re.search(r"http://127\.0\.0\.1:\d+/", said)
        assert found, said
        opened = open_report(found.group())
        page = opened.page
        # The table comes from the server a page at a time (here 100 runs, one page).
        rows = page.locator('[data-testid="case-row"]')
        expect(rows).to_have_count(100)
        page.locator('[data-testid="status-filter"][data-status="failed"]').click()
        expect(rows.first).to_have_attribute("data-status", "failed")
        statuses = rows.evaluate_all("rows => rows.map(r => r.dataset.status)")
        assert set(statuses) == {"failed"}
        page.locator('[data-testid="status-filter"][data-status="all"]').click()
        page.locator('[data-testid="search"]').fill("r042")
        expect(rows).to_have_count(1)
        page.locator('[data-testid="search"]').fill("")
        expect(rows).to_have_count(100)
        assert any("/api/runs?" in request for request in opened.requests)
        # A passed run too: `assay view` has every run's transcript, loaded on demand.
        page.locator('[data-testid="case-row"][data-status="passed"]').first.click()
        transcript = page.locator('[data-testid="transcript"]')
        transcript.wait_for()
        assert transcript.locator('[data-testid="entry"]').count() == 5
        assert any("/api/run/" in request for request in opened.requests)
        assert opened.console == []
    finally:
        server.send_signal(signal.SIGINT)
        _, err = server.communicate(timeout=30)
    assert server.returncode == 0, err

