"""Benchmark: the HTML report of 20,000 runs, measured in headless Chromium.

Builds (or reuses) the generated data set of `run_bench.py`, evaluates it with static_json and
trajectory into a reports directory, renders the page from that directory, and opens it from a
`file://` URL in the system's Chromium (/usr/bin/chromium, driven by Playwright):

- file size (target < 20 MB);
- first render: navigation start to the table's first rows visible (target < 2 s);
- a filter click: click to the rows of that status shown (target < 0.3 s), median of repeats;
- `assay view` of the same directory (its server in this process, on 127.0.0.1): first render,
  navigation to the first rows visible (target < 1 s), and a run's detail, click to its
  transcript shown, loaded from the server (target < 0.3 s), median of repeats.

Run from the repository root: `python bench/html_bench.py` (`--runs`, `--seed`, `--repeat`;
`--write` appends the figures as one JSON line to bench/results/html.jsonl, see record.py).
Exit status 0 when every target is met, 1 when one is missed.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

import record
from assay.reports.html import write_html
from assay.reports.load import load_reports
from run_bench import ensure_data, fresh_dir

BENCH = Path(__file__).resolve().parent
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ROWS = '[data-testid="case-row"]'


def evaluate(data: Path, reports: Path) -> None:
    assay = Path(sys.executable).parent / "assay"
    cmd = [str(assay), "evaluate", "--trajectories", str(data / "trajectories")]
    cmd += ["--scenarios", str(data / "scenarios"), "--scorer", "static_json"]
    cmd += ["--scorer", "trajectory", "--reports-dir", str(reports), "-q", "--no-progress"]
    subprocess.run(cmd, check=False, stdout=subprocess.DEVNULL)


def measure(page_file: Path, repeat: int) -> tuple[float, list[float], int, float]:
    """First render (s), filter clicks (s each), rows shown first, and one search (s)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS
        )
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(page_file.resolve().as_uri(), wait_until="commit")
        page.wait_for_selector(ROWS, state="visible", timeout=60_000)
        # performance.now() counts from the navigation's start.
        first = page.evaluate("performance.now()") / 1000
        shown = page.locator(ROWS).count()
        clicks = []
        for n in range(repeat):
            status = ("failed", "passed", "unscored")[n % 3]
            button = page.locator(f'[data-testid="status-filter"][data-status="{status}"]')
            start = time.perf_counter()
            button.click()
            page.wait_for_function(
                "s => { const r = document.querySelectorAll('[data-testid=\"case-row\"]');"
                " return r.length > 0 && [...r].every(x => x.dataset.status === s); }",
                arg=status,
            )
            clicks.append(time.perf_counter() - start)
        # A search over every run (id, scenario id, answer), from typing to rows shown.
        page.locator('[data-testid="status-filter"][data-status="all"]').click()
        start = time.perf_counter()
        page.locator('[data-testid="search"]').fill("r0199")
        page.wait_for_function(
            "() => { const r = [...document.querySelectorAll('[data-testid=\"case-row\"]')];"
            " return r.length > 0 && r.every(x => x.textContent.includes('r0199')); }"
        )
        search = time.perf_counter() - start
        browser.close()
    return first, clicks, shown, search


def measure_view(reports: Path, repeat: int) -> tuple[float, float, list[float]]:
    """`assay view`: the server's start (s), the first rows visible (s) and each opened run's
    transcript shown (s)."""
    import threading

    from playwright.sync_api import sync_playwright

    from assay.reports.html.serve import ReportServer

    start = time.perf_counter()
    server = ReportServer(load_reports(reports))
    started = time.perf_counter() - start
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS
            )
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(server.url, wait_until="commit")
            page.wait_for_selector(ROWS, state="visible", timeout=60_000)
            first = page.evaluate("performance.now()") / 1000
            details = []
            for n in range(repeat):
                row = page.locator(ROWS).nth(n * 7 % 50)
                start = time.perf_counter()
                row.click()
                page.wait_for_selector('[data-testid="transcript"]', state="visible")
                details.append(time.perf_counter() - start)
                page.keyboard.press("Escape")
                page.wait_for_selector('[data-testid="case-detail"]', state="hidden")
            browser.close()
    finally:
        server.shutdown()
        server.server_close()
    return started, first, details


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=9, help="filter clicks timed")
    parser.add_argument(
        "--write", action="store_true", help="append the figures to bench/results/html.jsonl"
    )
    args = parser.parse_args(argv)
    data = ensure_data(args.runs, args.seed)
    out = fresh_dir(BENCH / "out" / "html")
    reports = out / "reports"
    start = time.perf_counter()
    evaluate(data, reports)
    print(f"evaluated {args.runs} runs in {time.perf_counter() - start:.1f} s")
    start = time.perf_counter()
    loaded = load_reports(reports)
    page_file = out / "report.html"
    size = write_html(loaded, page_file)
    render_s = time.perf_counter() - start
    first, clicks, shown, search = measure(page_file, args.repeat)
    click = statistics.median(clicks)
    view_start, view_first, details = measure_view(reports, args.repeat)
    detail = statistics.median(details)
    rows = [
        ("runs in the page", f"{len(loaded.results):,}", "", True),
        ("file size", f"{size / 1e6:.1f} MB", "< 20 MB", size < 20e6),
        ("render (load_reports + write_html)", f"{render_s:.2f} s", "", True),
        (f"first render ({shown} rows shown)", f"{first:.2f} s", "< 2 s", first < 2),
        (
            f"filter click (median of {len(clicks)}, best {min(clicks):.3f} s)",
            f"{click:.3f} s",
            "< 0.3 s",
            click < 0.3,
        ),
        ("search of every run's id, scenario id and answer", f"{search:.3f} s", "", True),
        ("assay view: server start (load_reports + page)", f"{view_start:.2f} s", "", True),
        ("assay view: first render", f"{view_first:.2f} s", "< 1 s", view_first < 1),
        (
            f"assay view: a run's transcript (median of {len(details)}, worst "
            f"{max(details):.3f} s)",
            f"{detail:.3f} s",
            "< 0.3 s",
            detail < 0.3,
        ),
    ]
    print("| Measure | Result | Target | |\n|---|---|---|---|")
    for name, value, target, ok in rows:
        print(f"| {name} | {value} | {target} | {'ok' if ok else 'MISSED'} |")
    if args.write:
        figures = [
            {"measure": name, "result": value, "target": target, "status": "ok" if ok else "MISSED"}
            for name, value, target, ok in rows
        ]
        result = {"runs": args.runs, "seed": args.seed, "repeat": args.repeat, "figures": figures}
        print(f"appended to {record.append('html', result)}")
    return 0 if all(ok for *_, ok in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
