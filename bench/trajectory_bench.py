"""Benchmark assay's trajectory checker against LangChain's agentevals: speed, parity, import.

Usage:
    python bench/trajectory_bench.py [--pairs 10000] [--seed 0] [--repeat 3] [--write]

In one run:

1. generates `--pairs` pairs of OpenAI-style message trajectories (trajectory_pairs.py) into
   bench/out/trajectory/pairs.jsonl;
2. creates, the first time, a separate venv for the peer at bench/.venv-agentevals and installs
   `agentevals` into it from PyPI;
3. times assay's `TrajectoryChecker` in process in every mode, with argument modes superset
   and exact, over all pairs (best of `--repeat` rounds), then agentevals in its four modes the
   same way in a subprocess run with the peer venv's Python (agentevals_peer.py), which also
   reports its import time apart from its scoring time; prints pairs/s and the ratios;
4. compares assay's `passed` with agentevals' `score` on every pair in every configuration
   agentevals has, and classifies every disagreement (trajectory_parity.py);
5. times `import assay` (and `import assay; assay.check_trajectory`) in fresh subprocesses.

Prints a Markdown table with targets and PASS/MISS; `--write` appends it as one JSON line to
bench/results/trajectory.jsonl (see record.py). Exit status: 0 every target met and every
disagreement explained, 1 otherwise (an unexplained disagreement or a missed target), 2 a
measurement failed. See bench/README.md for the method.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

import record
from trajectory_pairs import generate_pairs, read_pairs, write_pairs
from trajectory_parity import SWITCHES, classify, describe_class, is_explained, model_verdict

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
DEFAULT_OUT_ROOT = BENCH / "out"
PEER_VENV = BENCH / ".venv-agentevals"
PEER_SCRIPT = BENCH / "agentevals_peer.py"

ASSAY_MODES = ("strict", "unordered", "subsequence", "superset", "subset")
PEER_MODES = ("strict", "unordered", "superset", "subset")
ARG_MODES = ("superset", "exact")

TARGET_RATIO = 30.0
TARGET_IMPORT_S = 0.15
NO_TARGET = "—"
EXAMPLES = 3

Config = tuple[str, str]
"""(trajectory mode, argument mode)."""
Verdict = bool | str
"""A checker's verdict on one pair, or the name of the exception it raised."""
Row = tuple[str, str, str, str]


@dataclass(slots=True)
class Timing:
    """One configuration timed over all pairs, round after round."""

    seconds: list[float] = field(default_factory=list)
    verdicts: list[Verdict] = field(default_factory=list)

    def pairs_per_s(self, pairs: int) -> float:
        """Throughput of the best round."""
        return pairs / min(self.seconds)


@dataclass(slots=True)
class Peer:
    """What the agentevals subprocess reported."""

    version: str
    import_s: float
    timings: dict[Config, Timing]


# --- the pairs and the peer's venv -----------------------------------------------------------


def make_pairs(pairs: int, seed: int, out_root: Path) -> tuple[Path, list[dict[str, Any]]]:
    """Generate the pairs, write them as JSONL and read them back as both sides will."""
    path = out_root / "trajectory" / "pairs.jsonl"
    write_pairs(path, generate_pairs(pairs, seed))
    return path, read_pairs(path)


def peer_python() -> Path:
    return PEER_VENV / "bin" / "python"


def ensure_peer_venv(spec: str) -> str | None:
    """Create bench/.venv-agentevals with agentevals unless it works already; an error or None."""
    python = peer_python()
    probe = [str(python), "-c", "import agentevals.trajectory.match"]
    if python.exists() and subprocess.run(probe, capture_output=True).returncode == 0:
        return None
    print(f"creating {PEER_VENV} and installing {spec} from PyPI ...", flush=True)
    steps = [
        [sys.executable, "-m", "venv", "--clear", str(PEER_VENV)],
        [str(python), "-m", "pip", "install", "--quiet", spec],
    ]
    for cmd in steps:
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            return f"`{' '.join(cmd)}` failed:\n{done.stderr[-2000:]}"
    return None


def child_env(out_root: Path) -> dict[str, str]:
    """Environment for children: bytecode cached under <out-root>/pycache, no LangSmith."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(out_root / "pycache")
    env["LANGSMITH_TRACING"] = "false"
    env["LANGCHAIN_TRACING_V2"] = "false"
    return env


# --- timing ------------------------------------------------------------------------------------


def time_assay(
    pairs: list[dict[str, Any]], configs: list[Config], repeat: int
) -> dict[Config, Timing]:
    """Every configuration over all pairs, `repeat` rounds taking turns; verdicts of round 1."""
    from assay import TrajectoryChecker

    timings = {config: Timing() for config in configs}
    checkers = {(m, a): TrajectoryChecker(mode=m, args=a) for m, a in configs}
    for round_no in range(repeat):
        for config in configs:
            checker = checkers[config]
            verdicts: list[Verdict] = []
            start = time.perf_counter()
            for pair in pairs:
                try:
                    verdicts.append(checker(pair["expected"], pair["actual"]).passed)
                except Exception as exc:
                    verdicts.append(type(exc).__name__)
            timings[config].seconds.append(time.perf_counter() - start)
            if round_no == 0:
                timings[config].verdicts = verdicts
        print(f"assay round {round_no + 1} of {repeat} done", flush=True)
    return timings


def run_peer(pairs_path: Path, out_root: Path, repeat: int, timeout: float) -> Peer | str:
    """Run agentevals_peer.py with the peer venv's Python; its report, or an error."""
    out = out_root / "trajectory" / "agentevals.json"
    out.unlink(missing_ok=True)
    configs = ",".join(f"{m}:{a}" for a in ARG_MODES for m in PEER_MODES)
    cmd = [str(peer_python()), str(PEER_SCRIPT), "--pairs", str(pairs_path), "--out", str(out)]
    cmd += ["--configs", configs, "--repeat", str(repeat)]
    try:
        done = subprocess.run(cmd, env=child_env(out_root), timeout=timeout)
    except subprocess.TimeoutExpired:
        return f"agentevals_peer.py timed out after {timeout:.0f} s"
    if done.returncode != 0 or not out.exists():
        return f"agentevals_peer.py exited with status {done.returncode}"
    report = orjson.loads(out.read_bytes())
    timings = {}
    for key, entry in report["configs"].items():
        mode, args = key.split(":")
        timings[(mode, args)] = Timing(entry["seconds"], entry["verdicts"])
    return Peer(report["agentevals_version"], report["import_s"], timings)


def time_imports(out_root: Path, repeat: int) -> dict[str, list[float]]:
    """Wall time of fresh interpreters importing assay, after one untimed warm-up each.

    The commands take turns round by round; the warm-up fills the bytecode cache.
    """
    commands = ("pass", "import assay", "import assay; assay.check_trajectory")
    env = child_env(out_root)
    times: dict[str, list[float]] = {code: [] for code in commands}
    for round_no in range(repeat + 1):
        for code in commands:
            start = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], env=env, check=True)
            if round_no:
                times[code].append(time.perf_counter() - start)
    return times


# --- parity ------------------------------------------------------------------------------------


@dataclass(slots=True)
class Parity:
    """Agreement of assay and agentevals on one configuration."""

    agree: int = 0
    classes: Counter[str] = field(default_factory=Counter)
    examples: dict[str, list[tuple[int, str]]] = field(default_factory=dict)
    """Per class, up to `EXAMPLES` (pair index, one-line description)."""
    modelled: int = 0
    """Pairs the bench's model can read (every `arguments` present and valid JSON)."""
    model_assay: int = 0
    """Of those, where the model without switches gives assay's verdict."""
    model_peer: int = 0
    """Of those, where the model with every switch of the mode gives agentevals' verdict."""

    @property
    def unexplained(self) -> int:
        return sum(n for name, n in self.classes.items() if not is_explained(name))


def compare(
    pairs: list[dict[str, Any]], config: Config, ours: list[Verdict], theirs: list[Verdict]
) -> Parity:
    """Count agreements and classify every disagreement on one configuration."""
    mode, args = config
    parity = Parity()
    every = frozenset(SWITCHES[mode])
    for pair, mine, peer in zip(pairs, ours, theirs, strict=True):
        if not isinstance(peer, str):  # agentevals read it, so every `arguments` is valid
            parity.modelled += 1
            expected, actual = pair["expected"], pair["actual"]
            parity.model_assay += model_verdict(expected, actual, mode, args, frozenset()) == mine
            parity.model_peer += model_verdict(expected, actual, mode, args, every) == peer
        if mine == peer:
            parity.agree += 1
            continue
        name = "assay_raised" if isinstance(mine, str) else classify(pair, mode, args, mine, peer)
        parity.classes[name] += 1
        shown = parity.examples.setdefault(name, [])
        if len(shown) < EXAMPLES:
            text = f"pair {pair['id']} ({pair['variant']}): assay {mine}, agentevals {peer}"
            shown.append((pair["id"], f"{text}; {difference(pair)}"))
    return parity


def _call_texts(messages: list[dict[str, Any]]) -> list[str]:
    """Every call as `name arguments`, arguments re-serialised with sorted keys if valid."""
    texts = []
    for message in messages:
        for call in message.get("tool_calls") or ():
            function = call["function"]
            raw = function.get("arguments")
            try:
                shown = orjson.dumps(orjson.loads(raw), option=orjson.OPT_SORT_KEYS).decode()
            except (TypeError, orjson.JSONDecodeError):
                shown = repr(raw)
            texts.append(f"{function['name']} {shown}")
    return texts


def difference(pair: dict[str, Any], width: int = 240) -> str:
    """The calls on only one side of a pair, or what else differs, in one short line."""
    expected, actual = Counter(_call_texts(pair["expected"])), Counter(_call_texts(pair["actual"]))
    parts = [
        f"{side} {' | '.join(sorted(calls.elements()))}"
        for side, calls in (
            ("only expected:", expected - actual),
            ("only actual:", actual - expected),
        )
        if calls
    ]
    if not parts:
        roles = [[m["role"] for m in pair[side]] for side in ("expected", "actual")]
        parts = ["same calls, " + ("other messages" if roles[0] != roles[1] else "other order")]
    text = "; ".join(parts)
    return text if len(text) <= width else text[: width - 1] + "…"


def print_parity(results: dict[Config, Parity], pairs: list[dict[str, Any]]) -> None:
    """Per configuration: agreements, counts per class and a few examples of each."""
    print("\nParity (assay `passed` against agentevals `score`):")
    for (mode, args), parity in results.items():
        print(f"\n  {mode}, args {args}: {parity.agree:,} of {len(pairs):,} agree")
        print(
            f"    the bench's model gives assay's verdict on {parity.model_assay:,} and "
            f"agentevals' on {parity.model_peer:,} of the {parity.modelled:,} pairs it reads"
        )
        for name, count in parity.classes.most_common():
            print(f"    {count:>5,}  {describe_class(name)}")
            for _, example in parity.examples[name]:
                print(f"           e.g. {example}")


def dump_disagreements(
    path: Path, pairs: list[dict[str, Any]], results: dict[Config, Parity]
) -> None:
    """Write the example pairs of every class, for a closer look."""
    wanted: dict[int, list[str]] = {}
    for (mode, args), parity in results.items():
        for name, examples in parity.examples.items():
            for index, _ in examples:
                wanted.setdefault(index, []).append(f"{mode}:{args}:{name}")
    lines = [orjson.dumps({**pairs[i], "classes": tags}) for i, tags in sorted(wanted.items())]
    path.write_bytes(b"\n".join(lines) + b"\n")


# --- report ------------------------------------------------------------------------------------


def fmt_rate(rate: float) -> str:
    return f"{rate:,.0f}"


def fmt_s(seconds: float) -> str:
    return f"{seconds:.3f} s"


def status(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def speed_rows(
    n: int, ours: dict[Config, Timing], peer: Peer | None, repeat: int
) -> tuple[list[Row], int]:
    """One row per configuration: pairs/s of both and the ratio; and the number of misses."""
    rows: list[Row] = []
    misses = 0
    for args in ARG_MODES:
        for mode in ASSAY_MODES:
            label = f"{mode}, args {args}: pairs/s, best of {repeat} (assay / agentevals)"
            mine = ours[(mode, args)].pairs_per_s(n)
            theirs = peer.timings.get((mode, args)) if peer else None
            if theirs is None:
                why = "no such mode" if mode not in PEER_MODES else "not run"
                rows.append((label, f"{fmt_rate(mine)} / — ({why})", NO_TARGET, "info"))
                continue
            rate = theirs.pairs_per_s(n)
            ratio = mine / rate
            ok = ratio >= TARGET_RATIO
            misses += not ok
            result = f"{fmt_rate(mine)} / {fmt_rate(rate)} = {ratio:.1f}x"
            rows.append((label, result, f"≥ {TARGET_RATIO:.0f}x", status(ok)))
    return rows, misses


def parity_rows(n: int, results: dict[Config, Parity]) -> list[Row]:
    """One row per configuration: agreements and the disagreements by class; then the
    model's agreement with each side over all configurations."""
    rows: list[Row] = []
    modelled = sum(p.modelled for p in results.values())
    for side, agreed in (
        ("assay (no switches)", sum(p.model_assay for p in results.values())),
        ("agentevals (all switches)", sum(p.model_peer for p in results.values())),
    ):
        label = f"bench model gives the verdict of {side}, all {len(results)} configurations"
        result = f"{agreed:,} / {modelled:,} pairs"
        rows.append((label, result, "all", status(agreed == modelled)))
    for (mode, args), parity in results.items():
        parts = [f"{c:,} {name}" for name, c in parity.classes.most_common()]
        result = f"{parity.agree:,} / {n:,} agree" + (f"; {', '.join(parts)}" if parts else "")
        label = f"parity {mode}, args {args}"
        rows.append((label, result, "0 unexplained", status(parity.unexplained == 0)))
    return rows


def import_rows(times: dict[str, list[float]]) -> tuple[list[Row], int]:
    """Import timings: `import assay` against its target, the others for reference."""
    rows: list[Row] = []
    misses = 0
    for label, series in times.items():
        result = f"{fmt_s(min(series))} / {fmt_s(statistics.median(series))}"
        name = f'`python -c "{label}"` (best / median of {len(series)})'
        if label == "import assay":
            ok = statistics.median(series) < TARGET_IMPORT_S
            misses += not ok
            rows.append((name, result, f"< {TARGET_IMPORT_S} s (median)", status(ok)))
        else:
            rows.append((name, result, NO_TARGET, "info"))
    return rows, misses


def git_commit() -> str:
    """Short HEAD hash, marked when src/ has uncommitted changes (read-only git calls)."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
        )
        dirty = subprocess.run(
            ["git", "--no-optional-locks", "status", "--porcelain", "--", "src"],
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
    except OSError:
        return "unknown"
    if head.returncode != 0:
        return "no commit"
    return head.stdout.strip() + (" (src/ has uncommitted changes)" if dirty.stdout else "")


def render_table(rows: list[Row], header: str) -> str:
    """The dated results block: heading, environment line, Markdown table."""
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    return "\n".join(
        [
            f"#### {stamp}",
            "",
            header,
            "",
            "| Measure | Result | Target | Status |",
            "|---|---|---|---|",
            *(f"| {a} | {b} | {c} | {d} |" for a, b, c, d in rows),
            "",
        ]
    )


# --- main --------------------------------------------------------------------------------------


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=10000, help="pairs to generate")
    parser.add_argument("--seed", type=int, default=0, help="generator seed")
    parser.add_argument("--repeat", type=int, default=3, help="timed rounds per configuration")
    parser.add_argument("--import-repeat", type=int, default=10, help="timed imports")
    parser.add_argument("--timeout", type=float, default=3600, help="seconds for the peer")
    parser.add_argument("--agentevals-spec", default="agentevals", help="pip requirement")
    parser.add_argument("--no-agentevals", action="store_true", help="skip the peer")
    parser.add_argument("--out-root", type=Path, default=DEFAULT_OUT_ROOT)
    parser.add_argument(
        "--write", action="store_true", help="append the results to bench/results/trajectory.jsonl"
    )
    args = parser.parse_args(argv)
    if args.pairs < 1 or args.repeat < 1 or args.import_repeat < 1:
        parser.error("--pairs, --repeat and --import-repeat must be at least 1")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    out_root: Path = args.out_root.resolve()
    n = args.pairs
    print(f"generating {n:,} pairs (seed {args.seed}) ...", flush=True)
    pairs_path, pairs = make_pairs(n, args.seed, out_root)
    variants = Counter(pair["variant"] for pair in pairs)
    print("variants: " + ", ".join(f"{v} {c}" for v, c in variants.most_common()), flush=True)

    errors: list[str] = []
    configs = [(m, a) for a in ARG_MODES for m in ASSAY_MODES]
    print(f"timing assay, {len(configs)} configurations x {args.repeat} rounds ...", flush=True)
    ours = time_assay(pairs, configs, args.repeat)

    peer: Peer | None = None
    if not args.no_agentevals:
        problem = ensure_peer_venv(args.agentevals_spec)
        if problem is None:
            print("timing agentevals in its venv ...", flush=True)
            outcome = run_peer(pairs_path, out_root, args.repeat, args.timeout)
            if isinstance(outcome, str):
                problem = outcome
            else:
                peer = outcome
        if problem:
            errors.append(problem)

    print("timing imports ...", flush=True)
    imports = time_imports(out_root, args.import_repeat)

    rows, misses = speed_rows(n, ours, peer, args.repeat)
    parity: dict[Config, Parity] = {}
    if peer is not None:
        rows.append(
            ("agentevals import (in its subprocess, once)", fmt_s(peer.import_s), NO_TARGET, "info")
        )
        for config in [(m, a) for a in ARG_MODES for m in PEER_MODES]:
            parity[config] = compare(
                pairs, config, ours[config].verdicts, peer.timings[config].verdicts
            )
        print_parity(parity, pairs)
        dump_disagreements(out_root / "trajectory" / "disagreements.jsonl", pairs, parity)
        rows += parity_rows(n, parity)
    else:
        rows.append(("agentevals", "not run", NO_TARGET, "ERROR" if errors else "info"))
    import_table, import_misses = import_rows(imports)
    rows += import_table
    misses += import_misses

    header = (
        f"commit {git_commit()}, Python {platform.python_version()}, "
        f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs, "
        f"agentevals {peer.version if peer else 'not run'}, "
        f"{n:,} pairs, seed {args.seed}, best of {args.repeat} rounds"
    )
    table = render_table(rows, header)
    print()
    print(table)
    for error in errors:
        print(f"ERROR {error}", file=sys.stderr)
    if args.write:
        path = record.append(
            "trajectory",
            {
                "environment": header,
                "pairs": n,
                "seed": args.seed,
                "repeat": args.repeat,
                "figures": record.figures(rows),
            },
        )
        print(f"appended to {path}")
    if errors:
        return 2
    unexplained = sum(p.unexplained for p in parity.values())
    unmodelled = sum(2 * p.modelled - p.model_assay - p.model_peer for p in parity.values())
    return 1 if misses or unexplained or unmodelled else 0


if __name__ == "__main__":
    sys.exit(main())
