"""The HTML report: one self-contained page (its CSS, script and data inline) that shows a
reports directory without any network access.

The data goes in as JSON inside `<script type="application/json">` with `<`, `>`, `&` and
U+2028/2029 escaped, so no string in it can end the block; the page's script builds every
element with `createElement`/`textContent`, so data is only ever shown as text. A
Content-Security-Policy allows nothing but the page's own style and script (by hash).
"""

from __future__ import annotations

import base64
import hashlib
import os
import tempfile
from importlib import resources
from pathlib import Path

import orjson

from assay.reports.html._page_data import Limits, page_data
from assay.reports.load import LoadedReports

__all__ = ["Limits", "embed_json", "render_html", "write_html"]

_ESCAPES = (
    (b"&", b"\\u0026"),
    (b"<", b"\\u003c"),
    (b">", b"\\u003e"),
    ("\u2028".encode(), b"\\u2028"),
    ("\u2029".encode(), b"\\u2029"),
)


def embed_json(value: object) -> str:
    """`value` as JSON that is safe inside a `<script>` element: the characters that could end
    it or start markup are written as `\\uXXXX` escapes (they occur only inside strings).

    Example:
        >>> embed_json({"id": "</script><b>&"})
        '{"id":"\\\\u003c/script\\\\u003e\\\\u003cb\\\\u003e\\\\u0026"}'
    """
    raw = orjson.dumps(value)
    for plain, escaped in _ESCAPES:
        raw = raw.replace(plain, escaped)
    return raw.decode()


def _asset(name: str) -> str:
    return resources.files("assay.reports.html").joinpath(name).read_text(encoding="utf-8")


def _sha256(source: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(source.encode()).digest()).decode()


def render_html(loaded: LoadedReports, limits: Limits | None = None) -> str:
    """The report page of a loaded reports directory.

    Example:
        >>> import tempfile
        >>> from pathlib import Path
        >>> from assay.pipeline import EvaluateOptions, evaluate
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
    style, script = _asset("page.css"), _asset("page.js")
    policy = (
        f"default-src 'none'; style-src '{_sha256(style)}'; script-src '{_sha256(script)}'; "
        "img-src 'none'; base-uri 'none'; form-action 'none'"
    )
    data = embed_json(page_data(loaded, limits))
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{policy}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="referrer" content="no-referrer">\n'
        "<title>assay report</title>\n"
        f"<style>{style}</style>\n</head>\n<body>\n"
        '<noscript>This report is built by its script; enable JavaScript to see it.</noscript>\n'
        '<div id="app"></div>\n'
        f'<script type="application/json" id="assay-data">{data}</script>\n'
        f"<script>{script}</script>\n</body>\n</html>\n"
    )


def write_html(loaded: LoadedReports, path: Path, limits: Limits | None = None) -> int:
    """Write the report page of `loaded` to `path` (a temporary file, then a rename, so a
    reader never sees half a page); returns its size in bytes.

    Example:
        >>> import tempfile
        >>> from pathlib import Path
        >>> from assay.pipeline import EvaluateOptions, evaluate
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
    target = Path(path)
    handle, temporary = tempfile.mkstemp(prefix=".assay-", suffix=".html", dir=target.parent)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(body)
        # mkstemp makes the file private; a report is as readable as any file written here.
        umask = os.umask(0)
        os.umask(umask)
        Path(temporary).chmod(0o666 & ~umask)
        Path(temporary).replace(target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return len(body)
