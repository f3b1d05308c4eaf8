"""SWE-agent `.traj` and mini-swe-agent `.traj.json` files: small files written here in the
shapes the agents save (SWE-agent 1.x `DefaultAgent.get_trajectory_data` with a JSON-text
`replay_config`, SWE-agent 0.x with its exit actions, the retry agent's `attempts`;
mini-swe-agent 2.x `DefaultAgent.serialize`, format `mini-swe-agent-1.1`, with tool calls or
text actions; mini-swe-agent 1.x `save_traj`, format `mini-swe-agent-1`), and the ones that
are not right."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import assay.formats.swe_agent  # noqa: F401
from assay.formats._common import ReadProblem
from assay.formats.registry import detect_reader, get_reader, read_file
from assay.records import Trajectory

PATCH = "diff --git a/src/calc.py b/src/calc.py\n--- a/src/calc.py\n+++ b/src/calc.py\n"
ISSUE = "We're currently solving the following issue within our repository.\nISSUE:\ndivide fails"


# --- SWE-agent ------------------------------------------------------------------------------


def _swe_step(thought: str, action: str, observation: str, seconds: float) -> dict[str, Any]:
    return {
        "action": action,
        "observation": observation,
        "response": f"{thought}\n\n```\n{action}\n```",
        "thought": thought,
        "execution_time": seconds,
        "state": {"open_file": "n/a", "working_dir": "/repo"},
        "query": [{"role": "system", "content": "SETTING: ..."}],
        "extra_info": {},
    }


def _swe_traj(**info: Any) -> dict[str, Any]:
    """A SWE-agent 1.x trajectory, as `DefaultAgent.get_trajectory_data` writes it."""
    steps = [
        _swe_step("Find the file.", "find_file calc.py", "Found 1 matches: /repo/src/calc.py", 0.3),
        _swe_step("Fix the line.", "edit 'a / b' 'a / b if b else 0'", "Replaced 1 occurrences.",
                  0.5),
        _swe_step("Check it.", "python3 -c 'import calc'", "", 1.25),
        _swe_step("Submit.", "submit", PATCH, 0.2),
    ]
    history: list[dict[str, Any]] = [
        {"role": "system", "content": "SETTING: a shell", "agent": "main",
         "message_type": "system_prompt"},
        {"role": "user", "content": "Here is a demonstration ...", "agent": "main",
         "is_demo": True, "message_type": "observation"},
        {"role": "user", "content": [{"type": "text", "text": ISSUE}], "agent": "main",
         "message_type": "observation"},
    ]
    for step in steps:
        history.append({"role": "assistant", "content": step["response"],
                        "thought": step["thought"], "action": step["action"],
                        "agent": "main", "message_type": "action"})
        history.append({"role": "tool", "content": step["observation"], "agent": "main",
                        "message_type": "observation"})
    replay = {"problem_statement": {"id": "acme__calc-12", "type": "text", "text": "divide"},
              "agent": {"name": "main", "model": {"name": "claude-sonnet-4", "temperature": 0}},
              "env": {"deployment": {"image": "python:3.11"}}}
    return {
        "trajectory": steps,
        "history": history,
        "info": {
            "swe_agent_hash": "abc", "swe_agent_version": "1.1.0", "swe_rex_version": "1.2.0",
            "submission": PATCH, "exit_status": "submitted",
            "edited_files30": "[File: src/calc.py]",
            "model_stats": {"instance_cost": 0.42, "tokens_sent": 52861, "tokens_received": 326,
                            "api_calls": 4},
            **info,
        },
        "replay_config": orjson.dumps(replay).decode(),
        "environment": "main",
    }


def _swe_0x(exit_status: str, submission: str | None) -> dict[str, Any]:
    """A SWE-agent 0.7 trajectory stopped by its cost limit (the `exit_cost` action)."""
    steps: list[dict[str, Any]] = [
        {"action": "open src/calc.py\n", "observation": "[File: src/calc.py (3 lines total)]",
         "response": "DISCUSSION\nOpen it.\n\n```\nopen src/calc.py\n```", "thought": "Open it.",
         "state": '{"open_file": "/repo/src/calc.py", "working_dir": "/repo"}',
         "execution_time": 0.1},
        {"action": "exit_cost", "observation": "Exited (autosubmitted)" if submission else
         "Exited", "response": "Exit due to cost limit", "thought": "Exit due to cost limit",
         "state": None, "execution_time": 0.0},
    ]
    history = [
        {"role": "system", "content": "SETTING: ...", "agent": "primary"},
        {"role": "user", "content": ISSUE, "agent": "primary"},
        {"role": "assistant", "content": steps[0]["response"], "thought": "Open it.",
         "action": "open src/calc.py\n", "agent": "primary"},
        {"role": "user", "content": "[File: src/calc.py (3 lines total)]", "agent": "primary"},
    ]
    return {"environment": "swe_main", "trajectory": steps, "history": history,
            "info": {"exit_status": exit_status, "submission": submission,
                     "model_stats": {"total_cost": 3.01, "instance_cost": 3.01,
                                     "tokens_sent": 1_000_000, "tokens_received": 5_000,
                                     "api_calls": 60}}}


def _write(path: Path, value: Any) -> Path:
    path.write_bytes(orjson.dumps(value))
    return path


def _run(path: Path, fmt: str | None = None) -> Trajectory:
    (item,) = list(read_file(path, fmt))
    assert isinstance(item, Trajectory), item
    return item


def _problem(path: Path, fmt: str | None = "swe-agent") -> str:
    (item,) = list(read_file(path, fmt))
    assert isinstance(item, ReadProblem), item
    return item.reason


def test_a_swe_agent_1_traj_is_one_run(tmp_path: Path) -> None:
    path = _write(tmp_path / "run-17.traj", _swe_traj())
    assert detect_reader(path) == "swe-agent"
    run = _run(path)
    # The instance id is the replay config's problem statement's, not the file's name.
    assert (run.run_id, run.scenario_id) == ("acme__calc-12", "acme__calc-12")
    assert (run.runner, run.model) == ("SWE-agent 1.1.0", "claude-sonnet-4")
    assert run.question == ISSUE  # the first user message that is no demonstration
    assert run.answer == PATCH and run.error is None and run.source_verdicts is None
    assert run.tool_names() == ["find_file", "edit", "python3", "submit"]
    first = run.steps[0]
    assert first.text == "Find the file." and first.duration_ms == 300.0
    assert first.tool_calls[0].args == {"command": "find_file calc.py"}
    assert first.tool_calls[0].result == "Found 1 matches: /repo/src/calc.py"
    assert run.steps[1].tool_calls[0].args == {"command": "edit 'a / b' 'a / b if b else 0'"}
    assert run.steps[2].tool_calls[0].result == ""
    assert run.steps[3].tool_calls[0].result == PATCH
    assert [s.index for s in run.steps] == [0, 1, 2, 3]
    assert (run.usage.input_tokens, run.usage.output_tokens) == (52861, 326)
    assert run.source.endswith("run-17.traj")


def test_a_replay_config_written_as_an_object_is_read_too(tmp_path: Path) -> None:
    traj = _swe_traj()
    traj["replay_config"] = orjson.loads(traj["replay_config"])
    run = _run(_write(tmp_path / "x.traj", traj))
    assert (run.run_id, run.model) == ("acme__calc-12", "claude-sonnet-4")


def test_a_swe_agent_0x_traj_stopped_by_its_cost_limit(tmp_path: Path) -> None:
    path = _write(tmp_path / "acme__calc-7.traj", _swe_0x("submitted (exit_cost)", PATCH))
    assert detect_reader(path) == "swe-agent"
    run = _run(path)
    assert (run.run_id, run.runner, run.model) == ("acme__calc-7", "SWE-agent", None)
    assert run.answer == PATCH  # submitted automatically when the limit was reached
    assert run.error == (
        "SWE-agent exit status submitted (exit_cost): the cost limit was reached; the changes "
        "made so far were submitted"
    )
    # The exit action is a step that ran nothing; the command is kept without its newline.
    assert run.tool_names() == ["open"]
    assert run.steps[0].tool_calls[0].args == {"command": "open src/calc.py"}
    assert run.steps[1].tool_calls == [] and run.steps[1].text == "Exit due to cost limit"
    assert (run.usage.input_tokens, run.usage.output_tokens) == (1_000_000, 5_000)


def test_an_exit_without_a_submission_answers_with_the_last_assistant_text(
    tmp_path: Path,
) -> None:
    run = _run(_write(tmp_path / "acme__calc-7.traj", _swe_0x("exit_cost", None)))
    assert run.answer.startswith("DISCUSSION\nOpen it.")
    assert run.error == "SWE-agent exit status exit_cost: the cost limit was reached"


@pytest.mark.parametrize(
    ("status", "error"),
    [
        ("exit_context", "SWE-agent exit status exit_context: the model's context window was "
                         "exceeded"),
        ("exit_format", "SWE-agent exit status exit_format: the model's output could not be "
                        "parsed, repeatedly"),
        ("exit_something_new", "SWE-agent exit status exit_something_new"),
        (None, "SWE-agent recorded no exit status: the run did not finish"),
    ],
)
def test_exit_statuses_are_errors(tmp_path: Path, status: str | None, error: str) -> None:
    run = _run(_write(tmp_path / "a.traj", _swe_traj(exit_status=status, submission=None)))
    assert run.error == error
    assert run.answer == "Submit.\n\n```\nsubmit\n```"  # the last assistant text


def test_the_file_s_own_verdicts_are_kept(tmp_path: Path) -> None:
    review = {"accept": 0.8, "outputs": ["looks right"], "messages": [{"role": "user"}]}
    traj = _swe_traj(review=review)
    traj["resolved"] = True
    run = _run(_write(tmp_path / "a.traj", traj))
    assert run.source_verdicts == {"resolved": True,
                                   "review": {"accept": 0.8, "outputs": ["looks right"]}}


def test_the_retry_agent_s_file(tmp_path: Path) -> None:
    first, second = _swe_traj(), _swe_traj(exit_status="exit_cost", submission=None)
    second["trajectory"] = second["trajectory"][:1]
    chosen = {"attempts": [first, second], **copy.deepcopy(first)}
    chosen["info"]["best_attempt_idx"] = 0
    run = _run(_write(tmp_path / "a.traj", chosen))
    assert run.answer == PATCH and len(run.steps) == 4
    # Saved before the choice: the attempt still running.
    running = _run(_write(tmp_path / "b.traj", {"attempts": [first, second]}))
    assert len(running.steps) == 1 and running.error is not None


def test_exit_runs_no_command_and_a_replay_counts_no_tokens(tmp_path: Path) -> None:
    traj = _swe_traj(exit_status="exit_command", submission=None,
                     model_stats={"instance_cost": 0, "tokens_sent": 0, "tokens_received": 0,
                                  "api_calls": 0})
    traj["trajectory"][3] = _swe_step("Give up.", "exit", "Exited", 0.0)
    run = _run(_write(tmp_path / "a.traj", traj))
    assert run.tool_names() == ["find_file", "edit", "python3"]
    assert run.steps[3].text == "Give up." and not run.usage.recorded
    assert run.error == "SWE-agent exit status exit_command: the agent exited without submitting"


# --- mini-swe-agent -------------------------------------------------------------------------


def _response(prompt: int, completion: int) -> dict[str, Any]:
    return {"id": "chatcmpl-1", "model": "claude-sonnet-4-5",
            "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                      "total_tokens": prompt + completion}}


def _mini_v2(*, toolcalls: bool = True, exit_status: str = "Submitted") -> dict[str, Any]:
    """A mini-swe-agent 2.x trajectory (`mini-swe-agent-1.1`)."""
    def assistant(text: str, command: str, call: str, at: float, tokens: int) -> dict[str, Any]:
        action: dict[str, Any] = {"command": command}
        message: dict[str, Any] = {"role": "assistant", "content": text}
        if toolcalls:
            action["tool_call_id"] = call
            message["tool_calls"] = [{"id": call, "type": "function", "function": {
                "name": "bash", "arguments": orjson.dumps({"command": command}).decode()}}]
        else:
            message["content"] = f"{text}\n\n```mswea_bash_command\n{command}\n```"
        message["extra"] = {"actions": [action], "response": _response(tokens, 20),
                            "cost": 0.01, "timestamp": at}
        return message

    def output(text: str, call: str, at: float) -> dict[str, Any]:
        message: dict[str, Any] = {
            "content": f"<returncode>0</returncode>\n<output>\n{text}\n</output>",
            "extra": {"raw_output": text, "returncode": 0, "timestamp": at,
                      "exception_info": ""}}
        if toolcalls:
            message |= {"role": "tool", "tool_call_id": call}
        else:
            message["role"] = "user"
        return message

    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": "Please solve this issue: divide fails"},
        assistant("Look at the code.", "cat src/calc.py", "call_1", 1000.0, 900),
        output("def div(a, b): return a / b", "call_1", 1001.5),
        {"role": "user", "content": "Format error: no tool call", "extra": {
            "interrupt_type": "FormatError", "response": _response(1000, 5)}},
        assistant("Fix it.", "sed -i 's/a \\/ b/a \\/ b if b else 0/' src/calc.py", "call_2",
                  1002.0, 1100),
        output("", "call_2", 1003.0),
    ]
    if exit_status == "Submitted":
        messages.append(assistant("Submit.", "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && "
                                  "git diff", "call_3", 1004.0, 1200))
        messages.append({"role": "exit", "content": PATCH,
                         "extra": {"exit_status": "Submitted", "submission": PATCH}})
        submission = PATCH
    else:
        messages.append({"role": "exit", "content": exit_status,
                         "extra": {"exit_status": exit_status, "submission": ""}})
        submission = ""
    return {
        "info": {
            "model_stats": {"instance_cost": 0.03, "api_calls": 4},
            "config": {"agent": {"step_limit": 250, "cost_limit": 3.0},
                       "agent_type": "minisweagent.agents.default.DefaultAgent",
                       "model": {"model_name": "anthropic/claude-sonnet-4-5"},
                       "model_type": "minisweagent.models.litellm_model.LitellmModel",
                       "environment": {"image": "python:3.11"},
                       "environment_type": "minisweagent.environments.docker.DockerEnvironment"},
            "mini_version": "2.4.6",
            "exit_status": exit_status,
            "submission": submission,
        },
        "messages": messages,
        "trajectory_format": "mini-swe-agent-1.1",
        "instance_id": "acme__calc-12",
    }


def test_a_mini_swe_agent_2_trajectory_with_tool_calls(tmp_path: Path) -> None:
    path = _write(tmp_path / "acme__calc-12.traj.json", _mini_v2())
    assert detect_reader(path) == "swe-agent"
    run = _run(path)
    assert (run.run_id, run.scenario_id) == ("acme__calc-12", "acme__calc-12")
    assert (run.runner, run.model) == ("mini-swe-agent 2.4.6", "anthropic/claude-sonnet-4-5")
    assert run.question == "Please solve this issue: divide fails"
    assert run.answer == PATCH and run.error is None
    assert run.tool_names() == ["cat", "sed", "echo"]
    calls = run.tool_calls()
    assert calls[0].args == {"command": "cat src/calc.py"} and calls[0].call_id == "call_1"
    assert calls[0].result == "<returncode>0</returncode>\n<output>\ndef div(a, b): return " \
                              "a / b\n</output>"
    assert calls[2].result == PATCH  # the exit message of the submission
    assert [s.text for s in run.steps] == ["Look at the code.", "Fix it.", "Submit."]
    assert (run.steps[0].usage.input_tokens, run.steps[0].usage.output_tokens) == (900, 20)
    # Every response's tokens, the one that failed to parse included.
    assert (run.usage.input_tokens, run.usage.output_tokens) == (4200, 65)
    assert run.duration_ms == 4000.0


def test_a_mini_swe_agent_2_trajectory_of_text_actions_past_its_limits(tmp_path: Path) -> None:
    run = _run(_write(tmp_path / "acme__calc-12.traj.json",
                      _mini_v2(toolcalls=False, exit_status="LimitsExceeded")))
    assert run.tool_names() == ["cat", "sed"]
    assert run.tool_calls()[1].result == "<returncode>0</returncode>\n<output>\n\n</output>"
    assert run.error == "mini-swe-agent exit status LimitsExceeded: the step or cost limit " \
                        "was reached"
    assert run.answer is not None and run.answer.startswith("Fix it.")


def test_a_mini_swe_agent_2_trajectory_of_the_responses_api(tmp_path: Path) -> None:
    traj = _mini_v2()
    traj["messages"][2:] = [
        {"id": "resp_1", "object": "response", "usage": {"input_tokens": 700, "output_tokens": 9},
         "output": [{"type": "message", "role": "assistant",
                     "content": [{"type": "output_text", "text": "List it."}]},
                    {"type": "function_call", "call_id": "fc_1", "name": "bash",
                     "arguments": '{"command": "ls"}'}],
         "extra": {"actions": [{"command": "ls", "tool_call_id": "fc_1"}], "timestamp": 5.0}},
        {"type": "function_call_output", "call_id": "fc_1", "output": "src",
         "extra": {"raw_output": "src", "returncode": 0, "timestamp": 6.0}},
    ]
    run = _run(_write(tmp_path / "a.traj.json", traj))
    assert [(c.name, c.call_id, c.result) for c in run.tool_calls()] == [("ls", "fc_1", "src")]
    assert run.steps[0].text == "List it."
    assert (run.usage.input_tokens, run.usage.output_tokens) == (700, 9)


def _mini_v1(exit_status: str, submission: str) -> dict[str, Any]:
    """A mini-swe-agent 1.x trajectory (`save_traj`, format `mini-swe-agent-1`)."""
    messages = [
        {"role": "system", "content": "You are a helpful assistant.", "timestamp": 10.0},
        {"role": "user", "content": "Please solve this issue: divide fails", "timestamp": 10.0},
        {"role": "assistant", "content": "THOUGHT: look.\n\n```bash\nls -la\n```",
         "timestamp": 12.0},
        {"role": "user", "content": "<returncode>0</returncode>\n<output>\nsrc\n</output>",
         "timestamp": 12.5},
        {"role": "assistant", "content": "Two at once.\n```bash\nls\n```\n```bash\npwd\n```",
         "timestamp": 14.0},
        {"role": "user", "content": "Please always provide EXACTLY ONE action in triple "
                                    "backticks, found 2 actions.", "timestamp": 14.0},
        {"role": "assistant", "content": "Done.\n```bash\necho "
                                         "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git diff\n```",
         "timestamp": 15.0},
        {"role": "user", "content": submission, "timestamp": 16.0},
    ]
    return {"info": {"exit_status": exit_status, "submission": submission,
                     "model_stats": {"instance_cost": 0.02, "api_calls": 3},
                     "mini_version": "1.9.1"},
            "messages": messages, "trajectory_format": "mini-swe-agent-1",
            "instance_id": "acme__calc-3"}


def test_a_mini_swe_agent_1_trajectory(tmp_path: Path) -> None:
    path = _write(tmp_path / "acme__calc-3.traj.json", _mini_v1("Submitted", PATCH))
    assert detect_reader(path) == "swe-agent"
    run = _run(path)
    assert (run.run_id, run.runner, run.model) == ("acme__calc-3", "mini-swe-agent 1.9.1", None)
    assert run.answer == PATCH and run.error is None
    # The message with two commands ran none: a step without a call.
    assert [len(s.tool_calls) for s in run.steps] == [1, 0, 1]
    assert run.tool_names() == ["ls", "echo"]
    assert run.tool_calls()[0].result == "<returncode>0</returncode>\n<output>\nsrc\n</output>"
    assert run.tool_calls()[1].result == PATCH
    assert run.steps[0].text == "THOUGHT: look.\n\n```bash\nls -la\n```"
    assert run.duration_ms == 6000.0 and not run.usage.recorded


def test_a_mini_swe_agent_1_run_that_failed(tmp_path: Path) -> None:
    traj = _mini_v1("RuntimeError", "docker: container died\nTraceback ...")
    del traj["instance_id"]
    run = _run(_write(tmp_path / "acme__calc-3.traj.json", traj))
    assert run.run_id == "acme__calc-3"  # from the file's name
    assert run.error == "mini-swe-agent exit status RuntimeError (docker: container died)"
    assert run.answer is not None and run.answer.startswith("Done.")


def test_a_mini_file_without_its_format_is_told_by_its_version(tmp_path: Path) -> None:
    traj = _mini_v1("Submitted", PATCH)
    del traj["trajectory_format"]
    path = _write(tmp_path / "last_mini_run.traj.json", traj)
    assert detect_reader(path) == "swe-agent"
    assert _run(path).answer == PATCH


# --- files that are not right ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (lambda t: t.update(trajectory={"0": {}}),
         "a SWE-agent .traj whose trajectory is an object, not a list of steps"),
        (lambda t: t["trajectory"].insert(1, "open x"),
         "a SWE-agent .traj whose trajectory[1] is a string, not a step"),
        (lambda t: t["trajectory"][2].update(action=["ls"]),
         "a SWE-agent .traj whose trajectory[2].action is an array, not text"),
        (lambda t: t.update(info="done"),
         "a SWE-agent .traj whose info is a string, not an object"),
        (lambda t: t.update(history={"role": "user"}),
         "a SWE-agent .traj whose history is an object, not a list"),
    ],
)
def test_swe_agent_files_of_the_wrong_shape_say_why(
    tmp_path: Path, change: Any, reason: str
) -> None:
    traj = _swe_traj()
    change(traj)
    path = _write(tmp_path / "a.traj", traj)
    assert _problem(path) == reason
    assert _problem(path, None) == reason  # told by its keys, read by this reader


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (lambda t: t.update(trajectory_format="mini-swe-agent-2"),
         "a mini-swe-agent trajectory of format 'mini-swe-agent-2': assay reads "
         "mini-swe-agent-1 and its revisions (mini-swe-agent-1.N)"),
        (lambda t: t.update(messages="hello"),
         "a mini-swe-agent trajectory whose messages are a string, not a list"),
        (lambda t: t["messages"].append(7),
         "a mini-swe-agent trajectory whose messages[9] is a number, not a message"),
        (lambda t: t.update(info=[]),
         "a mini-swe-agent trajectory whose info is an array, not an object"),
    ],
)
def test_mini_files_of_the_wrong_shape_say_why(tmp_path: Path, change: Any, reason: str) -> None:
    traj = _mini_v2()
    change(traj)
    path = _write(tmp_path / "a.traj.json", traj)
    assert _problem(path) == reason
    assert _problem(path, None) == reason


def test_a_file_of_another_shape_read_as_swe_agent(tmp_path: Path) -> None:
    path = _write(tmp_path / "a.traj", {"run_id": "r1", "answer": "3"})
    assert _problem(path) == (
        "not a SWE-agent or mini-swe-agent trajectory (no trajectory, attempts or messages): "
        "an object with keys run_id, answer"
    )
    assert _problem(_write(tmp_path / "b.traj", [1, 2])) == (
        "not a SWE-agent or mini-swe-agent trajectory: a list of numbers"
    )


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"", "empty file"),
        (b"  \n", "empty file"),
        (orjson.dumps(_swe_traj())[:200], "invalid JSON: unexpected end of data"),
        (b'{"trajectory": [', "invalid JSON: unexpected end of data"),
    ],
)
def test_empty_and_truncated_files_are_problems(tmp_path: Path, data: bytes, reason: str) -> None:
    path = tmp_path / "acme__calc-1.traj"
    path.write_bytes(data)
    for fmt in ("swe-agent", None):
        (problem,) = list(read_file(path, fmt))
        assert isinstance(problem, ReadProblem)
        # The file's name says its format, and so does the reason.
        assert problem.reason.startswith(f"a SWE-agent trajectory (.traj): {reason}"), (
            problem.reason
        )
        assert problem.source == str(path)


def test_a_huge_observation_is_read_whole(tmp_path: Path) -> None:
    huge = "x" * (10 * 2**20)
    traj = _swe_traj()
    traj["trajectory"][2]["observation"] = huge
    traj["history"][8]["content"] = huge
    run = _run(_write(tmp_path / "a.traj", traj))
    assert run.steps[2].tool_calls[0].result == huge
    mini = _mini_v2()
    mini["messages"][3]["content"] = huge
    assert _run(_write(tmp_path / "a.traj.json", mini)).tool_calls()[0].result == huge


def test_other_formats_are_not_claimed(tmp_path: Path) -> None:
    assert detect_reader(_write(tmp_path / "a.json", {"trajectory": [], "info": {}})) is None
    chat = {"messages": [{"role": "user", "content": "hi"}], "info": {}}
    assert detect_reader(_write(tmp_path / "b.json", chat)) == "openai"
    assert detect_reader(_write(tmp_path / "c.json", {"history": [], "info": {}})) is None
    sniff = get_reader("swe-agent").sniff
    assert not sniff("d.json", [{"trajectory": [], "info": {}, "history": []}])
    assert sniff("e.traj", {"attempts": [{"trajectory": [], "info": {}}]})


# --- hostile input ---------------------------------------------------------------------------

_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=20,
)
_KEYS = st.sampled_from([
    "trajectory", "history", "info", "environment", "replay_config", "attempts", "messages",
    "trajectory_format", "instance_id", "resolved", "action", "observation", "thought",
    "response", "execution_time", "role", "content", "extra", "actions", "command",
    "tool_call_id", "exit_status", "submission", "model_stats", "tokens_sent",
    "tokens_received", "mini_version", "swe_agent_version", "problem_statement", "id",
    "agent", "model", "name", "model_name", "config", "review", "accept", "is_demo",
    "timestamp", "usage", "prompt_tokens", "output", "type", "call_id", "interrupt_type",
])
_VALUES = st.sampled_from(["mini-swe-agent-1", "mini-swe-agent-1.1", "assistant", "user",
                           "tool", "exit", "submitted", "Submitted", "submitted (exit_cost)",
                           "```bash\nls\n```", "{\"problem_statement\": {\"id\": 1}}"])
_shaped = st.recursive(
    _json | _VALUES,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_KEYS, inner, max_size=6),
    max_leaves=30,
)
# Files close to the real ones, so that the values reach the steps, calls and messages.
_commands = st.sampled_from(["ls -la", "submit\n", "exit_cost", " ", "", "edit 1:2\nx\nend"])
_steps = st.lists(st.fixed_dictionaries({}, optional={
    "action": _commands | _shaped, "observation": _shaped, "thought": _shaped,
    "response": _shaped, "execution_time": _shaped}), max_size=4)
_extras = st.fixed_dictionaries({}, optional={
    "actions": st.lists(st.fixed_dictionaries({}, optional={
        "command": _commands | _shaped, "tool_call_id": _VALUES | _shaped}), max_size=3)
    | _shaped,
    "response": _shaped, "timestamp": _shaped, "interrupt_type": _shaped})
_messages = st.lists(st.fixed_dictionaries({}, optional={
    "role": _VALUES | _shaped, "content": _VALUES | _shaped, "extra": _extras | _shaped,
    "tool_call_id": _VALUES | _shaped, "timestamp": _shaped, "type": _shaped,
    "output": _shaped, "call_id": _VALUES, "is_demo": _shaped, "usage": _shaped}), max_size=6)
_infos = st.dictionaries(_KEYS, _shaped | _VALUES, max_size=6)
_swe_files = st.fixed_dictionaries(
    {"trajectory": _steps | _shaped, "info": _infos},
    optional={"history": _messages | _shaped, "environment": _shaped,
              "replay_config": _shaped, "attempts": st.lists(_shaped, max_size=2),
              "resolved": _shaped},
)
_mini_files = st.fixed_dictionaries(
    {"messages": _messages | _shaped, "info": _infos},
    optional={"trajectory_format": _VALUES | _json, "instance_id": _shaped},
)


@settings(deadline=None)
@given(value=_json | _shaped | _swe_files | _mini_files)
def test_no_json_value_makes_the_reader_raise(value: Any) -> None:
    reader = get_reader("swe-agent")
    before = copy.deepcopy(value)
    claimed = reader.sniff("x.traj", value)
    items = list(reader.read(value, "x.traj"))
    assert items and all(isinstance(item, Trajectory | ReadProblem) for item in items)
    assert isinstance(claimed, bool)
    assert value == before
