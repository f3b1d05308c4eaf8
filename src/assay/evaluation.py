"""The live evaluation API, under the names the evaluation framework's users know.

Run an agent over an eval set, capture what it did, check every run against criteria, and
get a report (also written as assay's reports directory with `reports_dir=`):

    >>> import asyncio
    >>> from assay.evaluation import AgentEvaluator, EvalCase, EvalSet, tool
    >>> @tool
    ... def get_weather(city: str) -> str:
    ...     return "sunny"
    >>> async def agent(messages):
    ...     return f"It is {get_weather('Paris')} in Paris."
    >>> cases = EvalSet(cases=[EvalCase.single_turn(
    ...     "weather-paris-001", "What is the weather in Paris?",
    ...     expected_response="sunny", expected_tools=["get_weather"])])
    >>> report = asyncio.run(AgentEvaluator(agent).evaluate(cases))
    >>> report.pass_rate, sorted(report.cases[0].criteria_results)
    (1.0, ['response', 'tool_match'])

Names are loaded on first use, so importing this module is cheap.
"""

from __future__ import annotations

import importlib.util
from typing import TYPE_CHECKING, Any

from assay._lazy import lazy_exports

if TYPE_CHECKING:
    pass

_EXPORTS = {
    "AgentEvaluator": "assay.live.api",
    "EvalConfig": "assay.live.criteria",
    "CriterionConfig": "assay.live.criteria",
    "DEFAULT_JUDGE_MODEL": "assay.live.criteria",
    "judge_model": "assay.live.criteria",
    "MatchType": "assay.trajectory.spec",
    "StepType": "assay.trajectory.spec",
    "TrajectoryStep": "assay.trajectory.spec",
    "Rubric": "assay.records",
    "ToolCall": "assay.records",
    "EvalSet": "assay.live.evalset",
    "EvalSetError": "assay.live.evalset",
    "EvalCase": "assay.schema.evalset",
    "EvalReport": "assay.live.views",
    "EvalCaseResult": "assay.live.views",
    "CriterionResult": "assay.live.views",
    "TrajectoryCollector": "assay.live.capture",
    "capturing": "assay.live.capture",
    "current_collector": "assay.live.capture",
    "record_tool_call": "assay.live.capture",
    "tool": "assay.live.capture",
    "ContextThreadPoolExecutor": "assay.live.capture",
    "propagate": "assay.live.capture",
    "make_trajectory_callback": "assay.live.capture.langchain",
    "Agent": "assay.live.agents",
    "AgentReply": "assay.live.agents",
    "as_agent": "assay.live.agents",
    "RunSettings": "assay.live.runner",
    "ToolAgent": "assay.live.agents.tool_agent",
    "ConsoleReporter": "assay.live.reporters",
    "JSONReporter": "assay.live.reporters",
    "HTMLReporter": "assay.live.reporters",
}

_NEEDS_LANGCHAIN = "make_trajectory_callback"

# `import *` gives every name this installation can load: the LangChain callback only with
# the extra (`pip install 'assay[langchain]'`).
__all__ = sorted(
    name
    for name in _EXPORTS
    if name != _NEEDS_LANGCHAIN or importlib.util.find_spec("langchain_core") is not None
)

_load, __dir__ = lazy_exports(__name__, _EXPORTS, globals(), __all__)


def __getattr__(name: str) -> Any:
    try:
        return _load(name)
    except ModuleNotFoundError as exc:
        if name != _NEEDS_LANGCHAIN:
            raise
        raise ImportError(
            f"{name} needs LangChain: pip install langchain-core langgraph ({exc})"
        ) from exc
