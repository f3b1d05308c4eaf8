"""The I/O floor that `assay evaluate` is compared against.

Usage:
    python bench/floor.py --data bench/data/runs_2000_seed_0 --out bench/out/floor

It does the least any evaluator of the data set must do, and nothing else: walk
``DATA/trajectories`` recursively, read every ``*.json`` and ``*.jsonl`` file and parse it with
``orjson.loads`` (per line for ``.jsonl``, catching errors), read every ``groundtruth.txt`` and
``question.txt`` under ``DATA/scenarios`` as bytes, and write one small JSON report per run plus
one aggregate file into OUT with orjson, each atomically (a temporary file, then a rename), as
an evaluator must so that a crash never leaves half a report. No scoring, no id normalisation,
no answer parsing.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

_FAILED = object()
"""Stands for a document that is not valid JSON."""


def read_scenarios(root: Path) -> dict[str, tuple[bytes, bytes | None]]:
    """Ground truth and question bytes per scenario directory name (`scenario_<id>`).

    Directories are visited with os.walk, not collected into a list of Paths first: with
    15,000 scenarios such a list alone costs about 10 MB, which is not I/O.
    """
    scenarios: dict[str, tuple[bytes, bytes | None]] = {}
    for dirpath, _dirnames, filenames in os.walk(root):
        if "groundtruth.txt" not in filenames:
            continue
        base = Path(dirpath)
        question = base / "question.txt"
        scenarios[base.name] = (
            (base / "groundtruth.txt").read_bytes(),
            question.read_bytes() if "question.txt" in filenames else None,
        )
    return scenarios


def walk_files(root: Path) -> Iterator[Path]:
    """Files under `root` in sorted order, holding one directory listing at a time."""
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        base = Path(dirpath)
        for name in sorted(filenames):
            yield base / name


def read_runs(root: Path) -> Iterator[tuple[str, Any]]:
    """(source, parsed document) for every run document, streamed; `_FAILED` if it did not parse."""
    for path in walk_files(root):
        suffix = path.suffix
        if suffix == ".json":
            try:
                yield str(path), orjson.loads(path.read_bytes())
            except orjson.JSONDecodeError:
                yield str(path), _FAILED
        elif suffix == ".jsonl":
            with path.open("rb") as lines:  # line by line: a .jsonl file can be large
                for line_no, line in enumerate(lines, 1):
                    if not line.strip():
                        continue
                    try:
                        yield f"{path}:{line_no}", orjson.loads(line)
                    except orjson.JSONDecodeError:
                        yield f"{path}:{line_no}", _FAILED


def write_atomic(path: Path, data: bytes) -> None:
    """Write `data` to a temporary file beside `path`, then rename it into place."""
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_bytes(data)
    temporary.replace(path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="data set made by generate.py")
    parser.add_argument("--out", type=Path, required=True, help="directory for the reports")
    args = parser.parse_args(argv)
    start = time.perf_counter()

    scenarios = read_scenarios(args.data / "scenarios")
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    written = failed = not_runs = with_truth = 0
    for source, doc in read_runs(args.data / "trajectories"):
        if doc is _FAILED:
            failed += 1
            continue
        if not isinstance(doc, dict):
            not_runs += 1
            continue
        scenario_id = doc.get("scenario_id")
        has_truth = f"scenario_{scenario_id}" in scenarios
        with_truth += has_truth
        report = {
            "run_id": doc.get("run_id"),
            "scenario_id": scenario_id,
            "runner": doc.get("runner"),
            "model": doc.get("model"),
            "answer": doc.get("answer"),
            "has_groundtruth": has_truth,
            "source": source,
        }
        write_atomic(out / f"run_{written:06d}.json", orjson.dumps(report))
        written += 1

    summary = {
        "runs": written,
        "runs_with_groundtruth": with_truth,
        "unreadable": failed,
        "not_runs": not_runs,
        "scenarios": len(scenarios),
    }
    write_atomic(out / "summary.json", orjson.dumps(summary, option=orjson.OPT_INDENT_2))
    elapsed = time.perf_counter() - start
    print(
        f"floor: {written} runs ({with_truth} with ground truth), {failed} unreadable, "
        f"{not_runs} not runs, {len(scenarios)} scenarios in {elapsed:.2f}s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
