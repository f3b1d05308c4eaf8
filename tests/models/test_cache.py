"""The persistent reply cache: keys, the four modes, concurrency, and files that are not caches.

`CachedClient` is driven with a small fake `ModelClient` that counts its calls; the cache is a
real SQLite file in a temporary directory. Cross-process behaviour (key stability, two writers
on one file) runs real subprocesses.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import json
import os
import sqlite3
import subprocess
import sys
import textwrap
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from assay.models.cache import (
    CACHE_FILE_NAME,
    CachedClient,
    CacheError,
    ResponseCache,
    cache_file,
    default_cache_dir,
    request_key,
)
from assay.models.types import (
    CacheMiss,
    ChatRequest,
    ChatResponse,
    ModelClient,
    ModelTimeout,
    TokenUsage,
)

MODEL = "openai/gpt-4.1-mini"


def ask(content: str, **fields: Any) -> ChatRequest:
    return ChatRequest(model=fields.pop("model", MODEL), messages=user(content), **fields)


def user(content: str) -> tuple[dict[str, str], ...]:
    return ({"role": "user", "content": content},)


class FakeClient:
    """A `ModelClient` that answers after a short sleep and counts what it was asked."""

    def __init__(self, *, fail: BaseException | None = None, delay: float = 0.0) -> None:
        self.calls: list[ChatRequest] = []
        self.fail = fail
        self.delay = delay
        self.closed = False

    async def complete(self, request: ChatRequest) -> ChatResponse:
        self.calls.append(request)
        number = len(self.calls)
        if self.delay:
            await asyncio.sleep(self.delay)
        if self.fail is not None:
            raise self.fail
        content = request.messages[0]["content"]
        return ChatResponse(
            text=f"reply {number} to {content}",
            usage=TokenUsage(10, 2),
            model="gpt-4.1-mini-2025-04-14",
            cost_usd=0.001,
            latency_ms=12.5,
            attempts=2,
        )

    async def aclose(self) -> None:
        self.closed = True


@pytest.fixture
def cache(tmp_path: Path) -> Any:
    with ResponseCache(cache_file(tmp_path / "cache")) as opened:
        yield opened


# -- keys ---------------------------------------------------------------------------------------

KEY_SCRIPT = textwrap.dedent(
    """
    from assay.models.cache import request_key
    from assay.models.types import ChatRequest
    request = ChatRequest(
        model="litellm_proxy/Azure/gpt-5-mini",
        messages=({"role": "system", "content": "Judge. ✓"}, {"role": "user", "content": "Q?"}),
        json_schema={"type": "object", "properties": {"score": {"type": "number"}}},
        temperature=0.2,
        max_tokens=300,
        seed=7,
        sample=3,
    )
    print(request_key(request, "http://vllm.local:8000/v1"))
    """
)

GOLDEN_KEY = "25f562f0b6048cfabadbfb9bd37cf7b5829018e98fafd197496b6efc3ad83737"


def _key_in_subprocess(hash_seed: str) -> str:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    done = subprocess.run(
        [sys.executable, "-c", KEY_SCRIPT],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=120,
    )
    return done.stdout.strip()


def test_key_is_the_same_in_other_processes() -> None:
    namespace: dict[str, Any] = {}
    exec(KEY_SCRIPT.replace("print(", "key = ("), namespace)
    here = namespace["key"]
    assert _key_in_subprocess("1") == here
    assert _key_in_subprocess("12345") == here
    assert len(here) == 64 and int(here, 16) >= 0


def test_key_is_pinned() -> None:
    """A change to how keys are derived would silently drop every user's cache: pin one key."""
    namespace: dict[str, Any] = {}
    exec(KEY_SCRIPT.replace("print(", "key = ("), namespace)
    assert namespace["key"] == GOLDEN_KEY


BASE = ChatRequest(
    model=MODEL,
    messages=({"role": "user", "content": "Is 2+2=4?"},),
    json_schema={"type": "object"},
    schema_name="verdict",
    temperature=0.0,
    max_tokens=100,
    seed=1,
    sample=0,
)

OTHER_VALUES: dict[str, Any] = {
    "model": "openai/gpt-4.1",
    "messages": ({"role": "user", "content": "Is 2+2=5?"},),
    "json_schema": {"type": "object", "required": ["score"]},
    "schema_name": "rubric_verdict",
    "temperature": 0.7,
    "max_tokens": 101,
    "seed": 2,
    "sample": 1,
    "tools": ({"type": "function", "function": {"name": "add", "parameters": {}}},),
    "tool_choice": "required",
}


def test_every_field_is_covered_here() -> None:
    """A new ChatRequest field must be added to OTHER_VALUES (and so be proven part of the key)."""
    assert {f.name for f in dataclasses.fields(ChatRequest)} == set(OTHER_VALUES)


@pytest.mark.parametrize("name", sorted(OTHER_VALUES))
def test_key_differs_for_every_field(name: str) -> None:
    changed = dataclasses.replace(BASE, **{name: OTHER_VALUES[name]})
    assert request_key(changed) != request_key(BASE)


@pytest.mark.parametrize(
    ("name", "value"),
    [("json_schema", None), ("temperature", None), ("max_tokens", None), ("seed", None)],
)
def test_none_is_a_value_of_its_own(name: str, value: Any) -> None:
    assert request_key(dataclasses.replace(BASE, **{name: value})) != request_key(BASE)


def test_key_ignores_how_the_request_was_built() -> None:
    rebuilt = ChatRequest(
        model=MODEL,
        messages=[{"content": "Is 2+2=4?", "role": "user"}],
        json_schema={"type": "object"},
        temperature=0,  # an int: asks for the same as 0.0
        max_tokens=100,
        seed=1,
    )
    assert request_key(rebuilt) == request_key(BASE)


def test_the_endpoint_is_part_of_the_key() -> None:
    """Two servers serving a model of the same name are two judges."""
    one = request_key(BASE, "http://10.0.0.1:8000/v1")
    assert one != request_key(BASE, "http://10.0.0.2:8000/v1")
    assert one != request_key(BASE, "http://10.0.0.1:8001/v1")
    assert one != request_key(BASE, "http://10.0.0.1:8000/v2")
    assert one != request_key(BASE)
    # The same server, written differently: credentials, case, a final slash.
    assert one == request_key(BASE, " HTTP://user:secret@10.0.0.1:8000/v1/ ")
    assert request_key(BASE, "https://Api.OpenAI.com/v1") == request_key(
        BASE, "https://api.openai.com/v1"
    )


def test_credentials_in_the_endpoint_are_not_stored(cache: ResponseCache) -> None:
    request = ask("q")
    endpoint = "http://judge:hunter2@127.0.0.1:9/v1"
    cache.put(request_key(request, endpoint), request, ChatResponse("r"), endpoint=endpoint)
    assert b"hunter2" not in cache.path.read_bytes() + _wal(cache.path)
    with sqlite3.connect(cache.path) as conn:
        [stored] = conn.execute("SELECT request FROM responses").fetchone()
    conn.close()
    assert '"endpoint":"http://127.0.0.1:9/v1"' in stored


def _wal(path: Path) -> bytes:
    wal = path.with_name(path.name + "-wal")
    return wal.read_bytes() if wal.exists() else b""


def test_key_refuses_what_json_cannot_hold() -> None:
    with pytest.raises(TypeError):
        request_key(ask("x", json_schema={"enum": {1, 2}}))
    with pytest.raises(ValueError):
        request_key(ask("x", temperature=float("nan")))


json_scalars = st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(max_size=8)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=8,
)
messages = st.lists(
    st.fixed_dictionaries(
        {"role": st.sampled_from(["system", "user", "assistant"]), "content": st.text()},
        optional={"name": st.text(max_size=5), "extra": json_values},
    ),
    min_size=1,
    max_size=3,
).map(tuple)
FIELD_STRATEGIES: dict[str, st.SearchStrategy[Any]] = {
    "model": st.text(min_size=1, max_size=20),
    "messages": messages,
    "json_schema": st.none() | st.dictionaries(st.text(max_size=5), json_values, max_size=3),
    "schema_name": st.text(max_size=10),
    "temperature": st.none() | st.floats(0, 2, allow_nan=False),
    "max_tokens": st.none() | st.integers(1, 10**6),
    "seed": st.none() | st.integers(-(2**31), 2**31),
    "sample": st.integers(0, 1000),
}
requests = st.builds(ChatRequest, **FIELD_STRATEGIES)


def _rebuilt(value: Any) -> Any:
    """The same JSON value built differently: dict keys inserted in reverse, tuples as lists."""
    if isinstance(value, Mapping):
        return {k: _rebuilt(value[k]) for k in reversed(list(value))}
    if isinstance(value, list | tuple):
        return [_rebuilt(v) for v in value]
    return value


def _as_json(value: Any) -> Any:
    """`value` with types JSON tells apart kept apart (True is not 1, 1 is not 1.0)."""
    if isinstance(value, Mapping):
        return {k: _as_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_as_json(v) for v in value]
    return (type(value).__name__, value)


@given(requests)
def test_equal_requests_get_equal_keys(request: ChatRequest) -> None:
    same = ChatRequest(
        **{f.name: _rebuilt(getattr(request, f.name)) for f in dataclasses.fields(ChatRequest)}
    )
    assert request_key(same) == request_key(request)


@given(requests, st.data())
def test_a_request_changed_in_any_field_gets_another_key(
    request: ChatRequest, data: st.DataObject
) -> None:
    name = data.draw(st.sampled_from(sorted(FIELD_STRATEGIES)), label="field")
    value = data.draw(FIELD_STRATEGIES[name], label="new value")
    old = getattr(request, name)
    if name == "temperature" and value is not None and old is not None:
        assume(float(value) != float(old))  # 0 and -0.0 ask for the same temperature
    assume(_as_json(value) != _as_json(old))
    assert request_key(dataclasses.replace(request, **{name: value})) != request_key(request)


# -- the store ----------------------------------------------------------------------------------


def test_nothing_is_created_until_the_first_put(tmp_path: Path) -> None:
    path = cache_file(tmp_path / "deep" / "cache")
    with ResponseCache(path) as cache:
        assert cache.get(request_key(ask("x"))) is None
        stats = cache.stats()
        assert (stats.exists, stats.entries, stats.models) == (False, 0, ())
        assert cache.clear() == 0
        assert not (tmp_path / "deep").exists()
        request = ask("x")
        assert cache.put(request_key(request), request, ChatResponse("y"))
    assert path.is_file()
    assert path.name == CACHE_FILE_NAME


def test_a_hit_is_the_stored_reply_at_no_cost(cache: ResponseCache) -> None:
    request = ask("What is 6x7?")
    key = request_key(request)
    made = ChatResponse(
        "42", TokenUsage(30, 4), model="gpt-x", cost_usd=0.5, latency_ms=900, attempts=3
    )
    cache.put(key, request, made)
    hit = cache.get(key)
    assert hit == ChatResponse(
        "42",
        TokenUsage(30, 4),
        model="gpt-x",
        cost_usd=0.0,
        cached=True,
        latency_ms=0.0,
        attempts=0,
    )


def test_the_request_is_stored_with_its_reply(cache: ResponseCache) -> None:
    request = ask("Which tool?", json_schema={"type": "object"}, sample=2)
    cache.put(request_key(request), request, ChatResponse("{}"))
    with sqlite3.connect(cache.path) as conn:
        model, stored = conn.execute("SELECT model, request FROM responses").fetchone()
    assert model == MODEL
    assert '"sample":2' in stored and "Which tool?" in stored


def test_put_replaces_unless_told_to_keep_the_first(cache: ResponseCache) -> None:
    request = ask("q")
    key = request_key(request)
    assert cache.put(key, request, ChatResponse("first"))
    assert not cache.put(key, request, ChatResponse("second"), replace=False)
    assert cache.get(key).text == "first"  # type: ignore[union-attr]
    assert cache.put(key, request, ChatResponse("third"))
    assert cache.get(key).text == "third"  # type: ignore[union-attr]
    assert cache.stats().entries == 1


def test_stats_per_model(cache: ResponseCache) -> None:
    for i in range(3):
        request = ask(f"q{i}")
        cache.put(
            request_key(request), request, ChatResponse("a", TokenUsage(10, 1), cost_usd=0.25)
        )
    other = ask("q", model="openai/gpt-4.1")
    cache.put(request_key(other), other, ChatResponse("b", TokenUsage(5, 5)))
    stats = cache.stats()
    assert stats.exists and stats.entries == 4 and stats.size_bytes > 0
    first, second = stats.models
    assert (first.model, first.entries, first.input_tokens, first.output_tokens) == (
        MODEL,
        3,
        30,
        3,
    )
    assert first.total_tokens == 33 and first.cost_usd == pytest.approx(0.75)
    assert (second.model, second.entries, second.total_tokens, second.cost_usd) == (
        "openai/gpt-4.1",
        1,
        10,
        None,
    )
    assert stats.oldest is not None and stats.newest is not None
    assert stats.oldest <= stats.newest
    assert stats.oldest.tzinfo is not None


def test_clear_one_model_then_all(cache: ResponseCache) -> None:
    keys = {}
    for model in (MODEL, "openai/gpt-4.1", "ollama/llama3"):
        for i in range(2):
            request = ask(f"q{i}", model=model)
            keys[model, i] = request_key(request)
            cache.put(keys[model, i], request, ChatResponse("r"))
    assert cache.clear(model="openai/gpt-4.1") == 2
    assert cache.clear(model="openai/gpt-4.1") == 0
    assert cache.clear(model="no/such-model") == 0
    assert cache.get(keys["openai/gpt-4.1", 0]) is None
    assert cache.get(keys[MODEL, 1]) is not None
    assert {m.model for m in cache.stats().models} == {MODEL, "ollama/llama3"}
    assert cache.clear() == 4
    assert cache.stats().entries == 0 and cache.path.exists()


def test_close_then_use_again(cache: ResponseCache) -> None:
    request = ask("q")
    cache.put(request_key(request), request, ChatResponse("r"))
    cache.close()
    cache.close()
    assert cache.get(request_key(request)) is not None


def test_the_file_is_in_wal_mode(cache: ResponseCache) -> None:
    request = ask("q")
    cache.put(request_key(request), request, ChatResponse("r"))
    with sqlite3.connect(cache.path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


# -- files that are not caches ------------------------------------------------------------------


def _expect_cache_error(path: Path, *fragments: str) -> None:
    before = path.read_bytes() if path.is_file() else None
    request = ask("q")
    with ResponseCache(path) as cache:
        for operation in (
            lambda: cache.get(request_key(request)),
            cache.stats,
            cache.clear,
            lambda: cache.put(request_key(request), request, ChatResponse("r")),
        ):
            with pytest.raises(CacheError) as caught:
                operation()
            message = str(caught.value)
            assert str(path) in message
            assert caught.value.path == path
            for fragment in fragments:
                assert fragment in message
            assert "Traceback" not in message
    if before is not None:
        assert path.read_bytes() == before, "the user's file was changed"


def test_a_file_that_is_not_a_database(tmp_path: Path) -> None:
    path = tmp_path / CACHE_FILE_NAME
    path.write_text("these are my notes, not a database\n" * 50)
    _expect_cache_error(path, "not a valid assay cache", "file is not a database")


def test_a_tiny_file(tmp_path: Path) -> None:
    path = tmp_path / CACHE_FILE_NAME
    path.write_bytes(b"{}")
    _expect_cache_error(path, "not a valid assay cache")


def test_another_programs_database(tmp_path: Path) -> None:
    path = tmp_path / CACHE_FILE_NAME
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE users (name TEXT)")
        conn.execute("INSERT INTO users VALUES ('ada')")
    conn.close()
    _expect_cache_error(path, "not an assay cache")
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT name FROM users").fetchall() == [("ada",)]
    conn.close()


def test_a_database_with_another_application_id(tmp_path: Path) -> None:
    path = tmp_path / CACHE_FILE_NAME
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA application_id = 1234")
        conn.execute("CREATE TABLE responses (key TEXT)")
    conn.close()
    _expect_cache_error(path, "application id 1234")


def test_a_corrupt_cache(tmp_path: Path) -> None:
    path = tmp_path / CACHE_FILE_NAME
    with ResponseCache(path) as cache:
        for i in range(200):
            request = ask(f"question {i} " * 20)
            cache.put(request_key(request), request, ChatResponse("answer " * 50))
    data = bytearray(path.read_bytes())
    assert len(data) > 8192
    data[100:] = bytes((i * 7919 + 13) % 251 for i in range(len(data) - 100))
    path.write_bytes(bytes(data))
    _expect_cache_error(path, "not a valid assay cache")


def test_a_cache_from_a_newer_assay(tmp_path: Path) -> None:
    path = tmp_path / CACHE_FILE_NAME
    with ResponseCache(path) as cache:
        request = ask("q")
        cache.put(request_key(request), request, ChatResponse("r"))
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA user_version = 99")
    conn.close()
    _expect_cache_error(path, "newer assay")


def test_a_directory_where_the_file_should_be(tmp_path: Path) -> None:
    path = tmp_path / CACHE_FILE_NAME
    path.mkdir()
    _expect_cache_error(path, "is a directory")


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root reads unreadable files"
)
def test_an_unreadable_file(tmp_path: Path) -> None:
    path = tmp_path / CACHE_FILE_NAME
    with ResponseCache(path) as cache:
        request = ask("q")
        cache.put(request_key(request), request, ChatResponse("r"))
    path.chmod(0)
    try:
        with ResponseCache(path) as cache, pytest.raises(CacheError) as caught:
            cache.get(request_key(request))
        assert str(path) in str(caught.value)
    finally:
        path.chmod(0o600)


def test_an_empty_file_becomes_a_cache(tmp_path: Path) -> None:
    """SQLite treats an empty file as an empty database; nothing of the user's is lost."""
    path = tmp_path / CACHE_FILE_NAME
    path.touch()
    with ResponseCache(path) as cache:
        assert cache.get("0" * 64) is None
        assert cache.stats().exists
        request = ask("q")
        cache.put(request_key(request), request, ChatResponse("r"))
        assert cache.stats().entries == 1


def _assay_cache_with(path: Path, *statements: str) -> None:
    """A real cache with one entry, then `statements` run on it by someone else."""
    with ResponseCache(path) as cache:
        request = ask("q")
        cache.put(request_key(request), request, ChatResponse("r"))
    with sqlite3.connect(path) as conn:
        for statement in statements:
            conn.execute(statement)
    conn.close()


def test_a_cache_with_a_trigger_is_refused(tmp_path: Path) -> None:
    path = tmp_path / CACHE_FILE_NAME
    _assay_cache_with(
        path,
        "CREATE TABLE log (at REAL)",
        "CREATE TRIGGER spy AFTER INSERT ON responses BEGIN INSERT INTO log VALUES (1); END",
    )
    _expect_cache_error(path, "not an assay cache", "trigger 'spy'")


def test_a_cache_whose_responses_are_a_view_is_refused(tmp_path: Path) -> None:
    path = tmp_path / CACHE_FILE_NAME
    _assay_cache_with(
        path,
        "ALTER TABLE responses RENAME TO stored",
        "CREATE VIEW responses AS SELECT * FROM stored",
    )
    _expect_cache_error(path, "damaged: the responses table is missing")


def test_an_entry_of_the_wrong_types_is_a_cache_error(tmp_path: Path) -> None:
    path = tmp_path / CACHE_FILE_NAME
    request = ask("q")
    key = request_key(request)
    _assay_cache_with(
        path,
        "UPDATE responses SET text = x'00ff', input_tokens = 'many', output_tokens = 4",
    )
    with ResponseCache(path) as cache, pytest.raises(CacheError, match="is not text"):
        cache.get(key)
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE responses SET text = 'fine'")
    conn.close()
    with ResponseCache(path) as cache:
        hit = cache.get(key)
    assert hit is not None and hit.usage == TokenUsage(0, 4)


@pytest.mark.parametrize("huge", [2**64 - 1, 10**12 + 1, -5])
def test_token_counts_past_the_limit_are_stored_as_unknown(cache: ResponseCache, huge: int) -> None:
    request = ask("q")
    key = request_key(request)
    assert cache.put(key, request, ChatResponse("r", TokenUsage(huge, 3)))
    assert cache.get(key).usage == TokenUsage(0, 3)  # type: ignore[union-attr]


def test_check_makes_nothing_and_accepts_a_place_a_cache_can_go(tmp_path: Path) -> None:
    ResponseCache(tmp_path / "a" / "b" / CACHE_FILE_NAME).check()
    assert list(tmp_path.iterdir()) == []
    path = tmp_path / CACHE_FILE_NAME
    _assay_cache_with(path)
    before = path.read_bytes()
    with ResponseCache(path) as cache:
        cache.check()
        cache.check(write=False)
        assert cache.stats().entries == 1
    assert path.read_bytes() == before


def test_check_refuses_what_a_read_would_not_find(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("a file where the cache directory should be")
    nowhere = ResponseCache(blocker / "deeper" / CACHE_FILE_NAME)
    nowhere.check(write=False)  # nothing to read is fine for reading
    with pytest.raises(CacheError, match=f"{blocker} is not a directory"):
        nowhere.check()
    directory = tmp_path / CACHE_FILE_NAME
    directory.mkdir()
    with pytest.raises(CacheError, match="is a directory"):
        ResponseCache(directory).check(write=False)


def test_check_refuses_a_file_it_cannot_write(tmp_path: Path) -> None:
    path = tmp_path / CACHE_FILE_NAME
    _assay_cache_with(path)
    # Root may write any file: the file is opened read-only instead, as SQLite opens a file
    # it may not write.
    cache = ResponseCache(f"file:{path}?mode=ro")
    cache.path = path
    original = sqlite3.connect

    def read_only(target: Any, **options: Any) -> sqlite3.Connection:
        return original(f"file:{target}?mode=ro", uri=True, **options)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sqlite3, "connect", read_only)
        cache.check(write=False)
        with pytest.raises(CacheError, match="not writable"):
            cache.check()
        cache.close()


def test_cache_error_is_a_model_error() -> None:
    from assay.models.types import ModelError

    error = CacheError("/x/judge-cache.sqlite3", "broken")
    assert isinstance(error, ModelError) and error.kind == "cache"
    assert error.reason == "broken"


# -- the client ---------------------------------------------------------------------------------


async def _kept(client: CachedClient, request: ChatRequest) -> ChatResponse:
    reply = await client.complete(request)
    await reply.confirm(True)
    return reply


def kept(client: CachedClient, request: ChatRequest) -> ChatResponse:
    """`client.complete(request)`, its reply confirmed usable (so that a new one is stored)."""
    return asyncio.run(_kept(client, request))


def test_read_write_calls_once_then_serves_from_the_cache(cache: ResponseCache) -> None:
    inner = FakeClient()
    client = CachedClient(inner, cache)
    request = ask("q")
    first = kept(client, request)
    second = kept(client, request)
    assert len(inner.calls) == 1
    assert (first.cached, first.attempts, first.cost_usd) == (False, 2, 0.001)
    assert second == dataclasses.replace(
        first, cached=True, latency_ms=0.0, cost_usd=0.0, attempts=0
    )
    assert (client.hits, client.misses, client.stored) == (1, 1, 1)
    kept(client, ask("q", sample=1))
    assert len(inner.calls) == 2, "another sample is another request"


def test_replay_serves_hits_and_raises_on_a_miss(cache: ResponseCache) -> None:
    kept(CachedClient(FakeClient(), cache), ask("known"))
    replay = CachedClient(None, cache, mode="replay")
    assert asyncio.run(replay.complete(ask("known"))).cached
    unknown = ask("unknown")
    with pytest.raises(CacheMiss) as caught:
        asyncio.run(replay.complete(unknown))
    assert MODEL in str(caught.value) and request_key(unknown) in str(caught.value)
    inner = FakeClient()
    replay_with_client = CachedClient(inner, cache, mode="replay")
    with pytest.raises(CacheMiss):
        asyncio.run(replay_with_client.complete(unknown))
    assert inner.calls == [], "replay never calls the model"


def test_refresh_always_asks_and_overwrites(cache: ResponseCache) -> None:
    inner = FakeClient()
    request = ask("q")
    kept(CachedClient(inner, cache), request)
    refresh = CachedClient(inner, cache, mode="refresh")
    reply = kept(refresh, request)
    assert reply.text == "reply 2 to q" and not reply.cached
    assert len(inner.calls) == 2
    assert cache.get(request_key(request)).text == "reply 2 to q"  # type: ignore[union-attr]
    assert cache.stats().entries == 1


def test_off_neither_reads_nor_writes(tmp_path: Path) -> None:
    path = cache_file(tmp_path / "c")
    inner = FakeClient()
    with ResponseCache(path) as cache:
        client = CachedClient(inner, cache, mode="off")
        kept(client, ask("q"))
        kept(client, ask("q"))
    assert len(inner.calls) == 2
    assert not path.exists()
    with ResponseCache(path) as cache:
        kept(CachedClient(FakeClient(), cache), ask("q"))
        off = CachedClient(inner, cache, mode="off")
        assert not asyncio.run(off.complete(ask("q"))).cached
    assert len(inner.calls) == 3


def test_errors_from_the_model_are_not_cached(cache: ResponseCache) -> None:
    failing = FakeClient(fail=ModelTimeout("every attempt timed out"))
    client = CachedClient(failing, cache)
    for _ in range(2):
        with pytest.raises(ModelTimeout):
            asyncio.run(client.complete(ask("q")))
    assert len(failing.calls) == 2
    assert cache.stats().entries == 0


def test_a_reply_that_cannot_be_stored_is_still_returned(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("a file where the cache directory should be")
    cache = ResponseCache(blocker / CACHE_FILE_NAME)
    client = CachedClient(FakeClient(), cache)
    reply = kept(client, ask("q"))
    assert reply.text == "reply 1 to q"
    assert client.write_errors == 1
    assert "not cached" in caplog.text


def test_a_reply_not_confirmed_usable_is_never_stored(cache: ResponseCache) -> None:
    inner = FakeClient()
    client = CachedClient(inner, cache)

    async def refused() -> None:
        reply = await client.complete(ask("q"))
        await reply.confirm(False)

    asyncio.run(refused())
    asyncio.run(client.complete(ask("q")))  # never confirmed either way
    assert cache.stats().entries == 0
    kept(client, ask("q"))
    assert len(inner.calls) == 3 and cache.stats().entries == 1
    assert (client.hits, client.misses, client.stored) == (0, 3, 1)


def test_a_cached_reply_confirmed_unusable_is_dropped(cache: ResponseCache) -> None:
    inner = FakeClient()
    client = CachedClient(inner, cache)
    kept(client, ask("q"))

    async def refused() -> ChatResponse:
        reply = await client.complete(ask("q"))
        await reply.confirm(False)
        return reply

    hit = asyncio.run(refused())
    assert hit.cached and client.dropped == 1
    assert cache.stats().entries == 0
    again = kept(client, ask("q"))
    assert not again.cached and len(inner.calls) == 2


def test_a_cached_reply_confirmed_usable_is_left_as_it_was(cache: ResponseCache) -> None:
    client = CachedClient(FakeClient(), cache)
    kept(client, ask("q"))
    with sqlite3.connect(cache.path) as conn:
        before = conn.execute("SELECT created_at FROM responses").fetchall()
    conn.close()
    assert kept(client, ask("q")).cached
    with sqlite3.connect(cache.path) as conn:
        assert conn.execute("SELECT created_at FROM responses").fetchall() == before
    conn.close()
    assert (client.stored, client.dropped) == (1, 0)


def test_discard_leaves_a_reply_stored_meanwhile(cache: ResponseCache) -> None:
    request = ask("q")
    key = request_key(request)
    cache.put(key, request, ChatResponse("new and good"))
    assert not cache.discard(key, "old and bad")
    assert cache.get(key).text == "new and good"  # type: ignore[union-attr]
    assert cache.discard(key, "new and good") and cache.get(key) is None


def test_replies_are_kept_per_endpoint(cache: ResponseCache) -> None:
    inner = FakeClient()
    here = CachedClient(inner, cache, endpoint="http://10.0.0.1:8000/v1")
    there = CachedClient(inner, cache, endpoint="http://10.0.0.2:8000/v1")
    kept(here, ask("q"))
    assert not kept(there, ask("q")).cached
    assert kept(here, ask("q")).cached and kept(there, ask("q")).cached
    assert len(inner.calls) == 2 and cache.stats().entries == 2


def test_entries_keyed_the_old_way_miss_cleanly(cache: ResponseCache) -> None:
    """An entry of key version 1 (no endpoint, and perhaps a failed reply) is never served."""
    namespace: dict[str, Any] = {}
    exec(KEY_SCRIPT.replace("print(", "key = ("), namespace)
    assert _key_version_1(namespace["request"]) == KEY_VERSION_1_GOLDEN, "derived as it was"

    request = ask("q")
    cache.put(_key_version_1(request), request, ChatResponse("prose from an older assay"))
    inner = FakeClient()
    for endpoint in ("", "http://127.0.0.1:8000/v1"):
        reply = kept(CachedClient(inner, cache, endpoint=endpoint), request)
        assert not reply.cached and reply.text.startswith("reply")
    assert cache.stats().entries == 3


KEY_VERSION_1_GOLDEN = "51b1e5c39abf95a43ebebf17e61093d42532c20130f9e8a7c9b2745188b7e306"
"""The key of KEY_SCRIPT's request in key version 1."""


def _key_version_1(request: ChatRequest) -> str:
    later = {"tools", "tool_choice"}  # fields that did not exist in key version 1
    payload = {
        f.name: getattr(request, f.name)
        for f in dataclasses.fields(request)
        if f.name not in later
    }
    payload["key_version"] = 1
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def test_mode_and_client_are_checked(cache: ResponseCache) -> None:
    with pytest.raises(ValueError, match="needs a model client"):
        CachedClient(None, cache)
    with pytest.raises(ValueError, match="unknown cache mode"):
        CachedClient(FakeClient(), cache, mode="sometimes")  # type: ignore[arg-type]


def test_it_is_a_model_client_and_closes_both(cache: ResponseCache) -> None:
    inner = FakeClient()
    client = CachedClient(inner, cache)
    assert isinstance(client, ModelClient)

    async def use() -> None:
        async with client:
            await client.complete(ask("q"))

    asyncio.run(use())
    assert inner.closed
    assert cache._conn is None


def test_two_hundred_concurrent_calls(cache: ResponseCache) -> None:
    inner = FakeClient(delay=0.002)
    client = CachedClient(inner, cache)
    distinct = [ask(f"question {i}") for i in range(100)]
    batch = [*distinct, *distinct]  # every request twice, all at once

    async def run_all() -> list[ChatResponse]:
        return await asyncio.gather(*(_kept(client, r) for r in batch))

    first = asyncio.run(run_all())
    assert 100 <= len(inner.calls) <= 200
    assert cache.stats().entries == 100
    for i, request in enumerate(distinct):
        stored = cache.get(request_key(request))
        assert stored is not None
        assert stored.text in {first[i].text, first[i + 100].text}
        assert stored.text.endswith(f"question {i}")

    calls_before = len(inner.calls)
    second = asyncio.run(run_all())
    assert len(inner.calls) == calls_before, "a second run makes no model call"
    assert all(reply.cached for reply in second)
    for i in range(100):
        assert second[i].text == second[i + 100].text


WRITER_SCRIPT = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from assay.models.cache import ResponseCache, request_key
    from assay.models.types import ChatRequest, ChatResponse, TokenUsage
    path, name, meeting = sys.argv[1], sys.argv[2], Path(sys.argv[3])
    # Start together, so that both create the file and write at the same time.
    (meeting / f"ready-{name}").touch()
    deadline = time.monotonic() + 60
    while len(list(meeting.glob("ready-*"))) < 2 and time.monotonic() < deadline:
        time.sleep(0.001)
    with ResponseCache(path) as cache:
        for i in range(300):
            shared = ChatRequest("openai/shared", ({"role": "user", "content": f"q{i}"},))
            own = ChatRequest(f"openai/{name}", ({"role": "user", "content": f"q{i}"},))
            cache.put(request_key(shared), shared, ChatResponse(f"{name} {i}", TokenUsage(1, 1)))
            cache.put(request_key(own), own, ChatResponse(f"{name} {i}", TokenUsage(1, 1)))
            assert cache.get(request_key(own)).text == f"{name} {i}"
    """
)


def test_two_processes_write_one_file(tmp_path: Path) -> None:
    path = cache_file(tmp_path / "shared")
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER_SCRIPT, str(path), name, str(tmp_path)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in ("alpha", "beta")
    ]
    for writer in writers:
        _, err = writer.communicate(timeout=300)
        assert writer.returncode == 0, err
    with ResponseCache(path) as cache:
        stats = cache.stats()
        assert stats.entries == 900
        assert {m.model: m.entries for m in stats.models} == {
            "openai/shared": 300,
            "openai/alpha": 300,
            "openai/beta": 300,
        }
        for i in range(300):
            shared = ChatRequest("openai/shared", user(f"q{i}"))
            assert cache.get(request_key(shared)).text in {f"alpha {i}", f"beta {i}"}  # type: ignore[union-attr]


# -- where the cache lives ----------------------------------------------------------------------


def test_default_cache_dir_order(tmp_path: Path) -> None:
    assert default_cache_dir({"ASSAY_CACHE_DIR": str(tmp_path), "XDG_CACHE_HOME": "/x"}) == tmp_path
    assert default_cache_dir({"ASSAY_CACHE_DIR": "", "XDG_CACHE_HOME": "/x"}) == Path("/x/assay")
    assert default_cache_dir({"XDG_CACHE_HOME": "relative"}) == Path.home() / ".cache" / "assay"
    assert default_cache_dir({"ASSAY_CACHE_DIR": "~/c"}) == Path.home() / "c"
    assert not (tmp_path / CACHE_FILE_NAME).exists()


def test_default_cache_dir_reads_the_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("ASSAY_CACHE_DIR", str(tmp_path / "env"))
    assert default_cache_dir() == tmp_path / "env"
    assert cache_file() == tmp_path / "env" / CACHE_FILE_NAME
    assert not (tmp_path / "env").exists()
