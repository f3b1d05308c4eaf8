"""One headless Chromium for the HTML report's tests (the system's /usr/bin/chromium, driven by
Playwright), shared by the whole test session.

Without Chromium the browser tests are skipped with the reason, except in CI (`CI` set), where
a missing browser is a failure.
"""

from __future__ import annotations

import os
import shutil
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


def _chromium_missing() -> str | None:
    if CHROMIUM.exists() and shutil.which(str(CHROMIUM)):
        return None
    return f"{CHROMIUM} is missing (apt-get install -y chromium)"


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """The session's browser."""
    missing = _chromium_missing()
    if missing is not None:
        if os.environ.get("CI"):
            pytest.fail(f"CI needs the browser: {missing}")
        pytest.skip(missing)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
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
    """Open a report file in a fresh page: `open_report(path) -> Opened`."""
    contexts: list[Any] = []

    def opener(path: Path, **options: Any) -> Opened:
        context = browser.new_context(viewport={"width": 1280, "height": 900}, **options)
        contexts.append(context)
        opened = Opened(context.new_page())
        opened.page.goto(path.resolve().as_uri())
        opened.page.wait_for_selector("html[data-ready]")
        return opened

    yield opener
    for context in contexts:
        context.close()
