"""Benchmark the Ray executor against the local one: `assay run` on the same work, in turns.

Usage:
    python bench/ray_bench.py [--cases 4000] [--in-flight 500] [--workers 2] [--delay 0.5]
                              [--rounds 3] [--kill-at 0.5] [--out-root /dev/shm/assay-ray]
                              [--rev COMMIT] [--write]

The workload: `--cases` cases of an agent that answers after `--delay` seconds, `--in-flight`
cases in flight in all. The ideal time is ceil(cases / in-flight) * delay (4.0 s with the
defaults). Three sides, each one `assay run` command in a fresh process, a fresh reports
directory each time:

- local: `--concurrency <in-flight>` in the driver's process;
- ray: `--executor ray --ray-address 127.0.0.1:<port> --ray-workers <workers>
  --concurrency <in-flight / workers>` (the concurrency is per worker on Ray);
- ray, a worker killed: the same, and when `--kill-at` of the cases have a line in the run's
  results.jsonl (watched from this process), one worker (`ray::Host`, a child of this
  cluster's raylet) gets SIGKILL. The run must still finish every case, each once: the
  executor runs the killed worker's units again on a worker started in its place.

A Ray head (`ray start --head --num-cpus 2 --node-ip-address 127.0.0.1`, a free port) is
started before anything is timed, with its own `--temp-dir` under `--out-root` (so a plain
`ray.init()` elsewhere on the machine does not find it, and it can be stopped alone) and its
own token (`RAY_AUTH_MODE=token`, `RAY_AUTH_TOKEN_PATH`, for it and the drivers alike: Ray
2.60 turns token authentication on for `ray start` when ~/.ray/auth_token exists, but not for
a driver given an address). So the Ray runs pay Ray's fixed costs (import, connect, start the
workers) but not a cluster's start. At the end the cluster is stopped by killing, by process
id, the processes whose command line names its temp dir and their children; `ray stop` is
never run, as it stops every Ray cluster on the machine. The agent is written into
<out-root>/agent/, as Ray ships the agent file's folder to the workers (bench/ holds
hundreds of MB of data).

`--rev COMMIT` runs assay from `src/` of that commit (exported with `git archive`, put first
on PYTHONPATH, which the executor passes on to its workers) instead of the working tree: a
worker started mid-run (the killed one's replacement) imports assay afresh, so edits to the
tree during a run would reach it.

Round 0, with one batch of cases, warms the caches and the cluster (the runtime environment
built once) and is not timed; then `--rounds` rounds, the order of the sides rotating. Each
run is timed by this process: wall time from start to a blocking `os.wait4`, and the CPU time
(user + system) `wait4` reports for the `assay run` process: the driver's, as Ray's workers
are not its children. Every run must pass every case (pass rate 1.0 in _aggregate.json, one
line per case in results.jsonl); the killed run must also show a lost worker and no lost
unit in the aggregate's `options.live.executor`.

Prints a table (median wall time with the rounds' spread, ratio to the ideal, when the first
case had its line in results.jsonl, driver CPU ms per case) and the targets, each the median
of the rounds' own figures: ray - local ≤ 3 s (Ray's fixed costs), killed / local ≤ 1.5x.
`--write` appends the figures as one JSON line to
bench/results/ray.jsonl (see record.py). Exit status: 0 both targets met, 1 a target missed,
2 a measurement failed (a run failed, lost or repeated a case, or no worker could be killed).
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import re
import secrets
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tarfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

import record
from run_bench import child_env

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
TARGET_EXTRA_S = 3.0  # ray's median wall time - local's, the same round
TARGET_KILLED = 1.5  # a worker killed half way: wall time / local's, the same round
HOST_TITLE = re.compile(r"ray::_?Host\b")  # an assay worker's process title (see Cluster.hosts)
RUN_TIMEOUT_S = 600.0  # a run still going after this is killed and reported
SIDES = ("local", "ray", "ray-killed")
LABELS = {
    "local": "local: `assay run --concurrency {in_flight}`",
    "ray": "ray: `--executor ray --ray-workers {workers} --concurrency {per_worker}`",
    "ray-killed": "ray, a worker SIGKILLed at {kill_pct}% of the cases",
}

AGENT = '''"""ray_bench.py's agent: answers "answer" after {delay!r} s, as a model would."""

import asyncio

DELAY = {delay!r}


async def agent(messages):
    await asyncio.sleep(DELAY)
    return "answer"
'''


# ---------------------------------------------------------------------------------------------
# The cluster.


@dataclass(frozen=True)
class Proc:
    """A process as /proc shows it (Linux)."""

    pid: int
    ppid: int
    state: str
    cmdline: tuple[str, ...]


def all_processes() -> list[Proc]:
    """Every process this user can see, from /proc (no psutil: the bench needs only Ray)."""
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(entry.path, "stat").read_bytes()
            cmdline = Path(entry.path, "cmdline").read_bytes()
        except OSError:  # gone meanwhile, or not ours to read
            continue
        fields = stat[stat.rindex(b")") + 2 :].split()  # after "pid (name) "
        parts = cmdline.rstrip(b"\0").split(b"\0") if cmdline else []
        found.append(
            Proc(
                int(entry.name),
                int(fields[1]),
                fields[0].decode(),
                tuple(part.decode(errors="replace") for part in parts),
            )
        )
    return found


@dataclass
class Cluster:
    """A Ray head started for the bench."""

    address: str
    temp_dir: Path
    env: dict[str, str]

    def processes(self) -> list[Proc]:
        """Its live processes: those naming its temp dir, and their descendants (whose
        command lines Ray rewrites: `ray::Host`, `ray::IDLE`...)."""
        mark = str(self.temp_dir)
        procs = [proc for proc in all_processes() if proc.state != "Z"]
        children: dict[int, list[Proc]] = {}
        for proc in procs:
            children.setdefault(proc.ppid, []).append(proc)
        found = {proc.pid: proc for proc in procs if any(mark in a for a in proc.cmdline)}
        todo = list(found.values())
        while todo:
            for child in children.get(todo.pop().pid, ()):
                if child.pid not in found:
                    found[child.pid] = child
                    todo.append(child)
        return list(found.values())

    def hosts(self) -> list[int]:
        """The process ids of the assay workers alive in it: Ray titles an actor's process
        `ray::<class>` (`_Host` at 675737e, its subclass `Host` since 207ce51)."""
        return sorted(
            proc.pid
            for proc in self.processes()
            if proc.cmdline and HOST_TITLE.match(proc.cmdline[0])
        )

    def stop(self) -> None:
        """Kill its processes by id: SIGTERM, then SIGKILL for those still there after 5 s."""
        self._signal(signal.SIGTERM)
        deadline = time.monotonic() + 5
        while self.processes() and time.monotonic() < deadline:
            time.sleep(0.1)
        self._signal(signal.SIGKILL)

    def _signal(self, signum: int) -> None:
        for proc in self.processes():
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(proc.pid, signum)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_cluster(out_root: Path, env: dict[str, str]) -> Cluster:
    """A Ray head on 127.0.0.1 with 2 CPUs, its own temp dir and token; raises when it does
    not start."""
    temp_dir = out_root / "ray"
    shutil.rmtree(temp_dir, ignore_errors=True)
    temp_dir.mkdir(parents=True)
    token = out_root / "ray_auth_token"
    token.write_text(secrets.token_hex(32), encoding="utf-8")
    token.chmod(0o600)
    env = dict(env, RAY_AUTH_MODE="token", RAY_AUTH_TOKEN_PATH=str(token))
    env.pop("RAY_ADDRESS", None)
    port = free_port()
    command = [
        str(Path(sys.executable).parent / "ray"),
        "start",
        "--head",
        f"--port={port}",
        "--node-ip-address=127.0.0.1",
        "--num-cpus=2",
        "--include-dashboard=false",
        "--disable-usage-stats",
        f"--temp-dir={temp_dir}",
    ]
    cluster = Cluster(f"127.0.0.1:{port}", temp_dir, env)
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        cluster.stop()
        raise RuntimeError(f"`ray start` failed ({done.returncode}):\n{tail(done.stderr)}")
    return cluster


def export_source(revision: str, into: Path) -> Path:
    """The `src/` directory of `revision`, written under `into`."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", revision, "src"],
        check=True,
        capture_output=True,
    ).stdout
    into.mkdir(parents=True, exist_ok=True)
    (into / "src.tar").write_bytes(archive)
    with tarfile.open(into / "src.tar") as tar:
        tar.extractall(into, filter="data")
    return into / "src"


def resolve(revision: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", revision], capture_output=True, text=True
    )
    return done.stdout.strip() or revision


# ---------------------------------------------------------------------------------------------
# One run.


@dataclass
class Run:
    """How one `assay run` went."""

    wall: float
    cpu: float
    problem: str | None
    first: float  # seconds to the first line of results.jsonl
    executor: dict[str, Any] = field(default_factory=dict)
    killed: dict[str, Any] = field(default_factory=dict)


def tail(text: str, lines: int = 12) -> str:
    return "\n".join(text.strip().splitlines()[-lines:])


def count_lines(path: Path, state: list[int]) -> int:
    """Lines in `path` so far; `state` holds [bytes read, lines counted] between calls."""
    try:
        with path.open("rb") as file:
            file.seek(state[0])
            chunk = file.read()
    except FileNotFoundError:
        return 0
    state[0] += len(chunk)
    state[1] += chunk.count(b"\n")
    return state[1]


def watch(
    results: Path,
    start: float,
    stop: threading.Event,
    note: dict[str, Any],
    kill: tuple[Cluster, int] | None,
) -> None:
    """Note when `results` gets its first line (`first_s`, from `start`); with `kill`, once it
    has that many lines, SIGKILL one assay worker of the cluster and say which in `note`."""
    state = [0, 0]
    while not stop.wait(0.01):
        lines = count_lines(results, state)
        if lines and "first_s" not in note:
            note["first_s"] = time.perf_counter() - start
        if kill is None:
            if lines:
                return
            continue
        cluster, at = kill
        if lines < at:
            continue
        pids = cluster.hosts()
        if not pids:
            note["error"] = f"no assay worker (ray::Host) to kill at {lines} lines"
            return
        os.kill(pids[0], signal.SIGKILL)
        note["killed"] = {
            "pid": pids[0],
            "workers_seen": len(pids),
            "lines": lines,
            "at_s": round(time.perf_counter() - start, 3),
        }
        return


def run_once(
    command: list[str],
    env: dict[str, str],
    reports: Path,
    logs: Path,
    cases: int,
    kill: tuple[Cluster, int] | None = None,
) -> Run:
    """Run `command` to its end (its wall time and `wait4` CPU time); check its reports."""
    shutil.rmtree(reports, ignore_errors=True)
    results = reports / "results.jsonl"
    note: dict[str, Any] = {}
    stop = threading.Event()
    with logs.with_suffix(".out").open("wb") as out, logs.with_suffix(".err").open("wb") as err:
        start = time.perf_counter()
        proc = subprocess.Popen(command, env=env, cwd=ROOT, stdout=out, stderr=err)
        watcher = threading.Thread(target=watch, args=(results, start, stop, note, kill))
        watcher.start()
        watchdog = threading.Timer(RUN_TIMEOUT_S, proc.kill)
        watchdog.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            watchdog.cancel()
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        stop.set()
        watcher.join()
    cpu = usage.ru_utime + usage.ru_stime
    stderr = logs.with_suffix(".err").read_text(encoding="utf-8", errors="replace")
    problem, executor = check(proc.returncode, stderr, reports, cases, wall)
    if kill is not None and problem is None:
        if "error" in note or "killed" not in note:
            problem = note.get("error", "no worker was killed")
        elif executor.get("workers_lost", 0) < 1:
            problem = f"a worker was killed but the aggregate says {executor}"
        elif not (executor.get("units_rerun", 0) >= 1 or executor.get("units_lost") == 0):
            problem = f"units lost with the killed worker: {executor}"
    return Run(wall, cpu, problem, note.get("first_s", wall), executor, note.get("killed", {}))


def check(
    code: int, stderr: str, reports: Path, cases: int, wall: float
) -> tuple[str | None, dict[str, Any]]:
    """Why a run does not count (None when every case ran once and passed), and its
    executor's figures."""
    if code != 0 or "Traceback" in stderr:
        timed_out = " (killed by the bench's watchdog)" if wall >= RUN_TIMEOUT_S else ""
        return f"exit status {code}{timed_out}:\n{tail(stderr)}", {}
    try:
        aggregate = orjson.loads((reports / "_aggregate.json").read_bytes())
        lines = (reports / "results.jsonl").read_bytes().splitlines()
        ids = {orjson.loads(line)["scenario_id"] for line in lines if line.strip()}
    except (OSError, orjson.JSONDecodeError, KeyError) as exc:
        return f"reports unreadable: {type(exc).__name__}: {exc}", {}
    executor = aggregate.get("options", {}).get("live", {}).get("executor", {})
    live = aggregate.get("live") or {}
    if len(lines) != cases or len(ids) != cases:
        counted = f"{len(lines)} lines, {len(ids)} distinct cases in results.jsonl"
        return f"{counted}, {cases} expected", executor
    if live.get("pass_rate") != 1.0 or live.get("runs") != cases:
        return f"{live.get('passed')} of {live.get('runs')} runs passed, {cases} expected", executor
    return None, executor


# ---------------------------------------------------------------------------------------------
# The rounds and the report.


@dataclass
class Series:
    walls: list[float] = field(default_factory=list)
    cpus: list[float] = field(default_factory=list)
    runs: list[Run] = field(default_factory=list)
    error: str | None = None

    @property
    def median(self) -> float:
        return statistics.median(self.walls)


def write_eval_set(directory: Path, cases: int) -> Path:
    """An eval set of `cases` single-turn cases expecting "answer", as JSONL."""
    path = directory / f"evalset_{cases}.jsonl"
    width = max(4, len(str(cases)))
    lines = (
        orjson.dumps(
            {
                "eval_id": f"c{i:0{width}d}",
                "user_query": f"Question {i}: what is the answer?",
                "expected_response": "answer",
            }
        )
        for i in range(1, cases + 1)
    )
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


def command_for(
    args: argparse.Namespace, side: str, agent: Path, eval_set: Path, reports: Path, address: str
) -> list[str]:
    command = [str(Path(sys.executable).parent / "assay"), "run", f"{agent}:agent", str(eval_set)]
    command += ["--reports-dir", str(reports), "--no-progress", "-q"]
    if side == "local":
        return [*command, "--concurrency", str(args.in_flight)]
    return [
        *command,
        "--concurrency",
        str(args.in_flight // args.workers),
        "--executor",
        "ray",
        "--ray-address",
        address,
        "--ray-workers",
        str(args.workers),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="The Ray head is started with its own --temp-dir under --out-root and stopped "
        "by killing its processes by id; `ray stop` (which stops every Ray cluster on the "
        "machine) is never run.",
    )
    parser.add_argument("--cases", type=int, default=4000)
    parser.add_argument("--in-flight", type=int, default=500, help="cases in flight in all")
    parser.add_argument("--workers", type=int, default=2, help="Ray workers")
    parser.add_argument("--delay", type=float, default=0.5, help="the agent's latency (s)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--kill-at", type=float, default=0.5, help="share of the cases done when a worker dies"
    )
    parser.add_argument("--out-root", type=Path, default=Path("/dev/shm/assay-ray"))
    parser.add_argument(
        "--rev",
        metavar="COMMIT",
        help="run assay from src/ of this commit (git archive), not from the working tree",
    )
    parser.add_argument(
        "--write", action="store_true", help="append the figures to bench/results/ray.jsonl"
    )
    args = parser.parse_args(argv)
    if args.in_flight % args.workers:
        parser.error("--in-flight must be a multiple of --workers")
    if not 0 < args.kill_at < 1:
        parser.error("--kill-at must be between 0 and 1")

    out = args.out_root.resolve()
    for made in ("logs", "agent", "work", "rev", "ray"):  # this bench's own, from a last run
        shutil.rmtree(out / made, ignore_errors=True)
    (out / "logs").mkdir(parents=True)
    (out / "agent").mkdir()
    agent = out / "agent" / "ray_bench_agent.py"
    agent.write_text(AGENT.format(delay=args.delay), encoding="utf-8")
    eval_set = write_eval_set(out, args.cases)
    warm_cases = min(args.cases, args.in_flight)
    warm_set = write_eval_set(out, warm_cases)
    series = {side: Series() for side in SIDES}
    load = os.getloadavg()[0]

    env = child_env(out)
    if args.rev:
        try:
            source = export_source(args.rev, out / "rev")
        except (OSError, subprocess.SubprocessError, tarfile.TarError) as exc:
            print(f"cannot export src/ of {args.rev}: {exc}")
            return 2
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(source), env.get("PYTHONPATH")]))
        args.rev = resolve(args.rev)
    print("starting a Ray head ...", flush=True)
    try:
        cluster = start_cluster(out, env)
    except (RuntimeError, OSError, subprocess.SubprocessError) as exc:
        print(f"the Ray head did not start: {exc}")
        return 2
    print(f"Ray head at {cluster.address}", flush=True)
    try:
        for round_no in range(args.rounds + 1):
            cases, path = (args.cases, eval_set) if round_no else (warm_cases, warm_set)
            shift = round_no % len(SIDES)
            turn = [*SIDES[shift:], *SIDES[:shift]] if round_no else ["local", "ray"]
            print(f"round {round_no}{' (warm-up)' if not round_no else ''}:", end="", flush=True)
            for side in turn:
                reports = out / "work" / side
                command = command_for(args, side, agent, path, reports, cluster.address)
                at = max(1, round(cases * args.kill_at))
                kill = (cluster, at) if side == "ray-killed" else None
                run = run_once(command, cluster.env, reports, out / "logs" / side, cases, kill)
                s = series[side]
                if run.problem:
                    s.error = s.error or f"round {round_no}: {run.problem}"
                    print(f" {side} FAILED", end="", flush=True)
                elif round_no:
                    s.walls.append(run.wall)
                    s.cpus.append(run.cpu)
                    s.runs.append(run)
                    print(f" {side} {run.wall:.2f}s", end="", flush=True)
                else:
                    print(f" {side} {run.wall:.2f}s", end="", flush=True)
            print(flush=True)
            load = max(load, os.getloadavg()[0])
    finally:
        cluster.stop()
    left = cluster.processes()
    if left:
        print(f"warning: processes of the cluster still there: {[p.pid for p in left]}")

    text, status, result = report(args, series, load, cluster.address)
    print(text)
    if args.write:
        print(f"appended to {record.append('ray', result)}")
    return status


def report(
    args: argparse.Namespace, series: dict[str, Series], load: float, address: str
) -> tuple[str, int, dict[str, Any]]:
    """The Markdown table, the exit status and the record (record.py)."""
    ideal = math.ceil(args.cases / args.in_flight) * args.delay
    per_worker = args.in_flight // args.workers
    labels = {
        side: label.format(
            in_flight=args.in_flight, workers=args.workers, per_worker=per_worker,
            kill_pct=round(args.kill_at * 100),
        )
        for side, label in LABELS.items()
    }
    errors = [f"{labels[side]}: {s.error}" for side, s in series.items() if s.error]
    good = {side: s for side, s in series.items() if not s.error and s.walls}
    rows: list[tuple[str, ...]] = []
    values: dict[str, Any] = {"ideal_s": ideal}
    for side in SIDES:
        s = series[side]
        if side not in good:
            rows.append((labels[side], "ERROR", "", "", ""))
            continue
        cpu_ms = statistics.median(s.cpus) * 1000 / args.cases
        first = statistics.median(run.first for run in s.runs)
        rows.append(
            (
                labels[side],
                f"{s.median:.3f} s ({min(s.walls):.3f}–{max(s.walls):.3f})",
                f"{s.median / ideal:.3f}x",
                f"{first:.3f} s",
                f"{cpu_ms:.3f}",
            )
        )
        values[side] = {
            "walls_s": [round(w, 3) for w in s.walls],
            "driver_cpu_s": [round(c, 3) for c in s.cpus],
            "median_s": round(s.median, 3),
            "to_ideal": round(s.median / ideal, 3),
            "first_case_s": [round(run.first, 3) for run in s.runs],
            "driver_cpu_ms_per_case": round(cpu_ms, 3),
        }
        if side != "local":
            values[side]["executor"] = [run.executor for run in s.runs]
        if side == "ray-killed":
            values[side]["kills"] = [run.killed for run in s.runs]

    targets: list[tuple[str, str, str, str]] = []
    met = True
    if "local" in good and "ray" in good:
        extra = statistics.median(
            r - lo for r, lo in zip(good["ray"].walls, good["local"].walls, strict=True)
        )
        ok = extra <= TARGET_EXTRA_S
        met = met and ok
        values["ray_minus_local_s"] = round(extra, 3)
        targets.append(
            ("ray - local, same round (median)", f"{extra:+.3f} s", f"≤ {TARGET_EXTRA_S:g} s",
             "PASS" if ok else "MISS")
        )
    else:
        met = False
        targets.append(("ray - local, same round (median)", "n/a", f"≤ {TARGET_EXTRA_S:g} s",
                        "FAILED"))
    if "local" in good and "ray-killed" in good:
        ratio = statistics.median(
            k / lo for k, lo in zip(good["ray-killed"].walls, good["local"].walls, strict=True)
        )
        ok = ratio <= TARGET_KILLED
        met = met and ok
        values["killed_to_local"] = round(ratio, 3)
        targets.append(
            ("a worker killed / local, same round (median)", f"{ratio:.3f}x",
             f"≤ {TARGET_KILLED:g}x", "PASS" if ok else "MISS")
        )
    else:
        met = False
        targets.append(("a worker killed / local, same round (median)", "n/a",
                        f"≤ {TARGET_KILLED:g}x", "FAILED"))

    source = f"src/ of {args.rev} (git archive)" if args.rev else "the working tree"
    environment = (
        f"assay from {source}, {record.environment()}, ray {ray_version()}, "
        f"load average up to {load:.2f}; "
        f"{args.cases:,} cases of {args.delay:g} s, {args.in_flight} in flight "
        f"({args.workers} Ray workers x {per_worker}): ideal {ideal:.3f} s; cluster "
        f"{address} started before timing; median of {args.rounds} rounds (min–max)"
    )
    lines = [
        environment,
        "",
        "| " + " | ".join(SIDE_COLUMNS) + " |",
        "|---|---|---|---|---|",
        *("| " + " | ".join(row) + " |" for row in rows),
        "",
        "| Target | Result | Goal | Status |",
        "|---|---|---|---|",
        *(f"| {a} | {b} | {c} | {d} |" for a, b, c, d in targets),
    ]
    for side in ("ray", "ray-killed"):
        if side in good:
            for run in good[side].runs:
                extra = f", killed {run.killed}" if run.killed else ""
                lines.append(
                    f"- {side}: {run.wall:.3f} s (first case {run.first:.3f} s), executor "
                    f"{run.executor}{extra}"
                )
    lines += [f"- {message}" for message in errors]
    status = 2 if errors else 0 if met else 1
    result = {
        **({"commit": args.rev} if args.rev else {}),  # what was measured, not HEAD
        "environment": environment,
        "cases": args.cases,
        "in_flight": args.in_flight,
        "workers": args.workers,
        "delay_s": args.delay,
        "rounds": args.rounds,
        "kill_at": args.kill_at,
        "rev": args.rev,
        "sides": [
            dict(zip(SIDE_COLUMNS, row, strict=True)) for row in rows
        ],
        "figures": record.figures(targets),
        "values": values,
        "problems": errors,
    }
    return "\n".join(lines) + "\n", status, result


SIDE_COLUMNS = ("Side", "Wall time", "/ ideal", "First case done", "Driver CPU ms per case")


def ray_version() -> str:
    try:
        from importlib.metadata import version

        return version("ray")
    except Exception:
        return "not installed"


if __name__ == "__main__":
    sys.exit(main())
