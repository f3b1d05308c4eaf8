"""A small model of both trajectory checkers, to explain why assay and agentevals disagree.

The model reads OpenAI-style messages by itself and compares arguments with its own code; it
imports neither assay nor agentevals. With no switch on it follows assay's documented
semantics, and every switch turns on one documented behaviour of agentevals 0.0.9
(`agentevals/trajectory/{strict,utils}.py`):

- `layout` (strict only): every message is compared in position (same count, same roles,
  calls in the same messages), not only the messages that make calls;
- `roles` (subset, and the second pass of unordered): the argument rule is applied with the
  expected and the actual arguments swapped (`matcher(reference_args, output_args)`);
- `greedy`: calls are paired first-fit in message order instead of by an optimal one-to-one
  assignment;
- `python_eq`: argument values are compared with Python `==` at the top level only (so
  `true == 1`, and a nested object must be equal as a whole, not merely contain the expected
  keys).

`classify` names a disagreement by the smallest set of switches under which the model gives
agentevals' verdict, after checking that the model without switches gives assay's verdict.
A disagreement that no set explains, or where the switch-free model and assay differ, is
`unexplained`.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

Messages = list[dict[str, Any]]

SWITCHES: dict[str, tuple[str, ...]] = {
    "strict": ("layout", "greedy", "python_eq"),
    "unordered": ("roles", "greedy", "python_eq"),
    "superset": ("greedy", "python_eq"),
    "subset": ("roles", "greedy", "python_eq"),
}
"""The agentevals behaviours that can matter in each of its modes."""

CLASS_TEXT: dict[str, str] = {
    "raised": "agentevals raised (malformed or missing `arguments`)",
    "layout": "strict: agentevals compares every message, not only the calls (by design)",
    "roles": "agentevals swaps expected and actual arguments (by design)",
    "greedy": "needs non-greedy pairing: assay right",
    "python_eq": "agentevals compares values with Python == at the top level (by design)",
    "model_vs_assay": "unexplained: the bench's model of assay disagrees with assay",
    "assay_raised": "unexplained: assay raised",
    "unexplained": "unexplained",
}
"""What each class name means; combined classes join names with `+`."""


@dataclass(frozen=True, slots=True)
class ModelCall:
    """A call as the model sees it: name and parsed arguments."""

    name: str
    args: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Slot:
    """One message as strict `layout` compares it: its role and its calls (None: no calls)."""

    role: str
    calls: tuple[ModelCall, ...] | None


def slots(messages: Messages) -> list[Slot]:
    """Every message with its role and parsed calls."""
    out = []
    for message in messages:
        raw = message.get("tool_calls") or None
        calls = None
        if raw is not None:
            calls = tuple(
                ModelCall(c["function"]["name"], json.loads(c["function"]["arguments"]))
                for c in raw
            )
        out.append(Slot(str(message.get("role")), calls))
    return out


def steps(messages: Messages) -> list[tuple[ModelCall, ...]]:
    """The calls of every assistant message that makes calls, one tuple per message."""
    return [s.calls for s in slots(messages) if s.role == "assistant" and s.calls]


# --- argument comparison ------------------------------------------------------------------


def json_same(x: Any, y: Any) -> bool:
    """Equal as JSON values: numbers by value, booleans apart from numbers."""
    if isinstance(x, bool) or isinstance(y, bool):
        return isinstance(x, bool) and isinstance(y, bool) and x == y
    if isinstance(x, int | float) and isinstance(y, int | float):
        return x == y
    if isinstance(x, dict) and isinstance(y, dict):
        return x.keys() == y.keys() and all(json_same(x[k], y[k]) for k in x)
    if isinstance(x, list) and isinstance(y, list):
        return len(x) == len(y) and all(json_same(a, b) for a, b in zip(x, y, strict=True))
    return type(x) is type(y) and x == y


def json_contains(big: Any, small: Any) -> bool:
    """`small` contained in `big`: object keys recursively, any other value equal."""
    if isinstance(big, dict) and isinstance(small, dict):
        return all(k in big and json_contains(big[k], v) for k, v in small.items())
    return json_same(big, small)


def args_match(actual: dict[str, Any], expected: dict[str, Any], mode: str, python: bool) -> bool:
    """Whether `actual` arguments satisfy `expected` under argument mode `mode`.

    `python` compares like agentevals: `==` on whole dicts (exact) or on top-level values.
    """
    if mode == "ignore":
        return True
    if mode == "subset":
        actual, expected = expected, actual
        mode = "superset"
    if python:
        if mode == "exact":
            return actual == expected
        return all(k in actual and actual[k] == v for k, v in expected.items())
    return json_same(actual, expected) if mode == "exact" else json_contains(actual, expected)


# --- pairing --------------------------------------------------------------------------------


Fits = Callable[[ModelCall, ModelCall], bool]


def covers(refs: Sequence[ModelCall], outs: Sequence[ModelCall], fits: Fits, greedy: bool) -> bool:
    """Whether every call in `refs` gets its own call in `outs` with `fits(ref, out)`.

    Greedy: first fit in order, as agentevals does. Otherwise: Kuhn's augmenting paths, which
    find a one-to-one assignment whenever one exists.
    """
    options = [[j for j, o in enumerate(outs) if r.name == o.name and fits(r, o)] for r in refs]
    if greedy:
        used: set[int] = set()
        for candidates in options:
            free = next((j for j in candidates if j not in used), None)
            if free is None:
                return False
            used.add(free)
        return True
    owner: dict[int, int] = {}

    def augment(i: int, seen: set[int]) -> bool:
        for j in options[i]:
            if j not in seen:
                seen.add(j)
                if j not in owner or augment(owner[j], seen):
                    owner[j] = i
                    return True
        return False

    return all(augment(i, set()) for i in range(len(refs)))


# --- the modes ------------------------------------------------------------------------------


def model_verdict(
    expected: Messages, actual: Messages, mode: str, args: str, switches: frozenset[str]
) -> bool:
    """The verdict of the model for one pair, with the given agentevals behaviours on."""
    greedy, python = "greedy" in switches, "python_eq" in switches

    def actual_first(ref: ModelCall, out: ModelCall) -> bool:  # ref expected, out actual
        return args_match(out.args, ref.args, args, python)

    def ref_is_actual(ref: ModelCall, out: ModelCall) -> bool:  # ref actual, out expected
        if "roles" in switches:
            return args_match(out.args, ref.args, args, python)
        return args_match(ref.args, out.args, args, python)

    if mode == "strict":
        return _strict(expected, actual, args, switches)
    e_calls = [c for step in steps(expected) for c in step]
    a_calls = [c for step in steps(actual) for c in step]
    if mode == "superset":
        return covers(e_calls, a_calls, actual_first, greedy)
    if mode == "subset":
        return covers(a_calls, e_calls, ref_is_actual, greedy)
    if mode == "unordered":
        return covers(e_calls, a_calls, actual_first, greedy) and covers(
            a_calls, e_calls, ref_is_actual, greedy
        )
    raise ValueError(f"agentevals has no mode {mode!r}")


def _strict(expected: Messages, actual: Messages, args: str, switches: frozenset[str]) -> bool:
    """Strict: position by position, calls within a message in any order."""
    python, greedy = "python_eq" in switches, "greedy" in switches
    if "layout" in switches:
        e_slots, a_slots = slots(expected), slots(actual)
    else:  # only the assistant messages that make calls
        e_slots = [Slot("assistant", s) for s in steps(expected)]
        a_slots = [Slot("assistant", s) for s in steps(actual)]
    if len(e_slots) != len(a_slots):
        return False
    for e, a in zip(e_slots, a_slots, strict=True):
        if e.role != a.role or (e.calls is None) != (a.calls is None):
            return False
        if e.calls is None or a.calls is None:
            continue
        if len(e.calls) != len(a.calls):
            return False

        # agentevals walks the actual calls and looks for an unused expected one.
        def fits(ref: ModelCall, out: ModelCall) -> bool:
            return args_match(ref.args, out.args, args, python)

        if not covers(a.calls, e.calls, fits, greedy):
            return False
    return True


# --- classification -------------------------------------------------------------------------


def classify(
    pair: dict[str, Any], mode: str, args: str, assay_passed: bool, peer: bool | str
) -> str:
    """The class of one disagreement: `raised`, switch names joined by `+`, or unexplained.

    `peer` is agentevals' score, or the name of the exception it raised.
    """
    if isinstance(peer, str):
        return "raised"
    expected, actual = pair["expected"], pair["actual"]
    if model_verdict(expected, actual, mode, args, frozenset()) != assay_passed:
        return "model_vs_assay"
    options = SWITCHES[mode]
    for size in range(1, len(options) + 1):
        for chosen in itertools.combinations(options, size):
            if model_verdict(expected, actual, mode, args, frozenset(chosen)) == peer:
                return "+".join(chosen)
    return "unexplained"


def describe_class(name: str) -> str:
    """A class name in words."""
    if name in CLASS_TEXT:
        return CLASS_TEXT[name]
    return " + ".join(CLASS_TEXT[part] for part in name.split("+"))


def is_explained(name: str) -> bool:
    """Whether a class accounts for the disagreement."""
    return name not in ("unexplained", "model_vs_assay", "assay_raised")
