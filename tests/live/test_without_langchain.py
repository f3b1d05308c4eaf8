"""Without the `langchain` extra: the live API still imports whole, and what needs LangChain
says how to get it."""

from __future__ import annotations

import subprocess
import sys

SCRIPT = """
import sys
sys.modules["langchain_core"] = None  # as if the extra were not installed
from assay.evaluation import *  # noqa: F403
assert "make_trajectory_callback" not in dir()
report = AgentEvaluator(lambda messages: "hi").evaluate_sync(
    [EvalCase.single_turn("a", "?", expected_response="hi")])
assert report.pass_rate == 1.0
try:
    from assay.evaluation import make_trajectory_callback
except ImportError as exc:
    assert "pip install langchain-core langgraph" in str(exc), exc
else:
    raise AssertionError("imported without LangChain")

class Invocable:
    def invoke(self, state):
        return "x"

try:
    case = EvalCase.single_turn("a", "?", expected_response="x")
    AgentEvaluator(Invocable()).evaluate_sync([case])
except TypeError as exc:
    assert "pip install langchain-core langgraph" in str(exc), exc
else:
    raise AssertionError("ran an invocable without LangChain")
print("ok")
"""


def test_the_live_api_without_langchain() -> None:
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
