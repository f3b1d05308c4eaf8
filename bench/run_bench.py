"""Benchmark `assay evaluate` against the I/O floor, and `assay --help` start-up time.

Usage:
    python bench/run_bench.py [--runs 2000] [--big-runs 20000] [--repeat 3] [--write]

Generates the data sets into ``bench/data/`` when they are missing (see generate.py), then
measures, in one go and each as a separate subprocess run with this interpreter and the
``assay`` console script next to it:

- wall time of ``floor.py`` and of ``assay evaluate`` on the small set (best and median of
  ``--repeat`` runs each, after one untimed warm-up run each, the two taking turns, a fresh
  empty reports directory every time), and their ratio;
- wall time of ``assay --help`` (best and median of ``--help-repeat`` runs);
- peak RSS of ``assay evaluate`` on the small and on the big set, and their ratio (the floor's
  peak RSS is shown for reference), each from one run after an untimed one; on the big set,
  the wall times of those two runs give the ratio with start-up spread over 20,000 runs.

Prints a Markdown table with targets and PASS/MISS; ``--write`` appends it as one JSON line
to bench/results/offline.jsonl (see record.py). A command that fails (``assay evaluate``
exiting with 2 or more, any traceback on stderr, or an empty reports directory) is reported as
ERROR with the tail of its stderr rather than crashing the benchmark. Exit status: 0 all
targets met, 1 a target missed, 2 a measurement failed. See bench/README.md for the method.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import orjson

import record
from generate import GENERATOR_VERSION

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
DATA_ROOT = BENCH / "data"
DEFAULT_OUT_ROOT = BENCH / "out"
GNU_TIME = Path("/usr/bin/time")

TARGET_RATIO = 1.8
"""Wall time over the floor's on the small set (start-up weighs most there)."""
TARGET_BIG_RATIO = 1.5
"""Wall time over the floor's on the big set (start-up amortised)."""
TARGET_HELP_S = 0.15
TARGET_RSS_RATIO = 1.2
NO_TARGET = "—"


@dataclass(slots=True)
class Outcome:
    """One child process: how long it took, its peak RSS, and whether it failed."""

    seconds: float
    returncode: int
    rss_kib: int | None = None
    error: str | None = None
    """Why the run counts as failed (None when it did not)."""


@dataclass(slots=True)
class Series:
    """Repeated timings of one command."""

    label: str
    times: list[float] = field(default_factory=list)
    error: str | None = None

    @property
    def best(self) -> float:
        return min(self.times)

    @property
    def median(self) -> float:
        return statistics.median(self.times)


def stderr_tail(path: Path, lines: int = 15) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    return "\n".join(text.rstrip().splitlines()[-lines:])


class Runner:
    """Runs child processes with stdout/stderr to files, optionally measuring peak RSS."""

    def __init__(self, log_dir: Path, timeout: float, env: dict[str, str]) -> None:
        self.log_dir = log_dir
        self.timeout = timeout
        self.env = env
        self.rss_method = self._probe_gnu_time()

    def _probe_gnu_time(self) -> str:
        """`gnu-time` if /usr/bin/time -f %M -o FILE works here, else `wait4`."""
        if not GNU_TIME.exists():
            return "wait4"
        with tempfile.TemporaryDirectory() as tmp:
            probe = Path(tmp) / "rss"
            cmd = [str(GNU_TIME), "-f", "%M", "-o", str(probe), sys.executable, "-c", "pass"]
            try:
                subprocess.run(cmd, capture_output=True, timeout=30, check=True)
                int(probe.read_text().split()[-1])
            except (OSError, subprocess.SubprocessError, ValueError, IndexError):
                return "wait4"
        return "gnu-time"

    def run(
        self,
        cmd: list[str],
        *,
        ok_codes: tuple[int, ...] = (0,),
        rss: bool = False,
        check: Callable[[], str | None] | None = None,
    ) -> Outcome:
        """Run `cmd` to completion; `check` may veto a run that exited with an ok code."""
        stdout_path = self.log_dir / "stdout.txt"
        stderr_path = self.log_dir / "stderr.txt"
        rss_path = self.log_dir / "rss.txt"
        if rss and self.rss_method == "gnu-time":
            cmd = [str(GNU_TIME), "-f", "%M", "-o", str(rss_path), *cmd]
        rss_kib: int | None = None
        with stdout_path.open("wb") as out, stderr_path.open("wb") as err:
            start = time.perf_counter()
            try:
                proc = subprocess.Popen(
                    cmd, stdout=out, stderr=err, stdin=subprocess.DEVNULL, env=self.env
                )
            except OSError as exc:
                return Outcome(0.0, -1, error=f"could not start {cmd[0]}: {exc}")
            if rss and self.rss_method == "wait4":
                code, rss_kib = self._wait4(proc, start)
            else:
                # A blocking wait, with a timer thread for the timeout: Popen.wait(timeout=...)
                # polls with sleeps that grow to 50 ms, which would round every time up to
                # the next poll (0.2135 s, 0.2635 s, ...).
                watchdog = threading.Timer(self.timeout, proc.kill)
                watchdog.start()
                try:
                    code = proc.wait()
                finally:
                    watchdog.cancel()
            seconds = time.perf_counter() - start
        if rss and self.rss_method == "gnu-time":
            try:
                rss_kib = int(rss_path.read_text().split()[-1])
            except (OSError, ValueError, IndexError):
                rss_kib = None
        outcome = Outcome(seconds, code, rss_kib)
        why: str | None = None
        if code == -signal.SIGKILL and seconds >= self.timeout:
            why = "timed out"
        elif code not in ok_codes:
            why = "timed out" if seconds >= self.timeout else f"exited with status {code}"
        elif b"Traceback (most recent call last)" in stderr_path.read_bytes():
            why = f"exited with status {code} but printed a traceback"
        elif check is not None:
            why = check()
        if why:
            tail = stderr_tail(stderr_path) or stderr_tail(stdout_path)
            outcome.error = f"`{' '.join(cmd)}` {why}" + (f"; stderr tail:\n{tail}" if tail else "")
        return outcome

    def _wait4(self, proc: subprocess.Popen[bytes], start: float) -> tuple[int, int | None]:
        """Wait for `proc` with os.wait4 to get its own ru_maxrss (KiB)."""
        watchdog = threading.Timer(max(start + self.timeout - time.perf_counter(), 0.0), proc.kill)
        watchdog.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)  # blocking: no polling delay in the time
        finally:
            watchdog.cancel()
        code = os.waitstatus_to_exitcode(status)
        proc.returncode = code  # reaped here; keep Popen from waiting again
        maxrss = usage.ru_maxrss
        return code, (maxrss // 1024 if sys.platform == "darwin" else maxrss)


def child_env(out_root: Path) -> dict[str, str]:
    """The environment for measured children: bytecode cached, outside the source tree.

    An installed package has compiled bytecode, so start-up is measured with a bytecode cache:
    the warm-up run fills one under <out-root>/pycache (PYTHONPYCACHEPREFIX), which keeps
    __pycache__ directories out of src/ even when PYTHONDONTWRITEBYTECODE is set around us.
    """
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(out_root / "pycache")
    return env


def ensure_data(runs: int, seed: int) -> Path:
    """The data set for `runs` runs, generated first if missing or from another generator."""
    data = DATA_ROOT / f"runs_{runs}_seed_{seed}"
    manifest = data / "manifest.json"
    if manifest.is_file():
        try:
            meta = orjson.loads(manifest.read_bytes())
            if meta.get("runs") == runs and meta.get("generator_version") == GENERATOR_VERSION:
                return data
        except orjson.JSONDecodeError:
            pass
    if data.exists():
        shutil.rmtree(data)
    cmd = [sys.executable, str(BENCH / "generate.py"), "--runs", str(runs)]
    cmd += ["--out", str(data), "--seed", str(seed)]
    print(f"generating {runs} runs into {data} ...", flush=True)
    subprocess.run(cmd, check=True)
    return data


def count_files(path: Path) -> int:
    return sum(1 for p in path.rglob("*") if p.is_file()) if path.is_dir() else 0


def reports_check(out: Path) -> Callable[[], str | None]:
    """A check that fails a run which wrote no report into `out`."""

    def check() -> str | None:
        return None if count_files(out) else f"wrote no report into {out}"

    return check


def fresh_dir(path: Path) -> Path:
    if path.exists():
        shutil.rmtree(path)
    path.mkdir(parents=True)
    return path


def evaluate_cmd(assay: Path, data: Path, out: Path) -> list[str]:
    return [
        str(assay),
        "evaluate",
        "--trajectories",
        str(data / "trajectories"),
        "--scenarios",
        str(data / "scenarios"),
        "--scorer-default",
        "static_json",
        "--reports-dir",
        str(out),
    ]


def floor_cmd(data: Path, out: Path) -> list[str]:
    return [sys.executable, str(BENCH / "floor.py"), "--data", str(data), "--out", str(out)]


@dataclass(slots=True)
class Job:
    """A command to time repeatedly."""

    series: Series
    cmd: list[str]
    out_dir: Path | None = None
    """Emptied before every run, and must hold at least one file after it."""
    ok_codes: tuple[int, ...] = (0,)


def time_jobs(runner: Runner, jobs: list[Job], repeat: int) -> None:
    """One untimed warm-up run of each job, then `repeat` rounds running each job once.

    Interleaving the jobs round by round spreads any change in machine load over all of them,
    so their ratio is fairer than timing one job's repeats and then the other's.
    A job that fails stops being run; its series records the error.
    """
    for round_no in range(repeat + 1):
        for job in jobs:
            if job.series.error:
                continue
            check = None
            if job.out_dir is not None:
                fresh_dir(job.out_dir)
                check = reports_check(job.out_dir)
            outcome = runner.run(job.cmd, ok_codes=job.ok_codes, check=check)
            if outcome.error:
                job.series.error = outcome.error
            elif round_no:  # round 0 is the warm-up
                job.series.times.append(outcome.seconds)


def fmt_s(seconds: float) -> str:
    return f"{seconds:.3f} s"


def fmt_mib(kib: int) -> str:
    return f"{kib / 1024:.1f} MiB"


def status(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def git_commit() -> str:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return out.stdout.strip() if out.returncode == 0 else "no commit"


def time_against_floor(
    runner: Runner,
    assay: Path,
    missing: str | None,
    runs: int,
    data: Path,
    target: float,
    repeat: int,
    out_root: Path,
    rows: list[tuple[str, str, str, str]],
    errors: list[str],
) -> int:
    """Time floor.py and assay evaluate on one data set, taking turns; add the rows. Returns
    1 when the ratio misses `target`, else 0."""
    n = f"{runs:,}"
    print(f"timing floor.py and assay evaluate on {n} runs ...", flush=True)
    floor_out = out_root / "floor"
    eval_out = out_root / "assay"
    floor = Series("floor")
    evaluate = Series("assay", error=missing)
    jobs = [Job(floor, floor_cmd(data, floor_out), floor_out)]
    if not missing:
        jobs.append(Job(evaluate, evaluate_cmd(assay, data, eval_out), eval_out, (0, 1)))
    time_jobs(runner, jobs, repeat)
    of = f"best / median of {repeat}"
    for label, series in ((f"floor.py, {n} runs", floor), (f"assay evaluate, {n} runs", evaluate)):
        if series.error:
            rows.append((f"{label} ({of})", "error", NO_TARGET, "ERROR"))
            errors.append(f"{label} ({of}): {series.error}")
        else:
            result = f"{fmt_s(series.best)} / {fmt_s(series.median)}"
            rows.append((f"{label} ({of})", result, NO_TARGET, "info"))
    ratio_label = f"assay / floor wall time, {n} runs (median; best)"
    if floor.error or evaluate.error:
        rows.append((ratio_label, "n/a", f"≤ {target}x", "ERROR"))
        return 0
    ratio = evaluate.median / floor.median
    ok = ratio <= target
    result = f"{ratio:.2f}x ({evaluate.best / floor.best:.2f}x)"
    rows.append((ratio_label, result, f"≤ {target}x", status(ok)))
    # Each round runs the floor and then assay back to back: the median of the rounds' own
    # ratios follows the machine's load drifting between rounds less than the ratio of the
    # two medians does. Shown beside the target's measure, not instead of it.
    paired = statistics.median(a / b for a, b in zip(evaluate.times, floor.times, strict=True))
    rows.append(
        (
            f"assay / floor, median of the {repeat} rounds' own ratios",
            f"{paired:.2f}x",
            NO_TARGET,
            "info",
        )
    )
    files = f"{count_files(floor_out):,} / {count_files(eval_out):,}"
    rows.append((f"files in reports dir (floor / assay), {n} runs", files, NO_TARGET, "info"))
    return 0 if ok else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=2000, help="small data set (default 2000)")
    parser.add_argument(
        "--big-runs", type=int, default=20000, help="big data set, for memory (0 skips it)"
    )
    parser.add_argument("--repeat", type=int, default=3, help="timed repeats per command")
    parser.add_argument("--help-repeat", type=int, default=10, help="timed runs of assay --help")
    parser.add_argument("--seed", type=int, default=0, help="data set seed (default 0)")
    parser.add_argument("--timeout", type=float, default=900, help="seconds per child process")
    parser.add_argument(
        "--assay",
        type=Path,
        default=Path(sys.executable).parent / "assay",
        help="assay console script (default: the one next to this interpreter)",
    )
    parser.add_argument(
        "--out-root",
        type=Path,
        default=DEFAULT_OUT_ROOT,
        help="where reports, logs and the bytecode cache go (default bench/out; a tmpfs such "
        "as /dev/shm/assay-bench takes disk writes out of the timings)",
    )
    parser.add_argument(
        "--write", action="store_true", help="append the results to bench/results/offline.jsonl"
    )
    args = parser.parse_args(argv)
    if args.repeat < 1 or args.help_repeat < 1:
        parser.error("--repeat and --help-repeat must be at least 1")

    assay: Path = args.assay
    small = ensure_data(args.runs, args.seed)
    big = ensure_data(args.big_runs, args.seed) if args.big_runs > 0 else None
    out_root: Path = args.out_root.resolve()
    out_root.mkdir(parents=True, exist_ok=True)
    runner = Runner(fresh_dir(out_root / "logs"), args.timeout, child_env(out_root))
    missing = None if assay.exists() else f"assay console script not found at {assay}"
    if missing:
        missing += " (install the project into this venv: pip install -e .)"
    ok_eval = (0, 1)  # 1 = pass rate under a threshold; >= 2 is a failure

    rows: list[tuple[str, str, str, str]] = []
    errors: list[str] = []
    misses = 0

    def error_row(label: str, err: str) -> None:
        rows.append((label, "error", NO_TARGET, "ERROR"))
        errors.append(f"{label}: {err}")

    # 1. Wall time: floor vs assay evaluate, on the small set and on the big one.
    timed = [(args.runs, small, TARGET_RATIO)]
    if big is not None:
        timed.append((args.big_runs, big, TARGET_BIG_RATIO))
    for runs, data, target in timed:
        misses += time_against_floor(
            runner, assay, missing, runs, data, target, args.repeat, out_root, rows, errors
        )

    # 2. Start-up: assay --help.
    print("timing assay --help ...", flush=True)
    help_label = f"assay --help (best / median of {args.help_repeat})"
    if missing:
        error_row(help_label, missing)
    else:
        helps = Series("help")
        time_jobs(runner, [Job(helps, [str(assay), "--help"])], args.help_repeat)
        if helps.error:
            error_row(help_label, helps.error)
        else:
            ok = helps.median < TARGET_HELP_S
            misses += not ok
            result = f"{fmt_s(helps.best)} / {fmt_s(helps.median)}"
            rows.append((help_label, result, f"< {TARGET_HELP_S} s (median)", status(ok)))

    # 3. Peak memory, small vs big set (the floor's for reference).
    rss: dict[int, int] = {}
    sets = [(args.runs, small)] + ([(args.big_runs, big)] if big is not None else [])
    for runs, data in sets:
        print(f"measuring peak RSS on {runs:,} runs ...", flush=True)
        floor_rss_out = out_root / f"floor_rss_{runs}"
        assay_rss_out = out_root / f"assay_rss_{runs}"
        # One untimed run of each first: the big set is read here for the first time, and
        # whichever command ran first would otherwise pay for filling the page cache.
        fresh_dir(floor_rss_out)
        runner.run(floor_cmd(data, floor_rss_out))
        if not missing:
            fresh_dir(assay_rss_out)
            runner.run(evaluate_cmd(assay, data, assay_rss_out), ok_codes=ok_eval)
        out = fresh_dir(floor_rss_out)
        floor_run = runner.run(floor_cmd(data, out), rss=True, check=reports_check(out))
        label = f"floor.py peak RSS / wall time, {runs:,} runs (single warm run)"
        if floor_run.error or floor_run.rss_kib is None:
            error_row(label, floor_run.error or f"no RSS figure from {runner.rss_method}")
        else:
            result = f"{fmt_mib(floor_run.rss_kib)} / {fmt_s(floor_run.seconds)}"
            rows.append((label, result, NO_TARGET, "info"))
        label = f"assay evaluate peak RSS / wall time, {runs:,} runs (single warm run)"
        if missing:
            error_row(label, missing)
            continue
        out = fresh_dir(assay_rss_out)
        outcome = runner.run(
            evaluate_cmd(assay, data, out), ok_codes=ok_eval, rss=True, check=reports_check(out)
        )
        if outcome.error or outcome.rss_kib is None:
            error_row(label, outcome.error or f"no RSS figure from {runner.rss_method}")
            continue
        rss[runs] = outcome.rss_kib
        result = f"{fmt_mib(outcome.rss_kib)} / {fmt_s(outcome.seconds)}"
        rows.append((label, result, NO_TARGET, "info"))
        if runs == args.big_runs and not floor_run.error:
            # Start-up and the summary cost the same at any size: on the big set they are a
            # small part of the time, and the ratio shows what each run costs over the floor.
            rows.append(
                (
                    f"assay / floor wall time, {runs:,} runs (the single warm runs above)",
                    f"{outcome.seconds / floor_run.seconds:.2f}x",
                    NO_TARGET,
                    "info",
                )
            )
    if big is not None:
        label = f"assay evaluate peak RSS, {args.big_runs:,} / {args.runs:,} runs"
        if args.runs in rss and args.big_runs in rss:
            ratio = rss[args.big_runs] / rss[args.runs]
            ok = ratio <= TARGET_RSS_RATIO
            misses += not ok
            rows.append((label, f"{ratio:.2f}x", f"≤ {TARGET_RSS_RATIO}x", status(ok)))
        else:
            rows.append((label, "n/a", f"≤ {TARGET_RSS_RATIO}x", "ERROR"))

    # Report.
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    env = (
        f"commit {git_commit()}, Python {platform.python_version()}, "
        f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs, "
        f"data seed {args.seed}, reports under {out_root}, peak RSS via {runner.rss_method}"
    )
    lines = [
        f"### {stamp}",
        "",
        env,
        "",
        "| Measure | Result | Target | Status |",
        "|---|---|---|---|",
        *(f"| {a} | {b} | {c} | {d} |" for a, b, c, d in rows),
        "",
    ]
    table = "\n".join(lines)
    print()
    print(table)
    for err in errors:
        print(f"ERROR {err}\n", file=sys.stderr)
    if args.write:
        path = record.append(
            "offline",
            {
                "kind": "run_bench",
                "environment": env,
                "runs": args.runs,
                "big_runs": args.big_runs,
                "repeat": args.repeat,
                "reports_under": str(out_root),
                "figures": record.figures(rows),
            },
        )
        print(f"appended to {path}")
    if any(r[3] == "ERROR" for r in rows):
        return 2
    return 1 if misses else 0


if __name__ == "__main__":
    sys.exit(main())
