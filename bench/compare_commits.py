"""Time `assay evaluate` at another commit against the working tree, with the floor alongside.

Usage:
    python bench/compare_commits.py --base 13817b1 --rounds 20
    python bench/compare_commits.py --base 2729f99 --work b10e211 --rounds 31 --write

The base commit's `src/` is exported with `git archive` into a temporary directory and run
with the same interpreter; each round runs the base, the working tree (or `--work`, another
commit exported the same way, when the tree holds edits that are not part of the change) and
`floor.py` once, in turn, so a change in machine load falls on all three alike. Printed per
side: median and best wall time, median CPU time (the child and its worker processes, from
getrusage), and the ratios to the floor, then the median of the rounds' own work / base
ratios. A change too small to show in wall time on a noisy machine often shows in CPU time;
`valgrind --tool=cachegrind` with `--workers 1` gives counts that do not move at all between
runs. `--write` appends the figures to bench/results/offline.jsonl.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

import orjson

import record
from run_bench import child_env, floor_cmd  # beside this script: same environment, same floor

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"

# Runs `assay` from a given source tree, as the console script does (quick exit included).
_RUNNER = """
import sys
sys.path.insert(0, sys.argv[1])
import assay.cli.main as main
sys.argv = ["assay", *sys.argv[2:]]
if hasattr(main, "console_main"):
    main.console_main()
sys.exit(main.main(sys.argv[1:]))
"""


def export_source(revision: str, into: Path) -> Path:
    """The `src/` directory of `revision`, written under `into`."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", revision, "src"],
        check=True,
        capture_output=True,
    ).stdout
    into.mkdir(parents=True, exist_ok=True)
    archive_path = into / "src.tar"
    archive_path.write_bytes(archive)
    with tarfile.open(archive_path) as tar:
        tar.extractall(into, filter="data")
    return into / "src"


def timed(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds (user + system, children included) of one run of `command`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode > 1:
        sys.exit(f"{command[1]} failed ({done.returncode}):\n{done.stderr.decode()[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", required=True, help="commit to compare with (e.g. HEAD~3)")
    parser.add_argument(
        "--work", default=None, help="commit to time instead of the working tree's src/"
    )
    parser.add_argument("--rounds", type=int, default=12)
    parser.add_argument("--data", type=Path, default=BENCH / "data" / "runs_2000_seed_0")
    parser.add_argument("--out-root", type=Path, default=Path("/dev/shm/assay-compare"))
    parser.add_argument(
        "--write", action="store_true", help="append the figures to bench/results/offline.jsonl"
    )
    args = parser.parse_args(argv)
    if not (args.data / "trajectories").is_dir():
        sys.exit(f"no data set at {args.data}: run bench/run_bench.py (or generate.py) first")

    env = child_env(args.out_root)
    with tempfile.TemporaryDirectory() as scratch:
        base_src = export_source(args.base, Path(scratch) / "base")
        work_src = ROOT / "src"
        if args.work is not None:
            work_src = export_source(args.work, Path(scratch) / "work")
        runner = Path(scratch) / "runner.py"
        runner.write_text(_RUNNER)
        trees = {"base": base_src, "work": work_src}
        commands: dict[str, list[str]] = {}
        for side, source in trees.items():
            commands[side] = [sys.executable, str(runner), str(source), "evaluate"]
            commands[side] += ["--trajectories", str(args.data / "trajectories")]
            commands[side] += ["--scenarios", str(args.data / "scenarios")]
            commands[side] += ["--reports-dir", str(args.out_root / side)]
        commands["floor"] = floor_cmd(args.data, args.out_root / "floor")

        results: dict[str, list[tuple[float, float]]] = {side: [] for side in commands}
        for round_no in range(args.rounds + 1):  # round 0 warms caches and is not counted
            for side, command in commands.items():
                shutil.rmtree(args.out_root / side, ignore_errors=True)
                outcome = timed(command, env)
                if round_no:
                    results[side].append(outcome)

    floor_wall = statistics.median(wall for wall, _ in results["floor"])
    floor_best = min(wall for wall, _ in results["floor"])
    work_name = args.work or "the working tree"
    print(f"{args.rounds} rounds; base = {args.base}, work = {work_name}")
    values: dict[str, float] = {}
    for side, outcomes in results.items():
        walls = [wall for wall, _ in outcomes]
        cpus = [cpu for _, cpu in outcomes]
        wall_median, cpu_median = statistics.median(walls), statistics.median(cpus)
        values[f"{side}_wall_median_s"] = round(wall_median, 4)
        values[f"{side}_wall_best_s"] = round(min(walls), 4)
        values[f"{side}_cpu_median_s"] = round(cpu_median, 4)
        line = (
            f"{side:5s}  wall median {wall_median:.3f} s, best {min(walls):.3f} s;"
            f"  CPU median {cpu_median:.3f} s"
        )
        if side != "floor":
            values[f"{side}_over_floor"] = round(wall_median / floor_wall, 3)
            line += (
                f";  / floor: median {wall_median / floor_wall:.2f}x,"
                f" best {min(walls) / floor_best:.2f}x"
            )
        print(line)
    # Each round runs base and work back to back: the median of the rounds' own ratios follows
    # load drifting between rounds less than the ratio of the two medians does.
    paired_wall = statistics.median(
        w[0] / b[0] for w, b in zip(results["work"], results["base"], strict=True)
    )
    paired_cpu = statistics.median(
        w[1] / b[1] for w, b in zip(results["work"], results["base"], strict=True)
    )
    values["work_over_base_wall"] = round(paired_wall, 4)
    values["work_over_base_cpu"] = round(paired_cpu, 4)
    print(
        f"work / base, median of the rounds' own ratios: wall {paired_wall:.3f}x, "
        f"CPU {paired_cpu:.3f}x"
    )
    if args.write:
        path = record.append(
            "offline",
            {
                "kind": "compare_commits",
                "base": args.base,
                "work": args.work or "working tree",
                "runs": _runs_of(args.data),
                "rounds": args.rounds,
                "values": values,
            },
        )
        print(f"appended to {path}")
    return 0


def _runs_of(data: Path) -> int | None:
    try:
        runs = orjson.loads((data / "manifest.json").read_bytes()).get("runs")
    except (OSError, orjson.JSONDecodeError):
        return None
    return runs if isinstance(runs, int) else None


if __name__ == "__main__":
    sys.exit(main())
