"""The scenario index: numbered folders packed into arrays behave like every other entry."""

from __future__ import annotations

import json
import os
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from assay.formats import index_scenarios
from assay.formats.scenarios import _DIGITS, _natural_key


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


@given(st.text(alphabet="0123456789", min_size=1, max_size=25))
def test_the_quick_sort_key_of_numbered_folders_is_the_natural_one(digits: str) -> None:
    name = f"scenario_{digits}"
    slow = _DIGITS.sub(lambda run: run.group().zfill(20), name) + "\0" + name
    assert _natural_key(name) == slow


def test_numbered_folders_are_found_like_other_folders(tmp_path: Path) -> None:
    # Folders named scenario_<n> take a quicker path through indexing than other names: the
    # paths they report, and a folder with nothing to score, must come out the same way.
    folder(tmp_path / "gt", "scenario_1", "one")
    folder(tmp_path / "gt", "scenario_x", "x")
    (tmp_path / "gt" / "scenario_2").mkdir()  # no groundtruth.txt: a problem, not a case
    (tmp_path / "gt" / "scenario_y").mkdir()
    index = index_scenarios([Path(f"{tmp_path / 'gt'}{os.sep}")])
    assert index.source("1") == str(tmp_path / "gt" / "scenario_1")
    assert index.source("x") == str(tmp_path / "gt" / "scenario_x")
    assert [(Path(p.source).name, p.reason) for p in index.problems] == [
        (name, "no groundtruth.txt (and no expected_trajectory.json)")
        for name in ("scenario_2", "scenario_y")
    ]
    assert "2" not in index and "y" not in index


def test_a_scenario_folder_given_itself_is_indexed_like_one_found_in_a_walk(
    tmp_path: Path,
) -> None:
    numbered = folder(tmp_path, "scenario_11", "eleven")
    padded = folder(tmp_path, "scenario_011", "also eleven")
    index = index_scenarios([numbered, padded])
    assert list(index) == ["11"]
    assert index.source("11") == str(numbered)
    assert index.get("11").expected_answer == "eleven"  # type: ignore[union-attr]
    assert [p.source for p in index.problems] == [str(padded)]  # the same key, loaded second
