"""One headless Chromium for the HTML report's tests (the system's /usr/bin/chromium, driven by
Playwright over its DevTools protocol), shared by the whole test session.

Without Chromium the browser tests are skipped with the reason, except in CI (`CI` set), where
a missing browser is a failure. Every test that uses the browser is marked `slow`: it runs with
`-m slow` or `-m "slow or not slow"` (as in CI), not in the default fast set.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "browser" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.slow)


def _chromium_missing() -> str | None:
    if CHROMIUM.exists() and shutil.which(str(CHROMIUM)):
        return None
    return f"{CHROMIUM} is missing (apt-get install -y chromium)"


@pytest.fixture(scope="session")
def chromium_endpoint(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One Chromium process for the whole test session; its DevTools WebSocket address.

    Playwright's sync API marks an event loop as running in the main thread while it is
    started, which would stop every later test that calls `asyncio.run`; so the browser
    process is shared by the session, and each test module connects to it only for as long
    as its own tests run (the `browser` fixture).
    """
    missing = _chromium_missing()
    if missing is not None:
        if os.environ.get("CI"):
            pytest.fail(f"CI needs the browser: {missing}")
        pytest.skip(missing)
    profile = tmp_path_factory.mktemp("chromium-profile")
    process = subprocess.Popen(
        [str(CHROMIUM), *ARGS, "--remote-debugging-port=0", f"--user-data-dir={profile}",
         "about:blank"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    try:
        assert process.stderr is not None
        deadline = time.monotonic() + 30
        endpoint = None
        while endpoint is None and time.monotonic() < deadline:
            line = process.stderr.readline()
            if not line and process.poll() is not None:
                break
            if line.startswith("DevTools listening on "):
                endpoint = line.split(" on ", 1)[1].strip()
        if endpoint is None:
            pytest.fail(f"{CHROMIUM} did not start (exit status {process.poll()})")
        # Keep reading its log so a full pipe never blocks it.
        threading.Thread(target=process.stderr.read, daemon=True).start()
        yield endpoint
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture(scope="module")
def browser(chromium_endpoint: str) -> Iterator[Any]:
    """The session's browser, connected for this module's tests."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.connect_over_cdp(chromium_endpoint)
        yield chromium
        chromium.close()


class Opened:
    """A page opened on a report, with what it said and asked for."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.console: list[str] = []
        self.requests: list[str] = []
        page.on("console", lambda m: self.console.append(f"{m.type}: {m.text}"))
        page.on("pageerror", lambda e: self.console.append(f"pageerror: {e}"))
        page.on("request", lambda r: self.requests.append(r.url))

    def rows(self) -> Any:
        return self.page.locator('[data-testid="case-row"]')


@pytest.fixture
def open_report(browser: Any) -> Iterator[Any]:
    """Open a report file (or an address) in a fresh page: `open_report(path) -> Opened`."""
    contexts: list[Any] = []

    def opener(path: Path | str, **options: Any) -> Opened:
        options.setdefault("viewport", {"width": 1280, "height": 900})
        context = browser.new_context(**options)
        contexts.append(context)
        opened = Opened(context.new_page())
        # A file, or an address (`assay view`'s).
        opened.page.goto(path if isinstance(path, str) else path.resolve().as_uri())
        opened.page.wait_for_selector("html[data-ready]")
        return opened

    yield opener
    for context in contexts:
        context.close()
