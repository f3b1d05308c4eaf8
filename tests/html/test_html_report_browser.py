"""The HTML report in a real browser: reports from real `assay evaluate` runs, opened from
`file://` URLs in headless Chromium."""

from __future__ import annotations

import json
import struct
import zlib
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from assay.cli.main import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture(scope="module")
def example_report(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    """The examples evaluated with static_json and trajectory, written with --html."""
    root = tmp_path_factory.mktemp("examples")
    page = root / "report.html"
    code = main(
        [
            "evaluate",
            "--trajectories", str(EXAMPLES / "trajectories"),
            "--scenarios", str(EXAMPLES / "scenarios"),
            "--scorer", "static_json", "--scorer", "trajectory",
            "--reports-dir", str(root / "reports"),
            "--workers", "1", "-q",
            "--html", str(page),
        ]
    )  # fmt: skip
    assert code == 0
    lines = (root / "reports" / "results.jsonl").read_text().splitlines()
    return page, [json.loads(line) for line in lines]


def _status(line: dict[str, Any]) -> str:
    score = line["score"]
    if score["status"] == "scored":
        return "passed" if score["passed"] else "failed"
    return str(score["status"])


def test_rows_filters_and_search(example_report: Any, open_report: Any) -> None:
    page_file, lines = example_report
    opened = open_report(page_file)
    page = opened.page
    assert opened.rows().count() == len(lines) == 9
    for status in ("passed", "failed", "unscored", "error"):
        page.locator(f'[data-testid="status-filter"][data-status="{status}"]').click()
        wanted = sum(_status(line) == status for line in lines)
        assert opened.rows().count() == wanted, status
        shown = opened.rows().evaluate_all("rows => rows.map(r => r.dataset.status)")
        assert set(shown) <= {status}
    page.locator('[data-testid="status-filter"][data-status="all"]').click()
    assert opened.rows().count() == len(lines)
    # By the answer's text: only run 12 answers with "Engines & motors".
    page.locator('[data-testid="search"]').fill("engines & MOTORS")
    assert opened.rows().count() == 1
    assert opened.rows().first.locator("td").first.text_content() == "12"
    page.locator('[data-testid="search"]').fill("11-retry")
    assert opened.rows().count() == 1
    page.locator('[data-testid="search"]').fill("")
    assert opened.rows().count() == len(lines)
    assert opened.console == []
    assert opened.requests == [page_file.resolve().as_uri()]


def test_summary_cards_show_the_aggregate(example_report: Any, open_report: Any) -> None:
    page_file, _ = example_report
    page = open_report(page_file).page
    summary = page.locator('[data-testid="summary"]')
    assert summary.locator('[data-card="runs read"] .value').text_content() == "11"
    assert summary.locator('[data-card="passed"] .value').text_content() == "5"
    assert summary.locator('[data-card="unscored"] .value').text_content() == "2 (1 partially)"
    # One pass rate, the one --fail-under checks, in the headline; no card repeats it.
    headline = page.locator('[data-testid="headline"]')
    assert headline.locator('[data-testid="pass-rate"]').text_content() == "62.5 %"
    assert "what --fail-under checks" in (headline.text_content() or "")
    assert page.locator('[data-card="pass rate"]').count() == 0
    # The runs come right after the headline, before the totals and breakdowns.
    order = page.evaluate(
        "() => [...document.querySelectorAll('#app > section, #app > div > section')]"
        ".map(s => s.dataset.testid || s.querySelector('h2')?.textContent)"
    )
    assert order[:3] == ["headline", "Runs", "Totals"], order


def test_drill_down_key_table_and_aligned_trajectory(
    example_report: Any, open_report: Any
) -> None:
    page_file, _ = example_report
    page = open_report(page_file).page
    page.locator('[data-testid="search"]').fill("Check the storage")  # no match: question
    assert page.locator('[data-testid="case-row"]').count() == 0
    page.locator('[data-testid="search"]').fill('"material":27')
    assert page.locator('[data-testid="case-row"]').count() == 1
    page.locator('[data-testid="case-row"]').first.click()
    detail = page.locator('[data-testid="case-detail"]')
    assert detail.is_visible()
    keys = detail.locator('[data-testid="key-table"] tbody tr')
    assert keys.count() == 2
    assert keys.nth(0).locator("td").all_text_contents() == [
        "answer.energy", "14", "14", "exact", "1.000"
    ]
    cells = keys.nth(1).locator("td").all_text_contents()
    assert cells == ["answer.material", "48", "27", "mismatch", "0.000"]
    # The gold answer as the scenario wrote it, from the run's own report.
    gold = detail.locator('[data-testid="gold-answer"] .pre').text_content()
    assert gold is not None and gold.strip() == "{'energy': 14, 'material': 48}"
    # Run 12: the trajectory scorer paired actual step 0 with expected step 1 and found no
    # call for expected step 0; the table shows both, in expected-step order.
    page.locator('[data-testid="search"]').fill("engines")
    page.locator('[data-testid="case-row"]').first.click()
    pairs = detail.locator('[data-testid="trajectory-pair"]')
    assert pairs.evaluate_all("rows => rows.map(r => r.dataset.kind)") == ["missing", "matched"]
    matched = pairs.nth(1).locator("td").all_text_contents()
    assert matched == [
        "1",
        "get_work_orders {'site': 'MAIN'}",
        "matched",
        "0",
        "get_work_orders {'site': 'MAIN', 'asset_id': 'CH-12'}",
    ]
    assert pairs.nth(0).locator("td").all_text_contents()[:3] == ["0", "get_sites", "missing"]


def test_drill_down_shows_the_arguments_that_differ(example_report: Any, open_report: Any) -> None:
    page_file, _ = example_report
    page = open_report(page_file).page
    page.locator('[data-testid="search"]').fill("11-retry")
    page.locator('[data-testid="case-row"]').first.click()
    detail = page.locator('[data-testid="case-detail"]')
    # get_work_orders was called without the expected asset_id: one pair, not a missing and
    # an unexpected call.
    pairs = detail.locator('[data-testid="trajectory-pair"]')
    assert pairs.evaluate_all("rows => rows.map(r => r.dataset.kind)") == ["args_differ"]
    assert pairs.first.locator("td").all_text_contents() == [
        "0",
        "get_work_orders {'asset_id': 'CH-12'}",
        "argument differences",
        "0",
        "get_work_orders {'site': 'MAIN'}",
    ]
    argument = detail.locator('[data-testid="argument-difference"]')
    assert argument.count() == 1 and argument.first.get_attribute("data-kind") == "missing"
    assert argument.first.locator("td").all_text_contents() == [
        "asset_id", "missing", '"CH-12"', "(absent)"
    ]
    expected = argument.first.locator("td.arg-expected")
    actual = argument.first.locator("td.arg-actual")
    assert expected.evaluate("td => getComputedStyle(td).borderLeftStyle") == "solid"
    assert actual.evaluate("td => getComputedStyle(td).borderLeftStyle") == "solid"


def _png_colours(png: bytes) -> set[bytes]:
    """The distinct pixels of an 8-bit RGB(A) PNG, as Chromium writes screenshots."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    pos, chunks, header = 8, b"", b""
    while pos < len(png):
        size, kind = struct.unpack(">I4s", png[pos : pos + 8])
        body = png[pos + 8 : pos + 8 + size]
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            chunks += body
        pos += 12 + size
    width, height, depth, colour = struct.unpack(">IIBB", header[:10])
    assert depth == 8 and colour in (2, 6)
    channels = 3 if colour == 2 else 4
    raw, stride = zlib.decompress(chunks), width * channels
    previous, colours = bytearray(stride), set()
    for row in range(height):
        start = row * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1 : start + 1 + stride])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up, corner = previous[i], previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up) & 255
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                best = left if pa <= pb and pa <= pc else up if pb <= pc else corner
                line[i] = (line[i] + best) & 255
        colours.update(bytes(line[i : i + channels]) for i in range(0, stride, channels))
        previous = line
    return colours


def test_screenshot_is_not_blank_and_dark_theme_toggles(
    example_report: Any, open_report: Any
) -> None:
    page_file, _ = example_report
    page = open_report(page_file, color_scheme="light").page
    background = "getComputedStyle(document.body).backgroundColor"
    assert page.evaluate(background) == "rgb(255, 255, 255)"
    shot = page.screenshot(clip={"x": 0, "y": 0, "width": 400, "height": 200})
    assert len(_png_colours(shot)) > 1
    page.locator('[data-testid="theme-toggle"]').click()
    assert page.evaluate(background) == "rgb(13, 17, 23)"
    page.locator('[data-testid="theme-toggle"]').click()
    assert page.evaluate(background) == "rgb(255, 255, 255)"


def test_dark_by_preference(example_report: Any, open_report: Any) -> None:
    page_file, _ = example_report
    page = open_report(page_file, color_scheme="dark").page
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(13, 17, 23)"


PROBES = [
    "<script>window.__xss=1</script>",
    '<img src=x onerror="window.__xss=1">',
    '"><svg onload=window.__xss=1>',
    "javascript:window.__xss=1",
]


def _hostile_inputs(root: Path) -> tuple[Path, Path]:
    runs, scenarios = root / "runs", root / "scenarios"
    runs.mkdir()
    for n, probe in enumerate(PROBES):
        folder = scenarios / f"scenario_{n}"
        folder.mkdir(parents=True)
        (folder / "groundtruth.txt").write_text(json.dumps({"k": probe}))
        (folder / "expected_trajectory.json").write_text(
            json.dumps([{"name": "lookup", "args": {"q": probe}}])
        )
        run = {
            "run_id": probe,
            "scenario_id": str(n),
            "runner": probe,
            "model": probe,
            "answer": json.dumps({"k": probe + "!"}),
            "trajectory": {
                "turns": [
                    {"index": 0, "tool_calls": [{"name": "lookup", "input": {"q": probe + "?"}}]}
                ]
            },
        }
        (runs / f"{n}.json").write_text(json.dumps(run))
    return runs, scenarios


def test_hostile_strings_are_text(tmp_path: Path, open_report: Any) -> None:
    runs, scenarios = _hostile_inputs(tmp_path)
    assert main(
        ["evaluate", "--trajectories", str(runs), "--scenarios", str(scenarios),
         "--scorer", "static_json", "--scorer", "trajectory", "--workers", "1", "-q",
         "--reports-dir", str(tmp_path / "reports")]
    ) in (0, 1)  # fmt: skip
    page_file = tmp_path / "report.html"
    assert main(["report", str(tmp_path / "reports"), "--html", str(page_file)]) in (0, 1)
    raw = page_file.read_text()
    assert "<script>window" not in raw and "<img" not in raw and "<svg" not in raw
    opened = open_report(page_file)
    page = opened.page
    assert opened.rows().count() == len(PROBES)
    for probe in PROBES:
        page.locator('[data-testid="search"]').fill(probe)
        assert opened.rows().count() == 1, probe
        row = opened.rows().first
        assert row.locator("td").first.text_content() == probe
        row.click()
        detail = page.locator('[data-testid="case-detail"]')
        text = detail.text_content() or ""
        assert json.dumps({"k": probe + "!"}) in text
        calls = detail.locator('[data-testid="trajectory-pair"] td').all_text_contents()
        assert any(probe + "?" in call for call in calls), calls
        assert f"runner {probe}" in text
    assert page.evaluate("typeof window.__xss") == "undefined"
    assert page.locator("#app a, #app img, #app script, #app iframe").count() == 0
    assert page.locator("svg [onload], #app [onerror]").count() == 0
    assert opened.console == []
    assert opened.requests == [page_file.resolve().as_uri()]


def test_a_page_of_rows_at_a_time(tmp_path: Path, open_report: Any) -> None:
    runs, scenarios = tmp_path / "runs", tmp_path / "scenarios"
    folder = scenarios / "scenario_1"
    folder.mkdir(parents=True)
    (folder / "groundtruth.txt").write_text("7")
    runs.mkdir()
    for n in range(250):
        answer = "7" if n % 3 else "8"
        (runs / f"{n}.json").write_text(json.dumps({"run_id": f"r{n}", "scenario_id": "1",
                                                    "answer": answer}))
    page_file = tmp_path / "report.html"
    assert main(["evaluate", "--trajectories", str(runs), "--scenarios", str(scenarios),
                 "--workers", "1", "-q", "--reports-dir", str(tmp_path / "reports"),
                 "--html", str(page_file)]) == 0  # fmt: skip
    opened = open_report(page_file)
    assert opened.rows().count() == 100
    opened.page.locator('[data-testid="page-next"]').click()
    opened.page.locator('[data-testid="page-next"]').click()
    assert opened.rows().count() == 50
    opened.page.locator('[data-testid="status-filter"][data-status="failed"]').click()
    assert opened.rows().count() == 84
    assert opened.console == []


def test_judge_rationales_and_rubric_verdicts(
    tmp_path: Path, chat_server: Any, open_report: Any
) -> None:
    from chat_server import RecordedRequest, Reply

    hostile = '<img src=x onerror="window.__xss=1">'

    def verdict(request: RecordedRequest) -> Reply:
        prompt = request.body["messages"][-1]["content"]
        right = "cites the work orders" in prompt
        return Reply.ok(
            {"score": 1.0 if right else 0.25, "passed": right,
             "rationale": ("names WO-881 " if right else "no priorities ") + hostile},
            input_tokens=100, output_tokens=20,
        )  # fmt: skip

    chat_server.handler = verdict
    runs, scenarios = tmp_path / "runs", tmp_path / "scenarios"
    runs.mkdir()
    scenarios.mkdir()
    rubrics = [
        {"rubric_id": "cites", "content": "The answer cites the work orders.", "weight": 3},
        {"rubric_id": "<script>window.__xss=1</script>", "content": "It gives priorities."},
    ]
    (scenarios / "s.json").write_text(
        json.dumps([{"id": "1", "text": "Summarise CH-12's open work orders.", "rubrics": rubrics}])
    )
    (runs / "1.json").write_text(
        json.dumps({"run_id": "j1", "scenario_id": "1", "answer": "WO-881 and WO-902 are open."})
    )
    page_file = tmp_path / "report.html"
    code = main(
        ["evaluate", "--trajectories", str(runs), "--scenarios", str(scenarios),
         "--scorer", "rubric", "--judge-model", "local/judge-1",
         "--judge-base-url", chat_server.base_url, "--no-cache", "--workers", "1", "-q",
         "--reports-dir", str(tmp_path / "reports"), "--html", str(page_file)]
    )  # fmt: skip
    assert code == 0
    opened = open_report(page_file)
    page = opened.page
    assert page.locator('[data-card="judge cost"] .value').text_content() != ""
    opened.rows().first.click()
    detail = page.locator('[data-testid="case-detail"]')
    rows = detail.locator('[data-scorer="rubric"] table tbody tr')
    assert [rows.nth(i).locator("td").all_text_contents() for i in range(2)] == [
        ["cites", "0.75", "1.000", "passed", "names WO-881 " + hostile],
        ["<script>window.__xss=1</script>", "0.25", "0.250", "failed", "no priorities " + hostile],
    ]
    assert "judge local/judge-1: 2 call(s), 200 in / 40 out tokens" in (
        detail.text_content() or ""
    )
    assert page.evaluate("typeof window.__xss") == "undefined"
    assert opened.console == []
    assert opened.requests == [page_file.resolve().as_uri()]


def test_sorting_not_scored_list_and_print(example_report: Any, open_report: Any) -> None:
    page_file, _ = example_report
    opened = open_report(page_file)
    page = opened.page
    page.locator("th.sortable", has_text="score").click()
    scores = opened.rows().evaluate_all("rows => rows.map(r => r.children[3].textContent)")
    assert scores == sorted(scores, key=lambda s: -1 if s == "—" else float(s))
    page.locator("th.sortable", has_text="score").click()
    assert opened.rows().first.locator("td").nth(3).text_content() == "1.000"
    not_scored = page.locator("section", has=page.locator("h2", has_text="Inputs not scored"))
    text = not_scored.text_content() or ""
    assert "broken.json" in text and "no scenario matches this run" in text
    opened.rows().nth(2).focus()
    page.keyboard.press("Enter")  # a run opens from the keyboard too
    expect(page.locator('[data-testid="case-detail"]')).to_be_visible()
    page.emulate_media(media="print")
    assert not page.locator('[data-testid="search"]').is_visible()
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(255, 255, 255)"
    assert opened.console == []


def test_the_script_never_parses_markup() -> None:
    src = Path(__file__).resolve().parents[2] / "src/assay/reports"
    for script in ("html/dom.js", "html/page.js", "compare/compare.js"):
        source = (src / script).read_text()
        for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("):
            assert sink not in source, (script, sink)
