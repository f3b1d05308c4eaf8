"""The client's one httpx connection pool: kept connections, a connection the server dropped,
proxies from the environment, the transport seam, compressed replies."""

from __future__ import annotations

import asyncio
import gzip
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest

from assay.models import ChatRequest, ModelHTTPError, OpenAICompatibleClient
from chat_server import ChatServer, Reply

HI = ({"role": "user", "content": "hi"},)
VERDICT = {
    "model": "m",
    "choices": [{"message": {"role": "assistant", "content": "ok"}}],
    "usage": {"prompt_tokens": 1, "completion_tokens": 1},
}
BODY = json.dumps(VERDICT).encode()


async def no_wait(seconds: float) -> None:
    pass


@asynccontextmanager
async def keep_alive_server(
    close_after_each: bool = False, delay: float = 0.0
) -> AsyncIterator[dict[str, int]]:
    """A raw HTTP/1.1 server that keeps connections open, or closes each one right after its
    reply without saying so (as a server whose idle timeout has passed does). It counts the
    connections opened and closed and the requests answered."""
    seen = {"connections": 0, "closed": 0, "requests": 0}

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
                await asyncio.sleep(delay)
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
            seen["closed"] += 1
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    seen["port"] = server.sockets[0].getsockname()[1]
    async with server:
        yield seen


def ask(client: OpenAICompatibleClient, model: str = "local/m") -> Any:
    return client.complete(ChatRequest(model=model, messages=HI))


def test_connections_are_kept_reused_and_closed_with_the_client() -> None:
    async def run() -> tuple[dict[str, int], dict[str, int]]:
        async with keep_alive_server() as seen:
            client = OpenAICompatibleClient(f"http://127.0.0.1:{seen['port']}/v1")
            for _ in range(5):
                assert (await ask(client)).text == "ok"
            before = dict(seen)
            await client.aclose()
            await asyncio.sleep(0.05)  # let the server see the close
            return before, seen

    before, after = asyncio.run(run())
    assert (before["requests"], before["connections"], before["closed"]) == (5, 1, 0)
    assert after["closed"] == 1


def test_as_many_connections_are_kept_as_calls_may_be_open() -> None:
    async def run() -> dict[str, int]:
        async with keep_alive_server(delay=0.05) as seen:
            async with OpenAICompatibleClient(
                f"http://127.0.0.1:{seen['port']}/v1", max_concurrency=4
            ) as client:
                for _ in range(3):
                    await asyncio.gather(*(ask(client) for _ in range(8)))
            return seen

    seen = asyncio.run(run())
    # Four calls at a time over four connections, opened once and used for all 24 calls.
    assert (seen["requests"], seen["connections"]) == (24, 4)


def test_a_client_of_two_models_keeps_its_connections_too() -> None:
    async def run() -> dict[str, int]:
        async with keep_alive_server(delay=0.02) as seen:
            async with OpenAICompatibleClient(
                f"http://127.0.0.1:{seen['port']}/v1", max_concurrency=3
            ) as client:
                await asyncio.gather(*(ask(client, m) for m in ("local/a", "local/b") * 30))
            return seen

    seen = asyncio.run(run())
    # Three calls at a time per model: six connections, not a new one for most calls.
    assert (seen["requests"], seen["connections"]) == (60, 6)


def test_a_kept_connection_the_server_dropped_is_replaced_without_a_retry() -> None:
    async def run() -> tuple[dict[str, int], list[int]]:
        async with keep_alive_server(close_after_each=True) as seen:
            client = OpenAICompatibleClient(f"http://127.0.0.1:{seen['port']}/v1")
            attempts = []
            for _ in range(3):
                await asyncio.sleep(0.05)  # let the server's close arrive
                attempts.append((await ask(client)).attempts)
            await client.aclose()
            return seen, attempts

    seen, attempts = asyncio.run(run())
    assert seen["requests"] == 3 and seen["connections"] == 3
    assert attempts == [1, 1, 1]  # the dropped connection cost no attempt of the call


def test_a_proxy_named_in_the_environment_is_used(
    chat_server: ChatServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The chat server stands in for the proxy: it records the absolute URL a proxy is sent,
    # and answers 404 since that is not its own path.
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{chat_server.port}")
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)

    async def run() -> None:
        async with OpenAICompatibleClient("http://judge.invalid/v1", sleep=no_wait) as client:
            await ask(client)

    with pytest.raises(ModelHTTPError, match="HTTP 404"):
        asyncio.run(run())
    [sent] = chat_server.requests
    assert sent.path == "http://judge.invalid/v1/chat/completions"


def test_no_proxy_bypasses_the_proxy(
    chat_server: ChatServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")  # nothing listens there
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    chat_server.enqueue(Reply.ok("fine"))

    async def run() -> str:
        async with OpenAICompatibleClient(chat_server.base_url) as client:
            return str((await ask(client)).text)

    assert asyncio.run(run()) == "fine"


def test_an_httpx_transport_replaces_the_network() -> None:
    seen: list[httpx.Request] = []
    replies = iter(
        [
            httpx.Response(429, headers={"Retry-After": "2"}, json={"error": "slow down"}),
            httpx.Response(200, json=VERDICT),
        ]
    )

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return next(replies)

    waits: list[float] = []

    async def record(seconds: float) -> None:
        waits.append(seconds)

    async def run() -> Any:
        async with OpenAICompatibleClient(
            "https://judge.invalid/v1",
            api_key="sk-x",
            sleep=record,
            transport=httpx.MockTransport(handler),
        ) as client:
            return await ask(client)

    reply = asyncio.run(run())
    assert (reply.text, reply.attempts, waits) == ("ok", 2, [2.0])
    assert [str(r.url) for r in seen] == ["https://judge.invalid/v1/chat/completions"] * 2
    assert seen[0].headers["authorization"] == "Bearer sk-x"
    assert json.loads(seen[0].content)["model"] == "m"


def test_a_compressed_reply_is_decoded(chat_server: ChatServer) -> None:
    body = gzip.compress(json.dumps(VERDICT).encode())
    chat_server.enqueue(Reply(body=body, headers={"Content-Encoding": "gzip"}))

    async def run() -> str:
        async with OpenAICompatibleClient(chat_server.base_url) as client:
            return str((await ask(client)).text)

    assert asyncio.run(run()) == "ok"
