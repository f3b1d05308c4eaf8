"""Judges behind the real reply cache: only replies that gave a verdict are kept, and a cached
reply that no longer gives one is unscored and dropped.

The model is an in-process fake that counts its calls; the cache is a real SQLite file.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

from assay.models.cache import CachedClient, ResponseCache, cache_file
from assay.models.types import ChatRequest, ChatResponse, TokenUsage
from assay.records import Case, Trajectory
from assay.results import ScoreStatus
from assay.scorers.judges import llm_judge

MODEL = "openai/gpt-4.1-mini"
CASE = Case(id="1", question="How many pumps failed?", expected_answer="3")
RUN = Trajectory(run_id="r", answer="Three pumps failed.")
VERDICT = {"score": 1.0, "passed": True, "rationale": "three it is"}


class Model:
    """Answers every request with `reply`: a dict (sent as JSON) or text."""

    def __init__(self, reply: Any) -> None:
        self.reply = reply
        self.calls: list[ChatRequest] = []

    async def complete(self, request: ChatRequest) -> ChatResponse:
        self.calls.append(request)
        reply = self.reply
        text = reply if isinstance(reply, str) else orjson.dumps(reply).decode()
        return ChatResponse(text, TokenUsage(100, 20), cost_usd=0.001)

    async def aclose(self) -> None:
        pass


def judged_through(path: Path, model: Model, endpoint: str = "http://judge:8000/v1") -> Any:
    """Score RUN with llm_judge, its client the cache at `path` around `model`."""
    make: Callable[[], CachedClient] = lambda: CachedClient(  # noqa: E731
        model, ResponseCache(path), endpoint=endpoint
    )
    return llm_judge(model=MODEL, client_factory=make)(CASE, RUN)


def entries(path: Path) -> list[str]:
    with sqlite3.connect(path) as conn:
        texts = [row[0] for row in conn.execute("SELECT text FROM responses")]
    conn.close()
    return texts


def test_replies_that_gave_no_verdict_are_not_kept(tmp_path: Path) -> None:
    path = cache_file(tmp_path)
    prose = Model("The answer looks right to me.")
    score = judged_through(path, prose)
    assert score.status is ScoreStatus.UNSCORED
    assert score.details["reason"] == "invalid_verdict"
    assert len(prose.calls) == 2  # the question and its repair
    assert not path.exists() or entries(path) == []

    healthy = Model(VERDICT)
    assert judged_through(path, healthy).passed is True
    assert len(healthy.calls) == 1, "the prose replies were not served again"
    assert entries(path) == [orjson.dumps(VERDICT).decode()]
    again = judged_through(path, Model(VERDICT))
    assert again.passed is True and again.details["judge"]["cached_calls"] == 1


def test_a_verdict_given_on_repair_is_kept_and_the_failed_reply_is_not(tmp_path: Path) -> None:
    path = cache_file(tmp_path)
    replies = iter(["not json", orjson.dumps(VERDICT).decode()])

    class Repaired(Model):
        async def complete(self, request: ChatRequest) -> ChatResponse:
            self.reply = next(replies)
            return await super().complete(request)

    assert judged_through(path, Repaired(None)).passed is True
    assert entries(path) == [orjson.dumps(VERDICT).decode()]


def test_a_cached_reply_that_no_longer_gives_a_verdict_is_unscored_and_dropped(
    tmp_path: Path,
) -> None:
    path = cache_file(tmp_path)
    judged_through(path, Model(VERDICT))
    with sqlite3.connect(path) as conn:  # as an older version would have kept a failure
        conn.execute("UPDATE responses SET text = 'Looks fine.'")
    conn.close()

    model = Model(VERDICT)
    score = judged_through(path, model)
    assert score.status is ScoreStatus.UNSCORED and score.value is None
    assert score.details["reason"] == "invalid_cached_verdict"
    assert "no longer gives a verdict" in score.rationale and "dropped" in score.rationale
    assert score.details["raw_replies"] == ["Looks fine."]
    assert model.calls == [], "no repair is asked about a reply the judge did not give now"
    assert entries(path) == []

    assert judged_through(path, model).passed is True
    assert len(model.calls) == 1


def test_another_endpoint_is_another_judge(tmp_path: Path) -> None:
    path = cache_file(tmp_path)
    judged_through(path, Model(VERDICT), endpoint="http://lenient:8000/v1")
    strict = Model({"score": 0.0, "passed": False, "rationale": "wrong"})
    score = judged_through(path, strict, endpoint="http://strict:8000/v1")
    assert score.passed is False and len(strict.calls) == 1


# -- the default client of a judge ------------------------------------------------------------


def test_the_default_client_keys_replies_by_the_configured_endpoint(tmp_path: Path) -> None:
    from assay.scorers._judge_client import default_client_factory

    def client(url: str, cache: str = "read_write") -> CachedClient:
        make = default_client_factory(
            "local/judge", cache=cache, cache_dir=tmp_path, env={"LOCAL_BASE_URL": url}
        )
        made = make()
        assert isinstance(made, CachedClient)
        return made

    assert client("http://gpu-1:8000/v1").endpoint == "http://gpu-1:8000/v1"
    assert client("http://gpu-2:8000/v1/", cache="replay").endpoint == "http://gpu-2:8000/v1"


def test_replay_needs_the_base_url_its_replies_came_from(tmp_path: Path) -> None:
    from assay.models.types import ModelConfigError
    from assay.scorers._judge_client import default_client_factory

    with pytest.raises(ModelConfigError, match="LOCAL_BASE_URL"):
        default_client_factory("local/judge", cache="replay", cache_dir=tmp_path, env={})


def test_a_cache_that_cannot_be_written_stops_the_judge_being_built(tmp_path: Path) -> None:
    from assay.models.cache import CacheError
    from assay.scorers._judge_client import default_client_factory

    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    env = {"LOCAL_BASE_URL": "http://gpu-1:8000/v1"}
    with pytest.raises(CacheError, match="is not a directory"):
        default_client_factory("local/judge", cache_dir=blocker, env=env)
    # Replay only reads: there is nothing to read, so nothing is wrong.
    default_client_factory("local/judge", cache="replay", cache_dir=blocker, env=env)
