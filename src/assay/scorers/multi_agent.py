"""Navigation and delegation: tool graphs, routing to sub-agents, and hierarchical scoring.

- `tool_graph`: each call follows from what the previous turn's results advertised in
  `available_actions`, and each tool of the scenario's `expected_tool_graph` advertised the
  tools expected after it.
- `routing`: the coordinator delegated to the scenario's `expected_subagent`, by a
  `delegate_to_<name>` call or by a step that sub-agent took (`Step.node`).
- `hierarchical`: routing, plus configured scorers applied to each sub-agent's own steps.
- `routing_accuracy`: the share of scenarios with an expected sub-agent that were routed
  there (a plain function over many runs, not a scorer).

Example:
    >>> from assay.records import Case, Step, ToolCall, Trajectory
    >>> run = Trajectory(steps=[
    ...     Step(index=0, node="coordinator", tool_calls=[ToolCall("delegate_to_billing")]),
    ...     Step(index=1, node="billing", text="Refund issued.")])
    >>> routing()(Case(id="s", expected_subagent="billing"), run).rationale
    'delegated to billing (delegate_to_billing at step 0; billing took step 1)'
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from assay.records import Case, Step, Trajectory, Usage
from assay.results import Score
from assay.scorers._runs import (
    CallRef,
    as_mapping,
    bad_expectation,
    check_fraction,
    check_name,
    listing,
    not_applicable,
    subagent_steps,
    tool_calls,
)
from assay.scorers.compose import (
    Mode,
    Part,
    PartSpec,
    build_parts,
    check_mode,
    combine,
    relabel,
    run_part,
)
from assay.scorers.registry import Scorer, register_scorer

__all__ = ["hierarchical", "routing", "routing_accuracy", "tool_graph"]


# --- tool_graph ----------------------------------------------------------------------------


@register_scorer("tool_graph", group="checks")
def tool_graph(*, expected_graph: Mapping[str, Iterable[str]] | None = None) -> Scorer:
    """Checks the agent followed its tools' available_actions and the scenario's
    expected_tool_graph.

    Two checks, each counted per call:

    - transitions: every call of a turn must be among the tools advertised by the previous
      turn's results in `available_actions` (items `{"tool": name}`, `{"name": name}` or
      plain names; results as mappings or JSON text). A turn whose results advertise nothing
      does not constrain the next one.
    - the graph: for every call of a tool named in the scenario's `expected_tool_graph`, its
      result must advertise every tool the graph lists after it.

    The value is the fraction of checks met; it passes when all are. Not applicable when
    there is nothing to check (no graph, and no call after a result that advertised actions).

    Args:
        expected_graph: The graph for scenarios that give none.

    Example:
        >>> from assay.records import Case, Step, ToolCall, Trajectory
        >>> search = ToolCall("search", result={"available_actions": [{"tool": "get_item"}]})
        >>> run = Trajectory(steps=[Step(index=0, tool_calls=[search]),
        ...                         Step(index=1, tool_calls=[ToolCall("delete_item")])])
        >>> case = Case(id="s", expected_tool_graph={"search": ["get_item"]})
        >>> score = tool_graph()(case, run)
        >>> score.value, score.passed
        (0.5, False)
        >>> score.rationale
        'delete_item at step 1 was not advertised by step 0 (offered: get_item)'
    """
    default = _graph_option(expected_graph)
    name = "tool_graph"

    def score(case: Case, run: Trajectory) -> Score:
        reason = case.problem("expected_tool_graph")
        if reason is not None:
            return bad_expectation(name, "expected_tool_graph", reason)
        graph = case.expected_tool_graph
        if not graph:
            graph = default or {}
        calls = tool_calls(run)
        offered = {id(call): _advertised(call.result) for call in calls}
        turns: list[list[CallRef]] = []
        for call in calls:
            if turns and turns[-1][0].turn == call.turn:
                turns[-1].append(call)
            else:
                turns.append([call])

        failures: list[str] = []
        transitions: list[dict[str, Any]] = []
        unchecked = 0
        for previous, following in pairwise(turns):
            advertised = [offered[id(c)] for c in previous if offered[id(c)] is not None]
            if not advertised:
                unchecked += len(following)
                continue
            allowed = list(dict.fromkeys(n for names in advertised for n in names or ()))
            for call in following:
                ok = call.name in allowed
                transitions.append(
                    {"tool": call.name, "where": call.where, "after": previous[0].where, "ok": ok}
                )
                if not ok:
                    shown = listing(allowed) if allowed else "nothing"
                    failures.append(
                        f"{call.name} at {call.where} was not advertised by "
                        f"{previous[0].where} (offered: {shown})"
                    )
        graph_checks: list[dict[str, Any]] = []
        for call in calls:
            if call.name not in graph:
                continue
            names = offered[id(call)] or []
            missing = [tool for tool in graph[call.name] if tool not in names]
            graph_checks.append({"tool": call.name, "where": call.where, "missing": missing})
            if missing:
                failures.append(f"{call.name} at {call.where} did not advertise {listing(missing)}")

        details: dict[str, Any] = {
            "transitions": transitions,
            "graph_checks": graph_checks,
            "unchecked_calls": unchecked,
            "expected_tool_graph": graph or None,
        }
        total = len(transitions) + len(graph_checks)
        if total == 0:
            why = (
                "none of the tools in expected_tool_graph was called, and no call followed "
                "advertised actions"
                if graph
                else "scenario sets no expected_tool_graph and no call followed a result "
                "that advertised available_actions"
            )
            details["reason"] = "not_exercised" if graph else "not_applicable"
            return Score.unscored(name, why, details)
        met = total - len(failures)
        passed = not failures
        rationale = (
            f"all {total} navigation checks met"
            f" ({len(transitions)} transitions, {len(graph_checks)} graph checks)"
            if passed
            else "; ".join(_counted(failures))
        )
        return Score.scored(name, met / total, passed=passed, rationale=rationale, details=details)

    return score


def _graph_option(graph: Mapping[str, Iterable[str]] | None) -> dict[str, list[str]] | None:
    """The `expected_graph` option as the scenario field is: names stripped, one next tool
    alone a list of one; raises ValueError on anything else."""
    if graph is None:
        return None
    if not isinstance(graph, Mapping):
        raise ValueError(f"expected_graph must map tool names to next tools, got {graph!r}")
    checked: dict[str, list[str]] = {}
    for tool, following in graph.items():
        check_name("expected_graph key", tool)
        names = [following] if isinstance(following, str) else following
        if isinstance(names, Mapping) or not isinstance(names, Iterable):
            raise ValueError(f"expected_graph: next tools of {tool!r} must be names")
        listed = list(names)
        for item in listed:
            check_name(f"expected_graph: a next tool of {tool!r}", item)
        checked[tool.strip()] = [item.strip() for item in listed]
    return checked


def _counted(lines: list[str]) -> list[str]:
    """Each distinct line once, with `(xN)` when it repeats (parallel calls of one tool)."""
    counts: dict[str, int] = {}
    for line in lines:
        counts[line] = counts.get(line, 0) + 1
    return [line if n == 1 else f"{line} (x{n})" for line, n in counts.items()]


def _advertised(result: Any) -> list[str] | None:
    """Tool names a result offers in `available_actions`; None when it offers none."""
    mapping = as_mapping(result)
    if mapping is None:
        return None
    actions = mapping.get("available_actions")
    if not isinstance(actions, list):
        return None
    names: list[str] = []
    for action in actions:
        if isinstance(action, str):
            names.append(action)
        elif isinstance(action, dict):
            tool = action.get("tool", action.get("name"))
            if isinstance(tool, str):
                names.append(tool)
    return names


# --- routing -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Delegation:
    agent: str
    evidence: str


def _delegations(run: Trajectory, prefix: str) -> list[_Delegation]:
    """Every sign of a sub-agent at work: delegate calls, then the first step of each node."""
    found: list[_Delegation] = []
    for call in tool_calls(run):
        if prefix and call.name.startswith(prefix) and len(call.name) > len(prefix):
            found.append(_Delegation(call.name[len(prefix) :], f"{call.name} at {call.where}"))
    seen: set[str] = set()
    for position, step in enumerate(run.steps):
        node = step.node
        if isinstance(node, str) and node.strip() and node.casefold() not in seen:
            seen.add(node.casefold())
            index = step.index if isinstance(step.index, int) else position
            found.append(_Delegation(node, f"{node} took step {index}"))
    return found


def _routed(run: Trajectory, expected: str, prefix: str) -> tuple[bool, list[_Delegation]]:
    found = _delegations(run, prefix)
    wanted = expected.casefold()
    return any(d.agent.casefold() == wanted for d in found), found


@register_scorer("routing", group="trajectories")
def routing(*, subagent: str | None = None, prefix: str = "delegate_to_") -> Scorer:
    """Checks the coordinator delegated to the scenario's expected_subagent (a delegate_to_ call, or
    its steps).

    A delegation is a call named `<prefix><name>` or a step whose `node` is the sub-agent
    (names compared ignoring case, exactly otherwise: `billing` is not `billing_v2`). Passes
    when the scenario's `expected_subagent` was delegated to, whatever else was; not
    applicable when the scenario names none.

    Args:
        subagent: The expected sub-agent for scenarios that name none.
        prefix: Prefix of the delegation tools' names.

    Example:
        >>> from assay.records import Case, Step, ToolCall, Trajectory
        >>> run = Trajectory(steps=[Step(index=0, tool_calls=[ToolCall("delegate_to_shipping")])])
        >>> score = routing()(Case(id="s", expected_subagent="billing"), run)
        >>> score.passed, score.rationale
        (False, 'expected delegation to billing; found: shipping (delegate_to_shipping at step 0)')
    """
    check_name("subagent", subagent)
    if not isinstance(prefix, str):
        raise ValueError(f"prefix must be text, got {prefix!r}")
    name = "routing"

    def score(case: Case, run: Trajectory) -> Score:
        reason = case.problem("expected_subagent")
        if reason is not None:
            return bad_expectation(name, "expected_subagent", reason)
        expected = case.expected_subagent or subagent
        if expected is None:
            return not_applicable(name, "scenario names no expected_subagent")
        routed, found = _routed(run, expected, prefix)
        wanted = expected.casefold()
        matching = [d.evidence for d in found if d.agent.casefold() == wanted]
        if routed:
            rationale = f"delegated to {expected} ({'; '.join(matching)})"
        elif found:
            rationale = f"expected delegation to {expected}; found: " + listing(
                f"{d.agent} ({d.evidence})" for d in found
            )
        else:
            rationale = f"expected delegation to {expected}; the run records no delegation"
        details = {
            "expected_subagent": expected,
            "delegations": [{"agent": d.agent, "evidence": d.evidence} for d in found],
        }
        return Score.scored(
            name, 1.0 if routed else 0.0, passed=routed, rationale=rationale, details=details
        )

    return score


def routing_accuracy(
    pairs: Iterable[tuple[Case, Trajectory]], *, prefix: str = "delegate_to_"
) -> float | None:
    """The share of runs routed to their scenario's expected sub-agent.

    Only scenarios that name an `expected_subagent` count; None when none does (an accuracy
    over no scenario is not 100%).

    Args:
        pairs: Each scenario with one of its runs.
        prefix: Prefix of the delegation tools' names.

    Example:
        >>> from assay.records import Case, Step, ToolCall, Trajectory
        >>> billing = Case(id="a", expected_subagent="billing")
        >>> shipping = Case(id="b", expected_subagent="shipping")
        >>> to_billing = Trajectory(steps=[Step(index=0, node="billing")])
        >>> routing_accuracy([(billing, to_billing), (shipping, to_billing),
        ...                   (Case(id="c"), to_billing)])
        0.5
        >>> routing_accuracy([(Case(id="c"), to_billing)]) is None
        True
    """
    total = correct = 0
    for case, run in pairs:
        expected = case.expected_subagent
        if expected is None:  # none, or one that could not be read
            continue
        total += 1
        correct += _routed(run, expected, prefix)[0]
    return correct / total if total else None


# --- hierarchical --------------------------------------------------------------------------


@register_scorer("hierarchical", group="trajectories")
def hierarchical(
    *,
    subagents: Mapping[str, Iterable[PartSpec]] | None = None,
    mode: Mode = "all",
    threshold: float = 1.0,
    prefix: str = "delegate_to_",
    routing_weight: float = 1.0,
) -> Scorer:
    """Checks routing to the scenario's expected_subagent, then each sub-agent's own steps with its
    scorers.

    Parts: `routing` (as the routing scorer), and for each sub-agent in `subagents`, its
    scorers applied to a run made of the steps that sub-agent took (`Step.node`, ignoring
    case), whose answer is the last text it wrote. Parts are labelled `routing` and
    `<subagent>/<scorer>`, and combined as in `composite` (`all`, `any` or `weighted`). A
    configured sub-agent that took no steps has its parts unscored, not failed (reason
    `not_exercised` for the expected sub-agent, `not_applicable` for another).

    Args:
        subagents: Sub-agent name to the scorers (`PartSpec`s) for its steps.
        mode: How the parts combine: `all`, `any` or `weighted`.
        threshold: The weighted mean needed to pass, in `weighted` mode.
        prefix: Prefix of the delegation tools' names.
        routing_weight: Weight of the routing part in `weighted` mode.

    Example:
        >>> from assay.records import Case, Step, ToolCall, Trajectory
        >>> scorer = hierarchical(subagents={"billing": ["response_contains"]})
        >>> from assay.records import SuccessCriteria
        >>> case = Case(id="s", expected_subagent="billing",
        ...             success_criteria=SuccessCriteria(response_contains=["refund"]))
        >>> run = Trajectory(answer="Done.", steps=[
        ...     Step(index=0, node="coordinator", tool_calls=[ToolCall("delegate_to_billing")]),
        ...     Step(index=1, node="billing", text="Refund issued.")])
        >>> score = scorer(case, run)
        >>> score.passed, sorted(score.details["parts"])
        (True, ['billing/response_contains', 'routing'])
    """
    check_mode(mode)
    check_fraction("threshold", threshold)
    if subagents is not None and not isinstance(subagents, Mapping):
        raise ValueError(f"subagents must map sub-agent names to scorers, got {subagents!r}")
    if (
        isinstance(routing_weight, bool)
        or not isinstance(routing_weight, int | float)
        or not routing_weight >= 0
    ):
        raise ValueError(f"routing_weight must be a number >= 0, got {routing_weight!r}")
    routing_part = Part("routing", "routing", routing(prefix=prefix), float(routing_weight))
    per_agent: list[tuple[str, list[Part]]] = []
    for agent, specs in (subagents or {}).items():
        check_name("subagents key", agent)
        per_agent.append(
            (agent, relabel(build_parts(specs, option=f"subagents[{agent!r}]"), f"{agent}/"))
        )

    def score(case: Case, run: Trajectory) -> Score:
        results: list[tuple[Part, Score]] = [(routing_part, run_part(routing_part, case, run))]
        expected = case.expected_subagent  # a bad one: routing says so
        for agent, parts in per_agent:
            steps = subagent_steps(run, agent)
            if not steps:
                # The expected sub-agent idle is a gap in the run; any other is simply unused.
                idle = isinstance(expected, str) and expected.casefold() == agent.casefold()
                why = {"reason": "not_exercised" if idle else "not_applicable"}
                reason = f"sub-agent {agent} took no steps"
                results.extend(
                    (part, Score.unscored(part.scorer_name, reason, dict(why))) for part in parts
                )
                continue
            sub_run = _subagent_run(run, steps)
            results.extend((part, run_part(part, case, sub_run)) for part in parts)
        return combine("hierarchical", mode, results, threshold)

    return score


def _subagent_run(run: Trajectory, steps: list[Step]) -> Trajectory:
    usage = Usage()
    durations = [s.duration_ms for s in steps if isinstance(s.duration_ms, int | float)]
    for step in steps:
        usage = usage + step.usage
    answer = next((s.text for s in reversed(steps) if isinstance(s.text, str)), None)
    return Trajectory(
        run_id=run.run_id,
        scenario_id=run.scenario_id,
        runner=run.runner,
        model=run.model,
        question=run.question,
        answer=answer,
        steps=list(steps),
        usage=usage,
        duration_ms=sum(durations) if durations else None,
        source=run.source,
    )
