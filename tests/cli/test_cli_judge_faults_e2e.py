"""End-to-end: judge faults, driven through `assay evaluate` against real local servers.

Only replies that gave a verdict are cached; the cache tells judges at different endpoints
apart; one judge call is bounded in time, waits included; a cache file that cannot be used
is an input error (exit 3). Requests are counted at the server.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from test_cli_evaluate_e2e import read_aggregate, reports_by_run_id
from test_cli_judge_e2e import JUDGE, evaluate_with_judge, grade, judge_cli, write_inputs

from _cli import explain
from assay.exit_codes import ExitCode
from assay.models.cache import CACHE_FILE_NAME, ResponseCache, request_key
from assay.models.types import ChatRequest, ChatResponse
from chat_server import ChatServer, RecordedRequest, Reply

pytestmark = pytest.mark.slow  # each test runs the console script in a new process


def judged(tmp_path: Path, reports: str) -> dict[str, dict[str, object]]:
    """The score of each judged run (`right` and `wrong`; `silent` has no answer)."""
    by_run = reports_by_run_id(tmp_path / reports)
    return {run_id: by_run[run_id]["score"] for run_id in ("right", "wrong")}


def test_replies_that_gave_no_verdict_are_not_cached(
    chat_server: ChatServer, tmp_path: Path
) -> None:
    write_inputs(tmp_path)
    chat_server.default = Reply.ok("I think the answer is fine.")  # prose, never a verdict
    proc = evaluate_with_judge(chat_server, tmp_path, "prose")
    assert proc.returncode == 0, explain(proc)
    for score in judged(tmp_path, "prose").values():
        assert score["status"] == "unscored"
        assert score["details"]["reason"] == "invalid_verdict"  # type: ignore[index]
    assert len(chat_server.requests) == 4  # two runs, a question and a repair each

    chat_server.default = Reply.ok({"score": 1, "passed": True, "rationale": "fine"})
    again = evaluate_with_judge(chat_server, tmp_path, "healthy")
    assert again.returncode == 0, explain(again)
    assert len(chat_server.requests) == 6, "the prose replies were served from the cache"
    for score in judged(tmp_path, "healthy").values():
        assert score["status"] == "scored" and score["passed"] is True

    third = evaluate_with_judge(chat_server, tmp_path, "cached")
    assert third.returncode == 0, explain(third)
    assert len(chat_server.requests) == 6, "the verdicts were cached"
    usage = read_aggregate(tmp_path / "cached")["judge_usage"][JUDGE]
    assert (usage["calls"], usage["cached_calls"]) == (2, 2)


def test_two_servers_serving_one_model_name_are_two_judges(
    chat_server: ChatServer, tmp_path: Path
) -> None:
    write_inputs(tmp_path)
    chat_server.default = Reply.ok({"score": 1, "passed": True, "rationale": "lenient"})
    proc = evaluate_with_judge(chat_server, tmp_path, "lenient")
    assert proc.returncode == 0, explain(proc)
    assert len(chat_server.requests) == 2

    with ChatServer(Reply.ok({"score": 0, "passed": False, "rationale": "strict"})) as other:
        strict = evaluate_with_judge(
            chat_server, tmp_path, "strict", "--judge-base-url", other.base_url
        )
        assert strict.returncode == 0, explain(strict)
        assert len(other.requests) == 2, "the other server's verdicts came from the cache"
    for score in judged(tmp_path, "strict").values():
        assert score["passed"] is False and score["rationale"] == "strict"
    assert len(chat_server.requests) == 2


def test_a_retry_after_past_the_call_bound_ends_the_call_at_once(
    chat_server: ChatServer, tmp_path: Path
) -> None:
    write_inputs(tmp_path)
    chat_server.default = Reply.rate_limited(retry_after=30)
    # The subprocess has a generous timeout as a hang guard; waiting 30 s twice would be a
    # failure of the bound, not of the clock.
    proc = evaluate_with_judge(
        chat_server, tmp_path, "limited", "--no-cache", "--judge-call-timeout", "0.5"
    )
    assert proc.returncode == 0, explain(proc)
    for score in judged(tmp_path, "limited").values():
        assert score["status"] == "unscored"
        assert score["details"]["reason"] == "rate_limited"  # type: ignore[index]
        reason = str(score["rationale"])
        assert "gave up after 1 attempt in" in reason, reason
        assert "Retry-After 30 s" in reason and "0.5 s call bound" in reason, reason
    assert len(chat_server.requests) == 2  # one attempt each: no wait could fit
    spec = read_aggregate(tmp_path / "limited")["scorers"][0]
    assert spec["options"]["client_options"]["call_timeout_s"] == 0.5


def test_the_call_bound_must_be_a_positive_number(tmp_path: Path) -> None:
    write_inputs(tmp_path)
    for bad in ("0", "-1", "soon", "inf"):
        proc = evaluate_with_judge(None, tmp_path, "bad", "--judge-call-timeout", bad)
        assert proc.returncode == ExitCode.USAGE_ERROR, explain(proc)
        assert "--judge-call-timeout" in proc.stderr


def _a_directory(path: Path) -> None:
    path.mkdir(parents=True)


def _notes(path: Path) -> None:
    path.parent.mkdir(parents=True)
    path.write_text("my notes, not a database\n" * 100)


def _another_programs_database(path: Path) -> None:
    path.parent.mkdir(parents=True)
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE users (name TEXT)")
    conn.close()


def _a_cache_with_a_trigger(path: Path) -> None:
    with ResponseCache(path) as cache:
        request = ChatRequest("local/judge-1", ({"role": "user", "content": "q"},))
        cache.put(request_key(request), request, ChatResponse("r"))
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TRIGGER spy AFTER INSERT ON responses BEGIN SELECT 1; END")
    conn.close()


def _a_file_where_the_directory_should_be(path: Path) -> None:
    path.parent.parent.mkdir(parents=True, exist_ok=True)
    path.parent.write_text("a file, so nothing can be written below it")


@pytest.mark.parametrize(
    ("make", "says"),
    [
        (_a_directory, "is a directory"),
        (_notes, "not a valid assay cache"),
        (_another_programs_database, "not an assay cache"),
        (_a_cache_with_a_trigger, "trigger 'spy'"),
        (_a_file_where_the_directory_should_be, "not a directory"),
    ],
)
def test_a_cache_that_cannot_be_used_is_an_input_error(
    chat_server: ChatServer, tmp_path: Path, make: object, says: str
) -> None:
    write_inputs(tmp_path)
    path = tmp_path / "own-cache" / CACHE_FILE_NAME
    make(path)  # type: ignore[operator]
    chat_server.handler = grade
    proc = evaluate_with_judge(
        chat_server, tmp_path, "reports", "--cache-dir", tmp_path / "own-cache"
    )
    assert proc.returncode == ExitCode.INPUT_ERROR, explain(proc)
    assert str(path) in proc.stderr and says in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr
    assert chat_server.requests == []


def test_a_huge_token_count_with_the_cache_on_keeps_the_verdict(
    chat_server: ChatServer, tmp_path: Path
) -> None:
    write_inputs(tmp_path)

    def huge(request: RecordedRequest) -> Reply:
        return Reply.ok(
            {"score": 1, "passed": True, "rationale": "ok"}, input_tokens=2**64 - 1
        )

    chat_server.handler = huge
    for reports in ("first", "second"):
        proc = evaluate_with_judge(chat_server, tmp_path, reports)
        assert proc.returncode == 0, explain(proc)
        for score in judged(tmp_path, reports).values():
            assert score["status"] == "scored" and score["passed"] is True
    assert len(chat_server.requests) == 2  # the second run came from the cache
    usage = read_aggregate(tmp_path / "second")["judge_usage"][JUDGE]
    assert usage["cached_calls"] == 2 and usage["input_tokens"] == 0  # read as unknown


def test_a_judge_given_its_model_by_dash_s_alone_checks_its_cache_too(
    chat_server: ChatServer, tmp_path: Path
) -> None:
    runs, gt = write_inputs(tmp_path)
    (tmp_path / "cache" / CACHE_FILE_NAME).mkdir(parents=True)  # the default, from the env
    proc = judge_cli(
        chat_server, tmp_path,
        "--trajectories", runs, "--scenarios", gt, "--reports-dir", tmp_path / "out",
        "--scorer", "factuality", "-S", f"factuality.model={JUDGE}",
    )  # fmt: skip
    assert proc.returncode == ExitCode.INPUT_ERROR, explain(proc)
    assert "is a directory" in proc.stderr
