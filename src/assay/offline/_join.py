"""A saved run joined to its scenario, then scored: the scenario found by the ids the run
names (its scenario id, its file's stem, its run id), or the run recorded as not scored with
the ids tried.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass

from assay.formats.ids import scenario_key
from assay.formats.registry import ReadProblem
from assay.formats.scenarios import ScenarioIndex
from assay.records import Case, Trajectory
from assay.results import CaseResult, ErrorKind, NotScored, Score
from assay.scoring import Scoring

__all__ = ["score_item"]


@dataclass(slots=True)
class Joined:
    """A run joined to its scenario."""

    run: Trajectory
    key: str
    case: Case
    failure: str | None = None
    """Set when the ground truth is unusable: why (no scorer is asked)."""


def join(item: Trajectory | ReadProblem, scenarios: ScenarioIndex) -> Joined | NotScored:
    if isinstance(item, ReadProblem):
        return NotScored("unreadable", item.reason, source=item.source)
    key = _join_key(item, scenarios)
    if key is None:
        tried = ", ".join(repr(k) for k in _candidate_ids(item)) or "none"
        return NotScored(
            "no_scenario",
            f"no scenario matches this run (ids tried: {tried})",
            source=item.source,
            run_id=item.run_id,
            scenario_id=item.scenario_id,
        )
    case = scenarios.get(key, with_question=item.question is None)
    if isinstance(case, ReadProblem):
        failed = Case(id=scenarios.case_id(key), source=case.source)
        return Joined(item, key, failed, f"ground truth unusable: {case.reason}")
    return Joined(item, key, case)


async def score_item(
    item: Trajectory | ReadProblem, scenarios: ScenarioIndex, scoring: Scoring
) -> tuple[CaseResult | NotScored, str | None]:
    joined = join(item, scenarios)
    if isinstance(joined, NotScored):
        return joined, None
    if joined.failure is not None:
        name = "+".join(c.name for c in scoring.criteria_for(joined.case))
        failure = Score.error(name, joined.failure, {"reason": ErrorKind.BAD_GROUND_TRUTH})
        return scoring.result(joined.case, joined.run, failure), joined.key
    return await scoring.score_case(joined.case, joined.run), joined.key


def _candidate_ids(run: Trajectory) -> Iterator[str]:
    """Ids a run may name its scenario by, each once: its scenario_id, its file's stem, its
    run_id. Lazily: the join usually stops at the first."""
    if run.scenario_id:
        yield run.scenario_id
    stem = None
    if run.source.endswith(".json"):  # one run per file: the file is named after the scenario
        stem = os.path.basename(run.source)[: -len(".json")]  # noqa: PTH119
        if stem and stem != run.scenario_id:
            yield stem
    if run.run_id and run.run_id not in (run.scenario_id, stem):
        yield run.run_id


def _join_key(run: Trajectory, scenarios: ScenarioIndex) -> str | None:
    for candidate in _candidate_ids(run):
        key = scenario_key(candidate)
        if key is not None and key in scenarios:
            return key
    return None
