"""A corpus of hostile agents, eval sets and model-server modes for `assay run`, generated at
test time.

Each input is an agent (a function of the generated `agents.py`, or a `ToolAgent` talking to
a local model server in a given mode), an eval set, the command's options, and what must come
of each case: `passed`, an error kind (`agent_error`, `timeout`, `infrastructure_error`), or
`not_passed` (failed or unscored: anything but a pass). Every eval set holds a sound case
beside the hostile one, which must pass: one case cannot stop the others.

To write the corpus for trials by hand (the model-server inputs need a server at the URL in
`ASSAY_TEST_SERVER`):

    python tests/hostile/live_corpus.py /tmp/live-hostile     # then, for one input:
    cd /tmp/live-hostile/raises_cancelled && assay run agents.py:agent cases.jsonl --timeout 1

Example:
    >>> import tempfile
    >>> root = Path(tempfile.mkdtemp())
    >>> sorted(write_input(root, INPUTS["raises_cancelled"]).iterdir())[0].name
    'agents.py'
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SOUND = {"eval_id": "sound", "user_query": "say yes", "expected_response": "yes"}
"""The case every input holds beside its hostile ones: it must pass."""

ESCAPES = "\x1b[2J\x1b]0;title\x07\r\x00\u202e\x9b31m\x08"
"""Terminal escapes and controls that must never reach the terminal raw."""

PRELUDE = '''
import asyncio, os, sys, threading, time
from concurrent.futures import ThreadPoolExecutor
from assay.evaluation import tool

ESCAPES = {escapes!r}


class Unshowable:
    def __str__(self):
        raise RuntimeError("no str")

    def __repr__(self):
        raise RuntimeError("no repr")


class OwnInterrupt(BaseException):
    pass


@tool
def lookup(key: str):
    return {{"key": key, "value": 1}}


def hostile(text):
    return "bad" in text


async def answer(messages):
    await asyncio.sleep(0.01)
    return "yes"
'''


@dataclass(frozen=True)
class LiveInput:
    """One hostile input: the agent's body, the eval set, options, and the expected outcome
    of each case by id."""

    body: str
    """The `agent` function (and what it needs), appended to `PRELUDE`."""
    expect: dict[str, str]
    """Case id -> `passed`, an error kind, or `not_passed`; the sound case passes."""
    cases: list[dict[str, Any]] = field(default_factory=list)
    """The hostile cases (default: one, `bad`, asking "bad")."""
    args: tuple[str, ...] = ("--timeout", "1")
    server_mode: str | None = None
    """A model-server mode (see `test_live_corpus.MODES`) for a `ToolAgent` input."""


def _raising(expression: str) -> str:
    return f'''
async def agent(messages):
    if hostile(messages[-1]["content"]):
        raise {expression}
    return await answer(messages)
'''


BAD = {"eval_id": "bad", "user_query": "bad", "expected_response": "yes"}
SERVER_ARGS = ("--timeout", "1", "--retries", "0")

INPUTS: dict[str, LiveInput] = {
    "raises_cancelled": LiveInput(_raising("asyncio.CancelledError()"), {"bad": "agent_error"}),
    "raises_keyboard_interrupt": LiveInput(_raising("KeyboardInterrupt"), {"bad": "agent_error"}),
    "raises_generator_exit": LiveInput(_raising("GeneratorExit"), {"bad": "agent_error"}),
    "raises_system_exit": LiveInput(_raising("SystemExit(1)"), {"bad": "agent_error"}),
    "raises_own_base_exception": LiveInput(_raising("OwnInterrupt()"), {"bad": "agent_error"}),
    "raises_unprintable": LiveInput(
        _raising("type('Odd', (Exception,), {'__str__': lambda self: 1 / 0})()"),
        {"bad": "agent_error"},
    ),
    "raises_with_escapes": LiveInput(_raising("ValueError(ESCAPES)"), {"bad": "agent_error"}),
    "answers_after_its_deadline": LiveInput(
        '''
async def agent(messages):
    if hostile(messages[-1]["content"]):
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            await asyncio.sleep(1.5)
        return "yes"
    return await answer(messages)
''',
        {"bad": "timeout"},
    ),
    "refuses_to_stop": LiveInput(
        '''
async def agent(messages):
    if hostile(messages[-1]["content"]):
        end = time.monotonic() + 60
        while time.monotonic() < end:
            try:
                await asyncio.sleep(0.05)
            except BaseException:
                continue
        return "yes"
    return await answer(messages)
''',
        {"bad": "timeout"},
    ),
    "blocks_the_event_loop": LiveInput(
        '''
async def agent(messages):
    if hostile(messages[-1]["content"]):
        time.sleep(60)
    return await answer(messages)
''',
        {"bad": "timeout"},
    ),
    "sync_agent_hangs": LiveInput(
        '''
def agent(messages):
    if hostile(messages[-1]["content"]):
        time.sleep(60)
    return "yes"
''',
        {"bad": "timeout"},
    ),
    "huge_reply": LiveInput(
        '''
def agent(messages):
    return "yes " * 600_000 if hostile(messages[-1]["content"]) else "yes"
''',
        {"bad": "agent_error"},
    ),
    "huge_tool_result": LiveInput(
        '''
@tool
def fetch(page: str):
    return "x" * 11_000_000


def agent(messages):
    if hostile(messages[-1]["content"]):
        fetch("all")
    return "yes"
''',
        {"bad": "agent_error"},
    ),
    "unshowable_tool_result": LiveInput(
        '''
@tool
def odd(key: str):
    return Unshowable()


def agent(messages):
    if hostile(messages[-1]["content"]):
        odd("k")
    return "yes"
''',
        {"bad": "passed"},
    ),
    "no_reply": LiveInput(
        '''
def agent(messages):
    return {"content": None} if hostile(messages[-1]["content"]) else "yes"
''',
        {"bad": "agent_error"},
    ),
    "empty_reply_dict": LiveInput(
        '''
def agent(messages):
    return {} if hostile(messages[-1]["content"]) else "yes"
''',
        {"bad": "agent_error"},
    ),
    "reply_not_text": LiveInput(
        '''
def agent(messages):
    return 42 if hostile(messages[-1]["content"]) else "yes"
''',
        {"bad": "agent_error"},
    ),
    "reply_with_escapes": LiveInput(
        '''
def agent(messages):
    return ESCAPES if hostile(messages[-1]["content"]) else "yes"
''',
        {"bad": "not_passed"},
    ),
    "catastrophic_pattern": LiveInput(
        """
async def agent(messages):
    return messages[-1]["content"]
""",
        {"bad": "not_passed"},
        cases=[{"eval_id": "bad", "user_query": "a" * 40 + "!", "expected_response": "(a|aa)+$"}],
        args=("--timeout", "1", "--config", "regex.json"),
    ),
    "ids_with_escapes_and_hashes": LiveInput(
        "agent = answer\n",
        {f"a#1{ESCAPES}": "passed", "a": "passed", "a#1": "passed"},
        cases=[{"eval_id": i, "user_query": "q", "expected_response": "yes"}
               for i in (f"a#1{ESCAPES}", "a", "a#1")],
        args=("--timeout", "1", "--repeat", "2"),
    ),
    **{
        f"server_{mode}": LiveInput("", {"bad": kind}, args=SERVER_ARGS, server_mode=mode)
        for mode, kind in (
            ("error", "infrastructure_error"),
            ("garbage", "not_passed"),
            ("null", "agent_error"),
            ("hang", "timeout"),
            ("huge", "agent_error"),
            ("escapes", "not_passed"),
        )
    },
}

SERVER_AGENT = '''
from assay.evaluation import ToolAgent
from assay.models import OpenAICompatibleClient

_model = ToolAgent(
    "local/m", [lookup],
    client=OpenAICompatibleClient(os.environ["ASSAY_TEST_SERVER"], max_retries=0),
)


async def agent(messages):
    if hostile(messages[-1]["content"]):
        return await _model.respond(messages, {})
    return await answer(messages)
'''

REGEX_CONFIG = {
    "criteria": {"response": {"scorer_name": "response_match", "options": {"mode": "regex"}}}
}


def write_input(root: Path, item: LiveInput) -> Path:
    """Write one input into a folder of its own under `root` (named after it); return it."""
    name = next(key for key, value in INPUTS.items() if value is item)
    folder = root / name
    folder.mkdir(parents=True)
    body = SERVER_AGENT if item.server_mode is not None else item.body
    (folder / "agents.py").write_text(PRELUDE.format(escapes=ESCAPES) + body)
    cases = [SOUND, *(item.cases or [BAD])]
    (folder / "cases.jsonl").write_text("".join(json.dumps(c) + "\n" for c in cases))
    (folder / "regex.json").write_text(json.dumps(REGEX_CONFIG))
    return folder


if __name__ == "__main__":
    target = Path(sys.argv[1] if len(sys.argv) > 1 else "live-hostile")
    for each in INPUTS.values():
        write_input(target, each)
    print(f"{len(INPUTS)} inputs under {target}")
