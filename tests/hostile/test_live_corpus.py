"""The live hostile corpus through the real `assay run`: for every input, the cases run are
the cases reported, no failure is a pass, the process ends within its bound, nothing is
written outside the reports directory, and the terminal gets no raw control character."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from live_corpus import ESCAPES, INPUTS, LiveInput, write_input
from verify import changed, snapshot, strict_control_problems

from chat_server import ChatServer, Reply

pytestmark = pytest.mark.slow

BOUND_S = 60
"""Seconds any one input may take, all cases included: a guard against a hang (each runs
in a few seconds), not a speed check."""


def _mode_reply(mode: str) -> Reply:
    return {
        "error": Reply.error(500),
        "garbage": Reply.raw(b"\x00not json" + ESCAPES.encode()),
        "null": Reply.json({"choices": [{"message": {"role": "assistant", "content": None}}]}),
        "hang": Reply.ok("yes").after(20),
        "huge": Reply.ok("yes " * 600_000),
        "escapes": Reply.ok(ESCAPES),
    }[mode]


@pytest.fixture
def server(chat_server: ChatServer) -> Iterator[ChatServer]:
    yield chat_server


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _repeat(args: tuple[str, ...]) -> int:
    return int(args[args.index("--repeat") + 1]) if "--repeat" in args else 1


@pytest.mark.parametrize("name", sorted(INPUTS))
def test_a_hostile_input_stays_its_own_case(
    name: str, tmp_path: Path, server: ChatServer
) -> None:
    item: LiveInput = INPUTS[name]
    folder = write_input(tmp_path, item)
    if item.server_mode is not None:
        mode = item.server_mode
        server.handler = lambda request: _mode_reply(mode)
    before = snapshot(folder, folder / "out")
    started = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "assay", "run", "agents.py:agent", "cases.jsonl",
         "--concurrency", "2", "--no-progress", "--reports-dir", "out", *item.args],
        cwd=folder, capture_output=True, timeout=BOUND_S, check=False,
        env={**os.environ, "ASSAY_TEST_SERVER": server.base_url, "COLUMNS": "120",
             "NO_COLOR": "1"},
        stdin=subprocess.DEVNULL,
    )
    took = time.monotonic() - started
    explain = f"{name}: exit {proc.returncode} after {took:.1f} s\n{proc.stderr.decode()[-3000:]}"
    assert proc.returncode in (0, 1), explain
    assert b"Traceback" not in proc.stderr, explain
    assert strict_control_problems(proc.stdout + proc.stderr) == [], explain
    assert changed(before, snapshot(folder, folder / "out")) == [], explain

    out = folder / "out"
    results = _lines(out / "results.jsonl")
    cases = _lines(folder / "cases.jsonl")
    repeat = _repeat(item.args)
    # The cases run are the cases reported: each (case, repetition) once.
    keys = sorted((line["scenario_id"], line.get("repeat") or 1) for line in results)
    assert keys == sorted((c["eval_id"], k) for c in cases for k in range(1, repeat + 1))
    aggregate = json.loads((out / "_aggregate.json").read_text())
    assert aggregate["totals"]["runs_read"] == len(results) and not aggregate["interrupted"]
    # No failure is a pass; each case is what it must be.
    expected = {"sound": "passed", **item.expect}
    for line in results:
        want, score = expected[line["scenario_id"]], line["score"]
        where = f"{name}: {line['scenario_id']!r}: {score['rationale'][:300]}"
        if want == "passed":
            assert score["passed"] is True, where
        elif want == "not_passed":
            assert score["passed"] is not True, where
        else:
            assert score["passed"] is None and score["details"].get("reason") == want, where
