"""The HTML report: one self-contained page (its CSS, script and data inline) that shows a
reports directory without any network access.

The data goes in as JSON inside `<script type="application/json">` with `<`, `>`, `&` and
U+2028/2029 escaped, so no string in it can end the block; the page's script builds every
element with `createElement`/`textContent`, so data is only ever shown as text. A
Content-Security-Policy allows nothing but the page's own style and script (by hash).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from assay.reports.files import write_atomic
from assay.reports.html._page_data import Limits, page_data
from assay.reports.html.shell import asset, embed_json, html_page
from assay.reports.load import LoadedReports

__all__ = ["Limits", "embed_json", "page_html", "render_html", "write_html"]


def render_html(
    loaded: LoadedReports, limits: Limits | None = None, *, lazy: bool = False
) -> str:
    """The report page of a loaded reports directory; with `lazy` (`assay view`), without
    transcripts, which the page loads from its server when a run is opened.

    Example:
        >>> import tempfile
        >>> from pathlib import Path
        >>> from assay.offline import EvaluateOptions, evaluate
        >>> from assay.reports.load import load_reports
        >>> root = Path(tempfile.mkdtemp())
        >>> (root / "runs").mkdir(); (root / "gt" / "scenario_1").mkdir(parents=True)
        >>> _ = (root / "runs" / "1.json").write_text('{"scenario_id": "1", "answer": "7"}')
        >>> _ = (root / "gt" / "scenario_1" / "groundtruth.txt").write_text("7")
        >>> _ = evaluate(EvaluateOptions(root / "runs", (root / "gt",), root / "out"))
        >>> page = render_html(load_reports(root / "out"))
        >>> page.startswith("<!DOCTYPE html>"), "default-src 'none'" in page
        (True, True)
    """
    return page_html(page_data(loaded, limits, lazy=lazy), connect=lazy)


def page_html(data: dict[str, Any], *, connect: bool = False) -> str:
    """The report page of `page_data`'s data (`connect`: it may fetch from its own origin).

    Example:
        >>> page_html({"runs": []}).startswith("<!DOCTYPE html>")
        True
    """
    script = asset("dom.js") + asset("page.js")
    return html_page("assay report", asset("page.css"), script, data, connect=connect)


def write_html(loaded: LoadedReports, path: Path, limits: Limits | None = None) -> int:
    """Write the report page of `loaded` to `path` (a temporary file, then a rename, so a
    reader never sees half a page); returns its size in bytes.

    Example:
        >>> import tempfile
        >>> from pathlib import Path
        >>> from assay.offline import EvaluateOptions, evaluate
        >>> from assay.reports.load import load_reports
        >>> root = Path(tempfile.mkdtemp())
        >>> (root / "runs").mkdir(); (root / "gt" / "scenario_1").mkdir(parents=True)
        >>> _ = (root / "runs" / "1.json").write_text('{"scenario_id": "1", "answer": "7"}')
        >>> _ = (root / "gt" / "scenario_1" / "groundtruth.txt").write_text("7")
        >>> _ = evaluate(EvaluateOptions(root / "runs", (root / "gt",), root / "out"))
        >>> write_html(load_reports(root / "out"), root / "report.html") > 1000
        True
    """
    body = render_html(loaded, limits).encode()
    write_atomic(path, body)
    return len(body)
