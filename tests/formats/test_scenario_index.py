"""The scenario index: numbered folders packed into arrays behave like every other entry."""

from __future__ import annotations

import json
from pathlib import Path

from assay.formats import index_scenarios


def folder(root: Path, name: str, answer: str) -> Path:
    path = root / name
    path.mkdir(parents=True)
    (path / "groundtruth.txt").write_text(answer)
    return path


def test_numbered_and_other_folders_answer_lookups(tmp_path: Path) -> None:
    folder(tmp_path, "scenario_10", "ten")
    folder(tmp_path, "scenario_2", "two")
    folder(tmp_path, "scenario_007", "seven")  # not a plain number: kept by path
    folder(tmp_path, "scenario_pump", "pump")
    index = index_scenarios([tmp_path])
    assert len(index) == 4
    assert list(index) == ["2", "7", "10", "pump"]  # load order (natural sort)
    assert {key: index.get(key).expected_answer for key in index} == {  # type: ignore[union-attr]
        "2": "two",
        "7": "seven",
        "10": "ten",
        "pump": "pump",
    }
    assert index.case_id("7") == "007"
    assert index.source("10") == str(tmp_path / "scenario_10")
    assert "11" not in index and "010" not in index


def test_answered_scenarios_are_not_listed(tmp_path: Path) -> None:
    for name in ["scenario_1", "scenario_2", "scenario_x", "scenario_y"]:
        folder(tmp_path, name, "a")
    index = index_scenarios([tmp_path])
    index.mark_answered("2")
    index.mark_answered("y")
    assert list(index.unanswered()) == ["1", "x"]


def test_first_loaded_wins_across_packed_and_plain_entries(tmp_path: Path) -> None:
    first = folder(tmp_path / "a", "scenario_5", "folder first")
    later = folder(tmp_path / "b", "scenario_5", "folder later")
    (tmp_path / "c.json").write_text(json.dumps([{"id": 6, "expected_answer": "file first"}]))
    folder(tmp_path / "d", "scenario_6", "folder after the file")
    index = index_scenarios([tmp_path / "a", tmp_path / "b", tmp_path / "c.json", tmp_path / "d"])
    assert index.get("5").expected_answer == "folder first"  # type: ignore[union-attr]
    assert index.get("6").expected_answer == "file first"  # type: ignore[union-attr]
    assert len(index) == 2
    assert [p.source for p in index.problems] == [str(later), str(tmp_path / "d" / "scenario_6")]
    assert str(first) in index.problems[0].reason


def test_a_file_loaded_after_a_numbered_folder_loses(tmp_path: Path) -> None:
    folder(tmp_path / "a", "scenario_3", "folder")
    (tmp_path / "b.json").write_text(json.dumps([{"id": "3", "expected_answer": "file"}]))
    index = index_scenarios([tmp_path / "a", tmp_path / "b.json"])
    assert index.get("3").expected_answer == "folder"  # type: ignore[union-attr]
    assert index.problems[0].source == f"{tmp_path / 'b.json'}#0"
