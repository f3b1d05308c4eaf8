"""Time LangChain's agentevals trajectory match on the benchmark's pairs, in its own venv.

    bench/.venv-agentevals/bin/python bench/agentevals_peer.py \\
        --pairs bench/out/trajectory/pairs.jsonl --out bench/out/trajectory/agentevals.json \\
        --configs strict:superset,superset:exact --repeat 3

Run by trajectory_bench.py with the interpreter of bench/.venv-agentevals, so that agentevals
and its dependencies never load into assay's environment. It reads the pairs (JSONL: `id`,
`expected`, `actual` message lists), times the import of
`agentevals.trajectory.match.create_trajectory_match_evaluator` on its own, then for each
`mode:args` configuration builds one evaluator and calls it as
`evaluator(outputs=actual, reference_outputs=expected)` on every pair, `--repeat` rounds
(configurations take turns within a round). The output JSON holds the import time, the seconds
of every round per configuration and, from the first round, one verdict per pair: the boolean
`score`, or the name of the exception the evaluator raised.

This file runs without assay installed: it uses only the standard library and agentevals.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from collections.abc import Callable
from importlib.metadata import version
from pathlib import Path
from typing import Any

Verdict = bool | str


def load_pairs(path: Path) -> list[dict[str, Any]]:
    """The pairs, one JSON object per line."""
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def score_all(evaluator: Callable[..., Any], pairs: list[dict[str, Any]]) -> list[Verdict]:
    """Run the evaluator on every pair: its score, or the exception's class name."""
    verdicts: list[Verdict] = []
    for pair in pairs:
        try:
            result = evaluator(outputs=pair["actual"], reference_outputs=pair["expected"])
            verdicts.append(bool(result["score"]))
        except Exception as exc:
            verdicts.append(type(exc).__name__)
    return verdicts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=Path, required=True, help="JSONL file of pairs")
    parser.add_argument("--out", type=Path, required=True, help="JSON file to write")
    parser.add_argument("--configs", required=True, help="comma-separated mode:args")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    configs = [tuple(c.split(":")) for c in args.configs.split(",")]

    start = time.perf_counter()
    from agentevals.trajectory.match import create_trajectory_match_evaluator

    import_s = time.perf_counter() - start

    # Each side parses its own copy of the pairs (agentevals fills in missing fields in place).
    pairs = load_pairs(args.pairs)
    results: dict[str, dict[str, Any]] = {f"{m}:{a}": {"seconds": []} for m, a in configs}
    for round_no in range(args.repeat):
        for mode, arg_mode in configs:
            evaluator = create_trajectory_match_evaluator(
                trajectory_match_mode=mode,  # type: ignore[arg-type]
                tool_args_match_mode=arg_mode,  # type: ignore[arg-type]
            )
            start = time.perf_counter()
            verdicts = score_all(evaluator, pairs)
            seconds = time.perf_counter() - start
            entry = results[f"{mode}:{arg_mode}"]
            entry["seconds"].append(seconds)
            if round_no == 0:
                entry["verdicts"] = verdicts
            print(f"agentevals {mode}:{arg_mode} round {round_no + 1}: {seconds:.2f} s", flush=True)

    report = {
        "agentevals_version": version("agentevals"),
        "langchain_core_version": version("langchain-core"),
        "python": platform.python_version(),
        "langsmith_tracing": os.environ.get("LANGSMITH_TRACING", ""),
        "import_s": import_s,
        "pairs": len(pairs),
        "configs": results,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
