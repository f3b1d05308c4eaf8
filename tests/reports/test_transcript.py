"""A run's transcript (`assay.transcript.transcript_of`): every message or step in order, with
its calls, turn and usage, and the failure; bounded, and never raising whatever the run holds."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _cli import assay, explain
from _examples import examples
from assay.formats.openai_chat import trajectory_from_openai_messages
from assay.records import Message, Step, ToolCall, Trajectory, Usage
from assay.schema.report import TranscriptCall, TranscriptEntry, validate
from assay.transcript import MAX_ENTRIES, MAX_TEXT_CHARS, MAX_VALUE_CHARS, transcript_of


def _call(name: str, call_id: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": orjson.dumps(arguments).decode()},
    }


OPENAI_CHAT = [
    {"role": "system", "content": "You are a maintenance assistant."},
    {"role": "user", "content": "How many work orders for CWC04009, corrective and preventive?"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            _call("get_work_orders", "c1", {"asset": "CWC04009", "kind": "corrective"}),
            _call("get_work_orders", "c2", {"asset": "CWC04009", "kind": "preventive"}),
        ],
        "usage": {"prompt_tokens": 120, "completion_tokens": 30},
    },
    {"role": "tool", "tool_call_id": "c1", "content": '{"count": 14}'},
    {"role": "tool", "tool_call_id": "c2", "content": '{"count": 27}'},
    {
        "role": "assistant",
        "content": '{"corrective": 14, "preventive": 27}',
        "usage": {"prompt_tokens": 200, "completion_tokens": 12},
    },
]


def _shape(entries: list[TranscriptEntry]) -> list[tuple[Any, ...]]:
    return [(e.role, e.text, e.call_id, e.turn, e.tokens_in, e.tokens_out) for e in entries]


def test_an_openai_conversation_is_every_message_in_order_with_calls_and_usage() -> None:
    entries, left_out = transcript_of(trajectory_from_openai_messages(OPENAI_CHAT))

    assert left_out == 0
    assert _shape(entries) == [
        ("system", "You are a maintenance assistant.", None, 0, None, None),
        ("user", OPENAI_CHAT[1]["content"], None, 0, None, None),
        ("assistant", None, None, 0, 120, 30),
        ("tool", '{"count": 14}', "c1", 0, None, None),
        ("tool", '{"count": 27}', "c2", 0, None, None),
        ("assistant", '{"corrective": 14, "preventive": 27}', None, 0, 200, 12),
    ]
    # The tool entries carry the results: the calls do not repeat them.
    assert entries[2].calls == [
        TranscriptCall(name="get_work_orders", id="c1",
                       args={"asset": "CWC04009", "kind": "corrective"}),
        TranscriptCall(name="get_work_orders", id="c2",
                       args={"asset": "CWC04009", "kind": "preventive"}),
    ]  # fmt: skip
    assert all(not entry.calls for entry in entries if entry is not entries[2])


def test_usage_goes_on_no_message_when_steps_and_assistant_messages_do_not_pair() -> None:
    run = trajectory_from_openai_messages(OPENAI_CHAT)
    run.steps.pop()  # one step fewer than assistant messages: which is which is unknown

    entries, _ = transcript_of(run)

    assert [e.role for e in entries] == ["system", "user", "assistant", "tool", "tool", "assistant"]
    assert all(e.tokens_in is None and e.tokens_out is None and e.node is None for e in entries)


def test_a_run_recorded_as_steps_is_its_question_steps_and_answer() -> None:
    run = Trajectory(
        question="Is P-7 running?",
        answer="Yes, P-7 is running.",
        steps=[
            Step(0, "checking", [ToolCall("status", {"asset": "P-7"}, "s1", {"state": "on"})],
                 Usage(50, 5), duration_ms=812.5, node="planner", turn=0),
            Step(1, "done", [], Usage(60, None), node="writer", turn=0),
        ],
    )  # fmt: skip

    entries, left_out = transcript_of(run)

    assert left_out == 0
    assert [(e.role, e.text, e.turn, e.node, e.tokens_in, e.tokens_out, e.duration_ms)
            for e in entries] == [
        ("user", "Is P-7 running?", 0, None, None, None, None),
        ("assistant", "checking", 0, "planner", 50, 5, 812.5),
        ("assistant", "done", 0, "writer", 60, None, None),
        ("assistant", "Yes, P-7 is running.", 0, None, None, None, None),
    ]  # fmt: skip
    # Without tool messages, the call carries its result.
    assert entries[1].calls == [
        TranscriptCall(name="status", id="s1", args={"asset": "P-7"}, result={"state": "on"})
    ]


def test_an_answer_the_last_step_said_is_not_said_twice() -> None:
    run = Trajectory(answer="done", steps=[Step(0, "looking"), Step(1, "done")])

    entries, _ = transcript_of(run)

    assert [(e.role, e.text) for e in entries] == [("assistant", "looking"), ("assistant", "done")]


def test_a_failed_run_ends_with_its_error_after_its_kind() -> None:
    run = Trajectory(
        question="q",
        steps=[Step(0, "thinking")],
        error="no reply within 30 s",
        error_kind="timeout",
    )

    entries, _ = transcript_of(run)

    assert [(e.role, e.text) for e in entries] == [
        ("user", "q"),
        ("assistant", "thinking"),
        ("error", "timeout: no reply within 30 s"),
    ]
    messages = Trajectory(messages=[Message("user", "q")], error="boom")
    assert transcript_of(messages)[0][-1] == TranscriptEntry(role="error", text="boom")


def test_each_user_message_starts_a_turn() -> None:
    run = Trajectory(
        messages=[
            Message("system", "be brief"),
            Message("user", "first"),
            Message("assistant", "one"),
            Message("user", "second"),
            Message("assistant", None, [ToolCall("look", None, "k")]),
            Message("tool", "seen", tool_call_id="k"),
            Message("assistant", "two"),
            Message("user", "third"),
            Message("assistant", "three"),
        ]
    )

    entries, _ = transcript_of(run)

    assert [(e.role, e.turn) for e in entries] == [
        ("system", 0),
        ("user", 0),
        ("assistant", 0),
        ("user", 1),
        ("assistant", 1),
        ("tool", 1),
        ("assistant", 1),
        ("user", 2),
        ("assistant", 2),
    ]


def test_a_call_no_tool_message_answers_carries_its_own_result() -> None:
    answered = ToolCall("search", {"q": "a"}, "a1", result="found a")
    unanswered = ToolCall("search", {"q": "b"}, "b1", result="found b")
    without_id = ToolCall("ping", None, None, result={"ok": True})
    run = Trajectory(
        messages=[
            Message("user", "look"),
            Message("assistant", None, [answered, unanswered, without_id]),
            Message("tool", None, tool_call_id="a1"),  # no content: the call's result is said
            Message("assistant", "found"),
        ]
    )

    entries, _ = transcript_of(run)

    assert [(c.id, c.result) for c in entries[1].calls] == [
        ("a1", None),
        ("b1", "found b"),
        (None, {"ok": True}),
    ]
    assert (entries[2].role, entries[2].call_id, entries[2].text) == ("tool", "a1", "found a")


def test_a_conversation_beside_steps_is_the_steps_with_the_user_messages_at_their_turns() -> None:
    # A live run: its conversation holds the user's messages and the replies; its steps the
    # calls (with their results), the nodes and the replies again.
    def looked(city: str, turn: int) -> Step:
        call = ToolCall("lookup", {"city": city}, None, {"capital": city == "Paris"})
        return Step(0, None, [call], node="agent", turn=turn)

    run = Trajectory(
        question="Paris",
        answer="Rome: no",
        messages=[
            Message("user", "Paris"),
            Message("assistant", "Paris: yes"),
            Message("user", "Rome"),
            Message("assistant", "Rome: no"),
            Message("user", "Oslo"),  # the agent failed before it answered
        ],
        steps=[
            looked("Paris", 0),
            Step(1, "Paris: yes", turn=0),
            looked("Rome", 1),
            Step(3, "Rome: no", turn=1),
        ],
        error="no reply",
        error_kind="agent_error",
    )

    entries, left_out = transcript_of(run)

    assert left_out == 0
    assert [(e.role, e.text, e.turn, [c.result for c in e.calls]) for e in entries] == [
        ("user", "Paris", 0, []),
        ("assistant", None, 0, [{"capital": True}]),
        ("assistant", "Paris: yes", 0, []),
        ("user", "Rome", 1, []),
        ("assistant", None, 1, [{"capital": False}]),
        ("assistant", "Rome: no", 1, []),
        ("user", "Oslo", 2, []),
        ("error", "agent_error: no reply", None, []),
    ]
    assert entries[1].node == "agent"


# --- hostile values ---------------------------------------------------------------------------


class _Odd:
    def __repr__(self) -> str:
        return "<Odd thing>"


def _encodes(entries: list[TranscriptEntry]) -> bytes:
    data = msgspec.json.encode(entries)
    orjson.loads(data)  # and reads back
    return data


def test_values_json_cannot_hold_become_text_and_never_raise() -> None:
    deep: list[Any] = []
    for _ in range(500):
        deep = [deep]
    cycle: dict[str, Any] = {"a": 1}
    cycle["self"] = cycle
    run = Trajectory(
        messages=[
            Message("user", "a\ud800b"),
            Message(
                "assistant",
                None,
                [
                    ToolCall("f", {"thing": _Odd()}, "o1", result={(1, 2): "tuple key"}),
                    ToolCall("g\udcff", {"n": 2**70, "s": "x\ud800"}, "o2", result=deep),
                    ToolCall("h", cycle, "o3"),
                ],
            ),
        ]
    )

    entries, _ = transcript_of(run)

    _encodes(entries)
    assert entries[0].text == "a\\ud800b"
    odd, big, cyclic = entries[1].calls
    assert cyclic.args == "{'a': 1, 'self': {...}}"
    assert odd.args == "{'thing': <Odd thing>}"
    assert odd.result == {"(1, 2)": "tuple key"}
    assert big.name == "g\\xff"
    assert big.args == {"n": "1180591620717411303424", "s": "x\\ud800"}
    # Nested deeper than a report holds: its JSON text.
    assert big.result == "[" * 501 + "]" * 501


def test_long_texts_and_values_are_cut_with_a_note() -> None:
    megabyte = "x" * 2**20
    run = Trajectory(
        question=megabyte,
        steps=[Step(0, megabyte, [ToolCall("f", {"blob": megabyte}, "c", result=megabyte)])],
        answer="ok",
    )

    entries, _ = transcript_of(run)

    data = _encodes(entries)
    assert len(data) < 3 * MAX_TEXT_CHARS + 2 * MAX_VALUE_CHARS + 1000
    note = f"… (cut, {2**20} chars)"
    assert entries[0].text == "x" * MAX_TEXT_CHARS + note
    assert entries[1].text == "x" * MAX_TEXT_CHARS + note
    (call,) = entries[1].calls
    assert call.result == "x" * MAX_VALUE_CHARS + note
    args_json = orjson.dumps({"blob": megabyte}).decode()
    assert call.args == f"{args_json[:MAX_VALUE_CHARS]}… (cut, {len(args_json)} chars)"


def test_ten_thousand_messages_keep_the_first_and_last_two_hundred() -> None:
    messages = [Message("user" if i % 2 == 0 else "assistant", f"m{i}") for i in range(10_000)]
    run = Trajectory(messages=messages, error="gave up", error_kind="agent_error")

    entries, left_out = transcript_of(run)

    assert len(entries) == MAX_ENTRIES and left_out == 10_001 - MAX_ENTRIES
    texts = [e.text for e in entries]
    assert texts[:2] == ["m0", "m1"] and texts[199] == "m199"
    assert texts[200] == "m9801" and texts[-2] == "m9999"
    assert entries[-1] == TranscriptEntry(role="error", text="agent_error: gave up")
    # Turns count every user message, those left out too.
    assert entries[-2].turn == 4999
    _encodes(entries)


def test_many_steps_keep_the_question_and_the_answer() -> None:
    run = Trajectory(
        question="q", answer="a", steps=[Step(i, f"s{i}") for i in range(1_000)]
    )

    entries, left_out = transcript_of(run)

    assert len(entries) == MAX_ENTRIES and left_out == 1_002 - MAX_ENTRIES
    assert [e.text for e in entries[:2]] == ["q", "s0"]
    assert [e.text for e in entries[-2:]] == ["s999", "a"]


# --- any trajectory ---------------------------------------------------------------------------

class _Str(str):
    """Text msgspec does not write as text (orjson does)."""


_TEXT = st.text(st.characters(codec=None), max_size=12)  # lone surrogates included
_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | _TEXT | st.builds(_Str, _TEXT),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TEXT, inner, max_size=3),
    max_leaves=10,
)
_IDS = st.none() | st.sampled_from(["c1", "c2", "c3"]) | _TEXT
_CALLS = st.builds(
    ToolCall,
    name=_TEXT,
    args=st.none() | _TEXT | st.dictionaries(_TEXT, _VALUES, max_size=3),
    call_id=_IDS,
    result=_VALUES | st.builds(_Odd),
)
_COUNTS = st.none() | st.integers(min_value=-5, max_value=10**6)
_STEPS = st.builds(
    Step,
    index=st.integers(0, 50),
    text=st.none() | _TEXT,
    tool_calls=st.lists(_CALLS, max_size=3),
    usage=st.builds(Usage, _COUNTS, _COUNTS),
    duration_ms=st.none() | st.floats() | st.integers() | st.just(10**400),
    node=st.none() | _TEXT,
    turn=st.none() | st.integers(-2, 20),
)
_MESSAGES = st.builds(
    Message,
    role=st.sampled_from(["system", "user", "assistant", "tool", "developer"]) | _TEXT,
    content=st.none() | _TEXT,
    tool_calls=st.lists(_CALLS, max_size=3),
    tool_call_id=_IDS,
)
_RUNS = st.builds(
    Trajectory,
    question=st.none() | _TEXT,
    answer=_VALUES,
    steps=st.lists(_STEPS, max_size=6),
    messages=st.lists(_MESSAGES, max_size=8),
    error=st.none() | _TEXT,
    error_kind=st.none() | st.sampled_from(["timeout", "agent_error"]),
)


@given(run=_RUNS)
@settings(max_examples=examples(400))
def test_any_trajectory_gives_a_bounded_transcript_that_encodes(run: Trajectory) -> None:
    entries, left_out = transcript_of(run)

    assert len(entries) <= MAX_ENTRIES and left_out >= 0
    data = _encodes(entries)
    for entry in msgspec.json.decode(data):
        validate(entry, TranscriptEntry)  # counts from 0, texts as text


# --- through the command ----------------------------------------------------------------------


@pytest.mark.slow  # the console script, in a new process
def test_evaluate_writes_each_runs_transcript_into_its_report_only(tmp_path: Path) -> None:
    run = {"run_id": "chat-1", "scenario_id": "11", "model": "gpt-4o", "messages": OPENAI_CHAT}
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "chat-1.json").write_bytes(orjson.dumps(run))
    scenarios = [{"id": "11", "text": "q", "expected_answer": "{'corrective': 14}"}]
    (tmp_path / "scenarios.json").write_bytes(orjson.dumps(scenarios))
    reports = tmp_path / "reports"

    proc = assay("evaluate", "--trajectories", tmp_path / "runs",
                 "--scenarios", tmp_path / "scenarios.json", "--reports-dir", reports, "-q",
                 cwd=tmp_path)  # fmt: skip

    assert proc.returncode in (0, 1), explain(proc)
    (line,) = [orjson.loads(raw) for raw in (reports / "results.jsonl").read_bytes().splitlines()]
    assert not {"transcript", "transcript_left_out"} & set(line)
    report = orjson.loads((reports / line["report_file"]).read_bytes())
    transcript = report["transcript"]
    assert [(e["role"], e.get("call_id"), e.get("tokens_in")) for e in transcript] == [
        ("system", None, None),
        ("user", None, None),
        ("assistant", None, 120),
        ("tool", "c1", None),
        ("tool", "c2", None),
        ("assistant", None, 200),
    ]
    assert [(c["name"], c["id"], c["args"]) for c in transcript[2]["calls"]] == [
        ("get_work_orders", "c1", {"asset": "CWC04009", "kind": "corrective"}),
        ("get_work_orders", "c2", {"asset": "CWC04009", "kind": "preventive"}),
    ]
    assert [e.get("text") for e in transcript[3:]] == [
        '{"count": 14}',
        '{"count": 27}',
        '{"corrective": 14, "preventive": 27}',
    ]
    assert "transcript_left_out" not in report
