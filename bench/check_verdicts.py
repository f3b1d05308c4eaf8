"""Compare `assay evaluate` verdicts with the intent the generator recorded for each run.

    python bench/check_verdicts.py --data bench/data/runs_2000_seed_0 --reports REPORTS_DIR

`generate.py` writes `manifest.json` with, for every run, the outcome static_json should give
(`match`, `match_unordered`, `mismatch`, `unparseable`, `no_answer`) and whether its scenario
exists. This script reads `results.jsonl` from a reports directory of that data set and counts
agreements. Exit status 0 when every run agrees, 1 otherwise (the disagreements are listed).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import orjson

PASSING = {"match", "match_unordered"}
FAILING = {"mismatch", "unparseable"}


def disagreements(data: Path, reports: Path) -> tuple[Counter[str], list[dict[str, Any]]]:
    """Counts of agreeing runs by intended outcome, and every run that disagrees."""
    manifest = orjson.loads((data / "manifest.json").read_bytes())["runs_detail"]
    results = {}
    for line in (reports / "results.jsonl").read_bytes().splitlines():
        record = orjson.loads(line)
        results[record["run_id"]] = record
    agreed: Counter[str] = Counter()
    wrong: list[dict[str, Any]] = []
    for run_id, intent in manifest.items():
        result = results.get(run_id)
        if not intent["scenario_exists"]:
            ok = result is None  # a run without a scenario is skipped, not reported
            want = "no_scenario"
        else:
            want = intent["intended"]
            score = result["score"] if result else {}
            ok = (
                (want in PASSING and score.get("passed") is True)
                or (want in FAILING and score.get("passed") is False)
                or (want == "no_answer" and score.get("status") == "unscored")
            )
        if ok:
            agreed[want] += 1
        else:
            wrong.append({"run_id": run_id, "intended": want, **intent, "result": result})
    return agreed, wrong


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="a generated data set")
    parser.add_argument("--reports", type=Path, required=True, help="assay's reports dir")
    args = parser.parse_args(argv)
    agreed, wrong = disagreements(args.data, args.reports)
    total = sum(agreed.values()) + len(wrong)
    print(f"{sum(agreed.values())} of {total} runs agree with the generator's intent")
    for outcome, count in sorted(agreed.items()):
        print(f"  {outcome:<16} {count}")
    for item in wrong:
        print(f"DISAGREE {item['run_id']} intended {item['intended']} ({item.get('variant')})")
    return 0 if not wrong else 1


if __name__ == "__main__":
    sys.exit(main())
