"""static_json: every example of the scorer's documentation, and each known failure of the
reference implementation as a regression test."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from assay.formats import load_scenarios
from assay.formats.scenarios import case_from_object
from assay.records import Trajectory
from assay.results import Score, ScoreStatus
from assay.scorers import create_scorer

SCORER = create_scorer("static_json")


def score(gold: Any, answer: Any, rules: dict[str, Any] | None = None, **options: Any) -> Score:
    """`static_json`'s score, with `rules` as a scenario file would give them (checked when
    the scenario is read, as a reader checks them)."""
    scorer = create_scorer("static_json", **options) if options else SCORER
    case, _ = case_from_object({"id": "s", "expected_answer": gold, "groundtruth_eval": rules})
    assert case is not None
    return scorer(case, Trajectory(answer=answer))


# -- the documented example ---------------------------------------------------------------


def test_worked_example_gives_the_documented_numbers() -> None:
    result = score("{'energy': 14, 'material': 48}", '{"energy":14,"material":27}')
    assert result.status is ScoreStatus.SCORED
    assert result.passed is False
    assert result.value == 0.5
    expected = {
        "partial_exact_match_accuracy": 0.5,
        "strict_exact_match_accuracy": 0.0,
        "partial_similarity_score": 0.5,
        "precision": 0.5,
        "recall": 0.5,
        "f1": 0.5,
        "total_gold_keys": 2,
        "total_model_keys": 2,
        "matched_keys": 2,
        "exact_value_matches": 1,
        "missing_keys": [],
        "extra_keys": [],
    }
    assert {k: result.details[k] for k in expected} == expected
    records = {r["key"]: r for r in result.details["details"]}
    assert records["answer.energy"]["exact"] is True
    assert records["answer.material"] == {
        "key": "answer.material",
        "gold_value": 48,
        "model_value": 27,
        "exact": False,
        "match_type": "mismatch",
        "similarity": 0.0,
    }


# -- the documented input shapes ------------------------------------------------------------


@pytest.mark.parametrize(
    ("gold", "answer"),
    [
        ('{"energy": 14, "material": 48}', '{"energy": 14, "material": 48}'),
        (
            '[{"equipment_group": "Pumps/fans/generators", "count": 21},'
            ' {"equipment_group": "Lines & drives", "count": 15}]',
            '[\n  {"equipment_group": "Pumps/fans/generators", "count": 21},\n'
            '  {"equipment_group": "Lines & drives", "count": 15}\n]',
        ),
        ("{'energy': 14, 'material': 48}", "{'energy': 14, 'material': 48}"),
        (
            '[("Engines & motors", 5), ("Lines & drives", 2)]',
            '[("Engines & motors", 5), ("Lines & drives", 2)]',
        ),
        ('{"repair": 13, "replace": 0}', '```json\n{"repair": 13, "replace": 0}\n```'),
        ('{"repair": 13, "replace": 0}', 'Final Answer: {"repair": 13, "replace": 0}'),
        ("34", "34"),
        ("34", "The answer is 34."),
        ('{"energy": 14}', "```python\n{'energy': 14.0}\n```"),
        ('{"energy": 14}', "```\n{'energy': '14'}\n```"),
        ('{"ok": true, "note": null}', "{'ok': True, 'note': None}"),
    ],
)
def test_documented_shapes_pass(gold: str, answer: str) -> None:
    result = score(gold, answer)
    assert result.passed, result.details
    assert result.value == 1.0


def test_nested_objects_flatten_to_dotted_and_indexed_paths() -> None:
    result = score(
        '{"site": {"pumps": [{"id": "P1", "hours": 5}]}}',
        '{"site": {"pumps": [{"id": "P1", "hours": 6}]}}',
    )
    keys = [r["key"] for r in result.details["details"]]
    assert keys == ["answer.site.pumps[0].id", "answer.site.pumps[0].hours"]


# -- regressions: each failure seen in the reference implementation ------------------------


def test_a_single_number_does_not_collapse_a_structure() -> None:
    result = score('{"total": 21}', '{"count": 21}')
    assert result.passed is False
    assert result.details["missing_keys"] == ["answer.total"]
    assert result.details["extra_keys"] == ["answer.count"]


@pytest.mark.parametrize(
    ("gold", "answer"), [("FC101", "XY101"), ("-1", "COMP-01"), ("'COMP-01'", "COMP-1")]
)
def test_identifiers_are_not_numbers(gold: str, answer: str) -> None:
    assert score(gold, answer).passed is False


def test_identifier_inside_structure_stays_a_string() -> None:
    result = score("{'asset': 'FC101'}", "{'asset': 'XY101'}")
    assert result.passed is False
    assert result.details["details"][0]["model_value"] == "XY101"


@pytest.mark.parametrize(
    "answer",
    [
        "The job failed after examining 34 records.",
        "There was a failure in Step 1",
        "Checked 34 records",
    ],
)
def test_a_number_in_prose_is_not_the_answer(answer: str) -> None:
    result = score("34", answer)
    assert result.passed is False
    assert result.details["parse"]["model"] == "text"


@pytest.mark.parametrize(
    "answer", ["The answer is 34.", "Answer: 34", "I counted them all.\n34", "**34**"]
)
def test_a_labelled_or_standalone_number_is_the_answer(answer: str) -> None:
    assert score("34", answer).passed is True


def test_label_words_inside_keys_and_values_do_not_cut_the_answer() -> None:
    gold = "{'answer_count': 3, 'component': 'Output valve', 'result_code': 'Response OK'}"
    answer = (
        'Summary: {"answer_count": 3, "component": "Output valve", "result_code": "Response OK"}'
    )
    assert score(gold, answer).passed is True


def test_final_structure_wins_over_a_draft() -> None:
    answer = (
        'My first count: {"repair": 12, "replace": 1}\nChecking again...\n'
        '{"repair": 13, "replace": 0}'
    )
    assert score('{"repair": 13, "replace": 0}', answer).passed is True
    labelled = 'Draft: {"repair": 13, "replace": 0}\nFinal Answer: {"repair": 12, "replace": 1}'
    assert score('{"repair": 13, "replace": 0}', labelled).passed is False


def test_prose_parentheses_do_not_hide_the_structure() -> None:
    answer = "There were (17 work orders) in scope; by type: {'repair': 13, 'replace': 0}"
    assert score("{'repair': 13, 'replace': 0}", answer).passed is True


def test_reordered_list_of_records_is_a_strict_match() -> None:
    gold = '[{"g": "Pumps", "count": 21}, {"g": "Lines", "count": 15}, {"g": "Eng", "count": 5}]'
    answer = '[{"g": "Eng", "count": 5}, {"g": "Pumps", "count": 21}, {"g": "Lines", "count": 15}]'
    result = score(gold, answer)
    assert result.passed is True
    assert result.value == 1.0


def test_reordered_tuples_and_scalars_align_at_every_level() -> None:
    assert score('[("a", 5), ("b", 2)]', "[('b', 2), ('a', 5)]").passed is True
    assert (
        score('{"ids": ["CH-1", "CH-2", "CH-3"]}', '{"ids": ["CH-3", "CH-1", "CH-2"]}').passed
        is True
    )


def test_positional_order_is_available_as_option_and_rule() -> None:
    gold, answer = '["P1", "P2", "P3"]', '["P3", "P1", "P2"]'
    assert score(gold, answer, list_order="position").passed is False
    ranked = score(
        '{"ranking": ["P1", "P2"]}',
        '{"ranking": ["P2", "P1"]}',
        rules={"keys": {"ranking": {"list": "ordered"}}},
    )
    assert ranked.passed is False


def test_unpaired_items_are_missing_or_extra() -> None:
    result = score('[{"id": 1}, {"id": 2}]', '[{"id": 2}, {"id": 3}, {"id": 4}]')
    assert result.details["exact_value_matches"] == 1
    assert result.details["total_model_keys"] == 3
    assert len(result.details["extra_keys"]) == 1


def test_same_characters_are_not_exact() -> None:
    result = score("{'channel': 'CH-12'}", "{'channel': 'CH-21'}")
    assert result.passed is False
    assert result.value == 0.0  # f1 agrees with passed
    record = result.details["details"][0]
    assert record["exact"] is False
    assert record["similarity"] < 1.0


def test_empty_model_value_scores_zero_similarity() -> None:
    result = score("{'asset': 'CH-12'}", "{'asset': ''}")
    assert result.details["details"][0]["similarity"] == 0.0


@pytest.mark.parametrize("answer", ["{[1]: 2}", "9" * 5000])
def test_hostile_answers_are_recorded_not_raised(answer: str) -> None:
    result = score("{'a': 1}", answer)
    assert result.status is ScoreStatus.SCORED
    assert result.passed is False
    assert result.value == 0.0


@pytest.mark.parametrize("answer", ["[" * 100_000, "{" * 50_000 + "}" * 50_000])
def test_answers_too_deep_to_read_are_recorded_not_raised(answer: str) -> None:
    result = score("{'a': 1}", answer)
    assert result.status is ScoreStatus.UNSCORED
    assert result.details["reason"] == "answer_over_limit"


def test_an_answer_past_the_parser_s_limits_is_unscored_not_failed() -> None:
    # assay declining to read an answer is no verdict on the agent.
    for answer, why in (("[" * 100_000, "nested deeper"), ("x" * 1_000_001, "characters")):
        result = score("{'a': 1}", answer)
        assert result.status is ScoreStatus.UNSCORED and result.value is None
        assert result.details["reason"] == "answer_over_limit"
        assert why in result.details["parse"]["model_error"] and why in result.rationale


def test_empty_containers_are_values() -> None:
    assert score("{}", "{}").passed is True
    assert score("{'a': 1, 'b': []}", '{"a": 1, "b": []}').passed is True
    result = score("{'a': 1, 'b': []}", '{"a": 1, "b": [5]}')
    assert result.details["missing_keys"] == ["answer.b"]
    assert result.details["extra_keys"] == ["answer.b[0]"]


def test_numbers_and_numeric_strings_compare_by_value() -> None:
    assert score("{'x': 14}", "{'x': '14.0'}").passed is True
    assert score("{'x': 0.1}", "{'x': 0.1000000001}").passed is True
    assert score("{'x': True}", "{'x': 1}").passed is False
    assert score("{'x': None}", "{'x': 'null'}").passed is True


def test_percent_and_separators_are_left_alone_unless_a_rule_asks() -> None:
    assert score("{'share': 12.5}", "{'share': '12.5 %'}").passed is False
    lenient = {"keys": {"share": {"lenient_number": True}}}
    assert score("{'share': 12.5}", "{'share': '12.5 %'}", rules=lenient).passed is True


def test_keys_compare_as_written_unless_asked() -> None:
    assert score("{'Energy': 1}", "{'energy': 1}").passed is False
    assert score("{'Energy': 1}", "{'energy': 1}", case_insensitive_keys=True).passed is True


def test_option_letter_answers() -> None:
    for answer in [
        "Final Answer: C",
        "Having compared them, the correct option is C.",
        "Reasoning...\nC",
    ]:
        assert score("C", answer).passed is True, answer
    assert score("C", "the correct option is B.").passed is False


def test_numeric_closeness_tiers_feed_similarity() -> None:
    details = score("{'x': 100}", "{'x': 103}").details
    assert details["partial_similarity_score"] == 0.7
    assert details["f1"] == 0.0


# -- not scored: missing answers and bad ground truth ---------------------------------------


@pytest.mark.parametrize("answer", [None, 42, {"a": 1}])
def test_a_run_without_a_string_answer_is_unscored(answer: Any) -> None:
    result = score("34", answer)
    assert result.status is ScoreStatus.UNSCORED
    assert result.value is None and result.passed is None
    assert result.details["reason"] == "no_answer"


@pytest.mark.parametrize(
    ("answer", "said"),
    [(None, "missing or null"), (42, "a number, not text"), ({"a": 1}, "an object, not text")],
)
def test_a_run_without_a_string_answer_says_what_it_had(answer: Any, said: str) -> None:
    assert score("34", answer).rationale == f"run has no answer (answer is {said})"


def test_a_huge_number_is_a_parse_error_without_pythons_advice() -> None:
    # Python's own message ends "; use sys.set_int_max_str_digits() to increase the limit".
    rationale = score("{'a': 1}", '{"a": ' + "9" * 5000 + "}").rationale
    assert "value has 5000 digits" in rationale
    assert "set_int_max_str_digits" not in rationale


def test_an_empty_answer_is_scored() -> None:
    result = score("34", "")
    assert result.status is ScoreStatus.SCORED
    assert result.passed is False


def test_bad_ground_truth_is_an_error_not_a_score() -> None:
    result = score("[" * 1000, "[]")
    assert result.status is ScoreStatus.ERROR
    assert result.value is None


def test_invalid_rules_are_an_error() -> None:
    result = score("{'a': 1}", "{'a': 1}", rules={"keys": {"a": {"abs_tol": -1}}})
    assert result.status is ScoreStatus.ERROR
    assert "abs_tol" in result.rationale


@pytest.mark.parametrize(
    ("gold", "answer"),
    [
        ("6", "Here is the result of the analysis:\n\n```json\n6\n```\n\nLet me know."),
        ("'GEN-21'", "Result:\n```python\n'GEN-21'\n```\nAnything else?"),
        ("B", "The option:\n```\nB\n```\n"),
        ("'P-36'", "First guess:\n```\nP-35\n```\nCorrected:\n```json\nP-36\n```"),
    ],
)
def test_a_fenced_scalar_among_prose_is_the_answer(gold: str, answer: str) -> None:
    assert score(gold, answer).passed is True


def test_unclosed_parentheses_in_prose_are_not_nesting() -> None:
    answer = "blah (" * 50_000 + " The answer is 34."
    result = score("34", answer)
    assert result.passed is True
    wrapped = score("{'a': 1}", "(" * 300 + "{'a': 1}" + ")" * 300)
    assert wrapped.passed is True


def test_answer_rules_that_could_not_be_read_are_an_error_naming_the_file(tmp_path: Path) -> None:
    folder = tmp_path / "scenario_5"
    folder.mkdir()
    (folder / "groundtruth.txt").write_text("{'a': 1}")
    (folder / "groundtruth_eval.json").write_text("[1, 2]")
    cases, _ = load_scenarios([tmp_path])
    result = create_scorer("static_json")(cases["5"], Trajectory(answer="{'a': 1}"))
    assert result.status is ScoreStatus.ERROR and result.details == {"reason": "bad_rules"}
    assert result.rationale == (
        "invalid answer rules: groundtruth_eval.json: answer rules must be a JSON object, "
        "got array"
    )
    # The same case without the problem scores: the problem alone made it an error.
    cases["5"].answer_rules_problem = None
    assert create_scorer("static_json")(cases["5"], Trajectory(answer="{'a': 1}")).passed
