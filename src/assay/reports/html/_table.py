"""`assay view`'s table of runs, served a page at a time: filtered by status, searched,
sorted and paged on the server, as the static page's script does in the browser, so that the
page holds one page of rows however many runs the directory has.

The rows are those `page_data` makes for `assay view` (`lazy`), held once; a request asks for
one page of them (`RunTable.page`), each row with its place in `results.jsonl` (`n`, the
index `/api/run/N` takes) and the strings its pooled fields name.

Example:
    >>> table = RunTable([{"i": "b", "s": "2", "st": "failed", "v": 0.0, "r": None, "m": None,
    ...                    "q": None, "t": None, "a": "no", "o": [None] * 6, "p": None},
    ...                   {"i": "a", "s": "1", "st": "passed", "v": 1.0, "r": 0, "m": None,
    ...                    "q": None, "t": None, "a": "yes", "o": [None] * 6, "p": None}],
    ...                  ["runner-x"])
    >>> found = table.page(status="all", query="", sort="run_id", desc=False, page=0)
    >>> [(row["n"], row["i"], found["strings"][row["r"]] if row["r"] is not None else None)
    ...  for row in found["rows"]], found["total"]
    ([(1, 'a', 'runner-x'), (0, 'b', None)], 2)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from assay.reports.html._page_data import Pool

__all__ = ["PAGE_ROWS", "SORTS", "RunTable"]

PAGE_ROWS = 100
"""Rows in a page, as the static page shows them."""

STATUSES = ("all", "passed", "failed", "unscored", "error")
_POOLED = ("t", "r", "m", "q")
"""The fields of a row that name a string of the pool."""

SORTS: dict[str, Callable[[dict[str, Any]], Any]] = {
    "run_id": lambda r: r["i"] or "",
    "scenario": lambda r: r["s"],
    "repeat": lambda r: -1 if r["p"] is None else r["p"],
    "status": lambda r: r["st"],
    "score": lambda r: -1 if r["v"] is None else r["v"],
    "runner": lambda r: r["runner"],
    "model": lambda r: r["model"],
    "cost": lambda r: -1 if r["o"][2] is None else r["o"][2],
}
"""The columns a request may sort by, as the page's columns sort (a missing value first)."""


class RunTable:
    """The rows of `assay view`'s table, and their pages."""

    def __init__(self, rows: list[dict[str, Any]], strings: list[str]) -> None:
        self.rows = rows
        self.strings = strings
        self.repeated = any(row["p"] is not None for row in rows)
        self.counts = {status: 0 for status in STATUSES}
        self.counts["all"] = len(rows)
        for row in rows:
            self.counts[row["st"]] = self.counts.get(row["st"], 0) + 1
        # What the search box searches and the columns sort by, made once.
        self._haystacks = [
            f"{row['i'] or ''}\n{row['s']}\n{row['a'] or ''}".lower() for row in rows
        ]
        for row in rows:
            row["runner"] = self._string(row["r"]) or ""
            row["model"] = self._string(row["m"]) or ""

    def _string(self, index: Any) -> str | None:
        return self.strings[index] if isinstance(index, int) else None

    def page(self, *, status: str, query: str, sort: str | None, desc: bool, page: int) -> (
        dict[str, Any]
    ):
        """The runs of one page: `rows` (each with `n`), `total` (the runs that match),
        `strings` (those the rows' pooled fields name)."""
        query = query.lower()
        found = [
            n for n, row in enumerate(self.rows)
            if (status == "all" or row["st"] == status)
            and (not query or query in self._haystacks[n])
        ]
        if sort in SORTS:
            key = SORTS[sort]
            found.sort(key=lambda n: key(self.rows[n]), reverse=desc)
        elif self.repeated:  # a case's repetitions together, as the static page has them
            found.sort(key=lambda n: (self.rows[n]["s"], self.rows[n]["p"] or 0))
        start = max(page, 0) * PAGE_ROWS
        pool = Pool()
        rows = []
        for n in found[start : start + PAGE_ROWS]:
            row = {k: v for k, v in self.rows[n].items() if k not in ("runner", "model")}
            for field in _POOLED:
                row[field] = pool(self._string(row[field]))
            row["n"] = n
            rows.append(row)
        return {"rows": rows, "total": len(found), "strings": pool.strings}
