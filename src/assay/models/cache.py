"""A persistent cache of model replies, so that re-scoring a run pays for no call twice.

Replies live in one SQLite file (`judge-cache.sqlite3` in the cache directory, see
`default_cache_dir`), keyed by `request_key`: a digest of every field of the `ChatRequest`,
the model and the sample index included, and of the endpoint (the server's base URL) that
answered: two servers serving a model of the same name are two different judges.
`CachedClient` wraps any `ModelClient` with it:

- `read_write` (the default): a stored reply is served without a call; a new one is stored.
- `replay`: for CI; a request without a stored reply raises `CacheMiss`, no call is made.
- `refresh`: every request is sent and its reply overwrites the stored one.
- `off`: the cache is neither read nor written.

A reply keeps its text, usage, model, cost and the tool calls it asked for. Only a reply its
user found usable is kept: a new reply is stored when the user calls
`await reply.confirm(True)` (a judge does once the reply parsed into a verdict), and a stored
reply confirmed unusable (`confirm(False)`) is dropped, so that a failure is never served
again.

The file is opened in WAL mode with a busy timeout, so several processes can share it, and
every operation holds a lock, so many asyncio tasks (and the worker threads they hand the
database work to) can share one `ResponseCache`. A file that is not an assay cache raises
`CacheError`; it is never repaired, replaced or deleted.

Example:
    >>> import asyncio, tempfile
    >>> from pathlib import Path
    >>> class Echo:  # any ModelClient
    ...     calls = 0
    ...     async def complete(self, request):
    ...         self.calls += 1
    ...         return ChatResponse(text="OK", usage=TokenUsage(5, 1), cost_usd=0.01)
    ...     async def aclose(self):
    ...         pass
    >>> tmp = tempfile.TemporaryDirectory()
    >>> echo = Echo()
    >>> client = CachedClient(echo, ResponseCache(cache_file(Path(tmp.name))))
    >>> hi = ({"role": "user", "content": "Hi"},)
    >>> request = ChatRequest(model="openai/gpt-4.1-mini", messages=hi)
    >>> async def ask_and_keep():
    ...     reply = await client.complete(request)
    ...     await reply.confirm(True)  # it was usable: store it
    ...     return reply
    >>> first = asyncio.run(ask_and_keep())
    >>> again = asyncio.run(client.complete(request))
    >>> echo.calls, first.cached, again.cached, again.text, again.cost_usd
    (1, False, True, 'OK', 0.0)
    >>> asyncio.run(client.aclose())
    >>> tmp.cleanup()
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import math
import os
import random
import sqlite3
import threading
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, fields, replace
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any, Final, Literal
from urllib.parse import urlsplit, urlunsplit

import orjson

from assay.limits import MAX_TOKEN_COUNT
from assay.models._tool_calls import dump_tool_calls, load_tool_calls
from assay.models.types import (
    CacheMiss,
    ChatRequest,
    ChatResponse,
    ModelClient,
    ModelError,
    TokenUsage,
)

__all__ = [
    "CACHE_FILE_NAME",
    "CACHE_MODES",
    "CacheError",
    "CacheMode",
    "CacheStats",
    "CachedClient",
    "ModelCacheStats",
    "ResponseCache",
    "cache_file",
    "default_cache_dir",
    "endpoint_id",
    "request_key",
]

CACHE_FILE_NAME: Final = "judge-cache.sqlite3"
"""The name of the cache file inside the cache directory."""

CacheMode = Literal["read_write", "replay", "refresh", "off"]
"""How `CachedClient` uses the cache (see the module docstring)."""

CACHE_MODES: Final[tuple[CacheMode, ...]] = ("read_write", "replay", "refresh", "off")

_APPLICATION_ID: Final = 0x41535359
"""Written into the SQLite header (`PRAGMA application_id`) so that a file is known to be ours."""

_SCHEMA_VERSION: Final = 1
"""`PRAGMA user_version` of the layout below; a file with a higher one is left alone. Keys
changed (see `_KEY_VERSION`), the table did not: older entries stay readable, and miss."""

_KEY_VERSION: Final = 2
"""Part of every key: a change to how keys are derived must not serve old replies. Version 2
added the endpoint; entries of version 1 (keyed by the model name alone, and holding failed
replies too) are never served again, and `assay cache clear` removes them."""

_COLUMNS: Final = frozenset(
    {
        "key",
        "model",
        "request",
        "text",
        "input_tokens",
        "output_tokens",
        "response_model",
        "cost_usd",
        "created_at",
    }
)

_CREATE_TABLE: Final = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY NOT NULL,
    model TEXT NOT NULL,
    request TEXT NOT NULL,
    text TEXT NOT NULL,
    input_tokens INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    response_model TEXT NOT NULL,
    cost_usd REAL,
    created_at REAL NOT NULL,
    tool_calls TEXT
)
"""

_ADD_TOOL_CALLS: Final = "ALTER TABLE responses ADD COLUMN tool_calls TEXT"
"""A cache made before tool calls were kept gets the column on its first write; the layout
version stays, since older readers ignore the column and never ask a request with tools."""

_CREATE_INDEX: Final = "CREATE INDEX IF NOT EXISTS responses_by_model ON responses (model)"

_INSERT: Final = """
INSERT INTO responses (
    key, model, request, text, input_tokens, output_tokens, response_model, cost_usd, created_at,
    tool_calls
) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
"""

_REPLACE: Final = (
    _INSERT
    + """ON CONFLICT (key) DO UPDATE SET
    model = excluded.model, request = excluded.request, text = excluded.text,
    input_tokens = excluded.input_tokens, output_tokens = excluded.output_tokens,
    response_model = excluded.response_model, cost_usd = excluded.cost_usd,
    created_at = excluded.created_at, tool_calls = excluded.tool_calls
"""
)

_KEEP_FIRST: Final = _INSERT + "ON CONFLICT (key) DO NOTHING\n"

_log = logging.getLogger(__name__)


class CacheError(ModelError):
    """The cache file cannot be used: not an assay cache, damaged, unreadable, or locked.

    The message names the file and the reason. The file itself is left as it was.

    Example:
        >>> str(CacheError("/tmp/c.sqlite3", "not a valid assay cache"))
        'cache /tmp/c.sqlite3: not a valid assay cache'
    """

    kind = "cache"

    def __init__(self, path: str | os.PathLike[str], reason: str) -> None:
        super().__init__(f"cache {os.fspath(path)}: {reason}")
        self.path = Path(path)
        """The cache file."""
        self.reason = reason
        """What is wrong with it."""


def default_cache_dir(env: Mapping[str, str] | None = None) -> Path:
    """Where the cache lives unless the user names a directory.

    `$ASSAY_CACHE_DIR` when set, else `$XDG_CACHE_HOME/assay` (when that is an absolute path,
    as the XDG spec requires), else `~/.cache/assay`. Nothing is created here: the directory is
    made when the first reply is stored.

    Args:
        env: the environment to read (default: `os.environ`).

    Example:
        >>> default_cache_dir({"ASSAY_CACHE_DIR": "/srv/judge-cache"}).as_posix()
        '/srv/judge-cache'
        >>> default_cache_dir({"XDG_CACHE_HOME": "/var/cache"}).as_posix()
        '/var/cache/assay'
        >>> default_cache_dir({}) == Path.home() / ".cache" / "assay"
        True
    """
    environ = os.environ if env is None else env
    chosen = environ.get("ASSAY_CACHE_DIR", "")
    if chosen:
        return Path(chosen).expanduser()
    xdg = environ.get("XDG_CACHE_HOME", "")
    if xdg and Path(xdg).is_absolute():
        return Path(xdg) / "assay"
    return Path.home() / ".cache" / "assay"


def cache_file(directory: str | os.PathLike[str] | None = None) -> Path:
    """The cache file in `directory` (default: `default_cache_dir()`).

    Example:
        >>> cache_file("/srv/judge-cache").as_posix()
        '/srv/judge-cache/judge-cache.sqlite3'
    """
    folder = default_cache_dir() if directory is None else Path(directory)
    return folder / CACHE_FILE_NAME


def _plain(value: object) -> object:
    """orjson's fallback: mappings and sequences of other types, as dicts and lists."""
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, Sequence) and not isinstance(value, str | bytes | bytearray):
        return list(value)
    # Sets have no order, so no stable JSON; bytes and objects have no JSON at all.
    raise TypeError(f"not JSON-serialisable: {type(value).__name__}")


def endpoint_id(base_url: str) -> str:
    """The endpoint as part of a cache key: the base URL without credentials or a final `/`,
    its scheme and host in lower case.

    Credentials (`user:password@`) do not change which server answers, and must not be stored
    in the cache file. An empty base URL (a client whose endpoint is not known) stays empty.

    Example:
        >>> endpoint_id(" HTTP://me:secret@Judge.example:8000/v1/ ")
        'http://judge.example:8000/v1'
        >>> endpoint_id("")
        ''
    """
    text = base_url.strip()
    try:
        parts = urlsplit(text)
        host = parts.hostname
        port = parts.port
    except ValueError:
        return text.rstrip("/")
    if host is None:
        return text.rstrip("/")
    netloc = f"[{host}]" if ":" in host else host
    if port is not None:
        netloc += f":{port}"
    return urlunsplit(parts._replace(scheme=parts.scheme.lower(), netloc=netloc)).rstrip("/")


def _canonical_request(request: ChatRequest, endpoint: str = "", *, known: bool = False) -> bytes:
    """Every field of `request`, and the endpoint, as JSON with sorted keys: the bytes the key
    is a digest of. `known`: the endpoint is an `endpoint_id` already."""
    payload: dict[str, Any] = {f.name: getattr(request, f.name) for f in fields(request)}
    # Tools joined the request later: a request without them keys as it always did.
    if not payload["tools"]:
        del payload["tools"]
    if payload["tool_choice"] is None:
        del payload["tool_choice"]
    temperature = payload.get("temperature")
    if temperature is not None:
        # 0 and 0.0 ask for the same thing; NaN would be written as null, like None.
        temperature = float(temperature)
        if not math.isfinite(temperature):
            raise ValueError(f"temperature must be a finite number, got {temperature}")
        payload["temperature"] = temperature
    payload["key_version"] = _KEY_VERSION
    payload["endpoint"] = endpoint if known else endpoint_id(endpoint)
    try:
        return orjson.dumps(payload, default=_plain, option=orjson.OPT_SORT_KEYS)
    except orjson.JSONEncodeError as exc:
        raise TypeError(f"the request cannot be written as JSON: {exc}") from exc


def request_key(request: ChatRequest, endpoint: str = "") -> str:
    """The cache key of `request` sent to `endpoint`: SHA-256 (hex) of their canonical JSON.

    Every field takes part (model, messages, schema and its name, temperature, max_tokens, seed,
    the sample index, and the tools and tool choice when set), and the endpoint (`endpoint_id`
    of the server's base URL), so requests that differ in any of them get different keys.
    Mapping keys are sorted, so the order in which a dict was built does not matter; the digest
    does not depend on the process or the Python version.

    Raises:
        TypeError: the request holds something JSON cannot represent.
        ValueError: the temperature is NaN or infinite.

    Example:
        >>> model = "openai/gpt-4.1-mini"
        >>> one = ChatRequest(model, messages=({"role": "user", "content": "Hi"},))
        >>> two = ChatRequest(model, messages=[{"content": "Hi", "role": "user"}])
        >>> request_key(one) == request_key(two), len(request_key(one))
        (True, 64)
        >>> request_key(one) == request_key(ChatRequest(one.model, one.messages, sample=1))
        False
        >>> request_key(one, "http://a:8000/v1") == request_key(one, "http://b:8000/v1")
        False
    """
    return hashlib.sha256(_canonical_request(request, endpoint)).hexdigest()


def _key(request: ChatRequest, endpoint: str) -> str:
    """`request_key` for an endpoint that is an `endpoint_id` already (a cache hit is fast)."""
    return hashlib.sha256(_canonical_request(request, endpoint, known=True)).hexdigest()


@dataclass(frozen=True, slots=True)
class ModelCacheStats:
    """What the cache holds for one model (the `provider/model` of the requests)."""

    model: str
    entries: int
    input_tokens: int
    """Input tokens the stored replies used when they were made."""
    output_tokens: int
    cost_usd: float | None
    """What the stored replies cost when they were made; None when no cost was known."""

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens


@dataclass(frozen=True, slots=True)
class CacheStats:
    """A summary of a cache file, from `ResponseCache.stats`."""

    path: Path
    exists: bool
    """False when there is no cache file yet (then everything else is zero or None)."""
    entries: int
    size_bytes: int
    """The file and its write-ahead log, on disk."""
    models: tuple[ModelCacheStats, ...]
    """Per model, most entries first."""
    oldest: datetime | None
    """When the oldest entry was stored (UTC)."""
    newest: datetime | None


class ResponseCache:
    """Model replies stored in one SQLite file, keyed by `request_key`.

    Nothing is created until the first `put`: reading a cache that does not exist finds nothing.
    The connection is opened on first use; `close` releases it (a later call opens it again), so
    one cache can be shared by several clients. All methods are blocking and thread-safe; from
    async code, run them in a thread (`CachedClient` does).

    Args:
        path: the cache file (see `cache_file`).
        timeout: seconds to wait for another process that holds the write lock.

    Raises:
        CacheError: (from any method) the file is not a usable assay cache.

    Example:
        >>> import tempfile
        >>> from pathlib import Path
        >>> tmp = tempfile.TemporaryDirectory()
        >>> question = ({"role": "user", "content": "2+2?"},)
        >>> request = ChatRequest(model="openai/gpt-4.1-mini", messages=question)
        >>> key = request_key(request)
        >>> with ResponseCache(Path(tmp.name) / "sub" / CACHE_FILE_NAME) as cache:
        ...     print(cache.get(key), cache.path.parent.exists())
        ...     cache.put(key, request, ChatResponse(text="4", usage=TokenUsage(9, 1)))
        ...     hit = cache.get(key)
        ...     print(hit.text, hit.cached, hit.usage.total, cache.stats().entries)
        None False
        True
        4 True 10 1
        >>> tmp.cleanup()
    """

    def __init__(self, path: str | os.PathLike[str], *, timeout: float = 30.0) -> None:
        self.path = Path(path)
        """The cache file."""
        self.timeout = timeout
        """Seconds to wait for a lock held by another process before giving up."""
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._ready = False  # the table exists in the open file
        self._has_tool_calls = False  # ... and has the tool_calls column

    def __repr__(self) -> str:
        return f"ResponseCache({os.fspath(self.path)!r})"

    def __enter__(self) -> ResponseCache:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def get(self, key: str) -> ChatResponse | None:
        """The stored reply for `key`, or None.

        A reply served from the cache has `cached=True`, `latency_ms=0`, `attempts=0` and
        `cost_usd=0.0` (nothing was spent), and the usage recorded when it was made.
        """
        with self._lock, self._guard("reading"):
            conn = self._connection(create=False)
            if conn is None:
                return None
            calls_column = "tool_calls" if self._has_tool_calls else "NULL"
            row = conn.execute(
                "SELECT text, input_tokens, output_tokens, response_model, "
                f"{calls_column} FROM responses WHERE key = ?",
                (key,),
            ).fetchone()
        if row is None:
            return None
        text, input_tokens, output_tokens, response_model, stored_calls = row
        if not isinstance(text, str):
            # The table is made NOT NULL TEXT; a file made otherwise is not an assay cache.
            raise CacheError(
                self.path, f"damaged: the reply stored under key {key} is not text"
            )
        try:
            tool_calls = load_tool_calls(stored_calls if isinstance(stored_calls, str) else None)
        except ValueError as exc:
            raise CacheError(
                self.path, f"damaged: the tool calls stored under key {key}: {exc}"
            ) from None
        return ChatResponse(
            text=text,
            usage=TokenUsage(_stored_count(input_tokens), _stored_count(output_tokens)),
            model=response_model if isinstance(response_model, str) else "",
            cost_usd=0.0,
            cached=True,
            latency_ms=0.0,
            attempts=0,
            tool_calls=tool_calls,
        )

    def put(
        self,
        key: str,
        request: ChatRequest,
        response: ChatResponse,
        *,
        replace: bool = True,
        endpoint: str = "",
    ) -> bool:
        """Store `response` as the reply to `request` under `key`.

        Creates the directory and the file when they do not exist.

        Args:
            key: normally `request_key(request, endpoint)`.
            request: stored with the reply (as JSON), and its model for `stats` and `clear`.
            response: its text, usage, model and cost are kept.
            replace: overwrite an entry already stored under `key`; when False, the first
                stored reply is kept.
            endpoint: the server that answered, stored with the request.

        Returns:
            Whether the entry was written (False only when `replace` is False and the key was
            already stored).
        """
        row = (
            key,
            request.model,
            _canonical_request(request, endpoint).decode(),
            response.text,
            _stored_count(response.usage.input_tokens),
            _stored_count(response.usage.output_tokens),
            response.model,
            response.cost_usd,
            time.time(),
            dump_tool_calls(response.tool_calls) if response.tool_calls else None,
        )
        with self._lock, self._guard("storing a reply"):
            conn = self._connection(create=True)
            assert conn is not None
            if not self._has_tool_calls:
                self._add_tool_calls_column(conn)
            cursor = conn.execute(_REPLACE if replace else _KEEP_FIRST, row)
            return cursor.rowcount > 0

    def discard(self, key: str, text: str) -> bool:
        """Delete the entry under `key` if it still holds the reply `text`.

        A reply its user found unusable goes; one stored meanwhile in its place stays.

        Returns:
            Whether an entry was deleted.
        """
        with self._lock, self._guard("dropping a reply"):
            conn = self._connection(create=False)
            if conn is None:
                return False
            cursor = conn.execute("DELETE FROM responses WHERE key = ? AND text = ?", (key, text))
            return cursor.rowcount > 0

    def check(self, *, write: bool = True) -> None:
        """Make sure the cache can be used now, rather than fail on every reply later.

        Reads the file's header and layout, as every method does; with `write`, also makes
        sure it can be written (or, when there is no file yet, made). Nothing is changed or
        created.

        Raises:
            CacheError: the file cannot be used, or written.

        Example:
            >>> import tempfile
            >>> from pathlib import Path
            >>> with tempfile.TemporaryDirectory() as tmp:
            ...     ResponseCache(Path(tmp) / "cache" / CACHE_FILE_NAME).check()
            ...     blocker = Path(tmp) / "file"
            ...     _ = blocker.write_text("not a directory")
            ...     try:
            ...         ResponseCache(blocker / CACHE_FILE_NAME).check()
            ...     except CacheError as exc:
            ...         print(exc.reason.replace(str(blocker), "FILE"))
            cannot create its directory: FILE is not a directory
        """
        with self._lock, self._guard("checking it can be written"):
            self._connection(create=False)
            conn = self._conn
            if not write:
                return
            if conn is None:
                self._check_creatable()
                return
            # A write that is rolled back: SQLite opens a file it may not write read-only,
            # and says so only on the first write.
            conn.execute("BEGIN IMMEDIATE")
            try:
                version = int(conn.execute("PRAGMA user_version").fetchone()[0])
                conn.execute(f"PRAGMA user_version = {version}")
            finally:
                conn.execute("ROLLBACK")

    def stats(self) -> CacheStats:
        """Entries, size, per-model entries and tokens, and the oldest and newest entry."""
        with self._lock, self._guard("reading"):
            conn = self._connection(create=False)
            if conn is None:
                return CacheStats(self.path, self.path.exists(), 0, self._size(), (), None, None)
            rows = conn.execute(
                "SELECT model, COUNT(*), SUM(input_tokens), SUM(output_tokens), SUM(cost_usd)"
                " FROM responses GROUP BY model ORDER BY COUNT(*) DESC, model"
            ).fetchall()
            oldest, newest = conn.execute(
                "SELECT MIN(created_at), MAX(created_at) FROM responses"
            ).fetchone()
        models = tuple(
            ModelCacheStats(
                model=str(model),
                entries=int(count),
                input_tokens=int(input_tokens or 0),
                output_tokens=int(output_tokens or 0),
                cost_usd=None if cost is None else float(cost),
            )
            for model, count, input_tokens, output_tokens, cost in rows
        )
        return CacheStats(
            path=self.path,
            exists=True,
            entries=sum(m.entries for m in models),
            size_bytes=self._size(),
            models=models,
            oldest=_when(oldest),
            newest=_when(newest),
        )

    def clear(self, model: str | None = None) -> int:
        """Delete every entry, or only those of `model` (the `provider/model` of the requests).

        The file stays (empty); its space is given back when no other process is writing.

        Returns:
            How many entries were deleted.
        """
        with self._lock, self._guard("clearing"):
            conn = self._connection(create=False)
            if conn is None:
                return 0
            if model is None:
                deleted = conn.execute("DELETE FROM responses").rowcount
            else:
                deleted = conn.execute("DELETE FROM responses WHERE model = ?", (model,)).rowcount
            if deleted:
                self._compact(conn)
            return int(deleted)

    def close(self) -> None:
        """Release the connection. Safe to call twice; a later call reopens the file."""
        with self._lock:
            conn, self._conn, self._ready = self._conn, None, False
            if conn is not None:
                try:
                    conn.close()
                except sqlite3.Error as exc:
                    raise CacheError(self.path, f"closing failed: {exc}") from exc

    # -- internals; the caller holds the lock ---------------------------------------------

    def _check_creatable(self) -> None:
        """Raise `CacheError` unless the file could be made where it is to go."""
        folder = self.path.parent
        while not folder.exists() and not folder.is_symlink() and folder != folder.parent:
            folder = folder.parent
        if not folder.is_dir():
            raise CacheError(self.path, f"cannot create its directory: {folder} is not a directory")
        if not os.access(folder, os.W_OK | os.X_OK):
            raise CacheError(self.path, f"cannot create the file: {folder} is not writable")

    def _connection(self, *, create: bool) -> sqlite3.Connection | None:
        """The open connection, opening the file if needed; None when there is nothing to read.

        With `create`, the directory, the file and the table are made when missing.
        """
        if self._conn is None:
            if self.path.is_dir():
                raise CacheError(self.path, "is a directory, not a cache file")
            if not self.path.exists():
                if not create:
                    return None
                try:
                    self.path.parent.mkdir(parents=True, exist_ok=True)
                except OSError as exc:
                    reason = exc.strerror or str(exc)
                    raise CacheError(self.path, f"cannot create its directory: {reason}") from exc
            conn = sqlite3.connect(
                self.path,
                timeout=self.timeout,
                isolation_level=None,  # autocommit; transactions are explicit
                check_same_thread=False,  # worker threads take turns under self._lock
            )
            try:
                # Functions in a file's schema (defaults, checks, indexes) run only if harmless.
                conn.execute("PRAGMA trusted_schema = OFF")
                # One read transaction: the header and the schema as of the same moment, even
                # while another process is making the table.
                conn.execute("BEGIN")
                try:
                    self._ready = self._inspect(conn)
                finally:
                    if conn.in_transaction:
                        conn.execute("COMMIT")
                if self._ready:
                    self._use_wal(conn)
            except BaseException:
                conn.close()
                raise
            self._conn = conn
        if not self._ready:
            if not create:
                return None
            self._initialise(self._conn)
        return self._conn

    def _inspect(self, conn: sqlite3.Connection) -> bool:
        """True when the file holds an assay cache, False when it is an empty database.

        Raises:
            CacheError: anything else (another program's database, a newer layout, damage).
        """
        application_id = int(conn.execute("PRAGMA application_id").fetchone()[0])
        if application_id == 0:
            if conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()[0]:
                raise CacheError(
                    self.path,
                    "not an assay cache (a SQLite database of another program); "
                    "it was left untouched, use another cache directory",
                )
            return False
        if application_id != _APPLICATION_ID:
            raise CacheError(
                self.path,
                f"not an assay cache (a SQLite database with application id {application_id}); "
                "it was left untouched, use another cache directory",
            )
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        if version > _SCHEMA_VERSION:
            raise CacheError(
                self.path,
                f"written by a newer assay (cache layout {version}, this one reads "
                f"{_SCHEMA_VERSION}); upgrade assay or use another cache directory",
            )
        kinds = dict(
            conn.execute("SELECT name, type FROM sqlite_master WHERE name = 'responses'")
        )
        if kinds.get("responses") != "table":
            raise CacheError(self.path, "damaged: the responses table is missing")
        columns = {row[1] for row in conn.execute("PRAGMA table_info(responses)")}
        if not columns >= _COLUMNS:
            raise CacheError(self.path, "damaged: the responses table is incomplete")
        self._has_tool_calls = "tool_calls" in columns
        # assay makes no triggers or views: SQLite would run them on our reads and writes.
        extra = conn.execute(
            "SELECT type, name FROM sqlite_master WHERE type IN ('trigger', 'view') LIMIT 1"
        ).fetchone()
        if extra is not None:
            raise CacheError(
                self.path,
                f"not an assay cache (it holds a {extra[0]} {extra[1]!r}, which assay never "
                "makes); it was left untouched, use another cache directory",
            )
        return True

    def _initialise(self, conn: sqlite3.Connection) -> None:
        """Make the table in an empty database (unless another process just did)."""
        self._use_wal(conn)
        conn.execute("BEGIN IMMEDIATE")
        try:
            if not self._inspect(conn):
                conn.execute(f"PRAGMA application_id = {_APPLICATION_ID}")
                conn.execute(f"PRAGMA user_version = {_SCHEMA_VERSION}")
                conn.execute(_CREATE_TABLE)
                conn.execute(_CREATE_INDEX)
                self._has_tool_calls = True
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        self._ready = True

    def _add_tool_calls_column(self, conn: sqlite3.Connection) -> None:
        """Add the tool_calls column to a cache made before it existed (unless another
        process just did)."""
        conn.execute("BEGIN IMMEDIATE")
        try:
            if not self._inspect(conn):
                raise CacheError(self.path, "damaged: the responses table is missing")
            if not self._has_tool_calls:
                conn.execute(_ADD_TOOL_CALLS)
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        self._has_tool_calls = True

    def _use_wal(self, conn: sqlite3.Connection) -> None:
        """Switch the file to WAL (kept in the file), waiting for other processes if need be.

        WAL lets readers go on while another process writes, and its writers wait for each
        other through the busy timeout. Switching a new file to it needs every other connection
        out of the way, and SQLite reports that conflict at once rather than waiting, so it is
        retried here until the timeout.
        """
        deadline = time.monotonic() + self.timeout
        pause = 0.005
        while True:
            try:
                mode = str(conn.execute("PRAGMA journal_mode").fetchone()[0]).lower()
                if mode != "wal":
                    mode = str(conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]).lower()
            except sqlite3.OperationalError as exc:
                if not _is_busy(exc) or time.monotonic() >= deadline:
                    raise
                mode = ""
            if mode == "wal":
                break
            if time.monotonic() >= deadline:
                # Some file systems cannot hold a WAL; the cache still works, one writer at a time.
                _log.warning("cache %s: staying in %s journal mode", self.path, mode or "its")
                break
            time.sleep(pause * (0.5 + random.random()))
            pause = min(pause * 2, 0.2)
        # A cache may lose its last replies in a power cut, but never its consistency.
        conn.execute("PRAGMA synchronous = NORMAL")

    def _compact(self, conn: sqlite3.Connection) -> None:
        """Give the space of deleted entries back to the file system, when nobody else writes."""
        try:
            conn.execute("VACUUM")
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except sqlite3.OperationalError as exc:
            # The entries are deleted either way; the file just stays its size for now.
            _log.info("cache %s: not compacted (%s)", self.path, exc)

    def _size(self) -> int:
        total = 0
        for file in (self.path, self.path.with_name(self.path.name + "-wal")):
            with suppress(OSError):
                total += file.stat().st_size
        return total

    @contextmanager
    def _guard(self, doing: str) -> Iterator[None]:
        """sqlite3 and OS errors as a `CacheError` that names the file and says what went wrong."""
        try:
            yield
        except CacheError:
            raise
        except sqlite3.Error as exc:
            raise CacheError(self.path, _describe(exc, doing, self.timeout)) from exc
        except OSError as exc:
            raise CacheError(self.path, f"{doing} failed: {exc.strerror or exc}") from exc


def _is_busy(exc: sqlite3.Error) -> bool:
    name = getattr(exc, "sqlite_errorname", "") or ""
    return name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or "locked" in str(exc)


def _describe(exc: sqlite3.Error, doing: str, timeout: float) -> str:
    name = getattr(exc, "sqlite_errorname", "") or ""
    if name.startswith(("SQLITE_NOTADB", "SQLITE_CORRUPT")) or "malformed" in str(exc):
        return (
            f"not a valid assay cache ({exc}); it was left untouched, move it away or use "
            "another cache directory"
        )
    if _is_busy(exc):
        return f"locked by another process for more than {timeout:g} s while {doing}"
    if name.startswith("SQLITE_CANTOPEN"):
        return f"cannot open the file ({exc})"
    if name.startswith(("SQLITE_READONLY", "SQLITE_PERM", "SQLITE_AUTH")):
        return f"not writable ({exc}) while {doing}"
    if name.startswith("SQLITE_FULL"):
        return f"the disk is full ({exc}) while {doing}"
    return f"{doing} failed: {exc}"


def _stored_count(value: object) -> int:
    """A token count as stored or read: past `MAX_TOKEN_COUNT`, negative or not a whole
    number, it is unknown (0), and cannot overflow SQLite's 64-bit integers."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_TOKEN_COUNT:
        return value
    return 0


def _when(timestamp: object) -> datetime | None:
    if not isinstance(timestamp, int | float):
        return None
    return datetime.fromtimestamp(timestamp, tz=UTC)


class CachedClient:
    """A `ModelClient` that answers from a `ResponseCache` and asks `inner` only on a miss.

    Args:
        inner: the client that makes the calls; may be None in `replay` mode only.
        cache: where replies are stored.
        mode: `read_write`, `replay`, `refresh` or `off` (see the module docstring).
        endpoint: the base URL of the server `inner` asks, part of every key (see
            `request_key`); "" when it is not known.

    A reply is stored only once its user confirms it usable (`await reply.confirm(True)`);
    a reply served from the cache and confirmed unusable is dropped from it. Errors from
    `inner` propagate and are never stored. Identical requests sent at the same time may all
    miss and all be sent; the first stored reply is kept (in `refresh` mode the last), so the
    cache holds one consistent entry either way. A reply that cannot be stored or dropped
    (disk full, file locked too long) is still returned; it is logged and counted in
    `write_errors`.

    Example:
        >>> import asyncio, tempfile
        >>> from pathlib import Path
        >>> tmp = tempfile.TemporaryDirectory()
        >>> replay = CachedClient(None, ResponseCache(cache_file(Path(tmp.name))), mode="replay")
        >>> hi = ({"role": "user", "content": "Hi"},)
        >>> request = ChatRequest(model="openai/gpt-4.1-mini", messages=hi)
        >>> try:
        ...     asyncio.run(replay.complete(request))
        ... except CacheMiss as exc:
        ...     print(exc.kind)
        cache_miss
        >>> asyncio.run(replay.aclose())
        >>> tmp.cleanup()
    """

    def __init__(
        self,
        inner: ModelClient | None,
        cache: ResponseCache,
        *,
        mode: CacheMode = "read_write",
        endpoint: str = "",
    ) -> None:
        if mode not in CACHE_MODES:
            raise ValueError(f"unknown cache mode {mode!r}; expected one of {CACHE_MODES}")
        if inner is None and mode != "replay":
            raise ValueError(f"cache mode {mode!r} needs a model client to send requests to")
        self.inner = inner
        """The client that makes the calls."""
        self.cache = cache
        """Where replies are stored."""
        self.mode: CacheMode = mode
        """How the cache is used."""
        self.endpoint = endpoint_id(endpoint)
        """The server replies come from, as it takes part in keys."""
        self.hits = 0
        """Requests answered from the cache."""
        self.misses = 0
        """Requests looked up and not found (sent to `inner`, or `CacheMiss` in replay mode)."""
        self.stored = 0
        """Replies confirmed usable and stored."""
        self.dropped = 0
        """Stored replies confirmed unusable, and deleted."""
        self.write_errors = 0
        """Replies that could not be stored or dropped."""

    def __repr__(self) -> str:
        return f"CachedClient({self.inner!r}, {self.cache!r}, mode={self.mode!r})"

    async def __aenter__(self) -> CachedClient:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def complete(self, request: ChatRequest) -> ChatResponse:
        """The stored reply to `request`, or `inner`'s (stored once confirmed usable), as the
        mode says.

        Raises:
            CacheMiss: replay mode, and no reply is stored for `request`.
            CacheError: the cache file cannot be read.
            ModelError: from `inner`.
        """
        if self.mode == "off":
            return await self._send(request)
        key = _key(request, self.endpoint)
        if self.mode != "refresh":
            # The database work runs in a thread: a busy file must not stall the event loop.
            stored = await asyncio.to_thread(self.cache.get, key)
            if stored is not None:
                self.hits += 1
                return replace(stored, on_confirm=self._dropper(request, key, stored.text))
            self.misses += 1
            if self.mode == "replay":
                raise CacheMiss(
                    f"replay mode: no cached reply for model {request.model} "
                    f"(key {key}) in {os.fspath(self.cache.path)}"
                )
        response = await self._send(request)
        return replace(response, on_confirm=self._keeper(request, key, response))

    def _keeper(
        self, request: ChatRequest, key: str, response: ChatResponse
    ) -> Callable[[bool], Awaitable[None]]:
        """What confirming a new reply does: store it when usable."""
        inner_confirm = response.on_confirm
        response = replace(response, on_confirm=None)

        async def confirm(usable: bool) -> None:
            if inner_confirm is not None:
                await inner_confirm(usable)
            if not usable:
                return
            try:
                await asyncio.to_thread(
                    self.cache.put,
                    key,
                    request,
                    response,
                    replace=self.mode == "refresh",
                    endpoint=self.endpoint,
                )
            except CacheError as exc:
                self.write_errors += 1
                _log.warning("reply of %s not cached: %s", request.model, exc)
            else:
                self.stored += 1

        return confirm

    def _dropper(
        self, request: ChatRequest, key: str, text: str
    ) -> Callable[[bool], Awaitable[None]]:
        """What confirming a stored reply does: drop it when unusable (nothing otherwise,
        so a hit costs no database work beyond its read)."""

        async def confirm(usable: bool) -> None:
            if usable:
                return
            try:
                dropped = await asyncio.to_thread(self.cache.discard, key, text)
            except CacheError as exc:
                self.write_errors += 1
                _log.warning("unusable cached reply of %s not dropped: %s", request.model, exc)
            else:
                self.dropped += dropped

        return confirm

    async def _send(self, request: ChatRequest) -> ChatResponse:
        if self.inner is None:  # only in replay mode, which never gets here
            raise CacheMiss(f"no model client to send the request for {request.model} to")
        return await self.inner.complete(request)

    async def aclose(self) -> None:
        """Close `inner` and release the cache file."""
        try:
            if self.inner is not None:
                await self.inner.aclose()
        finally:
            self.cache.close()
