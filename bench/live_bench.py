"""Benchmark live runs: `assay run` against Inspect AI and a bare asyncio floor.

Usage:
    python bench/live_bench.py [--cases 1000] [--concurrency 50] [--delay 0.2] [--rounds 3]
                               [--out-root /dev/shm/assay-live] [--profile] [--write]

The workload: `--cases` cases of an agent that answers after `--delay` seconds, `--concurrency`
at a time. The ideal time is ceil(cases / concurrency) * delay (4.0 s with the defaults).
Measured in one run, the sides taking turns round by round (the order rotates each round, and
round 0, one batch of cases, only warms the page and bytecode caches):

- the floor: the same sleeps under a bare `asyncio.Semaphore` + `gather`, what any runner's
  overhead is measured against. One run of `live_bench.py --worker floor` gives both its
  evaluation figure (the timed `asyncio.run`) and its command figure (the whole process);
- Inspect AI (the peer; `pip install -e '.[bench]'`): `inspect_ai.eval()` of
  `live_inspect.py`'s task in a fresh process (the evaluation), and the `inspect eval` command
  (the whole command);
- assay: `AgentEvaluator(agent, concurrency=N).evaluate(EvalSet.from_jsonl(path))` of
  `live_agent.py`'s agent in a fresh process (the evaluation), and the `assay run` command
  (the whole command).

Each evaluation runs in its own fresh process, so one side's imports do not weigh on the
other's garbage collection; the process imports the side's API, runs one untimed evaluation of
a handful of cases (so lazy imports and first-use caches are not timed), then times one
evaluation of every case: wall time (`perf_counter`) and CPU time (`process_time`: user +
system of every thread of the process). A command's CPU time is that of the child and its
children (`getrusage(RUSAGE_CHILDREN)`). CPU time is shown per case.

Prints a table (median wall time with the rounds' spread, ratio to the ideal, to the floor,
CPU ms per case, Inspect AI / assay); `--write` appends the figures as one JSON line to
bench/results/live.jsonl (see record.py). `--profile`
also runs the assay evaluation once under cProfile and prints its top functions. When
`assay.evaluation` (the live API) is not importable, assay's half is skipped with a message;
when `inspect_ai` is not installed, Inspect AI's. Exit status: 0 all targets met, 1 a target
missed, 2 a measurement failed or a side was skipped.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import importlib.util
import json
import math
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
TARGET_EVAL = 1.1  # assay's evaluation, relative to the ideal
TARGET_COMMAND = 1.15  # the whole `assay run` command, relative to the ideal
TARGET_SPEEDUP = 1.5  # Inspect AI's time / assay's, evaluation and command alike
WARMUP_CASES = 10  # the untimed evaluation a worker runs before the timed one
NO_TARGET = "—"


# ---------------------------------------------------------------------------------------------
# Workers: one evaluation in a fresh process, its figures printed as one JSON line.


async def floor(cases: int, concurrency: int, delay: float) -> list[str]:
    """`cases` sleeps of `delay` seconds, `concurrency` at a time: no runner at all."""
    limit = asyncio.Semaphore(concurrency)

    async def one() -> str:
        async with limit:
            await asyncio.sleep(delay)
            return "answer"

    return await asyncio.gather(*(one() for _ in range(cases)))


def run_floor(args: argparse.Namespace, cases: int, delay: float) -> str | None:
    answers = asyncio.run(floor(cases, args.concurrency, delay))
    return None if answers.count("answer") == cases else f"{answers.count('answer')} answers"


def run_inspect(args: argparse.Namespace, cases: int, delay: float) -> str | None:
    import inspect_ai

    from live_inspect import live_bench

    logs = inspect_ai.eval(
        live_bench(cases=cases, delay=delay),
        model="mockllm/model",
        max_samples=args.concurrency,
        # Only model calls are held to max_connections (default 10); the solver makes none,
        # but a larger limit keeps the figure independent of it.
        max_connections=args.concurrency,
        display="none",
        log_dir=str(args.log_dir / f"n{cases}"),
    )
    log = logs[0]
    results = log.results
    completed = results.completed_samples if results else 0
    accuracy = results.scores[0].metrics["accuracy"].value if results and results.scores else None
    if log.status != "success" or completed != cases or accuracy != 1.0:
        return f"status {log.status}, {completed} samples completed, accuracy {accuracy}"
    return None


def run_assay(args: argparse.Namespace, cases: int, delay: float) -> str | None:
    from assay.evaluation import AgentEvaluator, EvalSet
    from live_agent import agent

    path = args.eval_set if cases == args.cases else write_eval_set(args.log_dir, cases)
    report = asyncio.run(
        AgentEvaluator(agent, concurrency=args.concurrency).evaluate(EvalSet.from_jsonl(path))
    )
    if report.total_cases != cases or report.passed_cases != cases:
        return f"{report.passed_cases} of {report.total_cases} cases passed, {cases} expected"
    return None


RUNNERS = {"floor": run_floor, "inspect": run_inspect, "assay": run_assay}


def worker(args: argparse.Namespace) -> int:
    """Time one evaluation of `args.cases` cases by `args.worker`; print its figures as JSON."""
    run = RUNNERS[args.worker]
    if args.worker == "assay":
        import live_agent

        live_agent.DELAY = args.delay
    if args.warmup:
        args.log_dir.mkdir(parents=True, exist_ok=True)
        problem = run(args, min(WARMUP_CASES, args.cases), 0.0)
        if problem:
            print(json.dumps({"error": f"warm-up: {problem}"}))
            return 0
    gc.collect()
    profiler = None
    if args.profile:
        import cProfile

        profiler = cProfile.Profile()
        profiler.enable()
    cpu = time.process_time()
    start = time.perf_counter()
    problem = run(args, args.cases, args.delay)
    wall = time.perf_counter() - start
    cpu = time.process_time() - cpu
    if profiler is not None:
        profiler.disable()
        profiler.dump_stats(args.profile)
    print(json.dumps({"wall": wall, "cpu": cpu, "error": problem}))
    return 0


def write_eval_set(directory: Path, cases: int) -> Path:
    """An eval set of `cases` single-turn cases expecting "answer", as JSONL in `directory`."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"evalset_{cases}.jsonl"
    width = max(4, len(str(cases)))
    lines = (
        json.dumps(
            {
                "eval_id": f"c{i:0{width}d}",
                "user_query": f"Question {i}: what is the answer?",
                "expected_response": "answer",
            }
        )
        for i in range(1, cases + 1)
    )
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


# ---------------------------------------------------------------------------------------------
# The parent: rounds of children, the table.


@dataclass
class Series:
    """The timed runs of one measure."""

    label: str
    walls: list[float] = field(default_factory=list)
    cpus: list[float] = field(default_factory=list)
    error: str | None = None

    @property
    def median(self) -> float:
        return statistics.median(self.walls)


@dataclass
class Child:
    """How one child process went."""

    wall: float
    cpu: float
    code: int
    stdout: str
    stderr: str


def run_child(
    command: list[str], env: dict[str, str], log: Path, timeout: float, cwd: Path = ROOT
) -> Child:
    """Run `command` to its end; its wall time (blocking wait: no polling rounds it up) and the
    CPU time of it and its children. Output goes to `log`.out/.err."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out_path, err_path = log.with_suffix(".out"), log.with_suffix(".err")
    with out_path.open("wb") as out, err_path.open("wb") as err:
        start = time.perf_counter()
        proc = subprocess.Popen(command, env=env, cwd=cwd, stdout=out, stderr=err)
        watchdog = threading.Timer(timeout, proc.kill)
        watchdog.start()
        try:
            code = proc.wait()
        finally:
            watchdog.cancel()
        wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Child(
        wall,
        cpu,
        code,
        out_path.read_text(encoding="utf-8", errors="replace"),
        err_path.read_text(encoding="utf-8", errors="replace"),
    )


def tail(text: str, lines: int = 12) -> str:
    return "\n".join(text.strip().splitlines()[-lines:])


@dataclass
class Plan:
    """Everything a round needs to run every side."""

    args: argparse.Namespace
    env: dict[str, str]
    sides: list[str]
    series: dict[str, Series]


def worker_command(args: argparse.Namespace, side: str, cases: int, eval_set: Path) -> list[str]:
    command = [sys.executable, str(Path(__file__).resolve()), "--worker", side]
    command += ["--cases", str(cases), "--concurrency", str(args.concurrency)]
    command += ["--delay", str(args.delay), "--eval-set", str(eval_set)]
    command += ["--log-dir", str(args.out_root / "work" / side)]
    if side == "floor":
        # Its whole process is the floor of a command, so it runs no warm-up evaluation.
        command.append("--no-warmup")
    return command


def command_for(args: argparse.Namespace, side: str, cases: int, eval_set: Path) -> list[str]:
    """The whole command of `side` ("inspect-cmd" or "assay-cmd") on `cases` cases."""
    bin_dir = Path(sys.executable).parent
    out = args.out_root / "work" / side
    if side == "inspect-cmd":
        return [
            str(bin_dir / "inspect"),
            "eval",
            f"{BENCH / 'live_inspect.py'}@live_bench",
            "--model",
            "mockllm/model",
            "-T",
            f"cases={cases}",
            "-T",
            f"delay={args.delay}",
            "--max-samples",
            str(args.concurrency),
            "--max-connections",
            str(args.concurrency),
            "--display",
            "none",
            "--log-dir",
            str(out),
        ]
    return [
        str(bin_dir / "assay"),
        "run",
        f"{BENCH / 'live_agent.py'}:agent",
        str(eval_set),
        "--concurrency",
        str(args.concurrency),
        "--reports-dir",
        str(out),
        "--no-progress",
        "-q",
    ]


def command_problem(side: str, child: Child, out: Path, cases: int) -> str | None:
    """Why a command's run does not count (None when it did its work)."""
    if child.code != 0 or "Traceback" in child.stderr:
        return f"exit status {child.code}:\n{tail(child.stderr or child.stdout)}"
    if side == "inspect-cmd":
        return None if any(out.glob("*.eval")) else f"no log in {out}"
    results = out / "results.jsonl"
    lines = len(results.read_bytes().splitlines()) if results.is_file() else 0
    return None if lines == cases else f"{lines} lines in {results}, {cases} expected"


def run_side(plan: Plan, side: str, cases: int, eval_set: Path, timed: bool) -> None:
    """One run of `side`; its figures go into the plan's series when `timed`."""
    args = plan.args
    work = args.out_root / "work" / side
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    logs = args.out_root / "logs"
    if side.endswith("-cmd"):
        child = run_child(command_for(args, side, cases, eval_set), plan.env, logs / side, 900)
        problem = command_problem(side, child, work, cases)
        figures = [(side, child.wall, child.cpu)]
    else:
        child = run_child(worker_command(args, side, cases, eval_set), plan.env, logs / side, 900)
        last = child.stdout.strip().splitlines()[-1:] if child.code == 0 else []
        data: dict[str, Any] = json.loads(last[0]) if last else {}
        problem = data.get("error") if last else f"exit {child.code}:\n{tail(child.stderr)}"
        figures = [(side, data.get("wall", 0.0), data.get("cpu", 0.0))]
        if side == "floor":
            figures.append(("floor-cmd", child.wall, child.cpu))
    for name, wall, cpu in figures:
        series = plan.series[name]
        if problem:
            series.error = series.error or problem
        elif timed:
            series.walls.append(wall)
            series.cpus.append(cpu)
    shutil.rmtree(work, ignore_errors=True)


LABELS = {
    "floor": "floor: Semaphore + gather (in-process)",
    "inspect": "Inspect AI: `inspect_ai.eval()` (in-process)",
    "assay": "assay: `AgentEvaluator.evaluate()` (in-process)",
    "floor-cmd": "floor: `python live_bench.py --worker floor` (whole process)",
    "inspect-cmd": "Inspect AI: `inspect eval` (whole command)",
    "assay-cmd": "assay: `assay run` (whole command)",
}


def git_commit() -> str:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
        )
    except OSError:
        return "unknown"
    return out.stdout.strip() or "unknown"


def assay_source() -> str:
    """Where the children import assay from, when it is not this checkout's src/ (for
    example a tree given with PYTHONPATH)."""
    spec = importlib.util.find_spec("assay")
    origin = Path(spec.origin).parent.parent if spec and spec.origin else None
    return "" if origin == ROOT / "src" else f", assay imported from {origin}"


def inspect_version() -> str:
    try:
        from importlib.metadata import version

        return version("inspect-ai")
    except Exception:
        return "not installed"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=50)
    parser.add_argument("--delay", type=float, default=0.2, help="the agent's latency (s)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out-root", type=Path, default=Path("/dev/shm/assay-live"))
    parser.add_argument(
        "--profile",
        nargs="?",
        const="",
        default=None,
        help="also profile one assay evaluation (cProfile file; default <out-root>/assay.prof)",
    )
    parser.add_argument(
        "--write", action="store_true", help="append the figures to bench/results/live.jsonl"
    )
    # A worker is this script run by itself as a child (see the module docstring).
    parser.add_argument("--worker", choices=sorted(RUNNERS), help=argparse.SUPPRESS)
    parser.add_argument("--eval-set", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--log-dir", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--no-warmup", dest="warmup", action="store_false", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        return worker(args)
    return parent(args)


def parent(args: argparse.Namespace) -> int:
    from run_bench import child_env  # beside this script: bytecode cached outside src/

    args.out_root.mkdir(parents=True, exist_ok=True)
    (args.out_root / "logs").mkdir(exist_ok=True)
    env = child_env(args.out_root)
    env["LIVE_BENCH_DELAY"] = str(args.delay)  # read by live_agent.py in `assay run`
    eval_set = write_eval_set(args.out_root, args.cases)
    warm_cases = min(args.cases, args.concurrency)
    warm_set = write_eval_set(args.out_root, warm_cases)

    sides = ["floor"]
    skipped: list[str] = []
    if importlib.util.find_spec("inspect_ai") is None:
        skipped.append(
            "Inspect AI skipped: inspect_ai is not installed (pip install -e '.[bench]')"
        )
    else:
        sides += ["inspect", "inspect-cmd"]
    if importlib.util.find_spec("assay.evaluation") is None:
        skipped.append(
            "assay skipped: assay.evaluation (the live API) is not importable in this checkout"
        )
    else:
        sides += ["assay", "assay-cmd"]
    for message in skipped:
        print(message, flush=True)
    names = [*sides, "floor-cmd"]
    plan = Plan(args, env, sides, {name: Series(LABELS[name]) for name in names})
    load = os.getloadavg()[0]
    for round_no in range(args.rounds + 1):
        cases, path = (args.cases, eval_set) if round_no else (warm_cases, warm_set)
        turn = sides[round_no % len(sides) :] + sides[: round_no % len(sides)]
        print(f"round {round_no}{' (warm-up)' if not round_no else ''}: ", end="", flush=True)
        for side in turn:
            run_side(plan, side, cases, path, timed=bool(round_no))
            print(side, end=" ", flush=True)
        print(flush=True)
    load = max(load, os.getloadavg()[0])

    if args.profile is not None and "assay" in sides:
        profile_assay(args, env, eval_set)

    text, status, result = report(plan, load, skipped)
    print(text)
    if args.write:
        import record  # here, not at the top: workers are this script too, and import nothing

        print(f"appended to {record.append('live', result)}")
    return status


def profile_assay(args: argparse.Namespace, env: dict[str, str], eval_set: Path) -> None:
    """One assay evaluation under cProfile; print its top functions."""
    import pstats

    target = Path(args.profile) if args.profile else args.out_root / "assay.prof"
    command = [*worker_command(args, "assay", args.cases, eval_set), "--profile", str(target)]
    child = run_child(command, env, args.out_root / "logs" / "assay-profile", 900)
    if child.code != 0:
        print(f"profile failed:\n{tail(child.stderr)}")
        return
    print(f"\ncProfile of one assay evaluation ({target}), top functions:")
    stats = pstats.Stats(str(target))
    stats.sort_stats("tottime").print_stats(20)
    stats.sort_stats("cumulative").print_stats(25)


def report(plan: Plan, load: float, skipped: list[str]) -> tuple[str, int, dict[str, Any]]:
    """The Markdown section, the exit status and the figures as a record (record.py)."""
    args = plan.args
    ideal = math.ceil(args.cases / args.concurrency) * args.delay
    series = plan.series
    ok_all = True
    errors: list[str] = []

    def good(name: str) -> bool:
        return name in series and not series[name].error and bool(series[name].walls)

    rows: list[list[str]] = []
    for name in ("floor", "inspect", "assay", "floor-cmd", "inspect-cmd", "assay-cmd"):
        if name not in series:
            continue
        s = series[name]
        if not good(name):
            errors.append(f"{s.label}: {s.error or 'no timed run'}")
            rows.append([s.label, "ERROR", "", "", "", ""])
            continue
        floor_name = "floor-cmd" if name.endswith("-cmd") else "floor"
        to_floor = f"{s.median / series[floor_name].median:.3f}x" if good(floor_name) else "n/a"
        cpu_ms = statistics.median(s.cpus) * 1000 / args.cases
        vs = NO_TARGET
        peer = name.replace("assay", "inspect")
        if name.startswith("assay") and good(peer):
            vs = f"{series[peer].median / s.median:.2f}x"
        rows.append(
            [
                s.label,
                f"{s.median:.3f} s ({min(s.walls):.3f}–{max(s.walls):.3f})",
                f"{s.median / ideal:.3f}x",
                to_floor,
                f"{cpu_ms:.2f}",
                vs,
            ]
        )

    targets: list[tuple[str, str, str, str]] = []

    def target(label: str, value: float | None, goal: str, ok: bool) -> None:
        nonlocal ok_all
        if value is None:
            targets.append((label, "n/a", goal, "SKIPPED"))
            ok_all = False
            return
        targets.append((label, f"{value:.3f}x", goal, "PASS" if ok else "MISS"))
        ok_all = ok_all and ok

    eval_ratio = series["assay"].median / ideal if good("assay") else None
    cmd_ratio = series["assay-cmd"].median / ideal if good("assay-cmd") else None
    eval_ok = eval_ratio is not None and eval_ratio <= TARGET_EVAL
    cmd_ok = cmd_ratio is not None and cmd_ratio <= TARGET_COMMAND
    target("assay evaluation / ideal", eval_ratio, f"≤ {TARGET_EVAL}x", eval_ok)
    target("`assay run` / ideal", cmd_ratio, f"≤ {TARGET_COMMAND}x", cmd_ok)
    for kind, a, i in (("evaluation", "assay", "inspect"), ("command", "assay-cmd", "inspect-cmd")):
        speedup = series[i].median / series[a].median if good(a) and good(i) else None
        target(
            f"Inspect AI / assay, {kind}",
            speedup,
            f"≥ {TARGET_SPEEDUP}x",
            (speedup or 0) >= TARGET_SPEEDUP,
        )

    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    command = "python bench/live_bench.py" + "".join(
        f" --{flag} {value}"
        for flag, value, default in (
            ("cases", args.cases, 1000),
            ("concurrency", args.concurrency, 50),
            ("delay", args.delay, 0.2),
            ("rounds", args.rounds, 3),
        )
        if value != default
    )
    command += " --profile" if args.profile is not None else ""
    environment = (
        f"commit {git_commit()}{assay_source()}, Python {platform.python_version()}, "
        f"inspect-ai {inspect_version()}, {platform.system()} {platform.machine()}, "
        f"{os.cpu_count()} CPUs, load average up to {load:.2f}; {args.cases:,} cases, "
        f"{args.concurrency} at a time, {args.delay:g} s each: ideal {ideal:.3f} s; "
        f"median of {args.rounds} rounds (min–max)"
    )
    lines = [
        f"#### {stamp}",
        "",
        f"`{command}`: {environment}",
        "",
        "| " + " | ".join(SIDE_COLUMNS) + " |",
        "|---|---|---|---|---|---|",
        *("| " + " | ".join(cells) + " |" for cells in rows),
        "",
        "| Target | Result | Goal | Status |",
        "|---|---|---|---|",
        *(f"| {a} | {b} | {c} | {d} |" for a, b, c, d in targets),
    ]
    for message in skipped + errors:
        lines += ["", f"- {message}"]
    status = 2 if errors or skipped else 0 if ok_all else 1
    result = {
        "environment": environment,
        "cases": args.cases,
        "concurrency": args.concurrency,
        "delay_s": args.delay,
        "rounds": args.rounds,
        "sides": [dict(zip(SIDE_COLUMNS, cells, strict=True)) for cells in rows],
        "figures": [
            {"measure": label, "result": value, "target": goal, "status": state}
            for label, value, goal, state in targets
        ],
        "problems": skipped + errors,
    }
    return "\n".join(lines) + "\n", status, result


SIDE_COLUMNS = ("Side", "Wall time", "/ ideal", "/ floor", "CPU ms per case", "Inspect AI / assay")

if __name__ == "__main__":
    sys.exit(main())
