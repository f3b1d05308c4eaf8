"""Tests for `assay.formats.scenarios.load_scenarios`: ground truth in, Cases out."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from assay.answers import AnswerRules, KeyRule
from assay.formats import ReadProblem, load_scenarios


def write(path: Path, content: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, str):
        path.write_text(content, encoding="utf-8")
    else:
        path.write_bytes(content)
    return path


def write_json(path: Path, value: Any) -> Path:
    return write(path, orjson.dumps(value))


def folder(root: Path, name: str, groundtruth: str | bytes | None, **files: str | bytes) -> Path:
    path = root / name
    path.mkdir(parents=True, exist_ok=True)
    if groundtruth is not None:
        write(path / "groundtruth.txt", groundtruth)
    for file_name, content in files.items():
        write(path / file_name.replace("__", "."), content)
    return path


def reasons(problems: list[ReadProblem]) -> list[str]:
    return [problem.reason for problem in problems]


# --- scenario folders ----------------------------------------------------------------------


def test_scenario_folders(tmp_path: Path) -> None:
    eleven = folder(
        tmp_path,
        "scenario_11",
        "{'energy': 14, 'material': 48}\n",
        question__txt="How many storage-related work orders were energy vs material?\n",
        groundtruth_eval__json='{"keys": {"energy": {"abs_tol": 0}, "material": {"abs_tol": 2}}}',
    )
    folder(tmp_path, "Scenario-012", "34")
    folder(tmp_path / "zone" / "nested", "scenario_pump_a", "The pump tripped on low flow.")

    cases, problems = load_scenarios([tmp_path])

    assert problems == []
    assert list(cases) == ["11", "12", "pump_a"]
    case = cases["11"]
    assert case.id == "11"
    assert case.expected_answer == "{'energy': 14, 'material': 48}"
    assert case.question == "How many storage-related work orders were energy vs material?"
    # Checked when read: the rules arrive typed, their paths as the comparison writes them.
    assert case.answer_rules == AnswerRules(
        keys={"answer.energy": KeyRule(abs_tol=0.0), "answer.material": KeyRule(abs_tol=2.0)}
    )
    assert case.source == str(eleven)
    assert case.metadata == {}
    assert cases["12"].id == "012"  # as written; the key is normalised
    assert cases["12"].question is None
    assert cases["12"].answer_rules is None
    assert cases["pump_a"].expected_answer == "The pump tripped on low flow."


def test_folders_load_in_natural_order(tmp_path: Path) -> None:
    for n in (10, 2, 1, 33):
        folder(tmp_path, f"scenario_{n}", str(n))
    cases, _ = load_scenarios([tmp_path])
    assert list(cases) == ["1", "2", "10", "33"]


@pytest.mark.parametrize(
    ("rules", "reason"),
    [
        ("{not json", "invalid JSON: "),
        ("[1, 2]", "answer rules must be a JSON object, got array"),
        ("", "empty file"),
        (b"\xff\xfe{}", "not UTF-8: "),
        # Checked when read, not by the scorer on every run (regression: they were once
        # loaded as they were and failed each run that used them).
        ('{"keys": {"kwh": {"abs_tol": -1}}}', "kwh: abs_tol must be a non-negative number"),
        ('{"energy": {"mode": "exact"}}', "unknown rules field(s): energy"),
    ],
)
def test_broken_answer_rules_still_load_the_case(
    tmp_path: Path, rules: str | bytes, reason: str
) -> None:
    path = folder(tmp_path, "scenario_5", "5", groundtruth_eval__json=rules)
    cases, problems = load_scenarios([tmp_path])

    assert len(problems) == 1
    assert problems[0].source == str(path / "groundtruth_eval.json")
    assert problems[0].reason.startswith(reason)
    case = cases["5"]
    assert case.answer_rules is None
    error = case.answer_rules_problem
    assert error is not None and "answer_rules_error" not in case.metadata
    assert error.startswith("groundtruth_eval.json: " + reason)


def test_folder_problems(tmp_path: Path) -> None:
    no_truth = folder(tmp_path, "scenario_1", None, question__txt="Q?")
    undecodable = folder(tmp_path, "scenario_2", b"caf\xe9")
    empty = folder(tmp_path, "scenario_3", "  \n")
    bad_question = folder(tmp_path, "scenario_4", "4", question__txt=b"\xff")
    nameless = folder(tmp_path, "scenario_", "x")

    cases, problems = load_scenarios([tmp_path])

    assert list(cases) == ["4"]
    assert cases["4"].question is None  # unreadable question: case kept without it
    got = {problem.source: problem.reason for problem in problems}
    assert got == {
        str(no_truth): "no groundtruth.txt (and no expected_trajectory.json)",
        str(undecodable / "groundtruth.txt"): "not UTF-8: undecodable byte at offset 3",
        str(empty / "groundtruth.txt"): "groundtruth.txt is empty",
        str(bad_question / "question.txt"): "not UTF-8: undecodable byte at offset 0",
        str(nameless): "no usable scenario id in folder name 'scenario_'",
    }


def test_a_scenario_folder_can_be_named_directly(tmp_path: Path) -> None:
    path = folder(tmp_path, "scenario_7", "7")
    cases, problems = load_scenarios([path])
    assert (list(cases), problems) == (["7"], [])


def test_json_inside_scenario_folders_is_not_a_scenario_file(tmp_path: Path) -> None:
    folder(tmp_path, "scenario_1", "1", extra__json='{"id": 99}')
    cases, problems = load_scenarios([tmp_path])
    assert (list(cases), problems) == (["1"], [])


def test_hidden_entries_are_skipped(tmp_path: Path) -> None:
    folder(tmp_path / ".git", "scenario_1", "1")
    write_json(tmp_path / ".draft.json", [{"id": 2}])
    folder(tmp_path, ".scenario_3", "3")
    cases, problems = load_scenarios([tmp_path])
    assert cases == {}
    assert reasons(problems) == ["no scenario folders or scenario files in directory"]


# --- scenario files ------------------------------------------------------------------------

SCENARIOS: list[dict[str, Any]] = [
    {
        "id": 101,
        "type": "IoT",
        "text": "What IoT sites are available?",
        "category": "Knowledge Query",
        "characteristic_form": "The expected response should list the site MAIN.",
        "expected_answer": "MAIN",
        "scoring_method": "llm_judge",
        "deterministic": True,
    },
    {
        "id": "scenario_102",
        "question": "Count the work orders by cause for CWC04009.",
        "expected_answer": {"energy": 14, "material": 48},
        "groundtruth_eval": {"list_order": "position"},
        "evaluation_metadata": {"source": "maximo"},
    },
]


def test_json_list_file(tmp_path: Path) -> None:
    path = write_json(tmp_path / "iot.json", SCENARIOS)
    cases, problems = load_scenarios([path])

    assert problems == []
    assert list(cases) == ["101", "102"]
    first = cases["101"]
    assert first.id == "101"
    assert first.question == "What IoT sites are available?"
    assert first.expected_answer == "MAIN"
    assert first.characteristic_form == "The expected response should list the site MAIN."
    assert (first.type, first.category, first.scoring_method) == (
        "IoT",
        "Knowledge Query",
        "llm_judge",
    )
    assert first.metadata == {"deterministic": True}
    assert first.source == f"{path}#0"
    second = cases["102"]
    assert second.id == "scenario_102"
    assert second.question == "Count the work orders by cause for CWC04009."
    assert second.expected_answer == {"energy": 14, "material": 48}  # structure kept as is
    assert second.answer_rules == AnswerRules(list_order="position")
    assert second.metadata == {"evaluation_metadata": {"source": "maximo"}}


def test_object_with_scenarios_list_and_single_object(tmp_path: Path) -> None:
    wrapped = write_json(tmp_path / "a_wrapped.json", {"version": 2, "scenarios": SCENARIOS})
    single = write_json(tmp_path / "b_single.json", {"id": "7", "text": "Q", "expected_answer": 3})
    cases, problems = load_scenarios([wrapped, single])
    assert problems == []
    assert list(cases) == ["101", "102", "7"]
    assert cases["102"].source == f"{wrapped}#1"
    assert cases["7"].source == str(single)
    assert cases["7"].expected_answer == 3


def test_jsonl_file_with_bad_lines(tmp_path: Path) -> None:
    path = write(
        tmp_path / "s.jsonl",
        b"\n".join(
            [
                orjson.dumps(SCENARIOS[0]),
                b"{broken",
                b"",
                b"[1]",
                orjson.dumps({"text": "no id"}),
                orjson.dumps({"id": True}),
                orjson.dumps({"id": "  "}),
                orjson.dumps({"id": 5, "groundtruth_eval": "energy exact"}),
            ]
        ),
    )
    cases, problems = load_scenarios([path])

    assert list(cases) == ["101", "5"]
    assert cases["101"].source == f"{path}:1"
    assert [(p.source, p.reason) for p in problems[1:]] == [
        (f"{path}:4", "expected a scenario object, got array"),
        (f"{path}:5", "scenario has no id"),
        (f"{path}:6", "scenario id must be a string or a number, got boolean"),
        (f"{path}:7", "scenario id is empty"),
        (f"{path}:8", "groundtruth_eval: Input should be a valid dictionary, got string"),
    ]
    assert problems[0].source == f"{path}:2"
    assert problems[0].reason.startswith("invalid JSON: ")
    assert cases["5"].metadata == {}
    assert cases["5"].answer_rules is None
    assert cases["5"].answer_rules_problem == (
        f"{path}:8: groundtruth_eval: Input should be a valid dictionary, got string"
    )


def test_non_text_fields_are_kept_in_metadata(tmp_path: Path) -> None:
    path = write_json(
        tmp_path / "s.json",
        {"id": 1, "text": ["not", "text"], "question": "Q?", "type": 3, "category": {"a": 1}},
    )
    cases, problems = load_scenarios([path])
    case = cases["1"]
    # Kept, and said: a field of the wrong type is never dropped without a word.
    assert [(p.source, p.reason) for p in problems] == [
        (str(path), "text: Input should be a valid string, got array"),
        (str(path), "category: Input should be a valid string, got object"),
    ]
    assert case.question == "Q?"
    assert case.type == "3"
    assert case.category is None
    assert case.metadata == {"text": ["not", "text"], "category": {"a": 1}}


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"", "empty file"),
        (b"{oops", "invalid JSON: "),
        (b"\xff\xfe", "not UTF-8: "),
        (b"42", "expected a list of scenarios"),
        (b'{"name": "no id here"}', "expected a list of scenarios"),
        (b'{"scenarios": {"id": 1}}', '"scenarios" must be a list, got object'),
        (b"[]", "empty list: no scenarios"),
    ],
)
def test_unusable_scenario_files(tmp_path: Path, content: bytes, reason: str) -> None:
    path = write(tmp_path / "s.json", content)
    cases, problems = load_scenarios([path])
    assert cases == {}
    assert len(problems) == 1
    assert problems[0].source == str(path)
    assert problems[0].reason.startswith(reason), problems[0].reason


def test_files_and_folders_in_one_directory(tmp_path: Path) -> None:
    folder(tmp_path / "folders", "scenario_1", "1")
    write_json(tmp_path / "files" / "more.json", [{"id": 2, "expected_answer": "2"}])
    write(tmp_path / "files" / "notes.txt", "ignored: not a scenario file")
    cases, problems = load_scenarios([tmp_path])
    assert (list(cases), problems) == (["2", "1"], [])  # "files" sorts before "folders"


# --- duplicates and missing paths ----------------------------------------------------------


def test_duplicates_keep_the_first(tmp_path: Path) -> None:
    first = folder(tmp_path / "gt", "scenario_11", "first")
    file = write_json(
        tmp_path / "s.json", [{"id": "011", "expected_answer": "second"}, {"id": 12}, {"id": 12.0}]
    )
    cases, problems = load_scenarios([tmp_path / "gt", file])

    assert list(cases) == ["11", "12"]
    assert cases["11"].expected_answer == "first"
    assert cases["12"].source == f"{file}#1"
    assert [p.source for p in problems] == [f"{file}#0", f"{file}#2"]
    assert str(first) in problems[0].reason
    assert problems[0].reason.startswith("duplicate scenario id '011' (key '11')")
    assert f"{file}#1" in problems[1].reason


def test_same_path_twice_reports_every_case_as_duplicate(tmp_path: Path) -> None:
    path = write_json(tmp_path / "s.json", [{"id": 1}, {"id": 2}])
    cases, problems = load_scenarios([path, path])
    assert list(cases) == ["1", "2"]
    assert len(problems) == 2


def test_missing_path(tmp_path: Path) -> None:
    folder(tmp_path, "scenario_1", "1")
    cases, problems = load_scenarios([tmp_path / "missing", tmp_path])
    assert list(cases) == ["1"]
    assert [(p.source, p.reason) for p in problems] == [
        (str(tmp_path / "missing"), "no such file or directory")
    ]


def test_no_paths() -> None:
    assert load_scenarios([]) == ({}, [])
