"""Two evaluations compared: `assay compare BASE NEW`.

- `reports`: `compare_reports(base_dir, new_dir)`, the two directories read with
  `assay.reports.load` and compared;
- `diff`: the comparison of two sets of `results.jsonl` lines, scorer by scorer, and the
  warnings on settings that differ;
- `stats`: McNemar's exact test and the sign-flip test with its interval (no I/O);
- `console`, `markdown`: the comparison for people to read;
- `html`: the comparison as one self-contained page (`render_compare_html`), its script and
  style in `compare.js` and `compare.css`.

The JSON shape of a comparison is `assay.schema.compare.Comparison` (`assay schema compare`).
"""

from assay.reports.compare.console import print_comparison
from assay.reports.compare.diff import compare_lines, setting_warnings
from assay.reports.compare.markdown import escape_markdown, render_markdown
from assay.reports.compare.reports import compare_reports
from assay.reports.compare.stats import mcnemar_exact, sign_flip_test

__all__ = [
    "compare_lines",
    "compare_reports",
    "escape_markdown",
    "mcnemar_exact",
    "print_comparison",
    "render_markdown",
    "setting_warnings",
    "sign_flip_test",
]
