"""What every assay HTML page shares: data embedded as JSON that no string can break out of,
a Content-Security-Policy that allows only the page's own inline style and script (by their
sha256 hashes), and the page's frame. `render` (one reports directory) and
`assay.reports.compare.html` (two compared) build their pages with it.

Example:
    >>> page = html_page("t", "p { }", "var x = 1;", {"id": "</script>"})
    >>> "default-src 'none'" in page, "</script>\\"" in page
    (True, False)
"""

from __future__ import annotations

import base64
import hashlib
from importlib import resources

import orjson

from assay.reports.html._page_data import text

__all__ = ["asset", "embed_json", "html_page", "text"]

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


def asset(name: str, package: str = "assay.reports.html") -> str:
    """The text of a file shipped with `package` (a page's CSS and scripts).

    Example:
        >>> asset("page.css").startswith(":root")
        True
    """
    return resources.files(package).joinpath(name).read_text(encoding="utf-8")


def _sha256(source: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(source.encode()).digest()).decode()


def html_page(
    title: str, style: str, script: str, data: object, *, connect: bool = False
) -> str:
    """A self-contained page: `style` and `script` inline (the only ones its policy allows),
    `data` as JSON in `<script type="application/json" id="assay-data">` for the script to
    read, and an empty `<div id="app">` for it to fill. `title` is written as is: a constant,
    never data. With `connect`, the script may fetch from the page's own origin (`assay
    view`'s runs, loaded when opened), and from nowhere else.

    Example:
        >>> html_page("assay report", "", "", []).splitlines()[0]
        '<!DOCTYPE html>'
    """
    policy = (
        f"default-src 'none'; style-src '{_sha256(style)}'; script-src '{_sha256(script)}'; "
        "img-src 'none'; base-uri 'none'; form-action 'none'"
        + ("; connect-src 'self'" if connect else "")
    )
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{policy}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="referrer" content="no-referrer">\n'
        f"<title>{title}</title>\n"
        f"<style>{style}</style>\n</head>\n<body>\n"
        '<noscript>This report is built by its script; enable JavaScript to see it.</noscript>\n'
        '<div id="app"></div>\n'
        f'<script type="application/json" id="assay-data">{embed_json(data)}</script>\n'
        f"<script>{script}</script>\n</body>\n</html>\n"
    )
