"""A real evaluation stopped at random points by SIGKILL, SIGTERM and SIGINT: nothing lost.

Each interruption is followed by a look at the reports directory: every `results.jsonl` line
is JSON and names a report that exists; after SIGTERM or SIGINT the aggregate is there,
follows the schema, says the evaluation was interrupted and counts exactly the lines; no
worker process outlives the evaluation. Then a full evaluation into the same directory must
finish, leave no temporary file, and list every run once.

The points are drawn from a seeded generator (set `ASSAY_INTERRUPT_SEED` to draw others) as
shares of the finished work, measured in bytes of `results.jsonl`, so where a signal lands
depends on the work done, not on the speed of the machine. A share of 0 signals at once,
while the command is still starting.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from verify import HANG_GUARD_S, assay_command, environment, read_reports

from report_schema import check_reports_dir

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not hasattr(os, "fork"), reason="POSIX signals and workers"),
]

SEED = int(os.environ.get("ASSAY_INTERRUPT_SEED", "20261125"))
RUNS_IN_LINES = 1200
"""Runs in the one JSONL file (each line a unit of work of its own)."""
RUN_FILES = 300
"""Runs in files of their own."""
POINTS_PER_SIGNAL = 3
SURVIVOR_GUARD_S = 30
"""Seconds a worker may take to exit after the evaluation ended: a guard, not a speed check
(a worker finishes the chunk in hand, some milliseconds of work, and exits)."""
WORKERS = (("--workers", "2"), (), ("--workers", "1"))
"""Two workers, the default (one per CPU), and none (scored in the main process)."""
SIGNALS = ("SIGKILL", "SIGTERM", "SIGINT")
GOLD = "{'a': [1, 2, 3], 'b': 'x', 'c': [{'id': 'P1', 'v': 2}, {'id': 'P2', 'v': 3}]}"


@dataclass(frozen=True)
class Data:
    """The inputs of the interrupted evaluation."""

    runs: Path
    scenarios: Path
    run_ids: frozenset[str]
    """The id of every run, each scored once by a finished evaluation."""
    results_size: int
    """Bytes of `results.jsonl` of a finished evaluation (the measure of work done)."""


def _write_data(root: Path) -> tuple[Path, Path, set[str]]:
    scenarios = root / "scenarios"
    for scenario in ("1", "2"):
        folder = scenarios / f"scenario_{scenario}"
        folder.mkdir(parents=True)
        (folder / "groundtruth.txt").write_text(GOLD)
    runs = root / "runs"
    (runs / "files").mkdir(parents=True)
    answers = (
        json.dumps({"a": [3, 2, 1], "b": "x", "c": [{"id": "P2", "v": 3}, {"id": "P1", "v": 2}]}),
        json.dumps({"a": [1, 2], "b": "y", "c": [{"id": "P1", "v": 5}]}),
        "The answer is {'a': [1, 2, 3], 'b': 'x'} after checking.",
    )
    ids = set()
    with (runs / "batch.jsonl").open("w") as lines:
        for index in range(RUNS_IN_LINES):
            run_id = f"line-{index}"
            ids.add(run_id)
            record = {"run_id": run_id, "scenario_id": str(1 + index % 2), "runner": "r",
                      "model": "m", "answer": answers[index % 3],
                      "trajectory": {"turns": [{"tool_calls": [{"name": "t", "input": {}}],
                                                "input_tokens": 10, "output_tokens": 2}]}}
            lines.write(json.dumps(record) + "\n")
    for index in range(RUN_FILES):
        run_id = f"file-{index}"
        ids.add(run_id)
        record = {"run_id": run_id, "scenario_id": "1", "answer": answers[index % 3]}
        (runs / "files" / f"{index:04d}.json").write_text(json.dumps(record))
    # Inputs not scored are part of what must be accounted for after an interruption too.
    (runs / "files" / "broken.json").write_text('{"run_id": ')
    return runs, scenarios, ids


def _command(data: Data, reports: Path, workers: tuple[str, ...]) -> list[str]:
    return [
        *assay_command(),
        "evaluate",
        "--trajectories",
        str(data.runs),
        "--scenarios",
        str(data.scenarios),
        "--reports-dir",
        str(reports),
        *workers,
    ]


def _default_signals() -> None:
    # A suite started in the background has SIGINT ignored, which children inherit, and
    # Python then installs no Ctrl-C handler: the child takes signals as a shell's would.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _finish(
    data: Data, reports: Path, workers: tuple[str, ...]
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        _command(data, reports, workers),
        env=environment(reports.parent),
        capture_output=True,
        timeout=HANG_GUARD_S,
        check=False,
        preexec_fn=_default_signals,
    )


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Data:
    root = tmp_path_factory.mktemp("interrupted-data")
    runs, scenarios, ids = _write_data(root)
    partial = Data(runs, scenarios, frozenset(ids), 0)
    reports = root / "baseline"
    proc = _finish(partial, reports, ())
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    return Data(runs, scenarios, frozenset(ids), (reports / "results.jsonl").stat().st_size)


def _points(signame: str) -> Iterator[tuple[float, tuple[str, ...]]]:
    """`(share of the work done, workers option)` for each interruption by `signame`."""
    rng = random.Random(f"{SEED}-{signame}")
    shares = [0.0] + [rng.random() for _ in range(POINTS_PER_SIGNAL - 1)]
    for index, share in enumerate(shares):
        yield share, WORKERS[(index + SIGNALS.index(signame)) % len(WORKERS)]


def _interrupt(
    data: Data, reports: Path, signame: str, share: float, workers: tuple[str, ...]
) -> tuple[subprocess.Popen[bytes], bytes, bool, list[str]]:
    """Start an evaluation, signal it once `share` of its results are written, and wait for
    it to end; returns the process, its stderr, whether the signal reached it running, and
    the processes of its group that outlived it (killed since)."""
    signum = getattr(signal, signame)
    earlier = (reports / "results.jsonl").stat().st_mtime_ns if reports.exists() else None
    # stderr to a file, not a pipe: a worker that outlived the evaluation would hold a pipe
    # open, and reading it would wait for that worker instead of for the evaluation.
    with (reports.parent / "stderr.txt").open("w+b") as err:
        proc = subprocess.Popen(
            _command(data, reports, workers),
            env=environment(reports.parent),
            stdout=subprocess.DEVNULL,
            stderr=err,
            preexec_fn=_default_signals,
            start_new_session=True,  # its own process group, as a terminal's foreground job
        )
        try:
            running = _signal_at(proc, reports / "results.jsonl", earlier, share, data, signum)
            proc.wait(timeout=HANG_GUARD_S)
            survivors = _wait_for_no_survivors(reports)
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)  # whatever is left of the group
            proc.wait()
        err.seek(0)
        return proc, err.read(), running, survivors


def _signal_at(
    proc: subprocess.Popen[bytes],
    lines: Path,
    earlier: int | None,
    share: float,
    data: Data,
    signum: int,
) -> bool:
    """Send `signum` once `share` of the results are written; whether the process was still
    running then."""
    target = int(share * data.results_size)
    guard = time.monotonic() + HANG_GUARD_S
    while proc.poll() is None and time.monotonic() < guard and target > 0:
        # The file an earlier evaluation left is this one's once it truncates it (its time
        # changes); only then does its size measure this evaluation's work.
        status = lines.stat() if lines.exists() else None
        if status and status.st_mtime_ns != earlier and status.st_size >= target:
            break
        time.sleep(0.002)
    if proc.poll() is not None:
        return False
    if signum == signal.SIGINT:
        os.killpg(proc.pid, signum)  # Ctrl-C reaches the whole foreground group
    else:
        proc.send_signal(signum)  # `kill`, the OOM killer: the process alone
    return True


def _survivors(reports: Path) -> list[str]:
    """Processes still running with this reports directory on their command line (forked
    workers carry the evaluation's command line)."""
    found = []
    for process in Path("/proc").glob("[0-9]*"):
        try:
            command = (process / "cmdline").read_bytes().replace(b"\0", b" ")
            state = (process / "stat").read_text().rpartition(")")[2].split()[0]
        except (OSError, IndexError):
            continue
        if state != "Z" and os.fsencode(reports) + b" " in command + b" ":
            found.append(f"{process.name}: {command.decode(errors='replace')[:120]}")
    return found


def _wait_for_no_survivors(reports: Path) -> list[str]:
    # Workers finish the chunk in hand (milliseconds) and exit; the guard is only a guard.
    guard = time.monotonic() + SURVIVOR_GUARD_S
    while (left := _survivors(reports)) and time.monotonic() < guard:
        time.sleep(0.05)
    return left


def _check_interrupted(
    reports: Path,
    signame: str,
    proc: subprocess.Popen[bytes],
    err: bytes,
    running: bool,
    survivors: list[str],
) -> tuple[list[str], str]:
    """What the reports directory of an interrupted evaluation gets wrong, and a note of
    what it holds."""
    killed = signame == "SIGKILL"
    # A killed evaluation writes no aggregate: one that is there is an earlier evaluation's.
    found = read_reports(reports, finished=False, with_aggregate=not killed)
    problems = list(found.problems)
    problems += [f"outlived the evaluation (killed since): {p}" for p in survivors]
    lines = len(found.lines)
    cut = any("cut line" in p for p in found.problems)
    note = f"exit {proc.returncode}, {lines} lines{' + a cut line' if cut else ''}"
    if killed or not running:
        if not running and not killed and found.aggregate.get("interrupted") is not False:
            problems.append("finished before the signal, but the aggregate says otherwise")
        return problems, note + ("" if running else ", finished before the signal")
    if found.aggregate:
        problems += check_reports_dir(reports)
        if found.aggregate.get("interrupted"):
            note += ", aggregate: interrupted"
            expected = 128 + getattr(signal, signame)  # 130 (Ctrl-C), 143 (SIGTERM)
            said = b"interrupted; reports of finished runs are in" in err
            if proc.returncode != expected or not said:
                problems.append(f"interrupted, but exit {proc.returncode}: {err[-300:]!r}")
            left = [p.name for p in reports.iterdir() if p.name.startswith(".assay-")]
            if left:
                problems.append(f"temporaries left by a handled {signame}: {left[:3]}")
        else:
            # The signal came as the summary was printed: the evaluation had finished.
            note += ", aggregate: finished"
    elif lines:
        problems.append(f"{signame} left {lines} results.jsonl lines and no _aggregate.json")
    else:
        note += ", stopped while starting (nothing written)"
    return problems, note


def _check_finished(
    data: Data, reports: Path, proc: subprocess.CompletedProcess[bytes]
) -> list[str]:
    """What a full evaluation after interruptions gets wrong."""
    problems = []
    if proc.returncode != 0:
        problems.append(f"the next full evaluation: exit {proc.returncode}: {proc.stderr[-300:]!r}")
    found = read_reports(reports)
    # Held to the schema at the end of the test, with every report the test leaves (conftest).
    problems += found.problems
    ids = [line.get("run_id") for line in found.lines]
    if sorted(ids) != sorted(data.run_ids):
        missing = sorted(data.run_ids - set(ids))[:5]
        twice = sorted({i for i in ids if ids.count(i) > 1})[:5]
        problems.append(f"{len(ids)} lines for {len(data.run_ids)} runs; missing {missing}, "
                        f"twice {twice}")
    if found.aggregate.get("interrupted") is not False:
        problems.append("the full evaluation's aggregate says it was interrupted")
    if found.aggregate.get("totals", {}).get("unreadable") != 1:
        problems.append(f"the broken input is not listed: {found.aggregate.get('totals')}")
    return problems


@pytest.mark.parametrize("signame", SIGNALS)
def test_an_interrupted_evaluation_loses_nothing_and_the_next_one_finishes(
    data: Data, tmp_path: Path, signame: str
) -> None:
    reports = tmp_path / "reports"
    report: list[str] = []
    for share, workers in _points(signame):
        where = f"{signame} at {share:.0%} of the work, options {list(workers)} (seed {SEED})"
        proc, err, running, survivors = _interrupt(data, reports, signame, share, workers)
        problems, note = _check_interrupted(reports, signame, proc, err, running, survivors)
        print(f"{where}: {note}")  # what each point met, shown with -s
        report += [f"{where}: {p}" for p in problems]
        if problems:
            break  # the next evaluation would only blur what this one left
        finished = _finish(data, reports, workers)
        report += [f"after {where}: {p}" for p in _check_finished(data, reports, finished)]
    assert not report, "\n".join(report)
