"""Tests for multi-turn scenario folders (`scenario_<id>/turns/<NN>/`) and how static_json
scores them.

The layout is AssetOpsBench's (`src/couchdb/scenarios_data/scenario_4`): the first turn's
question in the scenario folder itself, later turns in numbered folders, the last one graded
by a characteristic form instead of a ground-truth answer.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.formats import ReadProblem, index_scenarios, load_scenarios
from assay.records import Case, CaseTurn, Message, Trajectory
from assay.scorers.static_json import score_static_json


def turn(folder: Path, number: str, **files: str) -> None:
    path = folder / "turns" / number
    path.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (path / f"{name}.txt").write_text(text)


def dialog(root: Path) -> Path:
    folder = root / "scenario_4"
    folder.mkdir(parents=True)
    (folder / "question.txt").write_text("Which MAIN work order is awaiting approval?\n")
    (folder / "groundtruth.txt").write_text("1000045\n")
    turn(folder, "02", question="Which asset?", groundtruth='{"asset": "Chiller 6"}\n')
    turn(folder, "03", question="Retrieve the series.", groundtruth='{"observations": 2876}')
    (folder / "turns" / "README.md").write_text("notes beside the turns are not turns")
    return folder


def test_a_dialog_folder_is_one_case_with_turns(tmp_path: Path) -> None:
    dialog(tmp_path)
    cases, problems = load_scenarios([tmp_path])
    assert problems == []
    case = cases["4"]
    assert case.turns == [
        CaseTurn("Which MAIN work order is awaiting approval?", "1000045"),
        CaseTurn("Which asset?", '{"asset": "Chiller 6"}'),
        CaseTurn("Retrieve the series.", '{"observations": 2876}'),
    ]
    assert case.expected_answer == '{"observations": 2876}'  # the last turn's
    assert case.question == "Which MAIN work order is awaiting approval?"


def test_a_last_turn_graded_by_form_leaves_the_case_to_a_judge(tmp_path: Path) -> None:
    folder = dialog(tmp_path)
    turn(folder, "05", question="Write the paragraph.", characteristic_form="One paragraph.")
    index = index_scenarios([tmp_path])
    case = index.get("4")
    assert isinstance(case, Case) and case.turns is not None
    assert [t.expected_answer for t in case.turns][-2:] == ['{"observations": 2876}', None]
    assert (case.expected_answer, case.characteristic_form) == (None, "One paragraph.")
    score = score_static_json(case, Trajectory(answer="Approve work order 1000045."))
    assert score.status == "unscored" and "characteristic_form" in score.rationale


def test_turns_may_all_live_in_numbered_folders(tmp_path: Path) -> None:
    folder = tmp_path / "scenario_9"
    turn(folder, "1", groundtruth="a")
    turn(folder, "10", groundtruth="c")
    turn(folder, "2", groundtruth="b")
    cases, problems = load_scenarios([folder])
    assert problems == []
    case = cases["9"]
    assert case.turns is not None
    assert [t.expected_answer for t in case.turns] == ["a", "b", "c"]  # by number, not name


@pytest.mark.parametrize(
    ("layout", "reason"),
    [
        ({"01": {"question": "q"}}, "no turn has a groundtruth.txt (or a characteristic_form.txt)"),
        ({"x1": {"groundtruth": "a"}}, "turn folder name 'x1' is not a turn number"),
        ({"1": {"groundtruth": "a"}, "01": {"groundtruth": "b"}}, "turn 1 is also"),
        ({"02": {"groundtruth": "  \n"}}, "groundtruth.txt is empty"),
        ({}, "no turn folders (turns/01, turns/02, ...)"),
    ],
)
def test_unusable_turns_are_a_problem_not_a_guess(
    tmp_path: Path, layout: dict[str, dict[str, str]], reason: str
) -> None:
    folder = tmp_path / "scenario_5"
    (folder / "turns").mkdir(parents=True)
    for number, files in layout.items():
        turn(folder, number, **files)
    cases, problems = load_scenarios([tmp_path])
    assert cases == {}
    assert len(problems) == 1 and reason in problems[0].reason, problems


def test_turn_one_in_two_places_is_a_problem(tmp_path: Path) -> None:
    folder = tmp_path / "scenario_6"
    folder.mkdir()
    (folder / "groundtruth.txt").write_text("a")
    turn(folder, "01", groundtruth="b")
    cases, (problem,) = load_scenarios([tmp_path])
    assert cases == {} and isinstance(problem, ReadProblem)
    assert problem.reason.startswith("turn 1 is both the folder's own question.txt")


# --- static_json ----------------------------------------------------------------------------


def two_turns() -> Case:
    return Case(
        id="4",
        expected_answer='{"observations": 2876}',
        turns=[CaseTurn("q1", "1000045"), CaseTurn("q2", '{"observations": 2876}')],
    )


def test_the_final_answer_is_scored_against_the_last_turn() -> None:
    score = score_static_json(two_turns(), Trajectory(answer='{"observations": 2876}'))
    assert score.passed is True
    first, last = score.details["turns"]
    assert (first["turn"], first["passed"], first["expected_answer"]) == (1, None, "1000045")
    assert first["note"] == "not scored: the run records no answer per turn"
    assert (last["passed"], last["score"], last["note"]) == (True, 1.0, "final answer")


def test_each_turn_is_scored_when_the_run_answers_each() -> None:
    run = Trajectory(
        answer='{"observations": 2876}',
        messages=[
            Message("user", "q1"),
            Message("assistant", "checking"),
            Message("assistant", "1000046"),
            Message("user", "q2"),
            Message("assistant", '{"observations": 2876}'),
        ],
    )
    score = score_static_json(two_turns(), run)
    assert score.passed is True  # earlier turns are details; they never change the score
    first, _ = score.details["turns"]
    assert (first["answer"], first["passed"]) == ("1000046", False)


def test_turns_that_do_not_line_up_are_not_guessed() -> None:
    run = Trajectory(answer='{"observations": 2876}', messages=[Message("user", "all at once")])
    first, _ = score_static_json(two_turns(), run).details["turns"]
    assert first["passed"] is None
    assert "1 user message(s) do not line up with the 2 turns" in first["note"]


def test_a_single_question_case_has_no_turn_details() -> None:
    score = score_static_json(Case(id="1", expected_answer="3"), Trajectory(answer="3"))
    assert "turns" not in score.details
