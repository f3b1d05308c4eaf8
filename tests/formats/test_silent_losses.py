"""Runs that once read as complete while they were not: the tool calls of the OpenAI Agents
SDK's `to_input_list()` items, Inspect AI's tool calls through the OpenAI reader, and the run
files of known formats a directory walk used to pass over without a word."""

from __future__ import annotations

import json
from pathlib import Path

from assay.formats import ReadProblem, read_file
from assay.formats._common import walk_inputs
from assay.records import Trajectory

# `RunResult.to_input_list()` of the OpenAI Agents SDK: Responses-API items.
AGENTS_SDK_ITEMS = [
    {"role": "user", "content": "Weather in Paris and Oslo?"},
    {"type": "reasoning", "id": "rs_1", "summary": []},
    {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "get_weather",
     "arguments": '{"city": "Paris"}', "status": "completed"},
    {"type": "function_call", "id": "fc_2", "call_id": "call_2", "name": "get_weather",
     "arguments": '{"city": "Oslo"}', "status": "completed"},
    {"type": "function_call_output", "call_id": "call_1", "output": "sunny"},
    {"type": "function_call_output", "call_id": "call_2", "output": "rain"},
    {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
     "content": [{"type": "output_text", "text": "Sunny in Paris, rain in Oslo.",
                  "annotations": []}]},
]

# Inspect AI's chat messages: `function` is the tool's name, `arguments` a dict.
INSPECT_MESSAGES = [
    {"role": "system", "content": "Use the tools."},
    {"role": "user", "content": "What is 2 + 2?", "source": "input"},
    {"role": "assistant", "content": "", "source": "generate", "model": "openai/gpt-4o",
     "tool_calls": [{"id": "call_a", "function": "add", "arguments": {"x": 2, "y": 2},
                     "type": "function"}]},
    {"role": "tool", "content": "4", "tool_call_id": "call_a", "function": "add"},
    {"role": "assistant", "content": "4", "source": "generate"},
]


def _runs(path: Path) -> list[Trajectory]:
    found = list(read_file(path))
    assert not [p for p in found if isinstance(p, ReadProblem)], found
    return [r for r in found if isinstance(r, Trajectory)]


def test_the_agents_sdk_input_list_keeps_its_tool_calls(tmp_path: Path) -> None:
    path = tmp_path / "run.json"
    path.write_text(json.dumps(AGENTS_SDK_ITEMS))
    [run] = _runs(path)
    assert run.question == "Weather in Paris and Oslo?"
    assert run.answer == "Sunny in Paris, rain in Oslo."
    [step] = [s for s in run.steps if s.tool_calls]  # asked for together: one step
    assert [(c.name, c.args, c.result) for c in step.tool_calls] == [
        ("get_weather", {"city": "Paris"}, "sunny"),
        ("get_weather", {"city": "Oslo"}, "rain"),
    ]


def test_inspect_messages_keep_their_tool_names(tmp_path: Path) -> None:
    path = tmp_path / "run.json"
    path.write_text(json.dumps(INSPECT_MESSAGES))
    [run] = _runs(path)
    assert run.tool_names() == ["add"]
    call = run.steps[0].tool_calls[0]
    assert (call.args, call.result, run.answer) == ({"x": 2, "y": 2}, "4", "4")


def test_run_files_of_formats_not_read_yet_are_said_not_skipped(tmp_path: Path) -> None:
    (tmp_path / "ok.json").write_text(json.dumps(INSPECT_MESSAGES))
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "2025-01-01T00-00-00_task_abc.eval").write_bytes(b"PK\x03\x04")
    (tmp_path / "swe.traj").write_text("{}")
    (tmp_path / "notes.txt").write_text("not a run")
    found = list(walk_inputs(tmp_path))  # what assay evaluate and assay convert walk
    assert not [p for p in found if isinstance(p, ReadProblem)]
    # Inspect logs and SWE-agent trajectories are inputs, read by their readers
    # (tests/formats/test_inspect_log.py, test_swe_agent.py); other files are not runs.
    assert sorted(Path(p).name for p in found if isinstance(p, str)) == [
        "2025-01-01T00-00-00_task_abc.eval", "ok.json", "swe.traj"
    ]


def _attr(key: str, value: object) -> dict[str, object]:
    kind = "intValue" if isinstance(value, int) else "stringValue"
    return {"key": key, "value": {kind: value}}


def _export(spans: list[dict[str, object]]) -> dict[str, object]:
    return {"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}


def _span(span_id: str, start: int, attributes: list[dict[str, object]], **extra: object) -> dict:
    return {"traceId": "t1", "spanId": span_id, "startTimeUnixNano": str(start * 10**9),
            "endTimeUnixNano": str(start * 10**9 + 5 * 10**8), "attributes": attributes,
            **extra}


def test_otlp_genai_tool_results_in_the_next_request_are_kept(tmp_path: Path) -> None:
    asked = [{"role": "user", "parts": [{"type": "text", "content": "Weather in Paris?"}]}]
    call = {"type": "tool_call", "id": "c1", "name": "get_weather",
            "arguments": {"city": "Paris"}}
    answered = [*asked, {"role": "assistant", "parts": [call]},
                {"role": "tool", "parts": [{"type": "tool_call_response", "id": "c1",
                                            "response": "sunny"}]}]
    export = _export([
        _span("a", 1, [_attr("gen_ai.operation.name", "chat"),
                       _attr("gen_ai.input.messages", json.dumps(asked)),
                       _attr("gen_ai.output.messages", json.dumps(
                           [{"role": "assistant", "parts": [call]}]))]),
        _span("b", 2, [_attr("gen_ai.operation.name", "chat"),
                       _attr("gen_ai.input.messages", json.dumps(answered)),
                       _attr("gen_ai.output.messages", json.dumps(
                           [{"role": "assistant",
                             "parts": [{"type": "text", "content": "Sunny."}]}]))]),
    ])
    path = tmp_path / "otlp.json"
    path.write_text(json.dumps(export))
    [run] = _runs(path)
    assert run.question == "Weather in Paris?" and run.answer == "Sunny."
    assert [(c.name, c.args, c.result) for s in run.steps for c in s.tool_calls] == [
        ("get_weather", {"city": "Paris"}, "sunny")
    ]


def test_otlp_from_google_adk_keeps_the_question_the_answer_and_the_tools(
    tmp_path: Path,
) -> None:
    request = {"model": "gemini-2.0-flash", "config": {"system_instruction": "Be brief."},
               "contents": [{"role": "user", "parts": [{"text": "Weather in Paris?"}]}]}
    asked = {"content": {"role": "model", "parts": [
        {"function_call": {"id": "adk-1", "name": "get_weather", "args": {"city": "Paris"}}}]}}
    later = {**request, "contents": [*request["contents"], asked["content"], {
        "role": "user", "parts": [{"function_response": {
            "id": "adk-1", "name": "get_weather", "response": {"weather": "sunny"}}}]}]}
    replied = {"content": {"role": "model", "parts": [{"text": "It is sunny in Paris."}]}}

    def model_span(span_id: str, start: int, req: dict, resp: dict) -> dict:
        return _span(span_id, start, [
            _attr("gen_ai.operation.name", "generate_content"),
            _attr("gen_ai.system", "gcp.vertex.agent"),
            _attr("gen_ai.request.model", "gemini-2.0-flash"),
            _attr("gen_ai.usage.input_tokens", 40),
            _attr("gcp.vertex.agent.llm_request", json.dumps(req)),
            _attr("gcp.vertex.agent.llm_response", json.dumps(resp)),
        ], name="call_llm")

    export = _export([
        model_span("a", 1, request, asked),
        _span("b", 2, [_attr("gen_ai.operation.name", "execute_tool"),
                       _attr("gen_ai.tool.name", "get_weather"),
                       _attr("gcp.vertex.agent.tool_call_args", '{"city": "Paris"}'),
                       _attr("gcp.vertex.agent.tool_response", '{"weather": "sunny"}')],
              name="execute_tool get_weather"),
        model_span("c", 3, later, replied),
    ])
    path = tmp_path / "adk.json"
    path.write_text(json.dumps(export))
    [run] = _runs(path)
    assert run.question == "Weather in Paris?" and run.answer == "It is sunny in Paris."
    assert [(c.name, c.args, c.result) for s in run.steps for c in s.tool_calls] == [
        ("get_weather", {"city": "Paris"}, {"weather": "sunny"})
    ]
    assert run.usage.input_tokens == 80
