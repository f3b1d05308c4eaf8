"""End to end on the benchmark's generated data: every verdict matches the generator's intent.

The generator (bench/generate.py) writes messy AssetOpsBench-style runs (fences, drafts, think
blocks, reordered lists, near misses, prose, malformed answers, broken files) and records what
static_json should say about each; this drives the real pipeline over a small set and checks.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from assay.offline import EvaluateOptions, evaluate

BENCH = Path(__file__).resolve().parents[1] / "bench"


def load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def test_verdicts_on_generated_runs_match_the_intent(tmp_path: Path) -> None:
    generate = load("generate")
    check = load("check_verdicts")
    data = tmp_path / "data"
    assert generate.main(["--runs", "300", "--out", str(data), "--seed", "7"]) == 0
    summary = evaluate(
        EvaluateOptions(data / "trajectories", (data / "scenarios",), tmp_path / "out", workers=2)
    )
    agreed, wrong = check.disagreements(data, tmp_path / "out")
    assert wrong == []
    assert sum(agreed.values()) == 300
    totals = summary.totals
    assert (
        totals["scored"] + totals["unscored"] + totals["errors"] + totals["skipped"]
        == (totals["runs_read"])
    )
    assert totals["unreadable"] > 0 and totals["no_scenario"] > 0
