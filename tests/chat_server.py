"""A real chat-completions server on 127.0.0.1 with replies each test programs.

Model clients are tested against it over a socket, exactly as they talk to OpenAI, vLLM or a
LiteLLM proxy. The `chat_server` fixture (tests/conftest.py) starts one for the test session on
a free port and `reset()`s it before each test, so every test starts from a server that has
seen nothing and has nothing programmed; `ChatServer` can also be used on its own as a context
manager.

Which reply a request gets, in this order:

0. a request that is not `POST /v1/chat/completions` gets a 404;
1. the next reply queued with `enqueue(...)` (each is used once);
2. else `handler(request)`, when a handler function is set;
3. else `default` (a valid reply with content "OK" unless changed).

Replies are built with `Reply`: `Reply.ok(content, input_tokens=, output_tokens=)` (content
may be a dict or list, sent as JSON text; a string that is not JSON makes an "invalid verdict"
reply), `Reply.rate_limited(retry_after=)`, `Reply.error(500)`, `Reply.raw(b"not json")`,
`Reply.json({...})` for any body, and `.after(seconds)` for a reply that is slow to come.

`Reply.ok` reports 10 input and 5 output tokens unless told otherwise.

Every request is recorded (`requests`: method, path, headers, raw and parsed body, arrival
time) with the reply it got (`replies`: status and delay), as is the peak number of requests in
flight at once, overall (`peak_in_flight`) and per model (`peak_in_flight_for(model)`). An
exception raised by a handler function is answered with a 500 and kept in `errors`.

Example:
    >>> import asyncio
    >>> from assay.models import ChatRequest, OpenAICompatibleClient
    >>> async def ask(base_url, request):
    ...     async with OpenAICompatibleClient(base_url, sleep=no_wait) as client:
    ...         return await client.complete(request)
    >>> async def no_wait(seconds):
    ...     pass
    >>> hi = ({"role": "user", "content": "Hi"},)
    >>> with ChatServer() as server:
    ...     server.enqueue(Reply.rate_limited(retry_after=1), Reply.ok({"score": 1}))
    ...     reply = asyncio.run(ask(server.base_url, ChatRequest(model="local/judge", messages=hi)))
    >>> reply.text, reply.attempts, reply.usage.total
    ('{"score": 1}', 2, 15)
    >>> [r.status for r in server.replies], server.requests[0].body["model"]
    ([429, 200], 'judge')
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Self

__all__ = ["CHAT_PATH", "ChatServer", "RecordedRequest", "Reply", "SentReply"]

CHAT_PATH = "/v1/chat/completions"
"""The path replies are served on; other paths get a 404 (and are recorded too)."""


@dataclass(frozen=True)
class Reply:
    """What the server answers to one request."""

    status: int = 200
    """HTTP status."""

    body: bytes = b""
    """Response body, sent as is."""

    headers: Mapping[str, str] = field(default_factory=dict)
    """Extra response headers (`Content-Type` defaults to JSON)."""

    delay: float = 0.0
    """Seconds to wait before answering (cut short when the server stops)."""

    @classmethod
    def ok(
        cls,
        content: Any = "OK",
        *,
        input_tokens: int | None = 10,
        output_tokens: int | None = 5,
        model: str = "test-model",
        usage_names: str = "chat",
    ) -> Reply:
        """A valid chat completion.

        Args:
            content: The message content; a str is sent as is (so a str that is not JSON makes
                an invalid-verdict reply), anything else as JSON text.
            input_tokens: Reported input tokens; None (with `output_tokens` None) for no usage.
            output_tokens: Reported output tokens.
            model: The `model` field of the reply.
            usage_names: `"chat"` for `prompt_tokens`/`completion_tokens`, `"responses"` for
                `input_tokens`/`output_tokens`.
        """
        text = content if isinstance(content, str) else json.dumps(content)
        data: dict[str, Any] = {
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": text},
                    "finish_reason": "stop",
                }
            ],
        }
        if input_tokens is not None or output_tokens is not None:
            names = (
                ("prompt_tokens", "completion_tokens")
                if usage_names == "chat"
                else ("input_tokens", "output_tokens")
            )
            data["usage"] = {
                names[0]: input_tokens or 0,
                names[1]: output_tokens or 0,
                "total_tokens": (input_tokens or 0) + (output_tokens or 0),
            }
        return cls.json(data)

    @classmethod
    def json(cls, data: Any, status: int = 200, headers: Mapping[str, str] | None = None) -> Reply:
        """Any JSON body, e.g. a reply without `choices` or with `content: null`."""
        return cls(status=status, body=json.dumps(data).encode(), headers=dict(headers or {}))

    @classmethod
    def rate_limited(cls, retry_after: float | str | None = None) -> Reply:
        """A 429, with a `Retry-After` header (seconds, or any string such as an HTTP date)."""
        headers = {} if retry_after is None else {"Retry-After": str(retry_after)}
        return cls.error(429, "Rate limit reached", headers=headers)

    @classmethod
    def error(
        cls,
        status: int = 500,
        message: str = "server error",
        headers: Mapping[str, str] | None = None,
    ) -> Reply:
        """An error status with an OpenAI-style error body."""
        body = {"error": {"message": message, "type": "test_error", "code": status}}
        return cls.json(body, status=status, headers=headers)

    @classmethod
    def raw(cls, body: bytes | str, status: int = 200, content_type: str = "text/plain") -> Reply:
        """A body sent byte for byte, e.g. one that is not JSON."""
        data = body.encode() if isinstance(body, str) else body
        return cls(status=status, body=data, headers={"Content-Type": content_type})

    def after(self, seconds: float) -> Reply:
        """This reply, sent only after `seconds` (to outlast a client's timeout)."""
        return replace(self, delay=seconds)


@dataclass(frozen=True)
class RecordedRequest:
    """One request as the server received it."""

    method: str
    path: str
    headers: dict[str, str]
    """Header names lower-cased."""
    raw: bytes
    body: Any
    """The body parsed as JSON, or None when it is not JSON."""
    received_at: float
    """`time.monotonic()` when the request had been read."""

    @property
    def model(self) -> str | None:
        """The `model` field of the body, if any."""
        return self.body.get("model") if isinstance(self.body, dict) else None


@dataclass(frozen=True)
class SentReply:
    """What the server answered, in the order requests arrived."""

    status: int
    path: str
    delay: float


class ChatServer:
    """A chat-completions server in a background thread on 127.0.0.1, on a free port.

    Attributes:
        default: The reply when the queue is empty and no handler is set.
        handler: A function from the `RecordedRequest` to a `Reply`, or None. It runs in the
            server's threads; an exception in it is answered with a 500 and kept in `errors`.
    """

    def __init__(self, default: Reply | None = None) -> None:
        self._first_default = default or Reply.ok()
        self.default: Reply = self._first_default
        self.handler: Callable[[RecordedRequest], Reply] | None = None
        self.errors: list[BaseException] = []
        self._lock = threading.Lock()
        self._queue: deque[Reply] = deque()
        self._requests: list[RecordedRequest] = []
        self._replies: list[SentReply] = []
        self._in_flight: dict[str | None, int] = {}
        self._total_in_flight = 0
        self._peak = 0
        self._peak_by_model: dict[str | None, int] = {}
        self._stopping = threading.Event()
        self._generation = 0
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -------------------------------------------------------------------------

    def start(self) -> Self:
        """Start serving; returns the server."""
        if self._httpd is not None:
            return self
        httpd = _Server(("127.0.0.1", 0), _make_handler(self))
        self._httpd = httpd
        self._thread = threading.Thread(
            target=httpd.serve_forever, args=(0.02,), name="chat-server", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, cut short any delayed reply and close the socket."""
        httpd, self._httpd = self._httpd, None
        if httpd is None:
            return
        self._stopping.set()
        httpd.shutdown()
        httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def reset(self) -> None:
        """Back to the state of a server just started: no queue, no handler, the first
        default reply, nothing recorded. A delayed reply still waiting from before is cut
        short, and requests still in flight from before no longer count."""
        with self._lock:
            self._stopping.set()
            self._stopping = threading.Event()
            self._generation += 1
            self.default = self._first_default
            self.handler = None
            self.errors = []
            self._queue.clear()
            self._requests = []
            self._replies = []
            self._in_flight = {}
            self._total_in_flight = 0
            self._peak = 0
            self._peak_by_model = {}

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    # -- programming replies ---------------------------------------------------------------

    def enqueue(self, *replies: Reply) -> None:
        """Queue replies for the next requests, one each, in order."""
        with self._lock:
            self._queue.extend(replies)

    # -- what happened ---------------------------------------------------------------------

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("the chat server is not running")
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        """The API root to give a client, e.g. `http://127.0.0.1:PORT/v1`."""
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request received so far, in order of arrival."""
        with self._lock:
            return list(self._requests)

    @property
    def replies(self) -> list[SentReply]:
        """The reply chosen for each request, in the same order as `requests`."""
        with self._lock:
            return list(self._replies)

    @property
    def peak_in_flight(self) -> int:
        """Most requests being handled at once (from read to reply written)."""
        with self._lock:
            return self._peak

    def peak_in_flight_for(self, model: str) -> int:
        """Most requests for `model` (the body's `model` field) handled at once."""
        with self._lock:
            return self._peak_by_model.get(model, 0)

    # -- used by the request handler -------------------------------------------------------

    def _arrived(self, request: RecordedRequest) -> tuple[Reply, int, threading.Event]:
        """The reply to `request`, with the generation it arrived in and the event that cuts
        its delay short."""
        with self._lock:
            generation, stopping = self._generation, self._stopping
            self._requests.append(request)
            model = request.model
            self._total_in_flight += 1
            self._peak = max(self._peak, self._total_in_flight)
            count = self._in_flight[model] = self._in_flight.get(model, 0) + 1
            self._peak_by_model[model] = max(self._peak_by_model.get(model, 0), count)
            routed = request.path == CHAT_PATH and request.method == "POST"
            queued = self._queue.popleft() if routed and self._queue else None
            handler = self.handler
        if not routed:
            reply = Reply.error(404, f"no route for {request.method} {request.path}")
        elif queued is not None:
            reply = queued
        elif handler is not None:
            try:
                reply = handler(request)
            except Exception as exc:
                with self._lock:
                    self.errors.append(exc)
                reply = Reply.error(500, f"test handler failed: {exc!r}")
        else:
            reply = self.default
        with self._lock:
            if generation == self._generation:
                self._replies.append(SentReply(reply.status, request.path, reply.delay))
        return reply, generation, stopping

    def _done(self, request: RecordedRequest, generation: int) -> None:
        with self._lock:
            if generation != self._generation:
                return
            self._total_in_flight -= 1
            self._in_flight[request.model] -= 1


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    request_queue_size = 256  # many clients connect at once in concurrency tests

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that gave up (timeout) leaves a broken pipe behind; that is expected here.
        pass


def _make_handler(server: ChatServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # headers and body go out as two writes
        timeout = 5  # idle keep-alive connections end on their own

        def do_POST(self) -> None:
            self._serve()

        def do_GET(self) -> None:
            self._serve()

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _serve(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length > 0 else b""
            try:
                body = json.loads(raw) if raw else None
            except ValueError:
                body = None
            request = RecordedRequest(
                method=self.command,
                path=self.path,
                headers={name.lower(): value for name, value in self.headers.items()},
                raw=raw,
                body=body,
                received_at=time.monotonic(),
            )
            reply, generation, stopping = server._arrived(request)
            try:
                if reply.delay > 0 and stopping.wait(reply.delay):
                    self.close_connection = True
                    return
                self.send_response(reply.status)
                headers = {"Content-Type": "application/json", **reply.headers}
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(reply.body)))
                self.end_headers()
                self.wfile.write(reply.body)
                self.wfile.flush()
            except OSError:
                self.close_connection = True
            finally:
                server._done(request, generation)

    return Handler
