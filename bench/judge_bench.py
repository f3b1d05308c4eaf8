"""Benchmark judge calls: throughput against a server with a realistic latency, and a fully
cached re-run.

Usage:
    python bench/judge_bench.py [--quick] [--calls 1000] [--latency 1.0] [--concurrency 64]
                                [--write]

A chat-completions server runs in its own process on 127.0.0.1 (so that its work does not
share a CPU lock with the client) and answers every request after `--latency` seconds, about
what a hosted model takes for a short verdict, with a valid verdict; it counts the requests it
answers. In this process, `llm_judge` (the real scorer, with the real HTTP client and the real
SQLite cache in a fresh temporary directory) judges `--calls` different runs, all started at
once and held to `--concurrency` open calls by the client. Then the same runs are judged again:
every verdict must come from the cache, with no request reaching the server. `--quick` judges
256 runs instead of 1,000 (four rounds of 64), a check that everything works rather than a
measure: its ratio is shown but not held to the target.

Measured for each pass: the wall time, and the CPU time of this process (all its threads, the
cache's included; not the server's) per call. Targets: the first pass within 1.05x of the ideal
(ceil(calls / concurrency) rounds of `--latency` seconds each); the cached pass under 1 s with
0 requests sent. The figures are printed as a Markdown table; `--write` appends them as one
JSON line to bench/results/judges.jsonl (see record.py). Exit status: 0 targets met, 1 a
target missed, 2 the measurement failed (for example a verdict that did not come back).
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import record

BENCH = Path(__file__).resolve().parent
TARGET_RATIO = 1.05
TARGET_CACHED_S = 1.0
QUICK_CALLS = 256

SERVER = r"""
import asyncio, json, sys

DELAY = float(sys.argv[1])
BODY = json.dumps({
    "id": "x", "object": "chat.completion", "model": "bench-judge",
    "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant",
        "content": json.dumps({"score": 1.0, "passed": True, "rationale": "fine"})}}],
    "usage": {"prompt_tokens": 300, "completion_tokens": 20},
}).encode()
served = 0

async def handle(reader, writer):
    global served
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            length = 0
            for line in head.split(b"\r\n"):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":", 1)[1])
            await reader.readexactly(length)
            await asyncio.sleep(DELAY)
            served += 1
            writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
                         b"content-length: " + str(len(BODY)).encode() + b"\r\n\r\n" + BODY)
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError):
        pass
    finally:
        writer.close()

async def main():
    server = await asyncio.start_server(handle, "127.0.0.1", 0, backlog=512)
    print(server.sockets[0].getsockname()[1], flush=True)
    # Each line on stdin asks how many requests have been answered so far.
    loop = asyncio.get_running_loop()
    loop.run_in_executor(None, lambda: [print(served, flush=True) for _ in sys.stdin])
    async with server:
        await server.serve_forever()

asyncio.run(main())
"""


class Server:
    """The slow chat-completions server, in a child process."""

    def __init__(self, latency: float) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", SERVER, str(latency)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        self.port = int(self.proc.stdout.readline())

    def served(self) -> int:
        """Requests answered so far."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write("\n")
        self.proc.stdin.flush()
        return int(self.proc.stdout.readline())

    def stop(self) -> None:
        self.proc.kill()
        self.proc.wait()


async def judge_all(calls: int, base_url: str, cache_dir: str, concurrency: int) -> list[object]:
    """Judge `calls` different runs at once with the real llm_judge; return their scores."""
    from assay.records import Case, Trajectory
    from assay.scorers.judges import llm_judge

    judge = llm_judge(
        model="local/bench-judge",
        client_options={
            "base_url": base_url,
            "cache_dir": cache_dir,
            "max_concurrency": concurrency,
        },
    )
    case = Case(id="1", question="How many pumps failed?", expected_answer="3")
    try:
        scores = await asyncio.gather(
            *(judge.score_async(case, Trajectory(answer=f"answer {i}")) for i in range(calls))
        )
    finally:
        await judge.aclose()
    return list(scores)


def timed(
    calls: int, base_url: str, cache_dir: str, concurrency: int
) -> tuple[float, float, int, int]:
    """(wall seconds, CPU seconds of this process, verdicts scored, verdicts from the cache)
    of one pass."""
    cpu = time.process_time()
    start = time.perf_counter()
    scores = asyncio.run(judge_all(calls, base_url, cache_dir, concurrency))
    seconds = time.perf_counter() - start
    cpu = time.process_time() - cpu
    scored = sum(1 for s in scores if getattr(s, "passed", None) is True)
    cached = sum(
        1 for s in scores if getattr(s, "details", {}).get("judge", {}).get("cached_calls") == 1
    )
    return seconds, cpu, scored, cached


def git_commit() -> str:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=BENCH, capture_output=True, text=True
        )
    except OSError:
        return "unknown"
    return out.stdout.strip() or "unknown"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--latency", type=float, default=1.0, help="server reply delay (s)")
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument(
        "--quick", action="store_true", help=f"judge {QUICK_CALLS} runs instead of --calls"
    )
    parser.add_argument(
        "--write", action="store_true", help="append the figures to bench/results/judges.jsonl"
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.calls = QUICK_CALLS

    # Import the client stack first: the clock measures judging, not module loading. httpx
    # loads httpcore, and anyio its asyncio backend, only when the first request is made.
    import anyio._backends._asyncio  # noqa: F401
    import httpcore  # noqa: F401

    import assay.models.cache
    import assay.models.config
    import assay.models.openai_compat
    import assay.scorers._judge_client
    import assay.scorers.judges  # noqa: F401

    server = Server(args.latency)
    base_url = f"http://127.0.0.1:{server.port}/v1"
    try:
        with tempfile.TemporaryDirectory() as cache_dir:
            first_s, first_cpu, first_ok, first_cached = timed(
                args.calls, base_url, cache_dir, args.concurrency
            )
            served_after_first = server.served()
            again_s, again_cpu, again_ok, again_cached = timed(
                args.calls, base_url, cache_dir, args.concurrency
            )
            served_after_again = server.served()
    finally:
        server.stop()

    rounds = math.ceil(args.calls / args.concurrency)
    ideal = rounds * args.latency
    ratio = first_s / ideal
    sent_again = served_after_again - served_after_first
    problems = []
    if first_ok != args.calls or again_ok != args.calls:
        problems.append(f"verdicts: {first_ok} and {again_ok} of {args.calls} passed as expected")
    if first_cached or served_after_first != args.calls:
        problems.append(f"first pass: {served_after_first} requests served, {first_cached} cached")
    if again_cached != args.calls or sent_again:
        problems.append(
            f"cached pass: {again_cached} from the cache, {sent_again} requests reached the server"
        )
    cached_ok = again_s < TARGET_CACHED_S and sent_again == 0
    rows = [
        (
            f"ideal: ceil({args.calls:,} / {args.concurrency}) x {args.latency:g} s",
            f"{ideal:.3f} s",
            "—",
            "info",
        ),
        (
            f"{args.calls:,} judge calls, {args.latency:g} s each, {args.concurrency} at a time",
            f"{first_s:.3f} s = {ratio:.3f}x ideal",
            f"≤ {TARGET_RATIO}x",
            # The start and the first round cost about the same however many rounds follow,
            # so four rounds cannot be held to the target of sixteen.
            "info (--quick)" if args.quick else "PASS" if ratio <= TARGET_RATIO else "MISS",
        ),
        (
            "CPU time of this process per call",
            f"{first_cpu * 1000 / args.calls:.2f} ms ({first_cpu:.2f} s)",
            "—",
            "info",
        ),
        (
            "the same again, every verdict from the cache",
            f"{again_s:.3f} s, {sent_again} requests sent; "
            f"CPU {again_cpu * 1000 / args.calls:.2f} ms a call",
            f"< {TARGET_CACHED_S:.0f} s, 0 sent",
            "PASS" if cached_ok else "MISS",
        ),
    ]
    header = (
        f"commit {git_commit()}, Python {platform.python_version()}, {platform.system()} "
        f"{platform.machine()}, {os.cpu_count()} CPUs"
    )
    table = "\n".join(
        ["| Measure | Result | Target | Status |", "|---|---|---|---|"]
        + [f"| {a} | {b} | {c} | {d} |" for a, b, c, d in rows]
    )
    print(header)
    print(table)
    for problem in problems:
        print(f"ERROR: {problem}")
    if args.write:
        path = record.append(
            "judges",
            {
                "environment": header,
                "calls": args.calls,
                "latency_s": args.latency,
                "concurrency": args.concurrency,
                "figures": record.figures(rows),
            },
        )
        print(f"appended to {path}")
    if problems:
        return 2
    return 0 if (args.quick or ratio <= TARGET_RATIO) and cached_ok else 1


if __name__ == "__main__":
    sys.exit(main())
