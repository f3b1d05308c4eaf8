"""`assay view DIR`: the report page of a reports directory, served on 127.0.0.1.

The page is the static report's without its runs: the table asks for one page of rows at a
time, filtered, searched and sorted here (`GET /api/runs?status=&q=&sort=&desc=&page=`, see
`assay.reports.html._table`), and a run's details (its own report's per-key tables, gold
answer and transcript) are read when the run is opened (`GET /api/run/N`, N the run's place
in `results.jsonl`). So a directory of 100,000 runs opens as fast as one of a hundred.

Only this machine can reach it (127.0.0.1), and only by that name: a request naming another
host (a web page trying DNS rebinding) is refused. Nothing but the page and the runs is
served, and nothing is written.

Example:
    >>> import tempfile, threading, urllib.request
    >>> from pathlib import Path
    >>> from assay.offline import EvaluateOptions, evaluate
    >>> from assay.reports.load import load_reports
    >>> root = Path(tempfile.mkdtemp())
    >>> (root / "runs").mkdir(); (root / "gt" / "scenario_1").mkdir(parents=True)
    >>> _ = (root / "runs" / "1.json").write_text('{"scenario_id": "1", "answer": "7"}')
    >>> _ = (root / "gt" / "scenario_1" / "groundtruth.txt").write_text("7")
    >>> _ = evaluate(EvaluateOptions(root / "runs", (root / "gt",), root / "out"))
    >>> server = ReportServer(load_reports(root / "out"))
    >>> threading.Thread(target=server.serve_forever, daemon=True).start()
    >>> with urllib.request.urlopen(server.url + "api/run/0") as reply:
    ...     reply.status, reply.headers["Content-Type"]
    (200, 'application/json')
    >>> server.shutdown(); server.server_close()
"""

from __future__ import annotations

import re
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs

import orjson

from assay.reports.html._page_data import Limits, page_data, run_detail
from assay.reports.html._table import SORTS, STATUSES, RunTable
from assay.reports.html.render import page_html
from assay.reports.load import LoadedReports

__all__ = ["ReportServer"]

HOST = "127.0.0.1"
_RUN = re.compile(r"^/api/run/(\d{1,9})$")


class ReportServer(ThreadingHTTPServer):
    """The page and its runs, on 127.0.0.1 (`port` 0: a free one)."""

    daemon_threads = True

    def __init__(self, loaded: LoadedReports, port: int = 0, limits: Limits | None = None):
        self.loaded = loaded
        self.limits = limits or Limits()
        data = page_data(loaded, self.limits, lazy=True)
        self.table = RunTable(data.pop("runs"), data["strings"])
        data["runs"], data["strings"] = [], []
        data["remote"] = {"counts": self.table.counts, "repeated": self.table.repeated,
                          "runs": len(self.table.rows)}
        self.page = page_html(data, connect=True).encode()
        super().__init__((HOST, port), _Handler)

    @property
    def url(self) -> str:
        """Where the page is."""
        return f"http://{HOST}:{self.server_address[1]}/"

    def rows_json(self, query: str) -> bytes | None:
        """A page of the table (`GET /api/runs?status=&q=&sort=&desc=&page=`), or None for a
        request that is not one."""
        asked = parse_qs(query, max_num_fields=10)

        def one(name: str, default: str) -> str:
            values = asked.get(name)
            return values[0] if values else default

        status, sort, page = one("status", "all"), one("sort", ""), one("page", "0")
        if status not in STATUSES or (sort and sort not in SORTS) or not page.isdigit():
            return None
        found = self.table.page(
            status=status, query=one("q", "")[:1000], sort=sort or None,
            desc=one("desc", "0") == "1", page=min(int(page[:9]), 10**7),
        )
        return orjson.dumps(found)

    def run_json(self, index: int) -> bytes | None:
        """A run's detail for the page (`run_detail`), or None past the last run."""
        detail = run_detail(self.loaded, index, self.limits)
        return None if detail is None else orjson.dumps(detail)


class _Handler(BaseHTTPRequestHandler):
    server: ReportServer
    server_version = "assay"
    sys_version = ""

    def do_GET(self) -> None:
        if not self._from_here():
            self._send(HTTPStatus.FORBIDDEN, b"only http://127.0.0.1 may ask", "text/plain")
            return
        path, _, query = self.path.partition("?")
        if path in ("/", "/index.html"):
            self._send(HTTPStatus.OK, self.server.page, "text/html; charset=utf-8")
            return
        found = _RUN.match(path)
        if path == "/api/runs":
            body = self.server.rows_json(query)
        else:
            body = self.server.run_json(int(found[1])) if found else None
        if body is None:
            self._send(HTTPStatus.NOT_FOUND, b"not found", "text/plain")
        else:
            self._send(HTTPStatus.OK, body, "application/json")

    def _from_here(self) -> bool:
        """Whether the request names this server's own address (DNS rebinding: a page of
        another site that made its name point here would name that site)."""
        port = self.server.server_address[1]
        return self.headers.get("Host", "") in (f"{HOST}:{port}", f"localhost:{port}")

    def _send(self, status: HTTPStatus, body: bytes, kind: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the terminal is the user's, not a request log."""
