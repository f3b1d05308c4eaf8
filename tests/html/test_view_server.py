"""`assay view`'s server: it answers this machine only, by its own name, with the page and
each run's transcript, and nothing else; and the command's errors."""

from __future__ import annotations

import http.client
import json
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from _cli import assay, explain
from assay.offline import EvaluateOptions, evaluate
from assay.reports.html.serve import ReportServer
from assay.reports.load import load_reports


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("view")
    runs = [{"run_id": f"r{i}", "scenario_id": "1", "messages": [
        {"role": "user", "content": "2+2?"},
        {"role": "assistant", "content": str(3 + i)}]} for i in range(3)]
    (root / "runs.jsonl").write_text("\n".join(json.dumps(r) for r in runs) + "\n")
    (root / "s.json").write_text('[{"id": "1", "expected_answer": "4"}]')
    evaluate(EvaluateOptions(root / "runs.jsonl", (root / "s.json",), root / "out"))
    return root / "out"


@pytest.fixture(scope="module")
def server(reports: Path) -> Iterator[ReportServer]:
    running = ReportServer(load_reports(reports))
    threading.Thread(target=running.serve_forever, args=(0.05,), daemon=True).start()
    yield running
    running.shutdown()
    running.server_close()


def _get(server: ReportServer, path: str, host: str | None = None) -> tuple[int, bytes, str]:
    port = server.server_address[1]
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.putrequest("GET", path, skip_host=True)
    connection.putheader("Host", host or f"127.0.0.1:{port}")
    connection.endheaders()
    reply = connection.getresponse()
    body = reply.read()
    connection.close()
    return reply.status, body, reply.getheader("Content-Type") or ""


def test_the_page_and_each_runs_transcript(server: ReportServer) -> None:
    status, page, kind = _get(server, "/")
    assert status == 200 and kind.startswith("text/html")
    assert b"connect-src 'self'" in page  # the page may fetch its runs, from here only
    assert b'"lazy":true' in page
    status, body, kind = _get(server, "/api/run/1")
    assert status == 200 and kind == "application/json"
    detail = json.loads(body)
    roles = [entry[0] for entry in detail["run"]["tr"]]
    assert roles == ["user", "assistant"]
    # The run as the static page holds it, its gold answer from its own report included.
    assert detail["run"]["i"] == "r1" and detail["run"]["g"] == "4"


@pytest.mark.parametrize("path", ["/api/run/3", "/api/run/-1", "/api/run/x", "/../etc/passwd",
                                  "/out/_aggregate.json", "/results.jsonl"])
def test_nothing_else_is_served(server: ReportServer, path: str) -> None:
    assert _get(server, path)[0] == 404


def test_another_hosts_name_is_refused(server: ReportServer) -> None:
    # A page of another site whose name was pointed at 127.0.0.1 (DNS rebinding).
    assert _get(server, "/", host="evil.example:80")[0] == 403
    assert _get(server, "/api/run/0", host=f"evil.example:{server.server_address[1]}")[0] == 403
    assert _get(server, "/", host=f"localhost:{server.server_address[1]}")[0] == 200


@pytest.mark.slow
def test_view_says_what_is_wrong(reports: Path, tmp_path: Path) -> None:
    proc = assay("view", tmp_path / "nothing-here", "--no-browser", cwd=tmp_path)
    assert proc.returncode == 3, explain(proc)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc = assay("view", reports, "--no-browser", "--port", str(port), cwd=tmp_path)
    assert proc.returncode == 2, explain(proc)
    assert f"--port {port}" in proc.stderr


def test_the_table_is_filtered_searched_sorted_and_paged_on_the_server(
    server: ReportServer,
) -> None:
    def rows(query: str) -> dict[str, Any]:
        status, body, _ = _get(server, "/api/runs?" + query)
        assert status == 200, body
        found: dict[str, Any] = json.loads(body)
        return found

    everything = rows("status=all&page=0")
    assert everything["total"] == 3 and [row["n"] for row in everything["rows"]] == [0, 1, 2]
    # r1 answers 4 (passed), r0 and r2 do not.
    passed = rows("status=passed")
    assert [(row["n"], row["i"], row["st"]) for row in passed["rows"]] == [(1, "r1", "passed")]
    assert [row["i"] for row in rows("q=R2")["rows"]] == ["r2"]  # any case
    assert [row["i"] for row in rows("sort=run_id&desc=1")["rows"]] == ["r2", "r1", "r0"]
    assert rows("page=1")["rows"] == [] and rows("page=1")["total"] == 3


@pytest.mark.parametrize("query", ["status=nope", "sort=secret", "page=-1", "page=x"])
def test_a_table_request_that_is_not_one_is_refused(server: ReportServer, query: str) -> None:
    assert _get(server, "/api/runs?" + query)[0] == 404


def test_the_page_holds_no_runs(server: ReportServer) -> None:
    page = _get(server, "/")[1]
    assert b'"runs":[]' in page and b'"remote":{' in page
