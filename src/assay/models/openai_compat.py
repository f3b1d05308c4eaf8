"""A model client for any OpenAI-compatible chat-completions server, over async HTTP.

OpenAI itself, Azure behind a LiteLLM proxy, vLLM, Ollama and llama.cpp's server all answer
`POST {base_url}/chat/completions` in the same shape, so one client serves them all. It keeps
a judge's calls within limits and turns every failure into a `ModelError`:

- at most `max_concurrency` requests in flight per model (an `asyncio.Semaphore` per model,
  apart from anything an agent uses), all over one `httpx.AsyncClient` whose connections are
  kept alive between calls; a call waiting before a retry gives its slot to others;
- each attempt bounded by `timeout` seconds, at most `max_retries` retries, with capped
  exponential backoff and full jitter, honouring `Retry-After`, on 429, 500, 502, 503, 504,
  timeouts and connection errors; any other error status fails at once;
- the whole call, attempts and waits included, bounded by `call_timeout` seconds: a wait that
  would outlast it (a long `Retry-After`) ends the call at once, and the error says how many
  attempts were made in how long, and how much of it was spent waiting;
- token usage and estimated cost on every reply, counted in a shared `JudgeUsage` and, when
  given, a `Budget` that stops new calls once it is spent.

A request's `tools` and `tool_choice` are sent as given, and so are its messages (assistant
messages with `tool_calls`, `tool` messages); the calls a reply asks for
(`message.tool_calls`) come back as `ChatResponse.tool_calls`, its text then "" when it has no
content. Nothing touches the network until `complete` is called.

Example:
    >>> client = OpenAICompatibleClient("http://127.0.0.1:8000/v1", api_key="sk-secret")
    >>> client
    OpenAICompatibleClient(base_url='http://127.0.0.1:8000/v1', api_key=<set>, timeout=60.0, \
max_retries=4, call_timeout=180.0, max_concurrency=8)
    >>> "sk-secret" in repr(client)
    False
"""

from __future__ import annotations

import asyncio
import email.utils
import math
import random
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from types import TracebackType
from typing import Any, Final
from urllib.parse import urlsplit, urlunsplit

import httpx
import orjson

from assay.limits import JUDGE_CALL_TIMEOUT_S, MAX_TOKEN_COUNT
from assay.models._tool_calls import read_tool_calls
from assay.models.budget import Budget, JudgeUsage
from assay.models.pricing import PRICES_PER_MILLION, estimate_cost_usd, model_price_key
from assay.models.types import (
    ChatRequest,
    ChatResponse,
    ModelConfigError,
    ModelError,
    ModelHTTPError,
    ModelRateLimited,
    ModelResponseError,
    ModelTimeout,
    TokenUsage,
)
from assay.records import ToolCall

__all__ = ["DEFAULT_CALL_TIMEOUT", "RETRY_STATUSES", "OpenAICompatibleClient"]

RETRY_STATUSES: Final = frozenset({429, 500, 502, 503, 504})
"""HTTP statuses that are retried; any other error status fails at once."""

DEFAULT_CALL_TIMEOUT: Final = JUDGE_CALL_TIMEOUT_S
"""Seconds one call may take in all, attempts and waits included, unless told otherwise."""

_EXCERPT_CHARS = 300
# Past this many doublings the backoff is at its cap anyway; it keeps 2**n a small float.
_MAX_DOUBLINGS = 60

Sleep = Callable[[float], Awaitable[None]]
"""How the client waits between attempts: `asyncio.sleep` unless a test injects another."""

Jitter = Callable[[], float]
"""Source of jitter: a number in [0, 1), `random.random` unless a test injects another."""


@dataclass(slots=True)
class _CallLog:
    """How one call went so far: its attempts, and the time spent waiting between them."""

    started: float
    """`time.perf_counter()` when the call got its slot for the first attempt."""
    attempts: int = 0
    retry_after_waits: float = 0.0
    """Seconds waited because the server asked to (`Retry-After`)."""
    backoff_waits: float = 0.0

    def elapsed(self) -> float:
        return time.perf_counter() - self.started

    def summary(self) -> str:
        """E.g. `3 attempts in 61.2 s (waited 60.0 s on Retry-After)`."""
        tries = f"{self.attempts} attempt{'s' if self.attempts != 1 else ''}"
        waits = []
        if self.retry_after_waits:
            waits.append(f"{self.retry_after_waits:.1f} s on Retry-After")
        if self.backoff_waits:
            waits.append(f"{self.backoff_waits:.1f} s in backoff")
        waited = f" (waited {', '.join(waits)})" if waits else ""
        return f"{tries} in {self.elapsed():.1f} s{waited}"


_Reply = tuple[str, TokenUsage, str, tuple[ToolCall, ...]]
"""A parsed reply: its text, usage, the model that answered, the tool calls it asked for."""


@dataclass(frozen=True, slots=True)
class _Failure:
    """One attempt that may be retried."""

    kind: str  # "rate_limited", "status", "timeout" or "connection"
    detail: str
    status: int | None = None
    retry_after: float | None = None


class OpenAICompatibleClient:
    """`ModelClient` over an OpenAI-compatible `/chat/completions` endpoint.

    One client serves every model its server has; a request's `model_name` (its model without
    the `provider/` prefix) is sent as `model`. A client belongs to one event loop: make one per
    loop, and close it with `aclose()` (or use it as an async context manager).

    Every request goes through one `httpx.AsyncClient`, made on the first call: proxies named
    in the environment are used, and connections are kept open for the next calls (until idle
    for 5 s). The per-model slots bound them: a client asked for two models may hold twice
    `max_concurrency` connections at once.

    Args:
        base_url: The API root, e.g. `https://api.openai.com/v1`; `/chat/completions` is
            appended.
        api_key: Sent as `Authorization: Bearer <key>` when given; never shown in a repr or an
            error message.
        timeout: Seconds one attempt may take in all (connecting, sending, waiting, reading).
        call_timeout: Seconds one call may take in all, from the moment it got its slot:
            attempts, waits between them and waits for the slot again included; None for no
            bound. A wait that would outlast it ends the call at once.
        max_retries: Retries after the first attempt (so at most `max_retries + 1` requests).
        backoff_base: Seconds the first backoff may last; doubled on each further retry.
        backoff_max: Cap in seconds on one backoff wait. Waits are drawn uniformly from zero to
            the capped exponential ("full jitter").
        retry_after_max: Cap in seconds on a wait the server asks for with `Retry-After`
            (seconds or an HTTP date) or `retry-after-ms`; None (the default) for none but
            `call_timeout`.
        max_concurrency: Requests in flight at once per model. A call gives its slot up
            while it waits before a retry, so that other calls go on, and waits for one again.
        prices: USD per million (input, output) tokens, merged over `PRICES_PER_MILLION`;
            keys are normalised with `model_price_key`.
        budget: Caps shared by every call of an evaluation; None for no caps.
        usage: Where calls are counted; a fresh `JudgeUsage` when None (see `usage`).
        max_response_bytes: Largest reply body read; a larger one is a `ModelResponseError`.
        headers: Extra request headers (e.g. a proxy's routing headers).
        sleep: Awaitable sleep used between attempts.
        jitter: Returns a number in [0, 1) that scales each backoff wait.
        transport: An httpx transport to send requests through instead of the network (httpx's
            own seam, e.g. `httpx.MockTransport` in tests); None for real connections.

    Raises:
        ModelConfigError: `base_url` is not an http(s) URL.
        ValueError: a numeric option is out of range, or a price is malformed.

    Example:
        >>> client = OpenAICompatibleClient(
        ...     "http://127.0.0.1:11434/v1", max_retries=2, prices={"llama3.1": (0.0, 0.0)}
        ... )
        >>> client.max_retries, client.max_concurrency, client.url
        (2, 8, 'http://127.0.0.1:11434/v1/chat/completions')
    """

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None = None,
        timeout: float = 60.0,
        call_timeout: float | None = DEFAULT_CALL_TIMEOUT,
        max_retries: int = 4,
        backoff_base: float = 0.5,
        backoff_max: float = 30.0,
        retry_after_max: float | None = None,
        max_concurrency: int = 8,
        prices: Mapping[str, tuple[float, float]] | None = None,
        budget: Budget | None = None,
        usage: JudgeUsage | None = None,
        max_response_bytes: int = 10_000_000,
        headers: Mapping[str, str] | None = None,
        sleep: Sleep = asyncio.sleep,
        jitter: Jitter = random.random,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        parts = urlsplit(base_url.strip())
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ModelConfigError(
                f"base URL must be an http:// or https:// URL, not {_hide_userinfo(base_url)!r}"
            )
        if not timeout > 0:
            raise ValueError(f"timeout must be > 0 seconds, not {timeout}")
        if call_timeout is not None and not call_timeout > 0:
            raise ValueError(f"call_timeout must be > 0 seconds, not {call_timeout}")
        if max_retries < 0:
            raise ValueError(f"max_retries must be >= 0, not {max_retries}")
        if max_concurrency < 1:
            raise ValueError(f"max_concurrency must be >= 1, not {max_concurrency}")
        if backoff_base < 0 or backoff_max < 0 or (retry_after_max or 0) < 0:
            raise ValueError("backoff_base, backoff_max and retry_after_max must be >= 0")
        if max_response_bytes < 1:
            raise ValueError(f"max_response_bytes must be >= 1, not {max_response_bytes}")

        self.base_url = base_url.strip().rstrip("/")
        """The API root requests go to."""
        self.url = f"{self.base_url}/chat/completions"
        """The endpoint every request is posted to."""
        self.timeout = float(timeout)
        """Seconds one attempt may take."""
        self.call_timeout = None if call_timeout is None else float(call_timeout)
        """Seconds one call may take in all, or None."""
        self.max_retries = max_retries
        """Retries after the first attempt."""
        self.backoff_base = backoff_base
        """Seconds the first backoff may last."""
        self.backoff_max = backoff_max
        """Cap on one backoff wait."""
        self.retry_after_max = retry_after_max
        """Cap on a wait asked for by `Retry-After`, or None."""
        self.max_concurrency = max_concurrency
        """Requests in flight at once per model."""
        self.max_response_bytes = max_response_bytes
        """Largest reply body read."""
        self.budget = budget
        """The shared budget, or None."""
        self.usage = usage if usage is not None else JudgeUsage()
        """Usage and cost of every call this client made, per model."""
        self.prices: dict[str, tuple[float, float]] = {
            **PRICES_PER_MILLION,
            **_checked_prices(prices or {}),
        }
        """The price table costs are estimated with."""

        self._api_key = api_key or None
        self._extra_headers = dict(headers or {})
        self._sleep = sleep
        self._jitter = jitter
        self._transport = transport
        # Made on the first call: loading the certificate store costs tens of milliseconds,
        # which a client that only ever answers from the cache need not pay.
        self._http: httpx.AsyncClient | None = None
        self._closed = False
        self._slots: dict[str, asyncio.Semaphore] = {}

    def __repr__(self) -> str:
        key = "<set>" if self._api_key else "None"
        return (
            f"{type(self).__name__}(base_url={_hide_userinfo(self.base_url)!r}, api_key={key}, "
            f"timeout={self.timeout}, max_retries={self.max_retries}, "
            f"call_timeout={self.call_timeout}, max_concurrency={self.max_concurrency})"
        )

    async def __aenter__(self) -> OpenAICompatibleClient:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the connections. The client cannot be used afterwards."""
        self._closed = True
        http, self._http = self._http, None
        if http is not None:
            await http.aclose()

    async def complete(self, request: ChatRequest) -> ChatResponse:
        """Send `request` and return the model's reply.

        Args:
            request: What to ask; `request.model_name` is the model the server is asked for.

        Returns:
            The reply's text with token usage, estimated cost, latency (from the moment the
            call got its concurrency slot, retries and waits included) and attempt count.

        Raises:
            BudgetExceeded: the budget is spent; no request was made.
            ModelRateLimited: every attempt was answered 429, or the server asked to wait
                longer than `call_timeout` leaves.
            ModelTimeout: the last attempt timed out after the retries ran out, or the
                call's bound ran out during it.
            ModelHTTPError: an error status that is not retried, or connection errors or 5xx
                until the retries or the call's time ran out (`status` says which).
            ModelResponseError: a reply that cannot be used (not JSON, no content, too big).
            ModelConfigError: a cost cap is set but the model has no price.
            ModelError: the request cannot be encoded as JSON.
            RuntimeError: the client was closed.
        """
        if self._closed:
            raise RuntimeError("this OpenAICompatibleClient is closed")
        model = request.model
        self._admit(request)
        slot = self._slots.get(model)
        if slot is None:
            slot = self._slots[model] = asyncio.Semaphore(self.max_concurrency)
        # Waiting in line for the first attempt is not part of the call's time.
        await slot.acquire()
        held = True
        try:
            # The budget may have run out while this call waited for its slot.
            self._admit(request)
            log = _CallLog(time.perf_counter())
            try:
                body = self._encode(request)
                http = self._http or self._open()
                failure: _Failure | None = None
                while True:
                    if failure is not None:
                        held = await self._wait_to_retry(slot, model, failure, log)
                    log.attempts += 1
                    sent = await self._attempt(
                        http, request, body, min(self.timeout, self._left(log))
                    )
                    if not isinstance(sent, _Failure):
                        break
                    failure = sent
                    # The slot goes to other calls while this one waits.
                    slot.release()
                    held = False
                    if log.attempts > self.max_retries:
                        raise self._exhausted(model, failure, log)
                text, usage, served_by, tool_calls = sent
                response = ChatResponse(
                    text=text,
                    usage=usage,
                    model=served_by,
                    cost_usd=estimate_cost_usd(
                        model, usage.input_tokens, usage.output_tokens, self.prices
                    ),
                    latency_ms=log.elapsed() * 1000.0,
                    attempts=log.attempts,
                    tool_calls=tool_calls,
                )
            except ModelError as err:
                self.usage.record_error(model, err, log.attempts)
                raise
            # Counted before the slot is released, so the next call in line sees the spend.
            self.usage.record(model, response)
            if self.budget is not None:
                self.budget.record(response.usage, response.cost_usd)
        finally:
            if held:
                slot.release()
        return response

    def _left(self, log: _CallLog) -> float:
        """Seconds the call may still take (infinite without a bound)."""
        if self.call_timeout is None:
            return math.inf
        return self.call_timeout - log.elapsed()

    async def _wait_to_retry(
        self, slot: asyncio.Semaphore, model: str, failure: _Failure, log: _CallLog
    ) -> bool:
        """Wait before the next attempt, without the slot, then take the slot again.

        Returns:
            True: the slot is held again.

        Raises:
            ModelError: the wait, or the wait for the slot, would outlast the call's bound.
        """
        wait = self._backoff(log.attempts - 1, failure.retry_after)
        left = self._left(log)
        if left <= 0:
            raise self._gave_up(model, failure, log)
        if wait >= left:
            raise self._gave_up(model, failure, log, wait=wait, left=left)
        await self._sleep(wait)
        if failure.retry_after is not None:
            log.retry_after_waits += wait
        else:
            log.backoff_waits += wait
        left = self._left(log)
        try:
            if left <= 0:
                raise TimeoutError
            async with asyncio.timeout(None if math.isinf(left) else left):
                await slot.acquire()
        except TimeoutError:
            raise self._gave_up(model, failure, log) from None
        return True

    def _admit(self, request: ChatRequest) -> None:
        """Refuse a call the budget does not allow, before any request is made."""
        budget = self.budget
        if budget is None:
            return
        try:
            if (
                budget.max_cost_usd is not None
                and estimate_cost_usd(request.model, 1_000_000, 0, self.prices) is None
            ):
                raise ModelConfigError(
                    f"{request.model}: a cost budget is set but the model has no price "
                    f"(key {model_price_key(request.model)!r}); add one with prices=..."
                )
            budget.check()
        except ModelError as err:
            self.usage.record_error(request.model, err, 0)
            raise

    def _open(self) -> httpx.AsyncClient:
        """The client's one connection pool, with its headers, timeout and limits."""
        self._http = httpx.AsyncClient(
            headers=self._headers(),
            timeout=httpx.Timeout(self.timeout),
            # The per-model slots are the limit: at most `max_concurrency` requests, so as many
            # connections, per model. A cap in the pool would be a second one: on connections,
            # its waits would count against an attempt's timeout; on kept connections, httpcore
            # counts busy ones too, so a client of two models at full load would close a
            # connection after nearly every call (51 connections for 60 calls, measured).
            limits=httpx.Limits(max_connections=None, max_keepalive_connections=None),
            transport=self._transport,
        )
        return self._http

    def _encode(self, request: ChatRequest) -> bytes:
        payload: dict[str, Any] = {
            "model": request.model_name,
            "messages": list(request.messages),
        }
        if request.temperature is not None:
            payload["temperature"] = request.temperature
        if request.max_tokens is not None:
            payload["max_tokens"] = request.max_tokens
        if request.seed is not None:
            payload["seed"] = request.seed
        if request.tools:
            payload["tools"] = list(request.tools)
        if request.tool_choice is not None:
            payload["tool_choice"] = request.tool_choice
        if request.json_schema is not None:
            payload["response_format"] = {
                "type": "json_schema",
                "json_schema": {
                    "name": request.schema_name,
                    "schema": request.json_schema,
                    "strict": True,
                },
            }
        try:
            return orjson.dumps(payload, default=_plain)
        except orjson.JSONEncodeError as exc:
            raise ModelError(f"{request.model}: the request cannot be sent as JSON: {exc}") from exc

    async def _attempt(
        self, http: httpx.AsyncClient, request: ChatRequest, body: bytes, seconds: float
    ) -> _Reply | _Failure:
        """One HTTP attempt of at most `seconds`: the parsed reply, a failure worth retrying,
        or a raised error."""
        try:
            status, headers, raw = await self._post(http, body, request.model, seconds)
        except (TimeoutError, httpx.TimeoutException):
            return _Failure("timeout", f"no reply within {seconds:.3g} s")
        except httpx.UnsupportedProtocol as exc:
            raise ModelConfigError(
                f"{request.model}: cannot call {self._url_for_humans}: {exc}"
            ) from None
        except (httpx.NetworkError, httpx.RemoteProtocolError, httpx.ProxyError) as exc:
            return _Failure("connection", self._redact(f"{type(exc).__name__}: {exc}"))
        except httpx.HTTPError as exc:
            raise ModelHTTPError(
                self._redact(f"{request.model}: request failed: {type(exc).__name__}: {exc}")
            ) from None

        if 200 <= status < 300:
            return self._parse(request.model, raw)
        excerpt = self._excerpt(raw)
        if status not in RETRY_STATUSES:
            raise ModelHTTPError(
                f"{request.model}: HTTP {status} from {self._url_for_humans} (not retried): "
                f"{excerpt}",
                status=status,
            )
        return _Failure(
            "rate_limited" if status == 429 else "status",
            f"HTTP {status}: {excerpt}",
            status=status,
            retry_after=_retry_after_seconds(headers),
        )

    async def _post(
        self, http: httpx.AsyncClient, body: bytes, model: str, seconds: float
    ) -> tuple[int, httpx.Headers, bytes]:
        if seconds <= 0:
            raise TimeoutError  # the call's bound ran out before this attempt
        async with (
            asyncio.timeout(seconds),
            http.stream("POST", self.url, content=body) as reply,
        ):
            chunks: list[bytes] = []
            size = 0
            async for chunk in reply.aiter_bytes():
                size += len(chunk)
                if size > self.max_response_bytes:
                    raise ModelResponseError(
                        f"{model}: reply body is over {self.max_response_bytes} bytes "
                        f"(HTTP {reply.status_code}); not read further"
                    )
                chunks.append(chunk)
            return reply.status_code, reply.headers, b"".join(chunks)

    def _headers(self) -> dict[str, str]:
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json",
            "User-Agent": "assay",
            **self._extra_headers,
        }
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        return headers

    def _parse(self, model: str, raw: bytes) -> _Reply:
        try:
            data = orjson.loads(raw)
        except orjson.JSONDecodeError:
            raise ModelResponseError(
                f"{model}: reply body is not JSON: {self._excerpt(raw)}"
            ) from None
        if not isinstance(data, dict):
            raise ModelResponseError(
                f"{model}: reply body is not a JSON object: {self._excerpt(raw)}"
            )
        choices = data.get("choices")
        first = choices[0] if isinstance(choices, list) and choices else None
        message = first.get("message") if isinstance(first, dict) else None
        if not isinstance(message, dict):
            error = data.get("error")
            why = f"; error: {self._excerpt(orjson.dumps(error))}" if error else ""
            raise ModelResponseError(f"{model}: reply has no choices[0].message{why}")
        text = _content_text(message.get("content"))
        tool_calls = read_tool_calls(model, message.get("tool_calls"))
        if text is None and tool_calls:
            text = ""  # a reply that only asks for tool calls has no content
        if text is None:
            refusal = message.get("refusal")
            if isinstance(refusal, str) and refusal:
                raise ModelResponseError(
                    f"{model}: the model refused: {self._excerpt(refusal.encode())}"
                )
            finish = first.get("finish_reason") if isinstance(first, dict) else None
            raise ModelResponseError(
                f"{model}: reply has no choices[0].message.content (finish_reason={finish!r})"
            )
        served_by = data.get("model")
        return (
            text,
            _token_usage(data.get("usage")),
            served_by if isinstance(served_by, str) else "",
            tool_calls,
        )

    def _backoff(self, retry: int, retry_after: float | None) -> float:
        """Seconds to wait before retry number `retry` (0 for the first)."""
        if retry_after is not None:
            if self.retry_after_max is None:
                return retry_after
            return min(retry_after, self.retry_after_max)
        ceiling = min(self.backoff_max, self.backoff_base * 2.0 ** min(retry, _MAX_DOUBLINGS))
        return min(max(self._jitter(), 0.0), 1.0) * ceiling

    def _exhausted(self, model: str, failure: _Failure, log: _CallLog) -> ModelError:
        """The error of a call whose retries ran out."""
        summary = log.summary()
        if failure.kind == "rate_limited":
            message = f"{model}: rate limited on all {summary}; last: {failure.detail}"
        elif failure.kind == "timeout":
            message = f"{model}: timed out on all {summary}; last: {failure.detail}"
        elif failure.kind == "connection":
            message = (
                f"{model}: could not reach {self._url_for_humans} in {summary}: {failure.detail}"
            )
        else:
            message = f"{model}: server error on the last of {summary}: {failure.detail}"
        return _error_of(failure, message)

    def _gave_up(
        self,
        model: str,
        failure: _Failure,
        log: _CallLog,
        *,
        wait: float | None = None,
        left: float | None = None,
    ) -> ModelError:
        """The error of a call ended by its time bound, before its retries ran out."""
        if wait is not None and left is not None:
            asked = (
                f"the server asked for Retry-After {wait:g} s"
                if failure.retry_after is not None
                else f"the next backoff wait of {wait:.1f} s"
            )
            why = f"{asked}, more than the {left:.1f} s left of"
        else:
            why = "no time left of"
        return _error_of(
            failure,
            f"{model}: call gave up after {log.summary()}: {why} the {self.call_timeout:g} s "
            f"call bound; last: {failure.detail}",
        )

    @property
    def _url_for_humans(self) -> str:
        return _hide_userinfo(self.url)

    def _redact(self, text: str) -> str:
        if self._api_key:
            text = text.replace(self._api_key, "<api key>")
        return text

    def _excerpt(self, raw: bytes) -> str:
        text = " ".join(raw.decode("utf-8", errors="replace").split())
        if not text:
            return "(empty body)"
        if len(text) > _EXCERPT_CHARS:
            text = text[:_EXCERPT_CHARS] + f"… [{len(text) - _EXCERPT_CHARS} more chars]"
        return self._redact(text)


def _error_of(failure: _Failure, message: str) -> ModelError:
    """The error whose kind says what the last attempt met."""
    if failure.kind == "rate_limited":
        return ModelRateLimited(message)
    if failure.kind == "timeout":
        return ModelTimeout(message)
    return ModelHTTPError(message, status=failure.status)


def _plain(value: Any) -> Any:
    """orjson's fallback: mappings and sequences other than dict, list and tuple."""
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, Sequence) and not isinstance(value, str | bytes):
        return list(value)
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


def _checked_prices(prices: Mapping[str, tuple[float, float]]) -> dict[str, tuple[float, float]]:
    checked: dict[str, tuple[float, float]] = {}
    for name, price in prices.items():
        try:
            price_in, price_out = (float(p) for p in price)
        except (TypeError, ValueError):
            raise ValueError(
                f"price of {name!r} must be (input, output) USD per million tokens"
            ) from None
        if not (price_in >= 0 and price_out >= 0):
            raise ValueError(f"price of {name!r} must not be negative or NaN")
        checked[model_price_key(name)] = (price_in, price_out)
    return checked


def _content_text(content: Any) -> str | None:
    """A message's text: a string, or the text parts of a list of parts; None when absent."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [
            part["text"]
            for part in content
            if isinstance(part, dict) and isinstance(part.get("text"), str)
        ]
        return "".join(texts) if texts else None
    return None


def _token_usage(usage: Any) -> TokenUsage:
    """Token counts from `usage`, in chat-completions or responses naming; 0 when missing or
    not a count."""
    if not isinstance(usage, dict):
        return TokenUsage()
    return TokenUsage(
        input_tokens=_count(usage, "prompt_tokens", "input_tokens"),
        output_tokens=_count(usage, "completion_tokens", "output_tokens"),
    )


def _count(usage: dict[str, Any], *names: str) -> int:
    for name in names:
        value = usage.get(name)
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            # Past MAX_TOKEN_COUNT a figure is broken, and could overflow the cache's integers.
            return value if value <= MAX_TOKEN_COUNT else 0
    return 0


def _retry_after_seconds(headers: Mapping[str, str], now: datetime | None = None) -> float | None:
    """The wait a reply asks for: `retry-after-ms`, or `Retry-After` in seconds or as a date.

    Returns None when there is no usable header; a date in the past gives 0.
    """
    millis = _seconds(headers.get("retry-after-ms"))
    if millis is not None:
        return millis / 1000.0
    value = headers.get("retry-after")
    if value is None:
        return None
    seconds = _seconds(value)
    if seconds is not None:
        return seconds
    try:
        when = email.utils.parsedate_to_datetime(value.strip())
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max((when - (now or datetime.now(UTC))).total_seconds(), 0.0)


def _seconds(value: str | None) -> float | None:
    if value is None:
        return None
    try:
        number = float(value.strip())
    except ValueError:
        return None
    return number if math.isfinite(number) and number >= 0 else None


def _hide_userinfo(url: str) -> str:
    """`url` without any `user:password@` part."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    if parts.hostname is None or "@" not in parts.netloc:
        return url
    host = parts.netloc.rsplit("@", 1)[1]
    return urlunsplit(parts._replace(netloc=f"***@{host}"))
