"""Reading runs in each newer format against parsing the same files with orjson alone.

Usage:
    python bench/formats_bench.py [--runs 10000] [--rounds 7] [--out-root /dev/shm/assay-formats]
                                  [--only NAME ...] [--write]

Formats (`--only` takes these names): `inspect .json`, `inspect .eval`, `tau-bench`,
`swe-agent .traj`, `langsmith .jsonl`, `otel openinference` (OTLP JSON, one trace per run:
an AGENT span, an LLM span calling a tool, the TOOL span) and `adk .evalset_result` (Google
ADK eval results, one case result per run: one invocation calling one tool, the file a JSON
string as ADK writes it). For each, `--runs` runs are written in that format (files of 100
runs, the way the format's tool writes them; SWE-agent one run a file), then read in turns,
in this process, `--rounds` times each:
- floor: what any reader must do, the file's bytes read and parsed with orjson (an `.eval`
  archive's members read and, for Zstandard ones, inflated, then parsed; the JSON string of
  an ADK result parsed too);
- build: the floor, then the records assay's reader makes of the runs (one `Trajectory` a
  run, the same numbers of `Step`s, `Message`s, `ToolCall`s, `Usage`s, with the same ids,
  question, answer, tool names, arguments, results, usage and source) built with direct
  constructor calls, no checks, for the shape written here only (OTel spans' attributes made
  dicts, which any reader must do; durations left out for LangSmith): what the records
  themselves cost;
- assay: `assay.formats.registry.read_file` on each file (sniffing, the reader, the runs).
Three figures per format, each the median of the rounds' own ratios:
- assay / floor, the target (≤ 2x, issue 25): PASS or MISS;
- build / floor, the records alone (info, no target): where it is near or above 2x, no
  reader that builds these records can meet the target;
- assay / build, what the reader's own logic (sniffing, checks, notes) adds to the records.
Before the rounds (and as their warm-up), the runs of each format's first file are built and
read, and compared (ids, question, answer, steps, messages, tool calls, usage, source): a
build that differs from assay's runs is a fault of the bench, reported, exit 2.
With `--write`, the figures (a target row and a build row per format) and the values
(`ratio`, `assay_s`, `floor_s`, `build_ratio`, `build_s`, `assay_build_ratio`) are appended
to results/formats.jsonl.
Exit: 0 every target met, 1 one missed, 2 a count mismatch (or a build that differs).
"""

from __future__ import annotations

import argparse
import gc
import shutil
import statistics
import sys
import time
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))

from assay.formats.registry import read_file
from assay.records import Message, Step, ToolCall, Trajectory, Usage
from record import append, command_line, environment, figures, git_commit, now

PER_FILE = 100
TARGET = 2.0


def _inspect_sample(index: int, epoch: int) -> dict[str, Any]:
    answer = f"The answer is {index % 7}"
    return {
        "id": f"s{index}", "epoch": epoch, "input": f"What is {index} mod 7?",
        "target": str(index % 7),
        "messages": [
            {"id": f"u{index}", "content": f"What is {index} mod 7?", "source": "input",
             "role": "user"},
            {"id": f"a{index}", "content": "", "source": "generate", "role": "assistant",
             "tool_calls": [{"id": f"c{index}", "function": "mod",
                             "arguments": {"x": index, "y": 7}, "type": "function"}]},
            {"id": f"t{index}", "content": str(index % 7), "role": "tool",
             "tool_call_id": f"c{index}", "function": "mod"},
            {"id": f"f{index}", "content": answer, "source": "generate", "role": "assistant",
             "model": "openai/gpt-4o"},
        ],
        "output": {"model": "openai/gpt-4o", "completion": answer,
                   "usage": {"input_tokens": 40, "output_tokens": 9, "total_tokens": 49}},
        "scores": {"match": {"value": "C", "answer": answer, "explanation": answer}},
        "metadata": {}, "store": {},
        "events": [{"event": "model", "model": "openai/gpt-4o",
                    "output": {"usage": {"input_tokens": 40, "output_tokens": 9}}}],
        "model_usage": {"openai/gpt-4o": {"input_tokens": 80, "output_tokens": 18,
                                          "total_tokens": 98}},
        "total_time": 1.5, "working_time": 1.4, "error": None,
    }


def _inspect_log(first: int, count: int) -> dict[str, Any]:
    return {
        "version": 2, "status": "success",
        "eval": {"task": "mod7", "task_id": "t", "model": "openai/gpt-4o",
                 "config": {"epochs": 1}, "dataset": {"samples": count}},
        "plan": {"steps": []}, "results": {"total_samples": count}, "stats": {}, "error": None,
        "samples": [_inspect_sample(first + i, 1) for i in range(count)],
    }


def write_inspect_json(folder: Path, runs: int) -> list[Path]:
    paths = []
    for first in range(0, runs, PER_FILE):
        path = folder / f"log_{first:06d}.json"
        path.write_bytes(orjson.dumps(_inspect_log(first, min(PER_FILE, runs - first))))
        paths.append(path)
    return paths


def write_inspect_eval(folder: Path, runs: int) -> list[Path]:
    paths = []
    for first in range(0, runs, PER_FILE):
        log = _inspect_log(first, min(PER_FILE, runs - first))
        path = folder / f"log_{first:06d}.eval"
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
            for sample in log.pop("samples"):
                archive.writestr(f"samples/{sample['id']}_epoch_1.json", orjson.dumps(sample))
            archive.writestr("header.json", orjson.dumps(log))
        paths.append(path)
    return paths


def floor_json(path: Path) -> int:
    value = orjson.loads(path.read_bytes())
    return len(value.get("samples", ())) if isinstance(value, dict) else len(value)


def floor_eval(path: Path) -> int:
    count = 0
    with zipfile.ZipFile(path) as archive:
        for info in archive.infolist():
            value = orjson.loads(archive.read(info))
            count += info.filename.startswith("samples/") and isinstance(value, dict)
    return count


def _chat(index: int) -> list[dict[str, Any]]:
    """An OpenAI-format conversation with one tool call, as tau-bench keeps its `traj`."""
    return [
        {"role": "system", "content": "You are an airline agent."},
        {"role": "user", "content": f"Cancel reservation R{index}."},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": f"c{index}", "type": "function",
             "function": {"name": "cancel_reservation",
                          "arguments": orjson.dumps({"id": f"R{index}"}).decode()}}]},
        {"role": "tool", "tool_call_id": f"c{index}", "name": "cancel_reservation",
         "content": "cancelled"},
        {"role": "assistant", "content": f"Reservation R{index} is cancelled."},
    ]


def write_taubench(folder: Path, runs: int) -> list[Path]:
    paths = []
    for first in range(0, runs, PER_FILE):
        results = [
            {"task_id": i, "trial": 0, "reward": 1.0,
             "info": {"reward_info": {"reward": 1.0, "info": {"r_actions": 1.0}}},
             "traj": _chat(i)}
            for i in range(first, min(first + PER_FILE, runs))
        ]
        path = folder / f"results_{first:06d}.json"
        path.write_bytes(orjson.dumps(results))
        paths.append(path)
    return paths


def write_swe_agent(folder: Path, runs: int) -> list[Path]:
    paths = []
    for index in range(runs):  # SWE-agent writes one trajectory per file
        steps = [
            {"action": action, "observation": observation, "thought": thought,
             "response": thought, "execution_time": 0.2, "state": {}, "query": []}
            for action, observation, thought in [
                ("find_file calc.py", "Found 1 matches: /repo/calc.py", "Find the file."),
                ("open /repo/calc.py", "1: def div(a, b):\n2:     return a / b", "Look."),
                ("edit 2:2\n    return a / b if b else 0\nend_of_edit", "File updated.",
                 "Fix it."),
                ("submit", "diff --git a/calc.py b/calc.py", "Done."),
            ]
        ]
        traj = {
            "environment": "swe_main",
            "trajectory": steps,
            "history": [{"role": "system", "content": "You are an agent.", "agent": "main"},
                        {"role": "user", "content": f"Issue {index}: division by zero.",
                         "agent": "main"}],
            "info": {"exit_status": "submitted", "submission": "diff --git a/calc.py",
                     "model_stats": {"tokens_sent": 900, "tokens_received": 120,
                                     "instance_cost": 0.01, "api_calls": 4}},
        }
        path = folder / f"repo__repo-{index:05d}.traj"
        path.write_bytes(orjson.dumps(traj))
        paths.append(path)
    return paths


def write_langsmith(folder: Path, runs: int) -> list[Path]:
    paths = []
    for first in range(0, runs, PER_FILE):
        lines: list[dict[str, Any]] = []
        for i in range(first, min(first + PER_FILE, runs)):
            root, llm, tool = f"r{i}", f"l{i}", f"t{i}"
            common: dict[str, Any] = {"trace_id": root, "start_time": "2026-11-26T10:00:00",
                      "end_time": "2026-11-26T10:00:01"}
            lines.append({**common, "id": root, "name": "agent", "run_type": "chain",
                          "parent_run_id": None,
                          "inputs": {"messages": [{"role": "user", "content": f"Weather {i}?"}]},
                          "outputs": {"messages": [{"role": "assistant", "content": "Sunny"}]}})
            lines.append({**common, "id": llm, "name": "ChatOpenAI", "run_type": "llm",
                          "parent_run_id": root, "prompt_tokens": 30, "completion_tokens": 8,
                          "inputs": {"messages": [{"role": "user", "content": f"Weather {i}?"}]},
                          "outputs": {"generations": [[{"text": "", "message": {
                              "type": "ai", "content": "", "tool_calls": [
                                  {"name": "weather", "args": {"city": "Paris"},
                                   "id": f"c{i}"}]}}]]}})
            lines.append({**common, "id": tool, "name": "weather", "run_type": "tool",
                          "parent_run_id": root, "extra": {"tool_call_id": f"c{i}"},
                          "inputs": {"city": "Paris"}, "outputs": {"output": "Sunny"}})
        path = folder / f"runs_{first:06d}.jsonl"
        path.write_bytes(b"\n".join(orjson.dumps(line) for line in lines) + b"\n")
        paths.append(path)
    return paths


def floor_lines(path: Path) -> int:
    """Every line parsed; the runs are the traces' roots."""
    return sum(
        orjson.loads(line).get("parent_run_id") is None
        for line in path.read_bytes().splitlines() if line
    )


def floor_one(path: Path) -> int:
    orjson.loads(path.read_bytes())
    return 1


def _attributes(values: dict[str, Any]) -> list[dict[str, Any]]:
    """OTLP JSON attributes (int64 as strings, as exporters write them)."""
    return [
        {"key": key, "value": {"intValue": str(value)} if isinstance(value, int)
         else {"stringValue": value}}
        for key, value in values.items()
    ]


def _otel_trace(index: int) -> list[dict[str, Any]]:
    """A LangChain agent's trace as Phoenix's OpenInference instrumentor exports it: the
    agent's span, a model call asking for a tool, the tool's span."""
    trace, question = f"{index + 1:032x}", f"Is chiller CH-{index} running hot?"
    answer = f"Yes: CH-{index} reads 41.5 C, above its 38 C limit."
    args = orjson.dumps({"asset": f"CH-{index}"}).decode()
    start = 1_764_000_000_000_000_000 + index * 1_000_000_000

    def span(suffix: str, name: str, begin_ms: int, end_ms: int, values: dict[str, Any],
             parent: str = "") -> dict[str, Any]:
        return {"traceId": trace, "spanId": f"{index + 1:014x}{suffix}",
                "parentSpanId": parent and f"{index + 1:014x}{parent}", "name": name,
                "kind": 1, "startTimeUnixNano": str(start + begin_ms * 1_000_000),
                "endTimeUnixNano": str(start + end_ms * 1_000_000),
                "attributes": _attributes(values), "status": {"code": 1}}

    messages_in, messages_out = "llm.input_messages", "llm.output_messages.0.message"
    return [
        span("a0", "AgentExecutor", 0, 100, {
            "openinference.span.kind": "AGENT",
            "input.value": orjson.dumps({"input": question}).decode(),
            "input.mime_type": "application/json",
            "output.value": orjson.dumps({"output": answer}).decode(),
            "output.mime_type": "application/json"}),
        span("b1", "ChatOpenAI", 10, 30, {
            "openinference.span.kind": "LLM", "llm.model_name": "gpt-4o-mini",
            "llm.token_count.prompt": 120, "llm.token_count.completion": 18,
            "llm.token_count.total": 138,
            f"{messages_in}.0.message.role": "system",
            f"{messages_in}.0.message.content": "You watch chillers.",
            f"{messages_in}.1.message.role": "user",
            f"{messages_in}.1.message.content": question,
            f"{messages_out}.role": "assistant",
            f"{messages_out}.tool_calls.0.tool_call.id": f"call_{index}",
            f"{messages_out}.tool_calls.0.tool_call.function.name": "get_sensor",
            f"{messages_out}.tool_calls.0.tool_call.function.arguments": args,
            "output.value": '{"choices": []}', "output.mime_type": "application/json"},
            parent="a0"),
        span("c2", "get_sensor", 32, 40, {
            "openinference.span.kind": "TOOL", "tool.name": "get_sensor",
            "tool.description": "Read a sensor", "input.value": args,
            "output.value": '{"temp_c": 41.5}', "output.mime_type": "application/json"},
            parent="a0"),
    ]


def write_otel(folder: Path, runs: int) -> list[Path]:
    paths = []
    for first in range(0, runs, PER_FILE):
        spans = [span for i in range(first, min(first + PER_FILE, runs))
                 for span in _otel_trace(i)]
        export = {"resourceSpans": [{
            "resource": {"attributes": _attributes({"service.name": "chiller-agent"})},
            "scopeSpans": [{"scope": {"name": "openinference.instrumentation.langchain"},
                            "spans": spans}]}]}
        path = folder / f"traces_{first:06d}.json"
        path.write_bytes(orjson.dumps(export))
        paths.append(path)
    return paths


def _otlp_spans(path: Path) -> list[dict[str, Any]]:
    value = orjson.loads(path.read_bytes())
    return [span for resource in value["resourceSpans"] for scope in resource["scopeSpans"]
            for span in scope["spans"]]


def floor_otel(path: Path) -> int:
    """The export parsed; the runs are the traces' roots."""
    return sum(not span.get("parentSpanId") for span in _otlp_spans(path))


def _adk_invocation(index: int, answer: str) -> dict[str, Any]:
    call = {"id": f"adk-{index}", "name": "get_weather", "args": {"city": f"City {index}"}}
    return {
        "invocation_id": f"e-{index}",
        "user_content": {"parts": [{"text": f"Weather in City {index}?"}], "role": "user"},
        "final_response": {"parts": [{"text": answer}], "role": "model"},
        "intermediate_data": {
            "tool_uses": [call],
            "tool_responses": [{"id": call["id"], "name": call["name"],
                                "response": {"temp": 21}}],
            "intermediate_responses": []},
        "creation_timestamp": 1750000000.0,
    }


def _adk_case(index: int) -> dict[str, Any]:
    metrics = [
        {"metric_name": name, "threshold": threshold, "criterion": None, "score": score,
         "eval_status": 1, "details": None}
        for name, threshold, score in [("tool_trajectory_avg_score", 1.0, 1.0),
                                       ("response_match_score", 0.7, 0.8)]
    ]
    return {
        "eval_set_file": None, "eval_set_id": "weather", "eval_id": f"case_{index}",
        "final_eval_status": 1, "eval_metric_results": None,
        "overall_eval_metric_results": metrics,
        "eval_metric_result_per_invocation": [{
            "actual_invocation": _adk_invocation(index, "21 degrees."),
            "expected_invocation": _adk_invocation(index, "It is 21 degrees."),
            "eval_metric_results": metrics}],
        "session_id": f"___eval___session___{index}", "session_details": None,
        "user_id": "test_user_id",
    }


def write_adk_results(folder: Path, runs: int) -> list[Path]:
    paths = []
    for first in range(0, runs, PER_FILE):
        result = {
            "eval_set_result_id": f"weather_{first}", "eval_set_result_name": f"weather_{first}",
            "eval_set_id": "weather", "creation_timestamp": 1750000000.0,
            "eval_case_results": [_adk_case(i) for i in range(first, min(first + PER_FILE, runs))],
        }
        path = folder / f"weather_{first:06d}.evalset_result.json"
        # ADK writes the JSON as a JSON string (`json.dumps(result.model_dump_json())`).
        path.write_bytes(orjson.dumps(orjson.dumps(result).decode()))
        paths.append(path)
    return paths


def _adk_value(path: Path) -> Any:
    value = orjson.loads(path.read_bytes())
    return orjson.loads(value) if isinstance(value, str) else value


def floor_adk(path: Path) -> int:
    """The file parsed, and the JSON string in it."""
    return len(_adk_value(path)["eval_case_results"])


# --- the build reference: the records assay's readers make, built without checks ----------


def _chat_records(
    messages: list[dict[str, Any]], call: Callable[[dict[str, Any]], ToolCall]
) -> tuple[list[Step], list[Message], str | None, str | None]:
    """The steps, messages, question and answer of an OpenAI-style chat, as the chat readers
    make them: each assistant message a step (its calls made by `call`), each tool message's
    content the result of the call with its id."""
    steps: list[Step] = []
    out: list[Message] = []
    calls: dict[str, ToolCall] = {}
    question = answer = None
    users = 0
    for message in messages:
        role, text = message["role"], message.get("content")
        if role == "assistant":
            made = [call(raw) for raw in message.get("tool_calls") or ()]
            calls.update((made_call.call_id or "", made_call) for made_call in made)
            steps.append(Step(len(steps), text, made, Usage(), turn=max(users - 1, 0)))
            out.append(Message("assistant", text, list(made)))
            answer = text or answer
        elif role == "tool":
            calls[message["tool_call_id"]].result = text
            out.append(Message("tool", text, tool_call_id=message["tool_call_id"]))
        else:
            if role == "user":
                users += 1
                question = question or text
            out.append(Message(role, text))
    return steps, out, question, answer


def _inspect_call(raw: dict[str, Any]) -> ToolCall:
    return ToolCall(raw["function"], raw["arguments"], raw["id"])


def _openai_call(raw: dict[str, Any]) -> ToolCall:
    function = raw["function"]
    return ToolCall(function["name"], orjson.loads(function["arguments"]), raw["id"])


def _inspect_run(sample: dict[str, Any], header: dict[str, Any], source: str) -> Trajectory:
    steps, messages, question, _ = _chat_records(sample["messages"], _inspect_call)
    used = sample["model_usage"].values()
    return Trajectory(
        run_id=sample["id"], scenario_id=sample["id"], runner=header["task"],
        model=header["model"], question=question, answer=sample["output"]["completion"],
        steps=steps, messages=messages,
        usage=Usage(sum(u["input_tokens"] for u in used), sum(u["output_tokens"] for u in used)),
        duration_ms=sample["total_time"] * 1000.0, source=source,
        source_verdicts=sample["scores"],
    )


def build_inspect_json(path: Path) -> list[Trajectory]:
    log = orjson.loads(path.read_bytes())
    return [_inspect_run(sample, log["eval"], f"{path}:samples[{index}]")
            for index, sample in enumerate(log["samples"])]


def build_inspect_eval(path: Path) -> list[Trajectory]:
    with zipfile.ZipFile(path) as archive:
        members = {info.filename: orjson.loads(archive.read(info))
                   for info in archive.infolist()}
    header = members.pop("header.json")["eval"]
    return [_inspect_run(sample, header, f"{path}:samples[{index}]")
            for index, sample in enumerate(members.values())]


def build_taubench(path: Path) -> list[Trajectory]:
    runs = []
    for index, result in enumerate(orjson.loads(path.read_bytes())):
        steps, messages, question, answer = _chat_records(result["traj"], _openai_call)
        runs.append(Trajectory(
            run_id=f"{result['task_id']}#{result['trial']}", scenario_id=str(result["task_id"]),
            question=question, answer=answer, steps=steps, messages=messages,
            source=f"{path}#{index}",
            source_verdicts={"reward": result["reward"],
                             "reward_info": result["info"]["reward_info"]},
        ))
    return runs


def build_swe_agent(path: Path) -> list[Trajectory]:
    traj = orjson.loads(path.read_bytes())
    steps = [
        Step(index, item["thought"],
             [ToolCall(item["action"].split(None, 1)[0], {"command": item["action"]},
                       result=item["observation"])],
             Usage(), duration_ms=item["execution_time"] * 1000.0)
        for index, item in enumerate(traj["trajectory"])
    ]
    info, name = traj["info"], path.stem
    stats = info["model_stats"]
    return [Trajectory(
        run_id=name, scenario_id=name, runner="SWE-agent",
        question=next(m["content"] for m in traj["history"] if m["role"] == "user"),
        answer=info["submission"], steps=steps,
        usage=Usage(stats["tokens_sent"], stats["tokens_received"]), source=str(path),
    )]


def build_langsmith(path: Path) -> list[Trajectory]:
    """The traces in file order, root first (as written); durations left out."""
    runs: dict[str, Trajectory] = {}
    calls: dict[str, ToolCall] = {}
    for number, line in enumerate(path.read_bytes().splitlines()):
        item = orjson.loads(line)
        kind = item["run_type"]
        if kind == "chain":
            runs[item["id"]] = Trajectory(
                run_id=item["id"], runner=item["name"],
                question=item["inputs"]["messages"][0]["content"],
                answer=item["outputs"]["messages"][-1]["content"], source=f"{path}#{number}")
        elif kind == "llm":
            said = item["outputs"]["generations"][0][0]["message"]
            made = [ToolCall(raw["name"], raw["args"], raw["id"]) for raw in said["tool_calls"]]
            calls.update((made_call.call_id or "", made_call) for made_call in made)
            run = runs[item["trace_id"]]
            step = Step(len(run.steps), said["content"], made,
                        Usage(item["prompt_tokens"], item["completion_tokens"]))
            run.steps.append(step)
            run.usage = run.usage + step.usage
        elif kind == "tool":
            calls[item["extra"]["tool_call_id"]].result = item["outputs"]["output"]
    return list(runs.values())


def _otel_ms(span: dict[str, Any]) -> float:
    return (int(span["endTimeUnixNano"]) - int(span["startTimeUnixNano"])) / 1e6


def build_otel(path: Path) -> list[Trajectory]:
    """Each span's attributes made a dict (any reader must find them), the trace built from
    the agent (first, as written), model call and tool spans."""
    runs: dict[str, Trajectory] = {}
    names: dict[str, str] = {}
    for resource in orjson.loads(path.read_bytes())["resourceSpans"]:
        service = resource["resource"]["attributes"][0]["value"]["stringValue"]
        for span in (span for scope in resource["scopeSpans"] for span in scope["spans"]):
            values = {a["key"]: next(iter(a["value"].values())) for a in span["attributes"]}
            kind, trace = values["openinference.span.kind"], span["traceId"]
            names[span["spanId"]] = span["name"]
            if kind == "AGENT":
                runs[trace] = Trajectory(
                    run_id=trace, runner=service,
                    question=orjson.loads(values["input.value"])["input"],
                    answer=orjson.loads(values["output.value"])["output"],
                    duration_ms=_otel_ms(span), source=f"{path}#{trace}")
            elif kind == "LLM":
                run = runs[trace]
                step = Step(len(run.steps), None, [],
                            Usage(int(values["llm.token_count.prompt"]),
                                  int(values["llm.token_count.completion"])),
                            _otel_ms(span), node=names[span["parentSpanId"]])
                run.steps.append(step)
                run.model = values["llm.model_name"]
                run.usage = run.usage + step.usage
            elif kind == "TOOL":
                runs[trace].steps[-1].tool_calls.append(ToolCall(
                    values["tool.name"], orjson.loads(values["input.value"]),
                    result=orjson.loads(values["output.value"])))
    return list(runs.values())


_ADK_STATUS = {1: "PASSED", 2: "FAILED", 3: "NOT_EVALUATED"}


def _adk_metrics(metrics: list[dict[str, Any]]) -> dict[str, Any]:
    return {m["metric_name"]: {"score": m["score"], "threshold": m["threshold"],
                               "eval_status": _ADK_STATUS[m["eval_status"]]} for m in metrics}


def _adk_text(content: dict[str, Any]) -> str:
    return "".join(part["text"] for part in content["parts"])


def build_adk_results(path: Path) -> list[Trajectory]:
    """Each case's actual invocations: a step per call (the last with the final response),
    the user's, the calls', their results' and the final response's messages."""
    runs = []
    for index, case in enumerate(_adk_value(path)["eval_case_results"]):
        steps: list[Step] = []
        messages: list[Message] = []
        entries = case["eval_metric_result_per_invocation"]
        for turn, entry in enumerate(entries):
            invocation = entry["actual_invocation"]
            data, final = invocation["intermediate_data"], _adk_text(invocation["final_response"])
            calls = [ToolCall(use["name"], use["args"], use["id"]) for use in data["tool_uses"]]
            by_id = {call.call_id: call for call in calls}
            for response in data["tool_responses"]:
                by_id[response["id"]].result = response["response"]
            steps.extend(Step(len(steps), None, [call], turn=turn) for call in calls)
            steps[-1].text = final
            messages.append(Message("user", _adk_text(invocation["user_content"])))
            messages.append(Message("assistant", tool_calls=calls))
            messages.extend(Message("tool", orjson.dumps(call.result).decode(),
                                    tool_call_id=call.call_id) for call in calls)
            messages.append(Message("assistant", final))
        runs.append(Trajectory(
            run_id=case["eval_id"], scenario_id=case["eval_id"], question=messages[0].content,
            answer=messages[-1].content, steps=steps, messages=messages,
            source=f"{path}#{index}",
            source_verdicts={
                "final_eval_status": _ADK_STATUS[case["final_eval_status"]],
                "metrics": _adk_metrics(case["overall_eval_metric_results"]),
                "per_invocation": [_adk_metrics(e["eval_metric_results"]) for e in entries]},
        ))
    return runs


class Format(NamedTuple):
    write: Callable[[Path, int], list[Path]]
    """How its files are written."""
    floor: Callable[[Path], int]
    """The floor's reading of one file (its number of runs)."""
    build: Callable[[Path], list[Trajectory]]
    """The build reference's reading of one file: its runs' records."""


FORMATS: dict[str, Format] = {
    "inspect .json": Format(write_inspect_json, floor_json, build_inspect_json),
    "inspect .eval": Format(write_inspect_eval, floor_eval, build_inspect_eval),
    "tau-bench": Format(write_taubench, floor_json, build_taubench),
    "swe-agent .traj": Format(write_swe_agent, floor_one, build_swe_agent),
    "langsmith .jsonl": Format(write_langsmith, floor_lines, build_langsmith),
    "otel openinference": Format(write_otel, floor_otel, build_otel),
    "adk .evalset_result": Format(write_adk_results, floor_adk, build_adk_results),
}


def assay_read(path: Path) -> int:
    return sum(isinstance(item, Trajectory) for item in read_file(path))


def _shape(run: Trajectory) -> tuple[Any, ...]:
    """What the build reference must share with assay's run."""
    calls = run.tool_calls()
    return (run.run_id, run.scenario_id, run.question, run.answer, len(run.steps),
            len(run.messages), [(c.name, c.args, c.call_id, c.result) for c in calls],
            run.usage, run.source)


def counted(build: Callable[[Path], list[Trajectory]]) -> Callable[[Path], int]:
    """The build reference as a count of runs, as the floor and assay are timed."""

    def count(path: Path) -> int:
        return len(build(path))

    return count


def build_differs(path: Path, build: Callable[[Path], list[Trajectory]]) -> str | None:
    """How the build reference's runs of `path` differ from assay's, or None."""
    built = [_shape(run) for run in build(path)]
    read = [_shape(run) for run in read_file(path) if isinstance(run, Trajectory)]
    if len(built) != len(read):
        return f"{len(built)} runs built, {len(read)} read"
    for ours, theirs in zip(built, read, strict=True):
        if ours != theirs:
            return f"built {ours}\n  read  {theirs}"
    return None


def timed(work: Callable[[Path], int], paths: list[Path]) -> tuple[float, int]:
    gc.collect()
    started = time.perf_counter()
    found = sum(work(path) for path in paths)
    return time.perf_counter() - started, found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--out-root", type=Path, default=Path("/dev/shm/assay-formats"))
    parser.add_argument("--only", nargs="*", help="format names to run (default: all)")
    parser.add_argument("--write", action="store_true", help="append to results/formats.jsonl")
    args = parser.parse_args(argv)
    rows, values, missed = [], {}, False
    for name, (write, floor, build) in FORMATS.items():
        if args.only and name not in args.only:
            continue
        folder = args.out_root / name.replace(" ", "_").replace(".", "")
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        paths = write(folder, args.runs)
        differs = build_differs(paths[0], build)  # also the warm-up: the modules imported
        if differs is not None:
            print(f"{name}: the build reference differs from assay:\n  {differs}")
            return 2
        built = counted(build)
        times: dict[str, list[float]] = {"floor": [], "build": [], "assay": []}
        for _ in range(args.rounds):
            for side, work in (("floor", floor), ("build", built), ("assay", assay_read)):
                seconds, found = timed(work, paths)
                if found != args.runs:
                    print(f"{name}: {side} read {found} runs; expected {args.runs}")
                    return 2
                times[side].append(seconds)
        floor_s, build_s, assay_s = (statistics.median(times[side])
                                     for side in ("floor", "build", "assay"))
        ratio, build_ratio, own_ratio = (
            statistics.median(a / b for a, b in zip(times[top], times[bottom], strict=True))
            for top, bottom in (("assay", "floor"), ("build", "floor"), ("assay", "build"))
        )
        status = "PASS" if ratio <= TARGET else "MISS"
        missed |= status == "MISS"
        result = f"{ratio:.2f}x (assay {assay_s:.3f} s, orjson {floor_s:.3f} s)"
        records = (f"{build_ratio:.2f}x (build {build_s:.3f} s, orjson {floor_s:.3f} s); "
                   f"assay / build {own_ratio:.2f}x")
        print(f"{name}: {result} {status}\n  records alone, build / orjson: {records}")
        rows.append((f"{name}, {args.runs:,} runs, assay / orjson", result, f"≤ {TARGET}x",
                     status))
        rows.append((f"{name}, {args.runs:,} runs, build / orjson (the records alone)", records,
                     "—", "info"))
        values[name] = {"ratio": ratio, "assay_s": assay_s, "floor_s": floor_s,
                        "build_ratio": build_ratio, "build_s": build_s,
                        "assay_build_ratio": own_ratio}
        shutil.rmtree(folder, ignore_errors=True)
    if args.write:
        append("formats", {
            "bench": "formats", "date": now(), "commit": git_commit(),
            "command": command_line(), "environment": environment(),
            "figures": figures(rows), "values": values,
        })
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
