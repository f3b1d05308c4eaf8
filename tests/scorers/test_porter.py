"""The Porter stemmer of ROUGE: the classic test words give the outputs of the stemmer Google
ADK's ROUGE uses (NLTK's `PorterStemmer()`, default mode), and it takes any text."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _examples import examples
from assay.scorers._porter import stem

# The examples of Porter's paper, step by step, then NLTK's departures from it (irregular
# forms, -ies/-ied, y after a consonant, -fulli, -logi), then a few edge cases. The outputs
# are those of NLTK 3.10's PorterStemmer(); the stemmer also agrees with it on all 23,531
# words of Porter's own test vocabulary (checked when it was written).
KNOWN = [
    ("caresses", "caress"), ("ponies", "poni"), ("ties", "tie"), ("caress", "caress"),
    ("cats", "cat"), ("feed", "feed"), ("agreed", "agre"), ("plastered", "plaster"),
    ("bled", "bled"), ("motoring", "motor"), ("sing", "sing"), ("conflated", "conflat"),
    ("troubled", "troubl"), ("sized", "size"), ("hopping", "hop"), ("tanned", "tan"),
    ("falling", "fall"), ("hissing", "hiss"), ("fizzed", "fizz"), ("failing", "fail"),
    ("filing", "file"), ("happy", "happi"), ("sky", "sky"), ("relational", "relat"),
    ("conditional", "condit"), ("rational", "ration"), ("valenci", "valenc"),
    ("hesitanci", "hesit"), ("digitizer", "digit"), ("conformabli", "conform"),
    ("radicalli", "radic"), ("differentli", "differ"), ("vileli", "vile"),
    ("analogousli", "analog"), ("vietnamization", "vietnam"), ("predication", "predic"),
    ("operator", "oper"), ("feudalism", "feudal"), ("decisiveness", "decis"),
    ("hopefulness", "hope"), ("callousness", "callous"), ("formaliti", "formal"),
    ("sensitiviti", "sensit"), ("sensibiliti", "sensibl"), ("triplicate", "triplic"),
    ("formative", "form"), ("formalize", "formal"), ("electriciti", "electr"),
    ("electrical", "electr"), ("hopeful", "hope"), ("goodness", "good"), ("revival", "reviv"),
    ("allowance", "allow"), ("inference", "infer"), ("airliner", "airlin"),
    ("gyroscopic", "gyroscop"), ("adjustable", "adjust"), ("defensible", "defens"),
    ("irritant", "irrit"), ("replacement", "replac"), ("adjustment", "adjust"),
    ("dependent", "depend"), ("adoption", "adopt"), ("homologou", "homolog"),
    ("communism", "commun"), ("activate", "activ"), ("angulariti", "angular"),
    ("homologous", "homolog"), ("effective", "effect"), ("bowdlerize", "bowdler"),
    ("probate", "probat"), ("rate", "rate"), ("cease", "ceas"), ("controll", "control"),
    ("roll", "roll"), ("generalization", "gener"), ("generalizations", "gener"),
    ("oscillators", "oscil"), ("running", "run"), ("dies", "die"), ("died", "die"),
    ("spied", "spi"), ("flies", "fli"), ("skies", "sky"), ("dying", "die"), ("lying", "lie"),
    ("tying", "tie"), ("news", "news"), ("innings", "inning"), ("outings", "outing"),
    ("cannings", "canning"), ("proceed", "proceed"), ("exceed", "exceed"), ("succeed", "succeed"),
    ("enjoy", "enjoy"), ("cry", "cri"), ("fully", "fulli"), ("hopefully", "hope"),
    ("geology", "geolog"), ("theology", "theolog"), ("archaeology", "archaeolog"),
    ("meeting", "meet"), ("meetings", "meet"), ("mating", "mate"), ("matting", "mat"),
    ("milling", "mill"), ("messing", "mess"), ("agreement", "agreement"), ("yyyyyy", "yyyyyi"),
    ("syzygy", "syzygi"), ("1990s", "1990"), ("2024", "2024"), ("is", "is"), ("as", "as"),
]


@pytest.mark.parametrize(("word", "expected"), KNOWN)
def test_known_words_stem_as_adk_rouge_stems_them(word: str, expected: str) -> None:
    assert stem(word) == expected


def test_the_examples_the_issue_names() -> None:
    assert [stem(w) for w in ["caresses", "ponies", "running", "relational", "conditional",
                              "generalization"]] == [
        "caress", "poni", "run", "relat", "condit", "gener"]  # fmt: skip


@settings(max_examples=examples(2000))
@given(st.text())
def test_any_text_stems_without_raising_and_never_grows(text: str) -> None:
    once = stem(text)
    assert isinstance(once, str) and len(once) <= len(text)
    twice = stem(once)  # a stem is a word too
    assert len(twice) <= len(once)


@settings(max_examples=examples(2000))
@given(st.text(st.sampled_from("abcdeilmnorstuvyz0123456789"), max_size=24))
def test_a_word_keeps_its_first_letter_and_stays_lower_case(word: str) -> None:
    result = stem(word)
    assert result == stem(word)  # the same every time (the stem is cached)
    assert result.isascii() and result == result.lower()
    # Porter strips and rewrites endings only, and every rule leaves a stem of at least one
    # letter: the first letter of a word stays.
    assert result == word if len(word) <= 2 else result[:1] == word[:1]
