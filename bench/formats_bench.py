"""Reading runs in each newer format against parsing the same files with orjson alone.

Usage:
    python bench/formats_bench.py [--runs 10000] [--rounds 7] [--out-root /dev/shm/assay-formats]
                                  [--only NAME ...] [--write]

For each format, `--runs` runs are written in that format (files of 100 runs, the way the
format's tool writes them), then read in turns, in this process, `--rounds` times each:
- floor: what any reader must do, the file's bytes read and parsed with orjson (an `.eval`
  archive's members read and, for Zstandard ones, inflated, then parsed);
- assay: `assay.formats.registry.read_file` on each file (sniffing, the reader, the runs).
The figure is the median of the rounds' own assay / floor ratios (target ≤ 2x, issue 25).
Exit: 0 every target met, 1 one missed.
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
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))

from assay.formats.registry import read_file
from assay.records import Trajectory
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
        lines = []
        for i in range(first, min(first + PER_FILE, runs)):
            root, llm, tool = f"r{i}", f"l{i}", f"t{i}"
            common = {"trace_id": root, "start_time": "2026-11-26T10:00:00",
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


FORMATS: dict[str, tuple[Callable[[Path, int], list[Path]], Callable[[Path], int]]] = {
    "inspect .json": (write_inspect_json, floor_json),
    "inspect .eval": (write_inspect_eval, floor_eval),
    "tau-bench": (write_taubench, floor_json),
    "swe-agent .traj": (write_swe_agent, floor_one),
    "langsmith .jsonl": (write_langsmith, floor_lines),
}
"""Each format: how its files are written, and the floor's reading of one file."""


def assay_read(path: Path) -> int:
    return sum(isinstance(item, Trajectory) for item in read_file(path))


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
    for name, (write, floor) in FORMATS.items():
        if args.only and name not in args.only:
            continue
        folder = args.out_root / name.replace(" ", "_").replace(".", "")
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        paths = write(folder, args.runs)
        assay_read(paths[0])  # warm-up: the reader's modules imported
        ratios, floors, reads = [], [], []
        for _ in range(args.rounds):
            floor_s, floor_n = timed(floor, paths)
            assay_s, assay_n = timed(assay_read, paths)
            if assay_n != args.runs or floor_n != args.runs:
                print(f"{name}: read {assay_n} runs, the floor {floor_n}; expected {args.runs}")
                return 2
            ratios.append(assay_s / floor_s)
            floors.append(floor_s)
            reads.append(assay_s)
        ratio = statistics.median(ratios)
        status = "PASS" if ratio <= TARGET else "MISS"
        missed |= status == "MISS"
        result = (
            f"{ratio:.2f}x (assay {statistics.median(reads):.3f} s, orjson "
            f"{statistics.median(floors):.3f} s)"
        )
        print(f"{name}: {result} {status}")
        rows.append((f"{name}, {args.runs:,} runs, assay / orjson", result, f"≤ {TARGET}x",
                     status))
        values[name] = {"ratio": ratio, "assay_s": statistics.median(reads),
                        "floor_s": statistics.median(floors)}
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
