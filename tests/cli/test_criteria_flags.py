"""The judge flags come from the options the judges declare (`JudgeOptions`): every such
option is a flag of `evaluate`, `run` and `rescore`, and what a flag gives reaches every judge
that declares the option, recorded as what was checked (its client settings apart)."""

from __future__ import annotations

from dataclasses import fields

import pytest

from assay.cli._criteria import judge_options
from assay.cli.main import build_parser
from assay.scorers._judge_options import JudgeOptions
from assay.scoring import Scoring

JUDGES = ("llm_judge", "rubric", "trajectory_judge", "safety", "factuality", "hallucination")


def test_every_shared_judge_option_but_the_clients_is_a_flag() -> None:
    flagged = {item.name for item in fields(JudgeOptions) if "flag" in item.metadata}
    assert flagged == {f.name for f in fields(JudgeOptions)} - {"client_factory", "client_options"}


@pytest.mark.parametrize("command", ["evaluate", "run", "rescore"])
def test_the_flags_reach_every_judge_and_are_recorded(command: str) -> None:
    parser, _ = build_parser()
    head = {
        "evaluate": ["evaluate", "--trajectories", "r", "--scenarios", "s"],
        "run": ["run", "agent.py:agent", "cases.jsonl"],
        "rescore": ["rescore", "reports", "--reports-dir", "out"],
    }[command]
    args = parser.parse_args([
        *head, "--judge-model", "local/m", "--judge-threshold", "0.9", "--judge-samples", "3",
        "--allow-self-judge", "--judge-base-url", "http://127.0.0.1:9",
    ])
    options = judge_options(args)
    assert set(options) == set(JUDGES)
    for name in JUDGES:
        chosen = options[name]
        assert (chosen["model"], chosen["threshold"], chosen["num_samples"]) == ("local/m", 0.9, 3)
        assert chosen["allow_self_judge"] is True
        assert "aggregation" not in chosen  # not given: the judge's own default
    recorded = Scoring(scorer_default="static_json", settings=options).document()
    assert recorded["scorer_options"]["safety"]["threshold"] == 0.9
    assert "client_options" not in str(recorded) and "127.0.0.1" not in str(recorded)


def test_a_threshold_outside_0_to_1_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    parser, _ = build_parser()
    with pytest.raises(SystemExit) as stop:
        parser.parse_args(["rescore", "r", "--reports-dir", "o", "--judge-threshold", "2"])
    assert stop.value.code == 2 and "between 0 and 1" in capsys.readouterr().err
