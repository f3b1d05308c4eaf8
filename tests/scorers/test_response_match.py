"""`response_match`: each mode, case and whitespace rules, multi-turn cases read from the
conversation or from the steps, bad patterns as errors, and ROUGE-1's properties."""

from __future__ import annotations

import re
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _examples import examples
from assay import _patterns as patterns
from assay.formats import read_run_file
from assay.formats.assay_jsonl import trajectory_to_line
from assay.records import Case, CaseTurn, Message, Step, ToolCall, Trajectory
from assay.results import Score, ScoreStatus
from assay.scorers import create_scorer, scorer_spec
from assay.scorers.registry import scorer_info
from assay.scorers.response_match import MAX_REGEX_TEXT, rouge1_f1


def score(expected: Any, answer: Any, **options: Any) -> Score:
    return create_scorer("response_match", **options)(
        Case(id="c", expected_answer=expected), Trajectory(answer=answer)
    )


def scored(result: Score) -> tuple[float | None, bool | None]:
    assert result.status is ScoreStatus.SCORED, result.rationale
    return result.value, result.passed


# --- modes ---------------------------------------------------------------------------------


def test_contains_is_the_default_and_ignores_case_and_spacing() -> None:
    assert scored(score("sunny", "It is SUNNY in Paris today.")) == (1.0, True)
    assert scored(score("capital of\nFrance", "The capital  of france")) == (1.0, True)
    result = score("rainy", "It is sunny.")
    assert scored(result) == (0.0, False)
    assert result.rationale == "response (answer) lacks 'rainy'"
    assert result.details["expected"] == "rainy" and result.details["actual"] == "It is sunny."


def test_case_sensitive_makes_case_count() -> None:
    assert scored(score("Paris", "paris", case_sensitive=True)) == (0.0, False)
    assert scored(score("Paris", "In Paris.", case_sensitive=True)) == (1.0, True)
    assert scored(score("A  b", "a B", mode="exact", case_sensitive=True)) == (0.0, False)


def test_exact_compares_stripped_text_with_collapsed_whitespace() -> None:
    assert scored(score("Hello world", "  hello \n\t WORLD ", mode="exact")) == (1.0, True)
    assert scored(score("Hello world", "Hello world!", mode="exact")) == (0.0, False)
    assert score("a", "b", mode="exact").rationale == "response (answer) is not 'a'"


def test_regex_searches_anywhere_and_ignores_case_by_default() -> None:
    assert scored(score(r"order #\d+", "Your ORDER #4521 shipped", mode="regex")) == (1.0, True)
    assert scored(score(r"^\d+$", "total: 42", mode="regex")) == (0.0, False)
    assert scored(score(r"^total", "total: 42", mode="regex")) == (1.0, True)  # not fullmatch


def test_a_pattern_that_does_not_compile_is_an_error_naming_it() -> None:
    result = score("(unclosed", "anything", mode="regex")
    assert result.status is ScoreStatus.ERROR
    assert result.details == {"reason": "bad_expectation", "field": "expected_answer"}
    assert "'(unclosed' is not a regular expression" in result.rationale


def test_regex_searches_only_the_first_part_of_a_huge_reply() -> None:
    reply = "x" * MAX_REGEX_TEXT + "needle"
    result = score("needle", reply, mode="regex")
    assert scored(result) == (0.0, False)
    assert result.details["searched_chars"] == MAX_REGEX_TEXT
    assert "first 100000 characters" in result.rationale
    assert len(result.details["actual"]) < 3000  # the report is not flooded with the reply
    assert scored(score("needle", reply, mode="contains")) == (1.0, True)  # others read all


@contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Fail a block that runs longer than `seconds` instead of hanging the suite (the regular
    expression engine checks for signals while it backtracks)."""

    def late(signum: int, frame: Any) -> None:
        raise AssertionError(f"still scoring after {seconds} s")

    previous = signal.signal(signal.SIGALRM, late)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def test_the_catastrophic_pattern_of_the_issue_is_scored_at_once() -> None:
    # Python's `re` takes hours on this; the engine for user patterns answers at once.
    with deadline(10):
        result = score(r"^(a+)+$", "a" * 32 + "!", mode="regex")
    assert scored(result) == (0.0, False)


@pytest.mark.parametrize("turned", [False, True])
def test_a_pattern_still_searching_at_the_bound_is_unscored(
    monkeypatch: pytest.MonkeyPatch, turned: bool
) -> None:
    monkeypatch.setattr(patterns, "PATTERN_TIMEOUT", 0.2)
    pattern, reply = r"(a|aa)+$", "a" * 40 + "!"  # blows up in any backtracking engine
    with deadline(10):
        if turned:
            turns = [CaseTurn("a", "fine"), CaseTurn("b", pattern)]
            run = Trajectory(steps=[Step(0, text="fine", turn=0), Step(1, text=reply, turn=1)])
            result = create_scorer("response_match", mode="regex")(multi_turn_case(turns), run)
        else:
            result = score(pattern, reply, mode="regex")
    assert result.status is ScoreStatus.UNSCORED  # neither a pass nor a fail
    assert (result.value, result.passed) == (None, None)
    assert result.details["reason"] == "pattern_timeout"
    assert result.details["timeout_s"] == 0.2
    assert "took longer than 0.2 s" in result.rationale
    assert "catastrophic backtracking" in result.rationale
    if turned:
        assert "turn 2" in result.rationale


def test_the_pattern_bound_is_stated_where_the_scorer_is_described() -> None:
    described = scorer_info("response_match").doc  # what `assay scorers response_match` shows
    assert f"{patterns.PATTERN_TIMEOUT:g} s" in described and "PATTERN_TIMEOUT" in described


def test_rouge_passes_at_the_threshold_default_point_eight() -> None:
    value, passed = scored(score("The capital of France is Paris", "Paris is the capital of France",
                                 mode="rouge"))  # fmt: skip
    assert (value, passed) == (1.0, True)
    result = score("The capital of France is Paris.", "Paris is the capital", mode="rouge")
    assert result.value == pytest.approx(0.8) and result.passed is True
    assert result.details["threshold"] == 0.8
    lower = score("The capital of France is Paris.", "Paris.", mode="rouge")
    assert lower.value == pytest.approx(2 / 7) and lower.passed is False
    assert lower.rationale == "response (answer): ROUGE-1 F1 0.286 < threshold 0.8"
    assert score("a b c d", "a b", mode="rouge", threshold=0.5).passed is True


def test_the_other_modes_pass_only_a_match_unless_told_otherwise() -> None:
    assert score("x", "y").details["threshold"] == 1.0
    assert score("x", "y", threshold=0.0).passed is True  # a threshold given is a threshold


def test_a_gold_that_is_not_text_is_compared_as_its_json_text() -> None:
    assert scored(score(42, "The answer is 42.")) == (1.0, True)
    assert scored(score({"city": "Paris"}, 'I found {"city": "Paris"}')) == (1.0, True)
    assert scored(score(["a", "b"], '["a", "b"]', mode="exact")) == (1.0, True)
    assert scored(score(True, "true", mode="exact")) == (1.0, True)


@pytest.mark.parametrize("expected", [None, "", "   \n"])
def test_no_expected_response_is_not_applicable(expected: Any) -> None:
    result = score(expected, "whatever")
    assert result.status is ScoreStatus.UNSCORED and result.details["reason"] == "not_applicable"
    assert result.does_not_apply()


def test_a_run_without_a_final_response_is_unscored_no_answer() -> None:
    result = score("Paris", None)
    assert result.status is ScoreStatus.UNSCORED and result.details["reason"] == "no_answer"
    assert not result.does_not_apply()


def test_the_reply_is_the_last_assistant_text_when_the_run_has_no_answer() -> None:
    run = Trajectory(messages=[Message("user", "q"), Message("assistant", "Berlin it is"),
                               Message("assistant", None)])  # fmt: skip
    result = create_scorer("response_match")(Case(id="c", expected_answer="berlin"), run)
    assert result.passed is True and result.details["response_from"] == "message 1"


@pytest.mark.parametrize(
    "options",
    [{"mode": "fuzzy"}, {"threshold": 1.5}, {"threshold": -0.1}, {"case_sensitive": "yes"}],
)
def test_bad_options_are_refused_when_built(options: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        create_scorer("response_match", **options)


def test_the_spec_records_every_option() -> None:
    assert scorer_spec("response_match", {"mode": "rouge"}) == {
        "name": "response_match",
        "options": {"mode": "rouge", "threshold": None, "case_sensitive": False},
    }


# --- multi-turn ----------------------------------------------------------------------------


TURNS = [
    CaseTurn("Hello", "Hi"),
    CaseTurn("What can you do?", "I can answer questions"),
    CaseTurn("Tell me about Python", "Python is a programming language"),
]


def multi_turn_case(turns: list[CaseTurn] = TURNS) -> Case:
    return Case(id="multi-turn-001", expected_answer=turns[-1].expected_answer, turns=turns)


def chat(*replies: str | None) -> list[Message]:
    messages = [Message("system", "be kind")]
    for turn, reply in zip(TURNS, replies, strict=False):
        messages.append(Message("user", turn.question))
        messages.append(Message("assistant", None, [ToolCall("search_docs")]))
        messages.append(Message("assistant", reply))
    return messages


def test_each_turn_is_checked_against_its_own_reply_from_the_conversation() -> None:
    run = Trajectory(
        answer="Python is a programming language.",
        messages=chat("Hi there!", "I can book flights", "Python is a programming language."),
    )
    result = create_scorer("response_match")(multi_turn_case(), run)
    assert result.status is ScoreStatus.SCORED
    assert result.value == pytest.approx(2 / 3) and result.passed is False
    assert result.details["response_from"] == "messages"
    turns = result.details["turns"]
    assert [(t["turn"], t["passed"], t["score"]) for t in turns] == [
        (1, True, 1.0), (2, False, 0.0), (3, True, 1.0)
    ]  # fmt: skip
    assert turns[1]["actual"] == "I can book flights"
    assert turns[1]["expected"] == "I can answer questions"
    assert result.rationale == "2 of 3 expected turns match; turn 2 lacks 'I can answer questions'"


def test_turn_replies_come_from_the_steps_when_the_run_keeps_no_conversation(
    tmp_path: Path,
) -> None:
    # What a live run looks like after runs.jsonl: steps with their turn, no messages.
    run = Trajectory(
        answer="Python is a programming language",
        steps=[
            Step(0, tool_calls=[ToolCall("search_docs")], turn=0),
            Step(1, text="Hi!", turn=0),
            Step(2, text="I can answer questions and more", turn=1),
            Step(3, text="thinking", tool_calls=[ToolCall("search_docs")], turn=2),
            Step(4, text="Python is a programming language", turn=2),
        ],
    )
    path = tmp_path / "runs.jsonl"
    path.write_bytes(trajectory_to_line(run) + b"\n")
    (reread,) = [item for item in read_run_file(path) if isinstance(item, Trajectory)]
    for candidate in (run, reread):
        result = create_scorer("response_match")(multi_turn_case(), candidate)
        assert (result.value, result.passed) == (1.0, True), result.rationale
        assert result.details["response_from"] == "steps"


def test_a_turn_without_a_reply_fails_that_turn() -> None:
    run = Trajectory(steps=[Step(0, text="Hi", turn=0), Step(1, text="I can answer questions",
                                                              turn=1)])  # fmt: skip
    result = create_scorer("response_match")(multi_turn_case(), run)
    assert result.value == pytest.approx(2 / 3) and result.passed is False
    assert result.details["turns"][2] == {
        "turn": 3, "expected": "Python is a programming language", "actual": None,
        "score": 0.0, "passed": False,
    }  # fmt: skip
    assert "turn 3: no reply" in result.rationale


def test_a_run_with_no_reply_per_turn_is_unscored_not_failed() -> None:
    result = create_scorer("response_match")(multi_turn_case(), Trajectory(answer="Python"))
    assert result.status is ScoreStatus.UNSCORED and result.details["reason"] == "no_turns"
    assert "conversation nor steps with a turn index" in result.rationale


def test_rouge_turn_by_turn_scores_the_mean_f1_and_passes_when_every_turn_does() -> None:
    run = Trajectory(messages=chat("Hi", "I can answer many questions", "Python is a language"))
    result = create_scorer("response_match", mode="rouge")(multi_turn_case(), run)
    f1s = [1.0, rouge1_f1("I can answer questions", "I can answer many questions"),
           rouge1_f1("Python is a programming language", "Python is a language")]  # fmt: skip
    assert result.value == pytest.approx(sum(f1s) / 3)
    assert [t["passed"] for t in result.details["turns"]] == [True, True, True]
    assert result.passed is True


def test_turns_that_expect_nothing_are_left_out() -> None:
    turns = [CaseTurn("Look up order 7", None), CaseTurn("Status?", "shipped"),
             CaseTurn("Thanks", "")]  # fmt: skip
    run = Trajectory(steps=[Step(0, text="ok", turn=0), Step(1, text="It shipped.", turn=1)])
    result = create_scorer("response_match")(multi_turn_case(turns), run)
    assert (result.value, result.passed) == (1.0, True)
    assert [t["turn"] for t in result.details["turns"]] == [2]


def test_a_bad_pattern_in_a_turn_names_the_turn() -> None:
    turns = [CaseTurn("a", "[oops"), CaseTurn("b", "fine")]
    run = Trajectory(steps=[Step(0, text="x", turn=0), Step(1, text="fine", turn=1)])
    result = create_scorer("response_match", mode="regex")(multi_turn_case(turns), run)
    assert result.status is ScoreStatus.ERROR
    assert result.details["field"] == "turns[0].expected_answer"


def test_a_case_that_expects_only_the_last_turn_checks_the_final_answer() -> None:
    turns = [CaseTurn("hi", None), CaseTurn("capital of France?", "Paris")]
    result = create_scorer("response_match")(multi_turn_case(turns), Trajectory(answer="Paris."))
    assert (result.value, result.passed) == (1.0, True) and "turns" not in result.details


# --- ROUGE-1 stems English words as ADK does ----------------------------------------------


def test_rouge_stems_words_so_adk_s_passing_reply_passes() -> None:
    # ADK's response_match_score is 1.0 here: "running" and "run" are one word once stemmed.
    assert rouge1_f1("I am run fast", "I am running fast") == 1.0
    assert scored(score("I am run fast", "I am running fast", mode="rouge")) == (1.0, True)


@pytest.mark.parametrize(
    ("reference", "candidate", "adk"),
    [
        # The F-measure of rouge-score's ROUGE-1 with use_stemmer=True, as ADK computes it.
        ("I am run fast", "I am running fast", 1.0),
        ("The cats were running quickly.", "A cat runs quick", 0.4444444444444445),
        ("Generalizations are conditional and relational.",
         "generalization: conditions, relations", 0.7499999999999999),
        ("Your order #4521 shipped on 2024-05-01!", "Order 4521 ships 2024/05/01",
         0.8571428571428571),
        ("She hopes the meetings went well", "hoping for a good meeting", 0.3636363636363636),
        ("Ponies and caresses", "pony caress", 0.8),
    ],
)  # fmt: skip
def test_rouge_of_english_text_is_adk_s(reference: str, candidate: str, adk: float) -> None:
    assert rouge1_f1(reference, candidate) == pytest.approx(adk)


def test_case_sensitive_rouge_stems_the_word_and_keeps_its_case() -> None:
    assert rouge1_f1("Running late", "Run late", case_sensitive=True) == 1.0
    assert rouge1_f1("Running late", "run late", case_sensitive=True) == 0.5


def unstemmed_rouge(left: str, right: str) -> float:
    """ROUGE-1 F1 over runs of letters or digits of any script, nothing stemmed."""
    a = re.findall(r"[^\W_]+", left.casefold())
    b = re.findall(r"[^\W_]+", right.casefold())
    if not a and not b:
        return 1.0
    shared = sum(min(a.count(word), b.count(word)) for word in set(a))
    return 2 * shared / (len(a) + len(b))


@pytest.mark.parametrize(
    ("left", "right"),
    [
        ("東京は日本の首都です", "東京は日本の首都"),
        ("東京 は 日本 の 首都", "首都 は 東京"),
        ("Москва столица России", "столица России Москва"),
        ("Les cafés étaient fermés", "le café était fermé"),
        ("Η Αθήνα είναι η πρωτεύουσα", "Αθήνα πρωτεύουσα"),
    ],
)
def test_words_that_are_not_plain_latin_compare_as_written(left: str, right: str) -> None:
    assert rouge1_f1(left, right) == unstemmed_rouge(left, right)


not_english = st.text(st.sampled_from("東京日本語 абвгдеж αβγ éèüñ 0123456789 _.,!\n"), max_size=40)


@settings(max_examples=examples(400))
@given(not_english, not_english)
def test_text_without_english_words_scores_as_before(left: str, right: str) -> None:
    # Only words of ASCII letters and digits are stemmed (an all-digit one stays as it is).
    assert rouge1_f1(left, right) == pytest.approx(unstemmed_rouge(left, right))


# --- ROUGE-1 properties --------------------------------------------------------------------

texts = st.text(st.sampled_from("abc DEF 12.,!é\n"), max_size=40)
words = st.lists(st.sampled_from(["alpha", "beta", "gamma", "delta", "7", "x9"]), max_size=12)


@given(texts)
def test_rouge_of_identical_texts_is_one(text: str) -> None:
    assert rouge1_f1(text, text) == 1.0
    assert rouge1_f1(text, text.upper()) == 1.0


@given(texts, texts)
def test_rouge_is_symmetric_and_a_fraction(left: str, right: str) -> None:
    value = rouge1_f1(left, right)
    assert value == rouge1_f1(right, left)
    assert 0.0 <= value <= 1.0


@given(words, words)
def test_rouge_of_texts_without_a_shared_word_is_zero(left: list[str], right: list[str]) -> None:
    right = [word.upper() + "Z" for word in right]  # no word of one is a word of the other
    if left or right:
        assert rouge1_f1(" ".join(left), ", ".join(right)) == 0.0


@given(words, words)
def test_rouge_counts_each_shared_word_as_often_as_both_texts_have_it(
    left: list[str], right: list[str]
) -> None:
    if not left and not right:
        return
    shared = sum(min(left.count(word), right.count(word)) for word in set(left))
    expected = 2 * shared / (len(left) + len(right))
    assert rouge1_f1(" ".join(left), " ".join(right)) == pytest.approx(expected)
