"""Readers that turn external formats into `assay.records`, at the edge and nowhere else.

Each format is one module that registers a reader with `assay.formats.registry`; every
command reads files through the registry (`read_file`), which tells the format of each file
from its name and content, or takes the reader named with `--from`. Names are loaded on first
use (PEP 562), and so are the readers: `assay evaluate` on assay's own runs imports no other.

Example:
    >>> from assay.formats import trajectory_from_openai_messages
    >>> run = trajectory_from_openai_messages([{"role": "user", "content": "hi"},
    ...                                        {"role": "assistant", "content": "hello"}])
    >>> run.answer
    'hello'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from assay._lazy import lazy_exports

if TYPE_CHECKING:
    from assay.formats.adk import cases_from_adk, trajectories_from_adk
    from assay.formats.assay_jsonl import (
        trajectory_to_line,
        trajectory_to_record,
        write_runs_jsonl,
    )
    from assay.formats.assetopsbench import (
        iter_input_files,
        jsonl_run_lines,
        read_run_file,
        read_runs,
        run_from_line,
        trajectory_from_record,
        walk_run_files,
    )
    from assay.formats.catalog import load_catalog
    from assay.formats.ids import scenario_key
    from assay.formats.langchain import trajectory_from_langchain_messages
    from assay.formats.maseval import trajectories_from_maseval
    from assay.formats.openai_chat import trajectory_from_openai_messages
    from assay.formats.otel import trajectories_from_otlp
    from assay.formats.registry import (
        ReadProblem,
        UnknownReaderError,
        detect_reader,
        read_file,
        reader_names,
        register_reader,
    )
    from assay.formats.scenarios import ScenarioIndex, index_scenarios, load_scenarios
    from assay.formats.track1 import trajectory_from_track1

_EXPORTS = {
    "cases_from_adk": "assay.formats.adk",
    "trajectories_from_adk": "assay.formats.adk",
    "trajectory_to_line": "assay.formats.assay_jsonl",
    "trajectory_to_record": "assay.formats.assay_jsonl",
    "write_runs_jsonl": "assay.formats.assay_jsonl",
    "iter_input_files": "assay.formats.assetopsbench",
    "jsonl_run_lines": "assay.formats.assetopsbench",
    "read_run_file": "assay.formats.assetopsbench",
    "read_runs": "assay.formats.assetopsbench",
    "run_from_line": "assay.formats.assetopsbench",
    "trajectory_from_record": "assay.formats.assetopsbench",
    "walk_run_files": "assay.formats.assetopsbench",
    "load_catalog": "assay.formats.catalog",
    "scenario_key": "assay.formats.ids",
    "trajectory_from_langchain_messages": "assay.formats.langchain",
    "trajectories_from_maseval": "assay.formats.maseval",
    "trajectory_from_openai_messages": "assay.formats.openai_chat",
    "trajectories_from_otlp": "assay.formats.otel",
    "ReadProblem": "assay.formats.registry",
    "UnknownReaderError": "assay.formats.registry",
    "detect_reader": "assay.formats.registry",
    "read_file": "assay.formats.registry",
    "reader_names": "assay.formats.registry",
    "register_reader": "assay.formats.registry",
    "ScenarioIndex": "assay.formats.scenarios",
    "index_scenarios": "assay.formats.scenarios",
    "load_scenarios": "assay.formats.scenarios",
    "trajectory_from_track1": "assay.formats.track1",
}

__all__ = [
    "ReadProblem",
    "ScenarioIndex",
    "UnknownReaderError",
    "cases_from_adk",
    "detect_reader",
    "index_scenarios",
    "iter_input_files",
    "jsonl_run_lines",
    "load_catalog",
    "load_scenarios",
    "read_file",
    "read_run_file",
    "read_runs",
    "reader_names",
    "register_reader",
    "run_from_line",
    "scenario_key",
    "trajectories_from_adk",
    "trajectories_from_maseval",
    "trajectories_from_otlp",
    "trajectory_from_langchain_messages",
    "trajectory_from_openai_messages",
    "trajectory_from_record",
    "trajectory_from_track1",
    "trajectory_to_line",
    "trajectory_to_record",
    "walk_run_files",
    "write_runs_jsonl",
]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals(), __all__)
