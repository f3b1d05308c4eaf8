"""The client's lean HTTP path: kept connections, a server that drops them, the proxy fallback."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest

from assay.models import ChatRequest, OpenAICompatibleClient
from chat_server import ChatServer, Reply

HI = ({"role": "user", "content": "hi"},)
BODY = json.dumps(
    {
        "model": "m",
        "choices": [{"message": {"role": "assistant", "content": "ok"}}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1},
    }
).encode()


@asynccontextmanager
async def keep_alive_server(close_after_each: bool) -> AsyncIterator[dict[str, int]]:
    """A raw HTTP/1.1 server that keeps connections open, or closes each one right after its
    reply without saying so (as a server whose idle timeout has passed does)."""
    seen = {"connections": 0, "requests": 0}

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        seen["connections"] += 1
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = next(
                    int(line.split(b":", 1)[1])
                    for line in head.split(b"\r\n")
                    if line.lower().startswith(b"content-length:")
                )
                await reader.readexactly(length)
                seen["requests"] += 1
                writer.write(
                    b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: "
                    + str(len(BODY)).encode()
                    + b"\r\n\r\n"
                    + BODY
                )
                await writer.drain()
                if close_after_each:
                    break
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    seen["port"] = server.sockets[0].getsockname()[1]
    async with server:
        yield seen


def test_connections_are_kept_and_reused() -> None:
    async def run() -> dict[str, int]:
        async with keep_alive_server(close_after_each=False) as seen:
            client = OpenAICompatibleClient(f"http://127.0.0.1:{seen['port']}/v1")
            for _ in range(5):
                reply = await client.complete(ChatRequest(model="local/m", messages=HI))
                assert reply.text == "ok"
            await client.aclose()
            return seen

    seen = asyncio.run(run())
    assert (seen["requests"], seen["connections"]) == (5, 1)


def test_a_kept_connection_the_server_dropped_is_replaced_without_a_retry() -> None:
    async def run() -> tuple[dict[str, int], list[int]]:
        async with keep_alive_server(close_after_each=True) as seen:
            client = OpenAICompatibleClient(f"http://127.0.0.1:{seen['port']}/v1")
            attempts = []
            for _ in range(3):
                await asyncio.sleep(0.05)  # let the server's close arrive
                reply = await client.complete(ChatRequest(model="local/m", messages=HI))
                attempts.append(reply.attempts)
            await client.aclose()
            return seen, attempts

    seen, attempts = asyncio.run(run())
    assert seen["requests"] == 3 and seen["connections"] == 3
    assert attempts == [1, 1, 1]  # the dropped connection cost no attempt of the call


def test_with_a_proxy_in_the_environment_requests_go_through_httpx(
    chat_server: ChatServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")  # nothing listens there
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")  # and httpx knows to bypass it here
    chat_server.enqueue(Reply.ok("fine"))

    async def run() -> str:
        async with OpenAICompatibleClient(chat_server.base_url) as client:
            assert client._lean_ok is False
            return (await client.complete(ChatRequest(model="local/m", messages=HI))).text

    assert asyncio.run(run()) == "fine"
