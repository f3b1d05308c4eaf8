"""assay: score what AI agents did.

The public API is re-exported here. Names are loaded on first use (PEP 562), so that the
command line, which imports this package first, starts without loading the scoring machinery.

Example:
    >>> import assay
    >>> case = assay.Case(id="11", expected_answer="{'energy': 14, 'material': 48}")
    >>> run = assay.Trajectory(answer='{"energy": 14, "material": 48}')
    >>> assay.create_scorer("static_json")(case, run).passed
    True
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from assay.__version__ import __version__
from assay._lazy import lazy_exports

if TYPE_CHECKING:
    from assay.answers import compare_values, parse_answer, parse_gold
    from assay.benchmark import Benchmark, Evaluator, Task
    from assay.exit_codes import ExitCode
    from assay.live.api import AgentEvaluator
    from assay.live.capture import TrajectoryCollector, tool
    from assay.live.criteria import CriterionConfig, EvalConfig
    from assay.live.evalset import EvalSet
    from assay.live.views import EvalReport
    from assay.offline import EvaluateOptions, evaluate, evaluate_async
    from assay.records import Case, Message, Step, ToolCall, Trajectory, Usage
    from assay.reports.load import load_dataframe
    from assay.results import CaseResult, OpsMetrics, RunSummary, Score, ScoreStatus
    from assay.schema.evalset import EvalCase
    from assay.scorers.registry import (
        Scorer,
        available_scorers,
        create_scorer,
        register_scorer,
    )
    from assay.trajectory import (
        MatchType,
        StepType,
        TrajectoryChecker,
        TrajectoryMatch,
        TrajectoryStep,
        check_trajectory,
    )

_EXPORTS = {
    "Benchmark": "assay.benchmark",
    "Evaluator": "assay.benchmark",
    "Task": "assay.benchmark",
    "Case": "assay.records",
    "Message": "assay.records",
    "Step": "assay.records",
    "ToolCall": "assay.records",
    "Trajectory": "assay.records",
    "Usage": "assay.records",
    "CaseResult": "assay.results",
    "OpsMetrics": "assay.results",
    "RunSummary": "assay.results",
    "Score": "assay.results",
    "ScoreStatus": "assay.results",
    "Scorer": "assay.scorers.registry",
    "available_scorers": "assay.scorers.registry",
    "create_scorer": "assay.scorers.registry",
    "register_scorer": "assay.scorers.registry",
    "compare_values": "assay.answers",
    "parse_answer": "assay.answers",
    "parse_gold": "assay.answers",
    "EvaluateOptions": "assay.offline",
    "evaluate": "assay.offline",
    "evaluate_async": "assay.offline",
    "ExitCode": "assay.exit_codes",
    "load_dataframe": "assay.reports.load",
    "MatchType": "assay.trajectory",
    "StepType": "assay.trajectory",
    "TrajectoryChecker": "assay.trajectory",
    "TrajectoryMatch": "assay.trajectory",
    "TrajectoryStep": "assay.trajectory",
    "check_trajectory": "assay.trajectory",
    # The live evaluation's common names (all of them: `assay.evaluation`).
    "AgentEvaluator": "assay.live.api",
    "CriterionConfig": "assay.live.criteria",
    "EvalCase": "assay.schema.evalset",
    "EvalConfig": "assay.live.criteria",
    "EvalReport": "assay.live.views",
    "EvalSet": "assay.live.evalset",
    "TrajectoryCollector": "assay.live.capture",
    "tool": "assay.live.capture",
}

__all__ = [
    "AgentEvaluator",
    "Benchmark",
    "Case",
    "CaseResult",
    "CriterionConfig",
    "EvalCase",
    "EvalConfig",
    "EvalReport",
    "EvalSet",
    "EvaluateOptions",
    "Evaluator",
    "ExitCode",
    "MatchType",
    "Message",
    "OpsMetrics",
    "RunSummary",
    "Score",
    "ScoreStatus",
    "Scorer",
    "Step",
    "StepType",
    "Task",
    "ToolCall",
    "Trajectory",
    "TrajectoryChecker",
    "TrajectoryCollector",
    "TrajectoryMatch",
    "TrajectoryStep",
    "Usage",
    "__version__",
    "available_scorers",
    "check_trajectory",
    "compare_values",
    "create_scorer",
    "evaluate",
    "evaluate_async",
    "load_dataframe",
    "parse_answer",
    "parse_gold",
    "register_scorer",
    "tool",
]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals(), __all__)
