"""HTTP/1.1 POSTs over asyncio streams with h11: the judge client's lean path.

A judge evaluation sends thousands of small requests to one server, many at once. The general
HTTP stack costs about 2 ms of CPU a request on a small machine, more than the rest of a judge
call; this path keeps only what such calls need: one keep-alive connection per request in
flight, reused when the server allows, TLS when the URL asks for it, a cap on the reply size.
The client falls back to httpx where that is not enough (proxies from the environment, a
transport given for tests).
"""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import Callable
from dataclasses import dataclass

import h11

_READ = 65_536


class StreamError(Exception):
    """The connection failed: refused, reset, closed early, or not speaking HTTP/1.1."""


class ReplyTooLargeError(Exception):
    """The reply body is over the size limit; nothing more was read."""


@dataclass(frozen=True, slots=True)
class Target:
    """Where requests go: scheme, host, port, and the request path."""

    scheme: str
    host: str
    port: int
    path: str


class _Connection:
    __slots__ = ("protocol", "reader", "writer")

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.protocol = h11.Connection(h11.CLIENT)

    def close(self) -> None:
        self.writer.close()


class StreamPool:
    """Keep-alive connections to one server, one per request in flight.

    Example:
        >>> import asyncio
        >>> pool = StreamPool(Target("http", "127.0.0.1", 9, "/v1/chat/completions"),
        ...                   lambda: None, max_body=1000)
        >>> asyncio.run(pool.aclose())
    """

    def __init__(
        self,
        target: Target,
        ssl_context: Callable[[], ssl.SSLContext | None],
        *,
        max_body: int,
    ) -> None:
        self.target = target
        self._ssl_context = ssl_context
        self.max_body = max_body
        self._idle: list[_Connection] = []
        self._host_header = (
            target.host
            if (target.scheme, target.port) in (("http", 80), ("https", 443))
            else f"{target.host}:{target.port}"
        ).encode()

    async def post(
        self, headers: list[tuple[bytes, bytes]], body: bytes
    ) -> tuple[int, dict[str, str], bytes]:
        """POST `body`; the status, the headers (names in lower case) and the body.

        Raises:
            StreamError: the exchange failed.
            ReplyTooLargeError: the body is over `max_body` bytes.
        """
        request_headers = [(b"host", self._host_header), *headers]
        request_headers.append((b"content-length", str(len(body)).encode()))
        while self._idle:
            # A kept connection the server has since closed fails before any reply: then the
            # request goes out again on a new one.
            connection = self._idle.pop()
            try:
                return await self._exchange(connection, request_headers, body, reused=True)
            except _StaleConnectionError:
                continue
        connection = await self._open()
        try:
            return await self._exchange(connection, request_headers, body, reused=False)
        except _StaleConnectionError as exc:
            raise StreamError(str(exc) or "connection closed before any reply") from None

    async def aclose(self) -> None:
        """Close the kept connections."""
        idle, self._idle = self._idle, []
        for connection in idle:
            connection.close()

    async def _open(self) -> _Connection:
        target = self.target
        context = self._ssl_context() if target.scheme == "https" else None
        try:
            reader, writer = await asyncio.open_connection(
                target.host,
                target.port,
                ssl=context,
                server_hostname=target.host if context is not None else None,
                limit=_READ * 4,
            )
        except (OSError, ssl.SSLError) as exc:
            raise StreamError(f"cannot connect: {exc}") from None
        return _Connection(reader, writer)

    async def _exchange(
        self,
        connection: _Connection,
        headers: list[tuple[bytes, bytes]],
        body: bytes,
        *,
        reused: bool,
    ) -> tuple[int, dict[str, str], bytes]:
        protocol = connection.protocol
        keep = False
        received_any = False
        try:
            data = protocol.send(
                h11.Request(method=b"POST", target=self.target.path.encode(), headers=headers)
            )
            data = (data or b"") + (protocol.send(h11.Data(data=body)) or b"")
            data += protocol.send(h11.EndOfMessage()) or b""
            connection.writer.write(data)
            await connection.writer.drain()
            status = 0
            reply_headers: dict[str, str] = {}
            chunks: list[bytes] = []
            size = 0
            while True:
                event = protocol.next_event()
                if event is h11.NEED_DATA:
                    incoming = await connection.reader.read(_READ)
                    if incoming:
                        received_any = True
                    elif not received_any and reused:
                        raise _StaleConnectionError("kept connection was closed by the server")
                    protocol.receive_data(incoming)
                    continue
                if isinstance(event, h11.Response):
                    status = event.status_code
                    reply_headers = {
                        name.decode("latin-1").lower(): value.decode("latin-1")
                        for name, value in event.headers
                    }
                elif isinstance(event, h11.Data):
                    size += len(event.data)
                    if size > self.max_body:
                        raise ReplyTooLargeError(status)
                    chunks.append(bytes(event.data))
                elif isinstance(event, h11.EndOfMessage):
                    break
                elif isinstance(event, h11.ConnectionClosed):
                    raise StreamError("connection closed in the middle of the reply")
            if protocol.our_state is h11.DONE and protocol.their_state is h11.DONE:
                protocol.start_next_cycle()
                keep = True
            return status, reply_headers, b"".join(chunks)
        except (ConnectionError, OSError) as exc:
            if reused and not received_any:
                raise _StaleConnectionError(str(exc)) from None
            raise StreamError(f"connection failed: {exc}") from None
        except (h11.RemoteProtocolError, h11.LocalProtocolError) as exc:
            raise StreamError(f"not a valid HTTP/1.1 reply: {exc}") from None
        finally:
            # Kept only after a whole exchange: a cancelled or failed one leaves the
            # connection in an unknown state.
            if keep:
                self._idle.append(connection)
            else:
                connection.close()


class _StaleConnectionError(Exception):
    """A kept connection turned out to be closed before the server answered anything."""
