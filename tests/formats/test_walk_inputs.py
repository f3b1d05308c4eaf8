"""The walk over --trajectories (`walk_inputs`): what it yields, and what it says it skipped."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from assay.formats.registry import REPORTS_MARKER, ReadProblem, walk_inputs

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="symlinks need privileges")


def walk(path: Path, exclude: tuple[Path, ...] = ()) -> tuple[list[str], dict[str, str]]:
    """The files `walk_inputs` yields (relative to `path`) and its problems by source."""
    files: list[str] = []
    problems: dict[str, str] = {}
    for item in walk_inputs(path, exclude):
        if isinstance(item, ReadProblem):
            problems[str(Path(item.source).relative_to(path))] = item.reason
        else:
            files.append(str(Path(item).relative_to(path)))
    return files, problems


def touch(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("{}")
    return path


@pytest.mark.reports_not_validated  # empty stand-ins for the files of a reports directory
def test_a_reports_directory_is_skipped_with_its_reason(tmp_path: Path) -> None:
    touch(tmp_path / "1.json")
    touch(tmp_path / "old" / REPORTS_MARKER)
    touch(tmp_path / "old" / "1.json")
    touch(tmp_path / "old" / "nested" / "2.json")
    touch(tmp_path / "legacy" / "_aggregate.json")
    touch(tmp_path / "legacy" / "results.jsonl")
    touch(tmp_path / "legacy" / "1.json")
    touch(tmp_path / "only-results" / "results.jsonl")  # one of the two names: a runs file
    files, problems = walk(tmp_path)
    assert files == ["1.json", "only-results/results.jsonl"]
    assert problems == {
        "legacy": "an assay reports directory (it holds _aggregate.json and results.jsonl), "
        "not read as runs",
        "old": "an assay reports directory (it holds .assay_reports), not read as runs",
    }


def test_a_reports_directory_named_as_the_input_is_skipped_too(tmp_path: Path) -> None:
    touch(tmp_path / REPORTS_MARKER)
    touch(tmp_path / "1.json")
    assert walk(tmp_path) == ([], {".": "an assay reports directory (it holds .assay_reports), "
                                        "not read as runs"})


def test_the_excluded_directory_is_left_out_quietly(tmp_path: Path) -> None:
    touch(tmp_path / "1.json")
    touch(tmp_path / "reports" / REPORTS_MARKER)
    touch(tmp_path / "reports" / "1.json")
    assert walk(tmp_path, exclude=(tmp_path / "reports",)) == (["1.json"], {})


@posix_only
def test_a_link_to_a_directory_is_reported_and_a_link_to_a_file_is_read(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    touch(runs / "1.json")
    touch(tmp_path / "elsewhere" / "2.json")
    (runs / "linked").symlink_to(tmp_path / "elsewhere")
    (runs / "sub").mkdir()
    (runs / "sub" / "up").symlink_to(runs)  # a loop, had it been followed
    (runs / "3.json").symlink_to(tmp_path / "elsewhere" / "2.json")
    (runs / "dangling.json").symlink_to(tmp_path / "nowhere.json")
    files, problems = walk(runs)
    assert files == ["1.json", "3.json", "dangling.json"]  # reading says what is wrong with it
    assert problems == {
        "linked": "symbolic link to a directory, not followed",
        "sub/up": "symbolic link to a directory, not followed",
    }


@posix_only
def test_a_link_named_as_the_input_is_followed(tmp_path: Path) -> None:
    touch(tmp_path / "real" / "1.json")
    (tmp_path / "runs").symlink_to(tmp_path / "real")
    assert walk(tmp_path / "runs") == (["1.json"], {})


@posix_only
def test_a_folder_of_nothing_but_links_is_not_called_empty(tmp_path: Path) -> None:
    touch(tmp_path / "elsewhere" / "1.json")
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "linked").symlink_to(tmp_path / "elsewhere")
    assert walk(tmp_path / "runs") == ([], {"linked": "symbolic link to a directory, not followed"})
