"""End-to-end: an answer whose nested lists would take hours to align optimally is scored in
bounded work by `assay evaluate`, with a note, and the budget is a `static_json` option.

The subprocess's timeout (in tests/_cli.py) is only a guard against a hang, never a measure.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from test_cli_evaluate_e2e import (
    evaluate,
    make_run,
    read_aggregate,
    reports_by_run_id,
    scenario_folder,
    write_json,
)

from _cli import explain

pytestmark = pytest.mark.slow  # each test runs the console script in a new process


def _inputs(tmp_path: Path, size: int) -> tuple[Path, Path]:
    """A scenario whose answer is a size x size grid of numbers, and two runs of it: one with
    every row and value shuffled and a third of the values off by one, one exactly right."""
    rnd = random.Random(0)
    gold = [[rnd.randrange(1000) for _ in range(size)] for _ in range(size)]
    model = [[v + 1 if rnd.random() < 1 / 3 else v for v in row] for row in gold]
    for row in model:
        rnd.shuffle(row)
    rnd.shuffle(model)
    runs, scenarios = tmp_path / "runs", tmp_path / "scenarios"
    write_json(runs / "shuffled.json", make_run("shuffled", "grid", json.dumps(model)))
    write_json(runs / "right.json", make_run("right", "grid", json.dumps(gold)))
    scenario_folder(scenarios, "grid", json.dumps(gold))
    return runs, scenarios


def test_a_shuffled_100x100_grid_is_scored_with_a_note_and_the_run_goes_on(
    tmp_path: Path,
) -> None:
    runs, scenarios = _inputs(tmp_path, 100)
    proc = evaluate(runs, scenarios, tmp_path / "out")
    assert proc.returncode == 0, explain(proc)
    reports = reports_by_run_id(tmp_path / "out")
    score = reports["shuffled"]["score"]
    assert score["status"] == "scored" and score["passed"] is False
    assert 0.5 < score["score"] < 0.7
    details = score["details"]
    assert details["total_gold_keys"] == details["total_model_keys"] == 10_000
    [note] = [note for note in details["notes"] if note.startswith("alignment budget")]
    assert note.startswith("alignment budget of 500,000 comparisons exhausted at answer")
    assert reports["right"]["score"]["passed"] is True
    [spec] = read_aggregate(tmp_path / "out")["scorers"]
    assert spec["options"]["alignment_budget"] == 500_000


def test_the_budget_is_a_scorer_option(tmp_path: Path) -> None:
    runs, scenarios = _inputs(tmp_path, 10)
    proc = evaluate(runs, scenarios, tmp_path / "out", "-S", "static_json.alignment_budget=0")
    assert proc.returncode == 0, explain(proc)
    score = reports_by_run_id(tmp_path / "out")["shuffled"]["score"]
    assert score["status"] == "scored"
    notes = score["details"]["notes"]
    assert any(note.startswith("alignment budget of 0 comparisons") for note in notes)
    [spec] = read_aggregate(tmp_path / "out")["scorers"]
    assert spec["options"]["alignment_budget"] == 0

    refused = evaluate(runs, scenarios, tmp_path / "bad", "-S", "static_json.alignment_budget=-5")
    assert refused.returncode == 2, explain(refused)
    assert "alignment_budget must be a whole number >= 0, got -5" in refused.stderr
