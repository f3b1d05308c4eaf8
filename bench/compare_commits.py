"""Time `assay evaluate` at another commit against the working tree, with the floor alongside.

Usage:
    python bench/compare_commits.py --base 13817b1 --rounds 20

The base commit's `src/` is exported with `git archive` into a temporary directory and run
with the same interpreter; each round runs the base, the working tree and `floor.py` once,
in turn, so a change in machine load falls on all three alike. Printed per side: median and
best wall time, median CPU time (the child and its worker processes, from getrusage), and
the ratios to the floor. A change too small to show in wall time on a noisy machine often
shows in CPU time; `valgrind --tool=cachegrind` with `--workers 1` gives counts that do not
move at all between runs (see README.md, "Where things stand").
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
    parser.add_argument("--rounds", type=int, default=12)
    parser.add_argument("--data", type=Path, default=BENCH / "data" / "runs_2000_seed_0")
    parser.add_argument("--out-root", type=Path, default=Path("/dev/shm/assay-compare"))
    args = parser.parse_args(argv)
    if not (args.data / "trajectories").is_dir():
        sys.exit(f"no data set at {args.data}: run bench/run_bench.py (or generate.py) first")

    env = child_env(args.out_root)
    with tempfile.TemporaryDirectory() as scratch:
        base_src = export_source(args.base, Path(scratch))
        runner = Path(scratch) / "runner.py"
        runner.write_text(_RUNNER)
        trees = {"base": base_src, "work": ROOT / "src"}
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
    print(f"{args.rounds} rounds; base = {args.base}, work = the working tree")
    for side, outcomes in results.items():
        walls = [wall for wall, _ in outcomes]
        cpus = [cpu for _, cpu in outcomes]
        line = (
            f"{side:5s}  wall median {statistics.median(walls):.3f} s, best {min(walls):.3f} s;"
            f"  CPU median {statistics.median(cpus):.3f} s"
        )
        if side != "floor":
            line += (
                f";  / floor: median {statistics.median(walls) / floor_wall:.2f}x,"
                f" best {min(walls) / floor_best:.2f}x"
            )
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
