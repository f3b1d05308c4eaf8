"""Write a synthetic data set of saved agent runs and scenarios for the `assay evaluate` benchmark.

Usage:
    python bench/generate.py --runs 2000 --out bench/data/runs_2000_seed_0 [--seed 0] [--force]

What it writes under OUT:

- ``trajectories/``: N runs in AssetOpsBench style, one JSON object per run. About 90% are
  one-run ``*.json`` files, the rest are lines of a few ``*.jsonl`` files. Files sit in nested
  sub-directories (``<runner>/<model>/``, ``<runner>/legacy/``, ``batches/<month>/``).
- ``scenarios/scenario_<id>/groundtruth.txt`` and ``question.txt``: about a third of the
  scenarios that have runs have two of them; a handful of scenarios have no run, and a handful
  of runs name a scenario that does not exist.
- ``manifest.json`` (written last): the parameters, counts, and for each run the answer variant
  it was given and what a scorer is meant to conclude (``match``, ``match_unordered``,
  ``mismatch``, ``unparseable``, ``no_answer``) plus whether its scenario exists.

The data is messy on purpose, the way saved runs are: scenario ids written as ``"12"``,
``"scenario_12"``, ``12`` or ``"12.0"`` or left out (then the file is named ``<id>.json``);
ground truth as Python literals or JSON; answers re-serialised, reordered, slightly wrong,
fenced, buried in prose or ``<think>`` blocks, truncated or missing; and some files that are not
runs at all (invalid JSON, an empty file, a JSON list of numbers, bad lines inside ``.jsonl``).

The output depends only on ``--runs`` and ``--seed``. 20,000 runs take a few seconds.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

GENERATOR_VERSION = 2
"""Bumped whenever the output for a given seed changes; run_bench.py regenerates on mismatch."""

RUNNERS = ("plan-execute", "direct-llm-agent")
MODELS = {
    "litellm_proxy/Azure/gpt-5-mini-2025-08-07": "gpt-5-mini",
    "openai/gpt-4.1-mini": "gpt-4.1-mini",
}
MODEL_NAMES = tuple(MODELS)

ASSET_PREFIXES = ("CH", "AHU", "P", "CT", "BLR", "GEN", "MTR", "XFMR")
ASSET_TYPES = {
    "CH": "chiller",
    "AHU": "air handling unit",
    "P": "pump",
    "CT": "cooling tower",
    "BLR": "boiler",
    "GEN": "generator",
    "MTR": "motor",
    "XFMR": "transformer",
}
SITES = ("MAIN", "NORTH", "RIVERSIDE", "PLANT-2", "WAREHOUSE")
EQUIPMENT_GROUPS = (
    "Pumps/fans/generators",
    "Engines & motors",
    "Lines & drives",
    "Heat exchangers",
    "Compressors",
    "Valves & actuators",
    "Switchgear",
    "Boilers",
    "Chillers",
    "Cooling towers",
    "Transformers",
    "Instrumentation",
)
COST_CATEGORIES = (
    "energy",
    "material",
    "labor",
    "downtime",
    "safety",
    "inspection",
    "corrective",
    "preventive",
    "emergency",
    "contractor",
)
FAILURE_MODES = (
    "bearing wear",
    "refrigerant leak",
    "motor overheating",
    "seal failure",
    "excess vibration",
    "fouled condenser",
    "low oil pressure",
    "electrical fault",
    "belt slippage",
    "sensor drift",
)
SENSORS = {
    "supply_temp": "degF",
    "return_temp": "degF",
    "power": "kW",
    "vibration_rms": "mm/s",
    "flow": "gpm",
    "pressure": "psi",
    "current": "A",
}
WO_STATUS = ("open", "closed", "in_progress", "cancelled")
WO_TYPES = ("corrective", "preventive", "inspection", "emergency")
WO_DESCRIPTIONS = (
    "Replace worn drive belt and re-tension",
    "Inspect condenser tubes for fouling",
    "Investigate high vibration alarm on motor end bearing",
    "Quarterly preventive maintenance per OEM schedule",
    "Top up refrigerant and leak test circuit",
    "Calibrate supply temperature sensor",
    "Replace mechanical seal on discharge side",
    "Clean strainer and check differential pressure",
)
TOOLS = (
    "get_work_orders",
    "get_sensor_data",
    "list_assets",
    "get_failure_modes",
    "get_asset_details",
    "get_maintenance_history",
    "get_alerts",
    "search_documents",
)
TOOL_WEIGHTS = (24, 20, 12, 10, 10, 9, 9, 6)

KIND_WEIGHTS = {
    "flat_dict": 22,
    "records": 20,
    "count": 18,
    "tuple_list": 10,
    "nested": 12,
    "letter": 9,
    "identifier": 9,
}
STRUCTURED = frozenset({"flat_dict", "records", "tuple_list", "nested"})

VARIANT_WEIGHTS = {
    "exact": 26,
    "reserialised": 12,
    "reordered": 6,
    "near_miss": 14,
    "fenced": 8,
    "final_answer": 7,
    "draft_then_final": 4,
    "think": 5,
    "prose": 6,
    "malformed": 6,
    "no_answer": 3,
}

PROSE_ONLY = (
    "I was unable to determine the answer from the available work orders.",
    "The data returned by the tools was incomplete, so I cannot give a reliable answer.",
    "Sorry, the sensor service timed out and I could not finish the analysis.",
    "Based on the maintenance history, the asset appears to be in good condition overall.",
)
MISSING = object()
"""Marks a run whose `answer` key is left out."""


@dataclass(slots=True)
class GroundTruth:
    """One scenario's expected answer, its kind and how it is written in groundtruth.txt."""

    kind: str
    value: Any
    style: str  # "python" or "json" for structured kinds; "quoted" or "bare" for identifiers
    question: str


# --------------------------------------------------------------------------- small helpers


def asset_id(rng: random.Random) -> str:
    prefix = rng.choice(ASSET_PREFIXES)
    return f"{prefix}-{rng.randint(1, 40)}"


def day(rng: random.Random, year: int = 2024) -> str:
    return f"{year}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"


def timestamp(rng: random.Random) -> str:
    return f"{day(rng)}T{rng.randint(0, 23):02d}:{rng.choice((0, 15, 30, 45)):02d}:00"


def py_text(value: Any) -> str:
    return repr(value)


def json_text(value: Any, indent: int | None = None, compact: bool = False) -> str:
    if compact:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return json.dumps(value, ensure_ascii=False, indent=indent)


def render(gt: GroundTruth, value: Any, style: str | None = None) -> str:
    """Text of `value` (of the ground truth's kind) in `style` (default: the ground truth's)."""
    style = style or gt.style
    if gt.kind == "count":
        return str(value)
    if gt.kind == "letter":
        return str(value)
    if gt.kind == "identifier":
        return repr(value) if style == "quoted" else str(value)
    return py_text(value) if style == "python" else json_text(value)


# --------------------------------------------------------------------------- ground truth


def make_ground_truth(rng: random.Random, kind: str) -> GroundTruth:
    year = rng.choice((2022, 2023, 2024))
    site = rng.choice(SITES)
    if kind == "flat_dict":
        keys = rng.sample(COST_CATEGORIES, rng.randint(2, 6))
        floats = rng.random() < 0.2
        value: Any = {
            k: round(rng.uniform(2, 250), 1) if floats else rng.randint(0, 120) for k in keys
        }
        a = asset_id(rng)
        q = (
            f"For asset {a} at site {site}, break down the {year} work orders by cost category. "
            "Return a dictionary of category to "
            + ("total cost in kUSD." if floats else "work-order count.")
        )
        return GroundTruth(kind, value, rng.choice(("python", "python", "json")), q)
    if kind == "records":
        n = rng.randint(3, 12)
        schema = rng.randrange(3)
        if schema == 0:
            groups = rng.sample(EQUIPMENT_GROUPS, min(n, len(EQUIPMENT_GROUPS)))
            value = [{"equipment_group": g, "count": rng.randint(1, 60)} for g in groups]
            q = f"Count corrective work orders per equipment group at {site} in {year}."
        elif schema == 1:
            ids = sorted({asset_id(rng) for _ in range(n)})
            value = [{"asset_id": i, "open_work_orders": rng.randint(0, 15)} for i in ids]
            q = f"Which assets at {site} have open work orders, and how many each?"
        else:
            modes = rng.sample(FAILURE_MODES, min(n, len(FAILURE_MODES)))
            value = [
                {
                    "failure_mode": m,
                    "occurrences": rng.randint(1, 30),
                    "mean_days_to_repair": round(rng.uniform(0.5, 12.0), 1),
                }
                for m in modes
            ]
            q = f"Summarise {year} failure modes for chillers at {site} with repair times."
        return GroundTruth(kind, value, rng.choice(("json", "json", "python")), q)
    if kind == "count":
        value = rng.choice((rng.randint(0, 20), rng.randint(20, 400)))
        a = asset_id(rng)
        q = f"How many work orders were raised for {a} between {year}-01-01 and {year}-06-30?"
        return GroundTruth(kind, value, "bare", q)
    if kind == "tuple_list":
        groups = rng.sample(EQUIPMENT_GROUPS, rng.randint(2, 6))
        counts = sorted((rng.randint(1, 40) for _ in groups), reverse=True)
        value = list(zip(groups, counts, strict=True))
        q = f"Rank equipment groups at {site} by number of emergency work orders in {year}."
        return GroundTruth(kind, value, "python", q)
    if kind == "nested":
        assets = sorted({asset_id(rng) for _ in range(rng.randint(2, 5))})
        shape = rng.randrange(3)
        if shape == 0:
            value = {a: {"open": rng.randint(0, 12), "closed": rng.randint(0, 40)} for a in assets}
            q = f"For each asset with alerts at {site}, give open and closed work-order counts."
        elif shape == 1:
            value = {
                a: [f"WO-{rng.randint(10000, 99999)}" for _ in range(rng.randint(1, 4))]
                for a in assets
            }
            q = f"List the open work order ids for each chiller at {site}."
        else:
            value = {
                s: {
                    "assets": rng.randint(3, 60),
                    "alerts": sorted(rng.sample(FAILURE_MODES, rng.randint(1, 3))),
                }
                for s in rng.sample(SITES, rng.randint(2, 4))
            }
            q = "For each site, how many assets are monitored and which alert types fired?"
        return GroundTruth(kind, value, rng.choice(("python", "json")), q)
    if kind == "letter":
        value = rng.choice("ABCDE")
        modes = rng.sample(FAILURE_MODES, 5)
        opts = " ".join(f"({c}) {m}" for c, m in zip("ABCDE", modes, strict=True))
        sensor = rng.choice(list(SENSORS))
        q = (
            f"{asset_id(rng)} shows a rising {sensor} trend over two weeks. Which failure mode "
            f"best explains it? Options: {opts}"
        )
        return GroundTruth(kind, value, "bare", q)
    value = asset_id(rng)
    q = f"Which asset at {site} had the most emergency work orders in {year}?"
    return GroundTruth(kind, value, "quoted" if rng.random() < 0.75 else "bare", q)


def groundtruth_text(rng: random.Random, gt: GroundTruth) -> str:
    text = render(gt, gt.value)
    if gt.kind in STRUCTURED and gt.style == "json" and rng.random() < 0.3:
        text = json_text(gt.value, indent=2)
    return text + ("\n" if rng.random() < 0.5 else "")


# --------------------------------------------------------------------------- answer mutations


def leaves(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[tuple[Any, ...], Any]]:
    """(path, leaf) pairs of all scalar leaves."""
    if isinstance(value, dict):
        out: list[tuple[tuple[Any, ...], Any]] = []
        for k, v in value.items():
            out.extend(leaves(v, (*path, k)))
        return out
    if isinstance(value, list | tuple):
        out = []
        for i, v in enumerate(value):
            out.extend(leaves(v, (*path, i)))
        return out
    return [(path, value)]


def replace_at(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    """A copy of `value` with the leaf at `path` replaced (containers keep their types)."""
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {k: (replace_at(v, rest, new) if k == head else v) for k, v in value.items()}
    items = [replace_at(v, rest, new) if i == head else v for i, v in enumerate(value)]
    return tuple(items) if isinstance(value, tuple) else items


def nudge(rng: random.Random, leaf: Any) -> Any:
    """A different value of the same type."""
    if isinstance(leaf, bool):
        return not leaf
    if isinstance(leaf, int):
        step = rng.choice((-3, -2, -1, 1, 2, 3, 5))
        return leaf + step if leaf + step >= 0 else leaf + abs(step)
    if isinstance(leaf, float):
        return round(leaf + rng.choice((-1, 1)) * rng.uniform(0.5, 3.0), 1)
    text = str(leaf)
    for pool in (EQUIPMENT_GROUPS, FAILURE_MODES, COST_CATEGORIES, SITES):
        if text in pool:
            return rng.choice([p for p in pool if p != text])
    if "-" in text and text.rsplit("-", 1)[1].isdigit():
        prefix, num = text.rsplit("-", 1)
        return f"{prefix}-{int(num) + 1}"
    return text + "x"


def pct_off(leaf: int | float) -> int | float:
    """The number off by 3%."""
    if isinstance(leaf, int):
        moved = round(leaf * 1.03)
        return moved if moved != leaf else leaf + 1
    return round(leaf * 1.03, 2)


def near_miss(rng: random.Random, gt: GroundTruth) -> tuple[Any, str]:
    """A value that is almost the ground truth, and what was changed."""
    value = gt.value
    if gt.kind == "count":
        if rng.random() < 0.5 and value >= 20:
            return pct_off(value), "pct_off"
        return nudge(rng, value), "value_off"
    if gt.kind == "letter":
        return rng.choice([c for c in "ABCDE" if c != value]), "value_off"
    if gt.kind == "identifier":
        return nudge(rng, value), "value_off"
    how = rng.choice(("value_off", "pct_off", "extra_key", "missing_key"))
    all_leaves = leaves(value)
    if how == "pct_off":
        numeric = [(p, v) for p, v in all_leaves if isinstance(v, int | float)]
        if numeric:
            path, leaf = rng.choice(numeric)
            return replace_at(value, path, pct_off(leaf)), how
        how = "value_off"
    if how == "extra_key":
        if isinstance(value, dict):
            key = nudge(rng, rng.choice(list(value)))  # a key of the same sort
            for _ in range(5):
                if key not in value:
                    break
                key = nudge(rng, key)
            else:
                key = "other"
            sample = next(iter(value.values()))
            extra = nudge(rng, sample) if not isinstance(sample, dict | list) else sample
            return {**value, key: extra}, how
        item = value[-1]
        if isinstance(item, dict):
            first = next(iter(item))
            return [*value, {**item, first: nudge(rng, item[first])}], how
        return [*value, (nudge(rng, item[0]), item[1])], how
    if how == "missing_key" and len(value) > 1:
        if isinstance(value, dict):
            drop = rng.choice(list(value))
            return {k: v for k, v in value.items() if k != drop}, how
        drop_i = rng.randrange(len(value))
        return [v for i, v in enumerate(value) if i != drop_i], how
    path, leaf = rng.choice(all_leaves)
    return replace_at(value, path, nudge(rng, leaf)), "value_off"


def reordered(rng: random.Random, value: Any) -> Any:
    """Same content, different order of keys and list items (recursively)."""
    if isinstance(value, dict):
        keys = list(value)
        if len(keys) > 1:
            while keys == list(value):
                rng.shuffle(keys)
        return {k: reordered(rng, value[k]) for k in keys}
    if isinstance(value, list):
        items = [reordered(rng, v) for v in value]
        if len(items) > 1 and len({repr(v) for v in items}) > 1:
            original = list(items)
            while items == original:
                rng.shuffle(items)
        return items
    return value


def has_list(value: Any) -> bool:
    """Whether reordering `value` changes the order of a list (not only of dict keys)."""
    if isinstance(value, list):
        return True
    if isinstance(value, dict):
        return any(has_list(v) for v in value.values())
    return False


def fence(text: str, rng: random.Random) -> str:
    lang = rng.choice(("json", "json", "", "python"))
    block = f"```{lang}\n{text}\n```"
    if rng.random() < 0.5:
        return block
    return "Here is the result of the analysis:\n\n" + block + "\n\nLet me know if you need more."


def scalar_prose(gt: GroundTruth, value: Any, rng: random.Random) -> tuple[str, str]:
    """A scalar answer in a sentence, and whether static_json should take it as the answer.

    Only a number labelled as the answer (or an option named as such) is one; a number or an
    identifier that merely occurs in a sentence is not.
    """
    if gt.kind == "count":
        labelled = f"The answer is {value}."
        text = rng.choice(
            (
                labelled,
                f"There are {value} work orders in that period.",
                f"After filtering by date I count {value} work orders for the asset.",
            )
        )
        return text, "match" if text == labelled else "mismatch"
    if gt.kind == "letter":
        return rng.choice((f"The correct option is {value}.", f"Answer: {value}")), "match"
    text = rng.choice(
        (
            f"The asset is {value}.",
            f"{value} had the most emergency work orders in the period.",
        )
    )
    return text, "mismatch"


def make_answer(rng: random.Random, gt: GroundTruth, variant: str) -> tuple[Any, str, str]:
    """(answer, variant label, intended outcome) for one run."""
    structured = gt.kind in STRUCTURED
    exact = render(gt, gt.value)
    if variant == "exact":
        return exact, "exact", "match"
    if variant == "reserialised":
        if structured:
            value = gt.value
            choice = rng.randrange(3)
            if choice == 0:
                text = json_text(value) if gt.style == "python" else py_text(value)
                label = "reserialised:other_syntax"
            elif choice == 1:
                text = json_text(value, indent=2)
                label = "reserialised:indented"
            else:
                text = json_text(value, compact=True)
                label = "reserialised:compact"
            return text, label, "match"
        if gt.kind == "count":
            return rng.choice((f"{gt.value}.0", f" {gt.value}\n")), "reserialised:number", "match"
        if gt.kind == "letter":
            return rng.choice((f"{gt.value}\n", f"'{gt.value}'")), "reserialised:quoted", "match"
        text = rng.choice((json_text(gt.value), str(gt.value), repr(gt.value)))
        return text, "reserialised:quoted", "match"
    if variant == "reordered" and structured:
        value = reordered(rng, gt.value)
        text = render(gt, value, rng.choice(("python", "json")))
        return text, "reordered", "match_unordered" if has_list(gt.value) else "match"
    if variant == "near_miss":
        value, how = near_miss(rng, gt)
        return render(gt, value), f"near_miss:{how}", "mismatch"
    if variant == "fenced":
        text = json_text(gt.value, indent=2) if structured else exact
        return fence(text, rng), "fenced", "match"
    if variant == "final_answer":
        prose = rng.choice(
            (
                "I retrieved the work orders and grouped them as requested.",
                "Thought: I now know the final answer.",
                "Step 3 complete. Aggregating the tool results.",
            )
        )
        return f"{prose}\n\nFinal Answer: {render(gt, gt.value)}", "final_answer", "match"
    if variant == "draft_then_final":
        draft, _ = near_miss(rng, gt)
        if structured and rng.random() < 0.5:
            text = (
                f"Draft:\n```json\n{json_text(draft, indent=2)}\n```\n\n"
                "Wait, I double counted one entry. Corrected final answer:\n"
                f"```json\n{json_text(gt.value, indent=2)}\n```"
            )
        else:
            text = (
                f"Initial result: {render(gt, draft)}\n\n"
                "On re-checking the tool output, one figure was wrong.\n\n"
                f"Final answer: {exact}"
            )
        return text, "draft_then_final", "match"
    if variant == "think":
        reasoning = "The user wants a summary. I should call get_work_orders and aggregate."
        if rng.random() < 0.5:
            draft, _ = near_miss(rng, gt)
            reasoning += f" Maybe it is {render(gt, draft)}? Let me verify with the data."
        body = json_text(gt.value) if structured and rng.random() < 0.5 else exact
        return f"<think>\n{reasoning}\n</think>\n\n{body}", "think", "match"
    if variant == "prose":
        if structured:
            text = f"Here is the breakdown you asked for: {json_text(gt.value, compact=True)}"
            return text, "prose:inline_structure", "match"
        text, intended = scalar_prose(gt, gt.value, rng)
        return text, "prose:scalar", intended
    if variant == "malformed":
        how = rng.choice(("truncated", "bad_literal", "prose_only"))
        if how == "truncated" and structured:
            full = json_text(gt.value)
            cut = full[: max(2, int(len(full) * rng.uniform(0.3, 0.85)))]
            return cut, "malformed:truncated", "unparseable"
        if how in ("truncated", "bad_literal"):
            bad = rng.choice(("{[1]: 2}", "{'count': 34,, }", '[{"equipment_group": , }]'))
            return bad, "malformed:bad_literal", "unparseable"
        return rng.choice(PROSE_ONLY), "malformed:prose_only", "unparseable"
    if variant == "no_answer":
        if rng.random() < 0.65:
            return None, "no_answer:null", "no_answer"
        return MISSING, "no_answer:missing_key", "no_answer"
    return exact, "exact", "match"  # "reordered" on a scalar kind


# --------------------------------------------------------------------------- trajectories


def tool_call(rng: random.Random, name: str, asset: str) -> dict[str, Any]:
    prefix = asset.split("-", 1)[0]
    output: Any
    if name == "get_work_orders":
        args: dict[str, Any] = {"asset_id": asset, "start": day(rng, 2024), "end": "2024-12-31"}
        k = rng.randint(2, 4)
        output = {
            "asset_id": asset,
            "count": k,
            "work_orders": [
                {
                    "wo_id": f"WO-{rng.randint(10000, 99999)}",
                    "status": rng.choice(WO_STATUS),
                    "priority": rng.randint(1, 4),
                    "type": rng.choice(WO_TYPES),
                    "description": rng.choice(WO_DESCRIPTIONS),
                    "created": day(rng),
                }
                for _ in range(k)
            ],
        }
    elif name == "get_sensor_data":
        sensor = rng.choice(list(SENSORS))
        args = {"asset_id": asset, "sensor": sensor, "start": day(rng), "limit": 10}
        base = rng.uniform(10, 90)
        output = {
            "asset_id": asset,
            "sensor": sensor,
            "unit": SENSORS[sensor],
            "readings": [
                {"ts": timestamp(rng), "value": round(base + rng.uniform(-4, 4), 2)}
                for _ in range(rng.randint(6, 10))
            ],
        }
    elif name == "list_assets":
        site = rng.choice(SITES)
        args = {"site": site, "asset_type": ASSET_TYPES[prefix]}
        output = {
            "site": site,
            "assets": [
                {
                    "asset_id": f"{prefix}-{rng.randint(1, 40)}",
                    "type": ASSET_TYPES[prefix],
                    "status": rng.choice(("running", "standby", "fault")),
                }
                for _ in range(rng.randint(4, 8))
            ],
        }
    elif name == "get_failure_modes":
        args = {"asset_type": ASSET_TYPES[prefix]}
        output = {
            "asset_type": ASSET_TYPES[prefix],
            "failure_modes": [
                {
                    "name": m,
                    "severity": rng.choice(("low", "medium", "high")),
                    "sensors": rng.sample(list(SENSORS), 2),
                }
                for m in rng.sample(FAILURE_MODES, rng.randint(3, 5))
            ],
        }
    elif name == "get_asset_details":
        args = {"asset_id": asset}
        output = {
            "asset_id": asset,
            "type": ASSET_TYPES[prefix],
            "manufacturer": rng.choice(("Carrier", "Trane", "York", "Daikin", "Grundfos")),
            "model": f"M{rng.randint(100, 999)}-{rng.choice('ABCX')}",
            "install_date": day(rng, rng.randint(2005, 2021)),
            "site": rng.choice(SITES),
            "criticality": rng.choice(("A", "B", "C")),
            "rated_power_kw": rng.choice((45, 75, 110, 250, 400)),
        }
    elif name == "get_maintenance_history":
        args = {"asset_id": asset, "years": rng.randint(1, 3)}
        output = {
            "asset_id": asset,
            "events": [
                {
                    "date": day(rng, rng.choice((2022, 2023, 2024))),
                    "action": rng.choice(WO_DESCRIPTIONS),
                    "technician_hours": round(rng.uniform(0.5, 16), 1),
                }
                for _ in range(rng.randint(3, 6))
            ],
        }
    elif name == "get_alerts":
        args = {"asset_id": asset, "since": day(rng)}
        output = {
            "asset_id": asset,
            "alerts": [
                {
                    "ts": timestamp(rng),
                    "rule": rng.choice(("high_temp", "low_flow", "vibration", "overcurrent")),
                    "severity": rng.choice(("warning", "critical")),
                    "value": round(rng.uniform(0, 120), 2),
                }
                for _ in range(rng.randint(2, 5))
            ],
        }
    else:
        query = f"{ASSET_TYPES[prefix]} {rng.choice(FAILURE_MODES)}"
        args = {"query": query, "top_k": 3}
        output = {
            "query": query,
            "hits": [
                {
                    "doc_id": f"DOC-{rng.randint(100, 999)}",
                    "title": f"{ASSET_TYPES[prefix].title()} service manual, section {i + 1}",
                    "snippet": rng.choice(WO_DESCRIPTIONS) + ". " + rng.choice(WO_DESCRIPTIONS),
                }
                for i in range(rng.randint(2, 4))
            ],
        }
    roll = rng.random()
    if roll < 0.015:
        output = {"error": "upstream timeout after 30s", "retryable": True}
    elif roll < 0.025:
        output = f"Tool execution failed: unknown asset {asset}"
    return {"name": name, "input": args, "output": output}


TURN_TEXT = (
    "I need to look up the relevant assets first.",
    "Fetching work orders for {asset} to count them by category.",
    "Checking the sensor history of {asset} around the alert window.",
    "The previous call returned partial data; retrying with a narrower range.",
    "Cross-checking failure modes for this asset type.",
    "Aggregating the results of the previous steps.",
)
PLAN_TEXT = (
    "Plan step {i}: identify the assets at the site.",
    "Plan step {i}: retrieve work orders for {asset}.",
    "Plan step {i}: read sensor data for {asset} and look for anomalies.",
    "Plan step {i}: map findings to failure modes.",
    "Plan step {i}: compute the requested aggregate.",
)


def make_turns(rng: random.Random, runner: str, answer: Any) -> list[dict[str, Any]]:
    n = rng.randint(2, 8)
    asset = asset_id(rng)
    turns: list[dict[str, Any]] = []
    tokens_in = rng.randint(700, 1800)
    for i in range(n):
        last = i == n - 1
        if last:
            text = answer if isinstance(answer, str) else "I could not produce an answer."
            calls: list[dict[str, Any]] = []
        else:
            templates = PLAN_TEXT if runner == "plan-execute" else TURN_TEXT
            text = rng.choice(templates).format(i=i + 1, asset=asset)
            k = rng.choices((0, 1, 2, 3), (15, 50, 25, 10))[0]
            names = rng.choices(TOOLS, TOOL_WEIGHTS, k=k)
            calls = [tool_call(rng, name, asset) for name in names]
        turns.append(
            {
                "index": i,
                "text": text,
                "tool_calls": calls,
                "input_tokens": tokens_in,
                "output_tokens": rng.randint(20, 450),
                "duration_ms": round(rng.uniform(150, 4000), 1),
            }
        )
        tokens_in += rng.randint(250, 1400)
    return turns


# --------------------------------------------------------------------------- the data set


def spread(n: int, low: int, per: int) -> int:
    """`n // per`, at least `low`, at most a tenth of `n` (at least 1 when n > 0)."""
    return min(max(low, n // per), max(1 if n else 0, n // 10))


def written_scenario_id(rng: random.Random, sid: int, may_omit: bool) -> Any:
    roll = rng.random()
    if roll < 0.82:
        return str(sid)
    if roll < 0.88:
        return f"scenario_{sid}"
    if roll < 0.94:
        return sid
    if roll < 0.99 or not may_omit:
        return f"{sid}.0"
    return MISSING


def generate(runs: int, out: Path, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    traj_dir = out / "trajectories"
    scen_dir = out / "scenarios"

    n_orphan_runs = spread(runs, 5, 1000)
    n_empty_scenarios = spread(runs, 5, 1000)
    scenario_runs = runs - n_orphan_runs
    n_with_runs = max(1, (3 * scenario_runs) // 4) if scenario_runs else 0
    total_scenarios = n_with_runs + n_empty_scenarios

    # Scenario ids: 1..total, with gaps closed; the ones without runs are chosen at random.
    ids = list(range(1, total_scenarios + 1))
    empty_ids = set(rng.sample(ids, n_empty_scenarios))
    with_runs = [i for i in ids if i not in empty_ids]
    run_sids: list[int] = list(with_runs)
    extra = scenario_runs - len(with_runs)
    run_sids += rng.sample(with_runs, min(extra, len(with_runs)))
    while len(run_sids) < scenario_runs:  # only for tiny data sets
        run_sids.append(rng.choice(with_runs))
    orphan_ids = list(range(total_scenarios + 501, total_scenarios + 501 + n_orphan_runs))
    run_sids += orphan_ids
    rng.shuffle(run_sids)

    truths: dict[int, GroundTruth] = {}
    kinds, kind_w = list(KIND_WEIGHTS), list(KIND_WEIGHTS.values())
    for sid in ids:
        gt = make_ground_truth(rng, rng.choices(kinds, kind_w)[0])
        truths[sid] = gt
        d = scen_dir / f"scenario_{sid}"
        d.mkdir(parents=True)
        (d / "groundtruth.txt").write_text(groundtruth_text(rng, gt), encoding="utf-8")
        (d / "question.txt").write_text(gt.question + "\n", encoding="utf-8")

    n_jsonl_runs = runs // 10
    jsonl_runs = set(rng.sample(range(runs), n_jsonl_runs))
    n_jsonl_files = min(6, max(1, n_jsonl_runs // 50)) if n_jsonl_runs else 0
    jsonl_lines: list[list[bytes]] = [[] for _ in range(n_jsonl_files)]
    jsonl_ids: list[list[str | None]] = [[] for _ in range(n_jsonl_files)]
    jsonl_names = [f"batches/2025-{8 + i % 3:02d}/part_{i:02d}.jsonl" for i in range(n_jsonl_files)]

    variants, variant_w = list(VARIANT_WEIGHTS), list(VARIANT_WEIGHTS.values())
    legacy_used: set[tuple[str, int]] = set()
    detail: dict[str, dict[str, Any]] = {}
    made_dirs: set[Path] = set()
    json_files = 0
    total_bytes = 0

    for idx, sid in enumerate(run_sids):
        run_id = f"r{idx:06d}"
        runner = rng.choice(RUNNERS)
        model = rng.choice(MODEL_NAMES)
        in_jsonl = idx in jsonl_runs
        gt = truths.get(sid) or make_ground_truth(rng, rng.choices(kinds, kind_w)[0])
        answer, label, intended = make_answer(rng, gt, rng.choices(variants, variant_w)[0])
        legacy_ok = not in_jsonl and (runner, sid) not in legacy_used
        written_sid = written_scenario_id(rng, sid, legacy_ok)

        run: dict[str, Any] = {"run_id": run_id}
        if written_sid is not MISSING:
            run["scenario_id"] = written_sid
        run["runner"] = runner
        run["model"] = model
        run["question"] = gt.question
        if answer is not MISSING:
            run["answer"] = answer
        run["trajectory"] = {"turns": make_turns(rng, runner, answer)}

        if in_jsonl:
            f = rng.randrange(n_jsonl_files)
            jsonl_lines[f].append(orjson.dumps(run))
            jsonl_ids[f].append(run_id)
            source = ""  # set once the bad lines are in place
        else:
            if written_sid is MISSING:
                legacy_used.add((runner, sid))
                rel = f"{runner}/legacy/{sid}.json"
            else:
                rel = f"{runner}/{MODELS[model]}/{run_id}.json"
            path = traj_dir / rel
            if path.parent not in made_dirs:
                path.parent.mkdir(parents=True, exist_ok=True)
                made_dirs.add(path.parent)
            data = orjson.dumps(run, option=orjson.OPT_INDENT_2 if idx % 3 == 0 else 0)
            path.write_bytes(data)
            total_bytes += len(data)
            json_files += 1
            source = f"trajectories/{rel}"
        detail[run_id] = {
            "scenario_id": str(sid),
            "scenario_exists": sid in truths,
            "scenario_id_written": "missing" if written_sid is MISSING else repr(written_sid),
            "kind": gt.kind,
            "variant": label,
            "intended": intended,
            "source": source,
        }

    # A couple of invalid lines and one blank line inside the jsonl files.
    bad_lines = 0
    if n_jsonl_files:
        sample = jsonl_lines[0][0] if jsonl_lines[0] else b'{"run_id": "x"}'
        at = min(3, len(jsonl_lines[0]))
        jsonl_lines[0].insert(at, sample[: len(sample) // 2])  # truncated line
        jsonl_ids[0].insert(at, None)
        at = len(jsonl_lines[-1]) // 2
        jsonl_lines[-1].insert(at, b"{'run_id': 'r999999', 'answer': None, 'scenario_id': 7}")
        jsonl_ids[-1].insert(at, None)
        jsonl_lines[-1].append(b"")  # blank line
        jsonl_ids[-1].append(None)
        bad_lines = 2
    for name, ids_in_file in zip(jsonl_names, jsonl_ids, strict=True):
        for line_no, rid in enumerate(ids_in_file, 1):
            if rid is not None:
                detail[rid]["source"] = f"trajectories/{name}:{line_no}"
    for name, lines in zip(jsonl_names, jsonl_lines, strict=True):
        path = traj_dir / name
        path.parent.mkdir(parents=True, exist_ok=True)
        data = b"\n".join(lines) + b"\n"
        path.write_bytes(data)
        total_bytes += len(data)

    # Files that are not runs.
    broken_dir = traj_dir / RUNNERS[0] / MODELS[MODEL_NAMES[0]]
    broken_dir.mkdir(parents=True, exist_ok=True)
    some_run = orjson.dumps({"run_id": "r_broken", "scenario_id": "1", "answer": "34"})
    broken = {
        f"r{runs:06d}.json": some_run[: len(some_run) // 2],  # truncated write
        f"r{runs + 1:06d}.json": b"{'run_id': 'r_py', 'scenario_id': '1', 'answer': None}",
        f"r{runs + 2:06d}.json": some_run + b"\n}\n",  # trailing garbage
        f"r{runs + 3:06d}.json": b"",  # empty file
        "token_counts.json": b"[812, 95, 1433, 20]",  # valid JSON, not a run
    }
    for name, data in broken.items():
        (broken_dir / name).write_bytes(data)

    return {
        "generator_version": GENERATOR_VERSION,
        "seed": seed,
        "runs": runs,
        "json_files": json_files,
        "jsonl_files": n_jsonl_files,
        "jsonl_runs": n_jsonl_runs,
        "bad_jsonl_lines": bad_lines,
        "blank_jsonl_lines": 1 if n_jsonl_files else 0,
        "broken_files": {
            name: "empty" if not data else ("not_a_run" if name[0] != "r" else "invalid_json")
            for name, data in broken.items()
        },
        "broken_files_dir": str(broken_dir.relative_to(out)),
        "scenarios": total_scenarios,
        "scenarios_without_runs": sorted(str(i) for i in empty_ids),
        "runs_with_missing_scenario": [r for r, d in detail.items() if not d["scenario_exists"]],
        "trajectory_bytes": total_bytes,
        "kinds": dict(Counter(t.kind for t in truths.values())),
        "variants": dict(Counter(d["variant"].split(":")[0] for d in detail.values())),
        "intended": dict(Counter(d["intended"] for d in detail.values())),
        "runs_detail": detail,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, required=True, help="number of runs to write")
    parser.add_argument("--out", type=Path, required=True, help="directory to write into")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument(
        "--force",
        action="store_true",
        help="replace trajectories/, scenarios/ and manifest.json if OUT already has them",
    )
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    out: Path = args.out
    owned = [out / "trajectories", out / "scenarios", out / "manifest.json"]
    present = [p for p in owned if p.exists()]
    if present and not args.force:
        parser.error(f"{present[0]} already exists (use --force to replace it)")
    for p in present:
        if p.is_dir():
            shutil.rmtree(p)
        else:
            p.unlink()

    start = time.perf_counter()
    manifest = generate(args.runs, out, args.seed)
    (out / "manifest.json").write_bytes(orjson.dumps(manifest, option=orjson.OPT_INDENT_2))
    elapsed = time.perf_counter() - start
    print(
        f"wrote {manifest['runs']} runs ({manifest['json_files']} .json files, "
        f"{manifest['jsonl_runs']} runs in {manifest['jsonl_files']} .jsonl files, "
        f"{manifest['trajectory_bytes'] / 1e6:.1f} MB), {len(manifest['broken_files'])} broken "
        f"files, {manifest['bad_jsonl_lines']} bad jsonl lines, {manifest['scenarios']} scenarios "
        f"({len(manifest['scenarios_without_runs'])} without runs, "
        f"{len(manifest['runs_with_missing_scenario'])} runs naming a missing one) "
        f"to {out} in {elapsed:.1f}s (seed {args.seed})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
