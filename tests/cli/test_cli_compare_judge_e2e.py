"""`assay compare` on judged evaluations: a judge (a real local server, tests/chat_server.py)
that grows stricter between two evaluations of the same runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_cli_judge_e2e import evaluate_with_judge, grade, write_inputs

from _cli import explain
from assay.cli.main import main
from chat_server import ChatServer, RecordedRequest, Reply

pytestmark = pytest.mark.slow  # each test runs the console script in a new process


def strict(request: RecordedRequest) -> Reply:
    """Fails every answer, with a rationale that tries to be Markdown and HTML."""
    return Reply.ok(
        {"score": 0.2, "passed": False, "rationale": "no | `units` <b>[see](javascript:x)</b>"}
    )


def test_a_stricter_judge_regresses_the_judged_runs(
    chat_server: ChatServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_inputs(tmp_path)
    chat_server.handler = grade
    first = evaluate_with_judge(chat_server, tmp_path, "base", "--no-cache")
    assert first.returncode == 0, explain(first)
    chat_server.handler = strict
    second = evaluate_with_judge(chat_server, tmp_path, "new", "--no-cache")
    assert second.returncode == 0, explain(second)

    capsys.readouterr()
    code = main(["compare", str(tmp_path / "base"), str(tmp_path / "new"), "--json",
                 str(tmp_path / "c.json"), "--markdown", str(tmp_path / "c.md")])
    assert code == 0
    data = json.loads((tmp_path / "c.json").read_text())
    figures = data["scorers"]["llm_judge"]
    assert figures["regressed"] == ["right"]  # pass -> fail
    assert figures["improved"] == ["wrong"]  # fail 0.0 -> fail 0.2
    assert figures["unscored"] == ["silent"]  # no answer: never a change
    assert (figures["pass_to_fail"], figures["fail_to_pass"]) == (1, 0)
    # One scenario: no interval, and one flip is no evidence.
    assert figures["ci"] is None and figures["p_value"] == 1.0
    assert data["verdict"] == "no significant change"
    changes = {change["run_id"]: change for change in figures["changes"]}
    assert changes["right"]["new"]["rationale"].startswith("no | `units`")
    text = (tmp_path / "c.md").read_text()
    assert "<b>" not in text and "[see](" not in text  # no tag, no link: text
    assert "no \\| \\`units\\` &lt;b>\\[see\\](javascript:x)&lt;/b>" in text
