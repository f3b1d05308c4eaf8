"""A match type is read in one way everywhere: Google ADK's spellings (any case, surrounding
whitespace, `_`, `-` or a space between the words), by `MatchType.parse` alone."""

from __future__ import annotations

from typing import Any

import pytest

from assay.formats._adk_criteria import trajectory_criterion
from assay.records import Case, MatchType, Step, Trajectory
from assay.schema.evalconfig import CriterionConfig
from assay.scorers import create_scorer
from assay.trajectory import TurnsChecker, match_type_of, resolve_mode

SPELLINGS: list[tuple[str, MatchType]] = [
    ("EXACT", MatchType.EXACT),
    ("exact", MatchType.EXACT),
    (" exact ", MatchType.EXACT),
    ("Exact\n", MatchType.EXACT),
    ("IN_ORDER", MatchType.IN_ORDER),
    ("in_order", MatchType.IN_ORDER),
    ("in order", MatchType.IN_ORDER),
    ("in-order", MatchType.IN_ORDER),
    ("IN ORDER", MatchType.IN_ORDER),
    ("\tIn-Order ", MatchType.IN_ORDER),
    ("ANY_ORDER", MatchType.ANY_ORDER),
    ("any order", MatchType.ANY_ORDER),
    ("ANY-ORDER", MatchType.ANY_ORDER),
    ("  Any_Order", MatchType.ANY_ORDER),
]

UNKNOWN = ["", "strict", "inorder", "in__order", "in_order_", "any.order", "EXACTLY", "順序"]


@pytest.mark.parametrize(("spelling", "match_type"), SPELLINGS)
def test_every_adk_spelling_is_read_as_its_match_type(
    spelling: str, match_type: MatchType
) -> None:
    assert MatchType.parse(spelling) is match_type
    assert MatchType.parse(match_type) is match_type


@pytest.mark.parametrize(("spelling", "match_type"), SPELLINGS)
def test_every_reader_of_a_match_type_agrees(spelling: str, match_type: MatchType) -> None:
    trajectory = CriterionConfig.trajectory(match_type=spelling)
    assert trajectory.options["mode"] == match_type.value
    assert CriterionConfig.node_order(match_type=spelling).options == {"mode": match_type.value}
    assert match_type_of(spelling) is match_type
    assert resolve_mode(spelling) == resolve_mode(match_type)
    criterion = {"threshold": 1.0, "match_type": spelling}
    found = trajectory_criterion({"criteria": {"tool_trajectory_avg_score": criterion}}, "t.json")
    assert getattr(found, "match_type", found) == match_type.value
    assert TurnsChecker(match_type=spelling).match_type is match_type
    case = Case(id="c", expected_nodes=["A"])
    node_order = create_scorer("node_order", mode=spelling)
    assert node_order(case, Trajectory(steps=[Step(0, node="A")])).passed is True


@pytest.mark.parametrize("spelling", UNKNOWN)
def test_an_unknown_spelling_is_refused_naming_the_accepted_ones(spelling: str) -> None:
    with pytest.raises(ValueError, match="EXACT, IN_ORDER or ANY_ORDER") as raised:
        MatchType.parse(spelling)
    assert repr(spelling) in str(raised.value)
    for build in (CriterionConfig.trajectory, CriterionConfig.node_order):
        with pytest.raises(ValueError, match="EXACT, IN_ORDER or ANY_ORDER"):
            build(match_type=spelling)
    assert match_type_of(spelling) is None


@pytest.mark.parametrize("value", [None, 1, 1.5, ["EXACT"], b"EXACT"])
def test_a_value_that_is_not_text_is_no_match_type(value: Any) -> None:
    with pytest.raises(ValueError, match="EXACT, IN_ORDER or ANY_ORDER"):
        MatchType.parse(value)
