"""Readers that turn external formats into `assay.records`, at the edge and nowhere else."""

from assay.formats.assetopsbench import (
    ReadProblem,
    iter_input_files,
    jsonl_run_lines,
    read_run_file,
    read_runs,
    run_from_line,
    trajectory_from_record,
    walk_run_files,
)
from assay.formats.ids import scenario_key
from assay.formats.scenarios import ScenarioIndex, index_scenarios, load_scenarios

__all__ = [
    "ReadProblem",
    "ScenarioIndex",
    "index_scenarios",
    "iter_input_files",
    "jsonl_run_lines",
    "load_scenarios",
    "read_run_file",
    "read_runs",
    "run_from_line",
    "scenario_key",
    "trajectory_from_record",
    "walk_run_files",
]
