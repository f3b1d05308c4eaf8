"""Split the wall time of `assay evaluate` and of the floor into a fixed part and a part per run.

Usage:
    python bench/cost_model.py [--small 2000] [--big 20000] [--rounds 9]

Times both commands on the small and on the big data set (as `run_bench.py` runs them: same
interpreter, environment and floor, one untimed run of each first, then the two taking turns)
and fits each to `time = fixed + runs x per_run` through the two medians. The ratio at 2,000
runs mixes the two parts; this script tells them apart, so that a change can be judged by
which part it moves: start-up and the summary (imports, the scenario index, rich) are fixed,
reading, scoring and writing a run are per run. The big set has ten times the scenarios too,
so the index counts as per run here. Nothing is written to README.md: copy what matters.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from run_bench import (  # beside this script: same data, environment, commands and timing
    DEFAULT_OUT_ROOT,
    Job,
    Runner,
    Series,
    child_env,
    ensure_data,
    evaluate_cmd,
    floor_cmd,
    fresh_dir,
    time_jobs,
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--small", type=int, default=2000, help="runs in the small data set")
    parser.add_argument("--big", type=int, default=20000, help="runs in the big data set")
    parser.add_argument("--rounds", type=int, default=9, help="timed rounds on the small set")
    parser.add_argument("--big-rounds", type=int, default=3, help="timed rounds on the big set")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per child")
    parser.add_argument("--assay", type=Path, default=Path(sys.executable).parent / "assay")
    parser.add_argument("--out-root", type=Path, default=DEFAULT_OUT_ROOT)
    args = parser.parse_args(argv)
    if args.small >= args.big:
        parser.error("--small must be fewer runs than --big")
    out_root: Path = args.out_root.resolve()
    out_root.mkdir(parents=True, exist_ok=True)
    runner = Runner(fresh_dir(out_root / "logs"), args.timeout, child_env(out_root))

    medians: dict[int, tuple[float, float]] = {}
    for runs, rounds in ((args.small, args.rounds), (args.big, args.big_rounds)):
        data = ensure_data(runs, args.seed)
        floor_out, assay_out = out_root / "floor", out_root / "assay"
        floor, assay = Series("floor"), Series("assay")
        jobs = [
            Job(floor, floor_cmd(data, floor_out), floor_out),
            Job(assay, evaluate_cmd(args.assay, data, assay_out), assay_out, (0, 1)),
        ]
        print(f"timing {runs:,} runs, {rounds} rounds ...", flush=True)
        time_jobs(runner, jobs, rounds)
        for series in (floor, assay):
            if series.error:
                raise SystemExit(f"{series.label} failed on {runs:,} runs: {series.error}")
        medians[runs] = (floor.median, assay.median)

    spread = args.big - args.small
    print("\n| | floor | assay | assay / floor |\n|---|---|---|---|")
    for runs, (floor, assay) in medians.items():
        print(f"| {runs:,} runs (median) | {floor:.3f} s | {assay:.3f} s | {assay / floor:.2f}x |")
    fits = {}
    for index, name in enumerate(("floor", "assay")):
        per_run = (medians[args.big][index] - medians[args.small][index]) / spread
        fits[name] = (medians[args.small][index] - args.small * per_run, per_run)
    (floor_fixed, floor_run), (assay_fixed, assay_run) = fits["floor"], fits["assay"]
    print(
        f"| per run | {floor_run * 1e6:.1f} µs | {assay_run * 1e6:.1f} µs "
        f"| {assay_run / floor_run:.2f}x |"
    )
    print(f"| fixed | {floor_fixed * 1e3:.0f} ms | {assay_fixed * 1e3:.0f} ms | |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
