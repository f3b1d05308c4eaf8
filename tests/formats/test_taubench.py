"""tau-bench and tau2-bench results: small files written here in the benchmarks' shapes (as
tau-bench's `run.py` saves `EnvRunResult`s, from its tool-calling and ReAct agents, and as
tau2-bench saves `Results` and, in its dir format, one `SimulationRun` per file), and the
ones that are not right."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import assay.formats.taubench  # noqa: F401  (registers the readers)
from _examples import examples
from assay.formats.registry import detect_reader, get_reader, read_file
from assay.formats.taubench import _tau2_runs, _taubench_runs
from assay.records import Trajectory

SAMPLES = Path(__file__).parent / "samples"

# --- tau-bench -------------------------------------------------------------------------------


def _reward_info(reward: float) -> dict[str, Any]:
    return {
        "reward": reward,
        "info": {"r_actions": reward, "gt_data_hash": "ea1402bc4f27"},
        "actions": [{"name": "cancel_pending_order",
                     "kwargs": {"order_id": "#W2", "reason": "no longer needed"}}],
    }


def _env_info(reward: float | None) -> dict[str, Any]:
    return {
        "task": {"user_id": "yusuf_rossi_9620", "actions": [], "instruction": "Cancel #W2.",
                 "outputs": []},
        "source": "user",
        "user_cost": 0.0035,
        "reward_info": None if reward is None else _reward_info(reward),
    }


def _traj(order: str) -> list[dict[str, Any]]:
    """A tool-calling agent's conversation, as litellm's `model_dump()` writes messages."""
    return [
        {"role": "system", "content": "# Retail agent policy ..."},
        {"role": "user", "content": f"Hi, I want to cancel order {order}."},
        {"content": None, "role": "assistant", "function_call": None, "tool_calls": [
            {"function": {"arguments": json.dumps({"order_id": order}),
                          "name": "get_order_details"},
             "id": "call_1", "type": "function"}]},
        {"role": "tool", "tool_call_id": "call_1", "name": "get_order_details",
         "content": json.dumps({"order_id": order, "status": "pending"})},
        {"content": f"Order {order} is pending. Shall I cancel it?", "role": "assistant",
         "function_call": None, "tool_calls": None},
        {"role": "user", "content": "Yes, please."},
        {"content": None, "role": "assistant", "function_call": None, "tool_calls": [
            {"function": {"arguments": json.dumps({"order_id": order,
                                                   "reason": "no longer needed"}),
                          "name": "cancel_pending_order"},
             "id": "call_2", "type": "function"}]},
        {"role": "tool", "tool_call_id": "call_2", "name": "cancel_pending_order",
         "content": json.dumps({"order_id": order, "status": "cancelled"})},
        {"content": f"Done: order {order} is cancelled.", "role": "assistant",
         "function_call": None, "tool_calls": None},
        {"role": "user", "content": "Thanks! ###STOP###"},
    ]


def _result(task_id: int, trial: int, reward: float) -> dict[str, Any]:
    return {"task_id": task_id, "reward": reward, "info": _env_info(reward),
            "traj": _traj("#W2" if reward else "#W9"), "trial": trial}


def _write(path: Path, value: Any) -> Path:
    path.write_text(json.dumps(value, indent=2))
    return path


def _runs(path: Path, fmt: str | None = None) -> list[Trajectory]:
    found = list(read_file(path, fmt))
    assert all(isinstance(item, Trajectory) for item in found), found
    return [item for item in found if isinstance(item, Trajectory)]


def _problem(path: Path, fmt: str | None = None) -> str:
    (problem,) = read_file(path, fmt)
    assert not isinstance(problem, Trajectory), problem
    return problem.reason


def test_a_tau_bench_results_file_is_a_run_per_task_and_trial(tmp_path: Path) -> None:
    results = [_result(5, 0, 1.0), _result(7, 0, 0.0), _result(5, 1, 1.0), _result(7, 1, 0.0)]
    path = _write(tmp_path / "tool-calling-gpt-4o-0.0_range_0-10_user-gpt-4o-llm.json", results)
    assert detect_reader(path) == "taubench"
    runs = _runs(path)
    assert [(r.run_id, r.scenario_id, r.repeat) for r in runs] == [
        ("5#0", "5", 1), ("7#0", "7", 1), ("5#1", "5", 2), ("7#1", "7", 2)]
    run = runs[0]
    assert run.source.endswith(".json#0")
    assert run.question == "Hi, I want to cancel order #W2."
    assert run.answer == "Done: order #W2 is cancelled."
    assert [(c.name, c.args, c.call_id) for c in run.tool_calls()] == [
        ("get_order_details", {"order_id": "#W2"}, "call_1"),
        ("cancel_pending_order", {"order_id": "#W2", "reason": "no longer needed"}, "call_2")]
    assert json.loads(run.tool_calls()[1].result)["status"] == "cancelled"
    assert [(s.turn, len(s.tool_calls)) for s in run.steps] == [(0, 1), (0, 0), (1, 1), (1, 0)]
    assert [m.role for m in run.messages][:4] == ["system", "user", "assistant", "tool"]
    assert run.model is None and run.error is None
    assert run.source_verdicts == {"reward": 1.0, "reward_info": _reward_info(1.0)}
    assert runs[1].source_verdicts is not None and runs[1].source_verdicts["reward"] == 0.0


def test_one_trial_is_no_repetition_and_one_result_alone_is_read(tmp_path: Path) -> None:
    runs = _runs(_write(tmp_path / "r.json", [_result(5, 0, 1.0), _result(7, 0, 0.0)]))
    assert [(r.run_id, r.repeat) for r in runs] == [("5#0", None), ("7#0", None)]
    (run,) = _runs(_write(tmp_path / "one.json", _result(3, 2, 0.0)))
    assert (run.run_id, run.repeat, run.source) == ("3#2", None, str(tmp_path / "one.json"))


def test_a_task_that_raised_is_a_run_with_its_error(tmp_path: Path) -> None:
    failed = {"task_id": 11, "reward": 0.0, "trial": 0, "traj": [],
              "info": {"error": "litellm.RateLimitError: rate limit reached\nretry later",
                       "traceback": "Traceback (most recent call last):\n  ...\nRateLimitError"}}
    blank = {**failed, "task_id": 12,
             "info": {"error": "", "traceback": "Traceback:\nKeyError: 'x'"}}
    runs = _runs(_write(tmp_path / "r.json", [failed, blank]))
    assert runs[0].error == "tau-bench error: litellm.RateLimitError: rate limit reached"
    assert runs[1].error == "tau-bench error: KeyError: 'x'"
    assert runs[0].steps == [] and runs[0].source_verdicts == {"reward": 0.0}


def test_a_run_that_hit_max_steps_has_no_reward_info(tmp_path: Path) -> None:
    result = {**_result(4, 0, 0.0), "info": _env_info(None)}
    (run,) = _runs(_write(tmp_path / "r.json", [result]))
    assert run.source_verdicts == {"reward": 0.0}


def test_the_react_agents_actions_are_tool_calls(tmp_path: Path) -> None:
    def act(thought: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        action = json.dumps({"name": name, "arguments": arguments})
        return {"content": f"Thought:\n{thought}\nAction:\n{action}", "role": "assistant",
                "tool_calls": None, "function_call": None}

    traj = [
        {"role": "system", "content": "policy\n#Available tools\n[...]\n# Instruction ..."},
        {"role": "user", "content": "What is my order #W1's status?"},
        act("I should look the order up.", "get_order_details", {"order_id": "#W1"}),
        {"role": "user", "content": 'API output: {"status": "delivered"}'},
        act("I can answer now.", "respond", {"content": "Order #W1 was delivered."}),
        {"role": "user", "content": "Great, thanks. ###STOP###"},
    ]
    result = {"task_id": 0, "reward": 1.0, "info": _env_info(1.0), "traj": traj, "trial": 0}
    (run,) = _runs(_write(tmp_path / "react-gpt-4o.json", [result]))
    (call,) = run.tool_calls()
    assert (call.name, call.args, call.result) == (
        "get_order_details", {"order_id": "#W1"}, '{"status": "delivered"}')
    assert run.steps[0].text == "Thought:\nI should look the order up."
    assert run.answer == "Order #W1 was delivered."
    assert run.question == "What is my order #W1's status?"
    assert [s.turn for s in run.steps] == [0, 0]  # an API output is no user turn
    assert [m.role for m in run.messages] == ["system", "user", "assistant", "tool",
                                              "assistant", "user"]


def test_text_whose_action_is_not_json_stays_text(tmp_path: Path) -> None:
    traj = [{"role": "user", "content": "hi"},
            {"role": "assistant", "content": "Thought: hm\nAction: respond to the user"}]
    result = {"task_id": 0, "reward": 0.0, "info": {}, "traj": traj, "trial": 0}
    (run,) = _runs(_write(tmp_path / "r.json", [result]))
    assert run.tool_calls() == [] and run.answer == "Thought: hm\nAction: respond to the user"


# --- tau2-bench ------------------------------------------------------------------------------


def _call(call_id: str, name: str, arguments: dict[str, Any],
          requestor: str = "assistant") -> dict[str, Any]:
    return {"id": call_id, "name": name, "arguments": arguments, "requestor": requestor}


def _message(role: str, content: str | None = None, turn: int = 0, **more: Any) -> dict[str, Any]:
    stamp = f"2025-06-01T10:00:{turn:02d}.000000"
    base: dict[str, Any] = {"role": role, "content": content, "turn_idx": turn, "timestamp": stamp}
    if role in ("user", "assistant"):
        base.update(tool_calls=None, is_audio=False, cost=None, usage=None, raw_data=None)
    return {**base, **more}


def _tool(call_id: str, content: str, turn: int, requestor: str = "assistant",
          error: bool = False) -> dict[str, Any]:
    return _message("tool", content, turn, id=call_id, requestor=requestor, error=error)


def _messages() -> list[dict[str, Any]]:
    usage = {"completion_tokens": 12, "prompt_tokens": 900}
    return [
        _message("assistant", "Hi! How can I help you today?", 0, cost=0.001, usage=usage),
        _message("user", "I want to change the flight of reservation EHGLP3.", 1),
        _message("assistant", None, 2, cost=0.002, usage=usage, raw_data={"model": "gpt-4.1"},
                 tool_calls=[_call("call_a", "get_reservation_details",
                                   {"reservation_id": "EHGLP3"}),
                             _call("call_b", "get_user_details", {"user_id": "emma_kim_9957"})]),
        {"role": "tool", "tool_messages": [_tool("call_a", '{"flights": []}', 3),
                                           _tool("call_b", '{"name": "Emma"}', 4)]},
        _message("assistant", "Which date would you like instead?", 5, usage=usage,
                 generation_time_seconds=1.25),
        _message("user", "May 20th. ###STOP###", 6),
    ]


def _reward(reward: float) -> dict[str, Any]:
    return {
        "reward": reward,
        "db_check": {"db_match": reward == 1.0, "db_reward": reward},
        "env_assertions": None,
        "action_checks": [{"action": {"action_id": "1", "requestor": "assistant",
                                      "name": "get_reservation_details",
                                      "arguments": {"reservation_id": "EHGLP3"}, "info": None},
                           "action_match": True, "action_reward": 1.0, "tool_type": "read"}],
        "nl_assertions": None,
        "communicate_checks": None,
        "reward_basis": ["DB"],
        "reward_breakdown": {"DB": reward},
        "info": None,
    }


def _simulation(task_id: str, trial: int, reward: float | None, *,
                reason: str = "user_stop", messages: list[Any] | None = None,
                info: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "id": f"sim-{task_id}-{trial}",
        "task_id": task_id,
        "timestamp": "2025-06-01T10:01:00.000000",
        "start_time": "2025-06-01T10:00:00.000000",
        "end_time": "2025-06-01T10:01:00.000000",
        "duration": 61.5,
        "termination_reason": reason,
        "agent_cost": 0.0123,
        "user_cost": 0.0045,
        "reward_info": None if reward is None else _reward(reward),
        "messages": _messages() if messages is None else messages,
        "trial": trial,
        "seed": 300,
        "mode": "half_duplex",
        "info": info,
    }


def _info(trials: int) -> dict[str, Any]:
    return {
        "git_commit": "a2c0247", "num_trials": trials, "max_steps": 100, "max_errors": 10,
        "user_info": {"implementation": "user_simulator", "llm": "gpt-4.1", "llm_args": {}},
        "agent_info": {"implementation": "llm_agent", "llm": "claude-3-7-sonnet-20250219",
                       "llm_args": {"temperature": 0.0}},
        "environment_info": {"domain_name": "airline", "policy": "...", "tool_defs": None},
        "seed": 300,
    }


def _results(simulations: list[Any], trials: int = 2) -> dict[str, Any]:
    return {"timestamp": "2025-06-01T10:00:00", "info": _info(trials),
            "tasks": [{"id": "0", "user_scenario": {"instructions": "..."}}],
            "simulations": simulations}


def test_a_tau2_results_file_is_a_run_per_simulation(tmp_path: Path) -> None:
    simulations = [_simulation("0", 0, 1.0), _simulation("0", 1, 0.0)]
    path = _write(tmp_path / "claude_airline_default_gpt-4.1_2trials.json", _results(simulations))
    assert detect_reader(path) == "tau2"
    runs = _runs(path)
    assert [(r.run_id, r.scenario_id, r.repeat) for r in runs] == [("0#0", "0", 1),
                                                                  ("0#1", "0", 2)]
    run = runs[0]
    assert (run.model, run.runner, run.duration_ms, run.error) == (
        "claude-3-7-sonnet-20250219", "llm_agent", 61500.0, None)
    assert run.question == "I want to change the flight of reservation EHGLP3."
    assert run.answer == "Which date would you like instead?"
    (step,) = [s for s in run.steps if s.tool_calls]
    assert [(c.name, c.args, c.call_id, c.result) for c in step.tool_calls] == [
        ("get_reservation_details", {"reservation_id": "EHGLP3"}, "call_a", '{"flights": []}'),
        ("get_user_details", {"user_id": "emma_kim_9957"}, "call_b", '{"name": "Emma"}')]
    assert (run.usage.input_tokens, run.usage.output_tokens) == (2700, 36)
    assert [s.turn for s in run.steps] == [0, 0, 0]
    assert [s.duration_ms for s in run.steps] == [None, None, 1250.0]
    assert run.source_verdicts == _reward(1.0)
    assert runs[1].source_verdicts is not None and runs[1].source_verdicts["reward"] == 0.0


def test_a_simulation_that_did_not_end_normally_is_an_error(tmp_path: Path) -> None:
    crashed = _simulation("3", 0, None, reason="infrastructure_error", messages=[],
                          info={"error": "Connection reset by peer\n...", "error_type":
                                "APIConnectionError", "failed_after_attempts": 3})
    simulations = [_simulation("1", 0, 0.0, reason="max_steps"),
                   _simulation("2", 0, 0.0, reason="agent_error"), crashed,
                   _simulation("4", 0, 1.0, reason="agent_stop")]
    runs = _runs(_write(tmp_path / "r.json", _results(simulations, trials=1)))
    assert [r.error for r in runs] == [
        "tau2-bench simulation ended: max_steps",
        "tau2-bench simulation ended: agent_error",
        "tau2-bench simulation ended: infrastructure_error: APIConnectionError: "
        "Connection reset by peer",
        None,
    ]
    assert [r.repeat for r in runs] == [None] * 4
    assert runs[2].steps == [] and runs[2].source_verdicts is None


def test_the_users_own_tool_calls_stay_the_users(tmp_path: Path) -> None:
    messages = [
        _message("user", "My phone has no data.", 0),
        _message("assistant", None, 1, tool_calls=[_call("", "get_customer", {"phone": "555"})]),
        _tool("", '{"customer_id": "C1"}', 2),
        _message("assistant", "Please turn airplane mode off.", 3),
        _message("user", None, 4, tool_calls=[_call("u1", "toggle_airplane_mode", {},
                                                     requestor="user")]),
        _tool("u1", "Airplane mode is now OFF.", 5, requestor="user"),
        _message("user", "Done, it works now.", 6),
        _message("assistant", None, 7, tool_calls=[_call("c9", "refuel_data", {"gb": 2})]),
        _tool("c9", "Error: no such line", 8, error=True),
        _message("assistant", "Glad it works!", 9),
    ]
    (run,) = _runs(_write(tmp_path / "telecom.json", _results([_simulation("9", 0, 1.0,
                                                                           messages=messages)])))
    assert run.tool_names() == ["get_customer", "refuel_data"]
    assert [(c.call_id, c.result) for c in run.tool_calls()] == [
        (None, '{"customer_id": "C1"}'), ("c9", "Error: no such line")]
    [asked] = [m for m in run.messages if m.role == "user" and m.tool_calls]
    assert [(c.name, c.call_id, c.result) for c in asked.tool_calls] == [
        ("toggle_airplane_mode", "u1", "Airplane mode is now OFF.")]
    assert [s.turn for s in run.steps] == [0, 0, 1, 1]  # the user's tool call is no turn
    assert run.question == "My phone has no data."


def test_one_simulation_file_of_the_dir_format_is_a_run(tmp_path: Path) -> None:
    folder = tmp_path / "results"
    (folder / "simulations").mkdir(parents=True)
    meta = {key: value for key, value in _results([]).items() if key != "simulations"}
    _write(folder / "results.json", meta)
    path = _write(folder / "simulations" / "sim-5-1.json", _simulation("5", 1, 1.0))
    assert detect_reader(path) == "tau2"
    (run,) = _runs(path)
    assert (run.run_id, run.repeat, run.model) == ("5#1", 2, "gpt-4.1")  # from raw_data
    reason = _problem(folder / "results.json")
    assert reason.startswith("tau2-bench results without simulations (saved in the dir format")


def test_a_simulation_without_trial_is_named_by_its_id(tmp_path: Path) -> None:
    simulation = {**_simulation("5", 0, 1.0), "trial": None}
    (run,) = _runs(_write(tmp_path / "r.json", _results([simulation])))
    assert (run.run_id, run.scenario_id, run.repeat) == ("sim-5-0", "5", None)


# --- what cannot be read -----------------------------------------------------------------


def test_a_voice_simulation_recorded_as_ticks_is_a_problem(tmp_path: Path) -> None:
    simulation = {**_simulation("40", 0, None), "messages": None, "mode": "full_duplex",
                  "ticks": [{"tick_id": 0, "timestamp": "2026-06-30T11:40:29",
                             "agent_chunk": {"role": "assistant", "contains_speech": False},
                             "user_chunk": {"role": "user", "contains_speech": False}}]}
    reason = _problem(_write(tmp_path / "sim.json", simulation))
    assert reason.startswith("a full-duplex (voice) tau2-bench simulation, recorded as ticks")


@pytest.mark.parametrize(
    ("value", "fmt", "reason"),
    [
        ({"task_id": 1, "reward": 0.0, "info": {}, "trial": 0}, None,
         "a tau-bench result without traj"),
        ([{"task_id": 1, "reward": 0.0, "traj": "oops", "trial": 0}], None,
         "a tau-bench result whose traj is a string, not a list"),
        ([{"reward": 0.0, "traj": [], "trial": 0}], "taubench",
         "a tau-bench result without task_id"),
        ([], "taubench", "not tau-bench results: an empty list"),
        ("results", "taubench", "not tau-bench results: a string"),
        ({"run_id": "r1"}, "taubench", "not a tau-bench result: an object with keys run_id"),
        ([{"task_id": 1, "reward": 1, "traj": [], "trial": 0}, 3], None,
         "a tau-bench result that is a number"),
        ({"info": {}, "tasks": [], "simulations": {}}, None,
         "tau2-bench results whose simulations are an object, not a list"),
        ({"info": {}, "tasks": [], "simulations": []}, None,
         "tau2-bench results with no simulations"),
        ({"info": {}, "simulations": ["x"]}, None, "a tau2-bench simulation that is a string"),
        ({"info": {}, "simulations": [{"task_id": "1", "termination_reason": "user_stop"}]},
         None, "a tau2-bench simulation without messages"),
        ({"info": {}, "simulations": [{"task_id": "1", "messages": {}}]}, None,
         "a tau2-bench simulation whose messages are an object, not a list"),
        ({"info": {}, "simulations": [{"messages": []}]}, None,
         "a tau2-bench simulation without task_id"),
        ([1, 2], "tau2", "not tau2-bench results: a list of numbers"),
        ({"run_id": "r1"}, "tau2", "not tau2-bench results: an object with keys run_id"),
    ],
)
def test_what_is_not_a_result_is_a_problem_naming_the_format(
    tmp_path: Path, value: Any, fmt: str | None, reason: str
) -> None:
    found = list(read_file(_write(tmp_path / "results.json", value), fmt))
    problems = [item for item in found if not isinstance(item, Trajectory)]
    assert [p.reason for p in problems] == [reason]


def test_broken_files_are_problems(tmp_path: Path) -> None:
    empty = tmp_path / "empty.json"
    empty.write_text("")
    truncated = tmp_path / "truncated.json"
    truncated.write_text(json.dumps([_result(5, 0, 1.0)])[:300])
    for fmt in (None, "taubench", "tau2"):
        assert _problem(empty, fmt) == "empty file"
        assert _problem(truncated, fmt).startswith("invalid JSON: unexpected end of data")


def test_a_huge_content_is_read_whole(tmp_path: Path) -> None:
    huge = "x" * (10 * 2**20)
    result = _result(5, 0, 1.0)
    result["traj"][4]["content"] = huge
    result["traj"][3]["content"] = huge
    (run,) = _runs(_write(tmp_path / "r.json", [result]))
    assert run.steps[1].text == huge and run.tool_calls()[0].result == huge
    simulation = _simulation("1", 0, 1.0)
    simulation["messages"][1]["content"] = huge
    (run,) = _runs(_write(tmp_path / "s.json", _results([simulation])))
    assert run.question == huge


def test_what_a_run_cannot_keep_is_noted() -> None:
    traj = [
        "not a message",
        {"role": "user", "content": [{"type": "text", "text": "Hi"},
                                     {"type": "image_url", "image_url": {"url": "x"}}]},
        {"role": "critic", "content": "too slow"},
        {"content": "no role"},
        {"role": "tool", "tool_call_id": "nobody", "content": "orphan"},
        {"role": "assistant", "content": 42},
    ]
    [(run, notes)] = _taubench_runs([{"task_id": 1, "reward": 0, "traj": traj, "trial": 0}], "f")
    assert isinstance(run, Trajectory)
    assert run.question == "Hi"
    # What each message is, in order; then the results that answer no call, as calls pair.
    assert notes == [
        "traj[0] is a string, not a message: skipped",
        "traj[1] has a content part of type 'image_url': not read",
        "traj[2] has role 'critic': kept in messages, not read as a turn",
        "traj[3] has no role (a message needs one): skipped",
        "traj[5] content is a number: not read",
        "traj[4] answers no call made before it: kept in messages only",
    ]
    assert [m.role for m in run.messages] == ["user", "critic", "tool", "assistant"]
    messages = [_message("user", "Hi", 0), None,
                {"role": "tool", "tool_messages": [7, _tool("c1", "late", 1)]},
                _message("observer", "noted", 2)]
    [(run, notes)] = _tau2_runs(_results([_simulation("1", 0, 0.0, messages=messages)]), "f")
    assert isinstance(run, Trajectory)
    assert notes == [
        "messages[1] is a null, not a message: skipped",
        "messages[2].tool_messages[0] is a number, not a tool message: skipped",
        "messages[3] has role 'observer': kept in messages, not read as a turn",
        "messages[2].tool_messages[1] answers no call made before it: kept in messages only",
    ]
    [(_, notes)] = _tau2_runs(_results([_simulation("1", 0, 1.0)]), "f")
    assert notes == []


def test_other_formats_are_not_claimed() -> None:
    for path in sorted(SAMPLES.iterdir()):
        if path.suffix in (".json", ".jsonl"):
            assert detect_reader(path) not in ("taubench", "tau2"), path


# --- properties ----------------------------------------------------------------------------

_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner,
                                                                  max_size=4),
    max_leaves=20,
)
_role = st.sampled_from(["system", "user", "assistant", "tool", "function", "critic"]) | _json
_call_value = st.fixed_dictionaries({}, optional={
    "id": _json | st.text(max_size=3), "name": _json | st.text(max_size=5),
    "arguments": _json, "requestor": st.sampled_from(["user", "assistant"]) | _json,
    "function": _json | st.fixed_dictionaries({}, optional={"name": _json, "arguments": _json}),
})
_message_value = st.fixed_dictionaries({}, optional={
    "role": _role,
    "content": _json | st.sampled_from(["API output: 1", 'Action: {"name": "f", "arguments": 1}',
                                        'Action: {"name": "respond", "arguments": {}}']),
    "tool_calls": st.lists(_call_value, max_size=3) | _json,
    "tool_call_id": _json, "id": _json | st.text(max_size=3), "requestor": _json,
    "tool_messages": st.lists(_json | st.builds(dict, role=st.just("tool"), id=_json),
                              max_size=3),
    "usage": _json, "raw_data": _json,
})
_conversation = st.lists(_message_value | _json, max_size=8) | _json
_tau_result = st.fixed_dictionaries({}, optional={
    "task_id": _json, "reward": _json, "trial": _json, "traj": _conversation,
    "info": _json | st.fixed_dictionaries({}, optional={"reward_info": _json, "error": _json,
                                                        "traceback": _json}),
})
_tau2_simulation = st.fixed_dictionaries({}, optional={
    "id": _json, "task_id": _json, "trial": _json, "messages": _conversation,
    "reward_info": _json, "termination_reason": _json, "duration": _json, "info": _json,
    "ticks": _json,
})
_document = (
    _json
    | st.lists(_tau_result | _json, max_size=4)
    | _tau_result
    | _tau2_simulation
    | st.fixed_dictionaries({"simulations": st.lists(_tau2_simulation | _json, max_size=3)},
                            optional={"info": _json, "tasks": _json})
)


@settings(max_examples=examples(400))
@given(value=_document)
def test_no_value_makes_the_readers_raise(value: Any) -> None:
    for name in ("taubench", "tau2"):
        reader = get_reader(name)
        reader.sniff("results.json", value)
        for item in reader.read(value, "results.json"):
            if isinstance(item, Trajectory):
                assert all(isinstance(call.name, str) for call in item.tool_calls())
                assert item.repeat is None or item.repeat >= 1
                assert item.duration_ms is None or item.duration_ms >= 0
            else:
                assert "tau" in item.reason, item.reason
