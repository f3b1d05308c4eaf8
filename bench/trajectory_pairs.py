"""Deterministic pairs of OpenAI-style message trajectories for the trajectory benchmark.

    python bench/trajectory_pairs.py --pairs 10000 --seed 0 --out bench/out/trajectory/pairs.jsonl

Each pair is an expected (reference) trajectory and an actual one, both OpenAI chat message
lists: a system message (in half of the pairs, on both sides), a user question, then for
every step an assistant message whose `tool_calls` hold one call (or 2–3 parallel calls) with
`function.arguments` as JSON text, one `tool` result message per call, and a final assistant
answer. A trajectory has 6–10
calls (8 on average) over 12 tools; 15% of them have one step of parallel calls.

The actual trajectory is the expected one changed in one way, the pair's `variant`, with the
weights in `VARIANTS`. About half of the actual calls have their arguments re-serialised
(keys shuffled, compact separators), as a different run would write them; ids and message
text always differ. Output depends only on `--pairs` and `--seed`.
"""

from __future__ import annotations

import argparse
import copy
import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

Args = dict[str, Any]


@dataclass(slots=True)
class Call:
    """One tool call before rendering: its name, its arguments and how to write them."""

    name: str
    args: Args
    raw: str | None = None
    """Arguments text to write instead of `args` (for malformed JSON)."""
    no_args: bool = False
    """Write the call without an `arguments` field ("any arguments will do")."""


@dataclass(slots=True)
class Step:
    """The calls one assistant message makes; `think` puts a text-only message before it."""

    calls: list[Call]
    think: bool = False


@dataclass(slots=True)
class Case:
    """An expected and an actual trajectory, before rendering to messages."""

    expected: list[Step]
    actual: list[Step] = field(default_factory=list)


# --- tools ------------------------------------------------------------------------------------

_TOPICS = ["battery recycling", "EU AI act", "heat pumps", "rust async", "solar tariffs"]
_CITIES = ["Paris", "Lagos", "Osaka", "Lima", "Oslo", "Pune"]
_TAGS = ["billing", "urgent", "refund", "login", "shipping", "api"]
_TABLES = ["orders", "customers", "invoices", "shipments"]
_PEOPLE = ["ana@example.com", "bo@example.com", "chen@example.com", "dev@example.com"]


def _search_web(rng: random.Random) -> Args:
    return {"query": rng.choice(_TOPICS), "max_results": rng.randint(3, 10)}


def _get_weather(rng: random.Random) -> Args:
    return {"city": rng.choice(_CITIES), "units": rng.choice(["metric", "imperial"])}


def _lookup_order(rng: random.Random) -> Args:
    return {"order_id": f"ORD-{rng.randint(1000, 9999)}"}


def _get_customer(rng: random.Random) -> Args:
    return {"customer_id": f"C{rng.randint(100, 999)}", "include_history": rng.random() < 0.5}


def _check_inventory(rng: random.Random) -> Args:
    return {"sku": f"SKU-{rng.randint(100, 999)}", "warehouse": rng.choice(["east", "west"])}


def _get_pricing(rng: random.Random) -> Args:
    sku = f"SKU-{rng.randint(100, 999)}"
    return {"sku": sku, "currency": rng.choice(["USD", "EUR"]), "quantity": rng.randint(1, 20)}


def _create_ticket(rng: random.Random) -> Args:
    return {
        "title": f"Issue {rng.randint(1, 500)}",
        "priority": rng.randint(1, 4),
        "tags": rng.sample(_TAGS, rng.randint(1, 3)),
    }


def _send_email(rng: random.Random) -> Args:
    return {
        "to": rng.choice(_PEOPLE),
        "subject": f"Update on case {rng.randint(1, 99)}",
        "body": "Hello, here is the latest status of your request.",
    }


def _query_db(rng: random.Random) -> Args:
    return {
        "table": rng.choice(_TABLES),
        "filters": {"status": rng.choice(["open", "closed"]), "region": rng.choice(["EU", "US"])},
        "limit": rng.choice([10, 50, 100]),
    }


def _calculate(rng: random.Random) -> Args:
    return {
        "expression": f"{rng.randint(2, 99)} * {rng.randint(2, 99)}",
        "precision": rng.randint(0, 4),
    }


def _read_file(rng: random.Random) -> Args:
    return {"path": f"/data/{rng.choice(_TABLES)}.csv", "offset": rng.randint(0, 5) * 100}


def _schedule_meeting(rng: random.Random) -> Args:
    hour = rng.randint(8, 16)
    return {
        "attendees": rng.sample(_PEOPLE, 2),
        "time": {"start": f"{hour:02d}:00", "end": f"{hour + 1:02d}:00"},
        "room": rng.choice(["A1", "B2", "C3"]),
    }


TOOLS: dict[str, Callable[[random.Random], Args]] = {
    "search_web": _search_web,
    "get_weather": _get_weather,
    "lookup_order": _lookup_order,
    "get_customer": _get_customer,
    "check_inventory": _check_inventory,
    "get_pricing": _get_pricing,
    "create_ticket": _create_ticket,
    "send_email": _send_email,
    "query_db": _query_db,
    "calculate": _calculate,
    "read_file": _read_file,
    "schedule_meeting": _schedule_meeting,
}

_MULTI_ARG_TOOLS = [name for name, make in TOOLS.items() if len(make(random.Random(0))) > 1]

_EXTRA_ARGS: list[tuple[str, Any]] = [
    ("verbose", True),
    ("locale", "en-US"),
    ("timeout_s", 30),
    ("trace_id", "t-0042"),
]


def new_call(rng: random.Random, name: str | None = None) -> Call:
    """A call to `name` (a random tool when None) with fresh arguments."""
    tool = name if name is not None else rng.choice(list(TOOLS))
    return Call(tool, TOOLS[tool](rng))


def base_trajectory(rng: random.Random) -> list[Step]:
    """6–10 calls, one per step, except that 15% of trajectories have one parallel step."""
    steps = [Step([new_call(rng)]) for _ in range(rng.randint(6, 10))]
    if rng.random() < 0.15:
        make_parallel(rng, steps)
    return steps


def make_parallel(rng: random.Random, steps: list[Step]) -> int:
    """Merge 2–3 adjacent single-call steps into one parallel step; its index."""
    width = rng.randint(2, 3)
    at = rng.randrange(0, len(steps) - width + 1)
    merged = [call for step in steps[at : at + width] for call in step.calls]
    steps[at : at + width] = [Step(merged)]
    return at


# --- variants ---------------------------------------------------------------------------------


def _positions(steps: list[Step]) -> list[tuple[int, int]]:
    return [(i, k) for i, step in enumerate(steps) for k in range(len(step.calls))]


def _pick(rng: random.Random, steps: list[Step], test: Callable[[Call], bool]) -> Call | None:
    """A random call that passes `test`, or None."""
    found = [c for step in steps for c in step.calls if test(c)]
    return rng.choice(found) if found else None


def _plant(rng: random.Random, case: Case, tool: str) -> Call:
    """Replace a random single-call step in both trajectories with the same new `tool` call."""
    singles = [i for i, step in enumerate(case.expected) if len(step.calls) == 1]
    at = rng.choice(singles)
    call = new_call(rng, tool)
    case.expected[at] = Step([call])
    case.actual[at] = Step([copy.deepcopy(call)])
    return case.actual[at].calls[0]


def identical(rng: random.Random, case: Case) -> None:
    """The same calls (re-serialised arguments and new ids only)."""


def reordered(rng: random.Random, case: Case) -> None:
    """Two steps swapped (adjacent ones two times in three)."""
    steps = case.actual
    i = rng.randrange(len(steps) - 1)
    j = i + 1 if rng.random() < 2 / 3 else rng.randrange(i + 1, len(steps))
    steps[i], steps[j] = steps[j], steps[i]


def missing(rng: random.Random, case: Case) -> None:
    """One call left out (its step goes when it was the only call)."""
    i, k = rng.choice(_positions(case.actual))
    del case.actual[i].calls[k]
    if not case.actual[i].calls:
        del case.actual[i]


def extra(rng: random.Random, case: Case) -> None:
    """One more call as a step of its own: a repeat of an existing call one time in three."""
    if rng.random() < 1 / 3:
        call = copy.deepcopy(_pick(rng, case.actual, lambda c: True))
    else:
        call = new_call(rng)
    assert call is not None
    case.actual.insert(rng.randint(0, len(case.actual)), Step([call]))


def _changed(rng: random.Random, value: Any) -> Any:
    """A different value of the same kind."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + rng.choice([-1, 1, 7])
    if isinstance(value, str):
        return value + "-x" if rng.random() < 0.5 else value.upper() + "!"
    if isinstance(value, list):
        return value[:-1] if len(value) > 1 else [*value, "other"]
    if isinstance(value, dict):
        key = rng.choice(sorted(value))
        return {**value, key: _changed(rng, value[key])}
    return "changed"


def arg_changed(rng: random.Random, case: Case) -> None:
    """One argument of one call has another value."""
    call = _pick(rng, case.actual, lambda c: bool(c.args))
    assert call is not None
    key = rng.choice(sorted(call.args))
    call.args[key] = _changed(rng, call.args[key])


def extra_args(rng: random.Random, case: Case) -> None:
    """One call has 1–2 more arguments than expected."""
    call = _pick(rng, case.actual, lambda c: True)
    assert call is not None
    for key, value in rng.sample(_EXTRA_ARGS, rng.randint(1, 2)):
        call.args[key] = value


def _has_int(call: Call) -> bool:
    return any(type(v) is int for v in call.args.values())


def float_number(rng: random.Random, case: Case) -> None:
    """An integer argument written as a float (1 as 1.0): equal as JSON numbers."""
    call = _pick(rng, case.actual, _has_int) or _plant(rng, case, "get_pricing")
    key = rng.choice(sorted(k for k, v in call.args.items() if type(v) is int))
    call.args[key] = float(call.args[key])


def parallel_shuffled(rng: random.Random, case: Case) -> None:
    """A step of parallel calls (made one if there is none) with its calls in another order."""
    at = next((i for i, s in enumerate(case.expected) if len(s.calls) > 1), None)
    if at is None:
        at = make_parallel(rng, case.expected)
        case.actual = copy.deepcopy(case.expected)
    calls = case.actual[at].calls
    order = list(range(len(calls)))
    while order == sorted(order):
        rng.shuffle(order)
    case.actual[at].calls = [calls[k] for k in order]


def non_greedy(rng: random.Random, case: Case) -> None:
    """Expected `[T{a}, T{a, b}]` and actual `[T{a, b}, T{a}]`: with superset arguments a
    first-fit pairing gives T{a, b} to T{a} and fails, an optimal one pairs both. As one
    parallel step (strict can pass) or two steps (only the unordered modes can pass)."""
    tool = rng.choice(_MULTI_ARG_TOOLS)
    full = TOOLS[tool](rng)
    first = next(iter(full))
    narrow, wide = Call(tool, {first: full[first]}), Call(tool, full)
    at = rng.randint(0, len(case.expected))
    if rng.random() < 0.5:
        case.expected.insert(at, Step([narrow, wide]))
        case.actual.insert(at, Step([copy.deepcopy(wide), copy.deepcopy(narrow)]))
    else:
        case.expected[at:at] = [Step([narrow]), Step([wide])]
        case.actual[at:at] = [Step([copy.deepcopy(wide)]), Step([copy.deepcopy(narrow)])]


def thinking(rng: random.Random, case: Case) -> None:
    """The same calls, with a text-only assistant message before one step."""
    rng.choice(case.actual).think = True


def nested_extra(rng: random.Random, case: Case) -> None:
    """An extra key inside a nested argument object (`filters`, `time`)."""

    def nested(c: Call) -> bool:
        return any(isinstance(v, dict) for v in c.args.values())

    call = _pick(rng, case.actual, nested) or _plant(rng, case, "query_db")
    key = rng.choice(sorted(k for k, v in call.args.items() if isinstance(v, dict)))
    call.args[key] = {**call.args[key], "tz": "UTC"}


def bool_as_number(rng: random.Random, case: Case) -> None:
    """A boolean argument written as 1 or 0: not equal as JSON values."""

    def has_bool(c: Call) -> bool:
        return any(isinstance(v, bool) for v in c.args.values())

    call = _pick(rng, case.actual, has_bool) or _plant(rng, case, "get_customer")
    key = next(k for k, v in call.args.items() if isinstance(v, bool))
    call.args[key] = int(call.args[key])


def malformed(rng: random.Random, case: Case) -> None:
    """One actual call's arguments are truncated JSON."""
    call = _pick(rng, case.actual, lambda c: True)
    assert call is not None
    call.raw = json.dumps(call.args)[:-1]


def no_args_expected(rng: random.Random, case: Case) -> None:
    """One expected call is written without `arguments`: any arguments will do."""
    call = _pick(rng, case.expected, lambda c: True)
    assert call is not None
    call.no_args = True


def two_changes(rng: random.Random, case: Case) -> None:
    """Two of: reordered, missing, extra, arg_changed, extra_args, float_number."""
    for change in rng.sample([reordered, missing, extra, arg_changed, extra_args, float_number], 2):
        change(rng, case)


Variant = Callable[[random.Random, Case], None]

VARIANTS: list[tuple[Variant, float]] = [
    (identical, 24),
    (reordered, 10),
    (missing, 10),
    (extra, 10),
    (arg_changed, 10),
    (extra_args, 10),
    (float_number, 8),
    (parallel_shuffled, 4),
    (two_changes, 4),
    (non_greedy, 3),
    (thinking, 3),
    (nested_extra, 2),
    (bool_as_number, 1),
    (malformed, 0.5),
    (no_args_expected, 0.5),
]
"""Each variant and its share of the pairs, in percent."""


# --- rendering --------------------------------------------------------------------------------


def _arguments(rng: random.Random, call: Call, reformat: bool) -> str:
    """The arguments as JSON text, re-serialised half the time when `reformat`."""
    if call.raw is not None:
        return call.raw
    if reformat and rng.random() < 0.5:
        keys = list(call.args)
        rng.shuffle(keys)
        return json.dumps({k: call.args[k] for k in keys}, separators=(",", ":"))
    return json.dumps(call.args)


def render(
    rng: random.Random, steps: list[Step], question: str, *, system: bool, reformat: bool
) -> list[Args]:
    """The trajectory as OpenAI chat messages (after a system message when `system`)."""
    messages: list[Args] = []
    if system:
        messages.append({"role": "system", "content": "You are a helpful operations agent."})
    messages.append({"role": "user", "content": question})
    for step in steps:
        if step.think:
            messages.append({"role": "assistant", "content": "Let me check what I have so far."})
        tool_calls = []
        for call in step.calls:
            function: Args = {"name": call.name}
            if not call.no_args:
                function["arguments"] = _arguments(rng, call, reformat)
            call_id = f"call_{rng.getrandbits(48):012x}"
            tool_calls.append({"id": call_id, "type": "function", "function": function})
        content = rng.choice(["", None, "Let me look that up."])
        messages.append({"role": "assistant", "content": content, "tool_calls": tool_calls})
        for tool_call in tool_calls:
            result = json.dumps({"status": "ok", "items": rng.randint(0, 40)})
            messages.append({"role": "tool", "tool_call_id": tool_call["id"], "content": result})
    messages.append({"role": "assistant", "content": "Here is what I found."})
    return messages


def generate_pairs(pairs: int, seed: int) -> list[Args]:
    """`pairs` pairs as dicts: `id`, `variant`, `expected` and `actual` message lists."""
    rng = random.Random(seed)
    variants = [v for v, _ in VARIANTS]
    weights = [w for _, w in VARIANTS]
    out: list[Args] = []
    for index in range(pairs):
        variant = rng.choices(variants, weights)[0]
        case = Case(base_trajectory(rng))
        case.actual = copy.deepcopy(case.expected)
        variant(rng, case)
        question = f"Question {index}: please sort this out."
        system = rng.random() < 0.5
        out.append(
            {
                "id": index,
                "variant": variant.__name__,
                "expected": render(rng, case.expected, question, system=system, reformat=False),
                "actual": render(rng, case.actual, question, system=system, reformat=True),
            }
        )
    return out


def write_pairs(path: Path, pairs: list[Args]) -> None:
    """One pair per line (JSONL)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(orjson.dumps(pair) + b"\n" for pair in pairs))


def read_pairs(path: Path) -> list[Args]:
    """The pairs written by `write_pairs`."""
    return [orjson.loads(line) for line in path.read_bytes().splitlines() if line]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=10000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, required=True, help="JSONL file to write")
    args = parser.parse_args(argv)
    write_pairs(args.out, generate_pairs(args.pairs, args.seed))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
