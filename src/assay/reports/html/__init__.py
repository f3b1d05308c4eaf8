"""The HTML report: one self-contained page showing a reports directory (`assay report DIR
--html FILE`, `assay evaluate --html FILE`)."""

from assay.reports.html.render import Limits, render_html, write_html

__all__ = ["Limits", "render_html", "write_html"]
