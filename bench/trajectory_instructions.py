"""Instructions per trajectory check, assay and agentevals, counted by valgrind.

    python bench/trajectory_instructions.py --mode unordered --args exact
    python bench/trajectory_instructions.py --mode strict --args superset --side assay

Wall-clock ratios on a shared machine swing by a fifth from run to run (`trajectory_bench.py`
takes the best of its rounds, and still does). Instruction counts do not depend on the load, so
they show whether a change to the checker helped, in minutes and without agentevals' noise.
They leave out memory stalls, so a ratio here differs from the one the timing bench reports
(it has run both above and below it, on different machines).

Each side runs in a child process under `valgrind --tool=cachegrind`, once with one round over
the first `--pairs` pairs of `bench/out/trajectory/pairs.jsonl` (written by
`trajectory_bench.py`) and once with `--rounds` rounds; the difference divided by the extra
checks is the cost of one check, start-up and loading excluded. agentevals runs with the
interpreter of `bench/.venv-agentevals`. Needs valgrind on the PATH. Not part of the tests.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
PAIRS = BENCH / "out" / "trajectory" / "pairs.jsonl"
PEER_PYTHON = BENCH / ".venv-agentevals" / "bin" / "python"


def child(side: str, mode: str, args: str, count: int, rounds: int) -> None:
    """Check the first `count` pairs `rounds` times (run under valgrind)."""
    pairs = []
    with PAIRS.open(encoding="utf-8") as handle:
        for line in handle:
            if len(pairs) == count:
                break
            pairs.append(json.loads(line))
    if side == "assay":
        sys.path.insert(0, str(ROOT / "src"))
        from assay.trajectory.check import TrajectoryChecker

        checker = TrajectoryChecker(mode=mode, args=args)
        for _ in range(rounds):
            for pair in pairs:
                checker(pair["expected"], pair["actual"]).passed  # noqa: B018
    else:
        os.environ["LANGSMITH_TRACING"] = os.environ["LANGCHAIN_TRACING_V2"] = "false"
        from agentevals.trajectory.match import create_trajectory_match_evaluator

        evaluator = create_trajectory_match_evaluator(
            trajectory_match_mode=mode, tool_args_match_mode=args
        )
        for _ in range(rounds):
            for pair in pairs:
                try:
                    evaluator(outputs=pair["actual"], reference_outputs=pair["expected"])
                except Exception:  # a raise is a verdict here, as in the bench
                    continue


def instructions(python: Path, side: str, mode: str, args: str, count: int, rounds: int) -> int:
    command = [
        "valgrind",
        "--tool=cachegrind",
        "--cache-sim=no",
        "--cachegrind-out-file=/dev/null",
        str(python),
        __file__,
        "--child",
        side,
        "--mode",
        mode,
        "--args",
        args,
        "--pairs",
        str(count),
        "--rounds",
        str(rounds),
    ]
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    found = re.search(r"I\s+refs:\s+([\d,]+)", done.stderr)
    if done.returncode != 0 or found is None:
        sys.exit(f"valgrind failed for {side}:\n{done.stderr[-2000:]}")
    return int(found.group(1).replace(",", ""))


def per_check(python: Path, side: str, mode: str, args: str, count: int, rounds: int) -> float:
    once = instructions(python, side, mode, args, count, 1)
    more = instructions(python, side, mode, args, count, rounds)
    return (more - once) / ((rounds - 1) * count)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mode", default="unordered")
    parser.add_argument("--args", default="exact")
    parser.add_argument("--side", choices=("assay", "agentevals", "both"), default="both")
    parser.add_argument("--pairs", type=int, default=None, help="400 for assay, 150 for agentevals")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--child", choices=("assay", "agentevals"), help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.child:
        child(options.child, options.mode, options.args, options.pairs, options.rounds)
        return 0
    if shutil.which("valgrind") is None or not PAIRS.exists():
        sys.exit("needs valgrind and bench/out/trajectory/pairs.jsonl (run trajectory_bench.py)")
    figures: dict[str, float] = {}
    if options.side in ("assay", "both"):
        figures["assay"] = per_check(
            Path(sys.executable), "assay", options.mode, options.args, options.pairs or 400,
            options.rounds,
        )  # fmt: skip
    if options.side in ("agentevals", "both"):
        figures["agentevals"] = per_check(
            PEER_PYTHON, "agentevals", options.mode, options.args, options.pairs or 150, 2
        )
    for side, value in figures.items():
        print(f"{side:10s} {options.mode}/{options.args}: {value:,.0f} instructions a check")
    if len(figures) == 2:
        print(f"ratio: {figures['agentevals'] / figures['assay']:.1f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
