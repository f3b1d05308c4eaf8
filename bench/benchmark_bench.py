"""Benchmark the benchmark lifecycle: assay's `Benchmark` against MASEval's on the same work.

Usage:
    python bench/benchmark_bench.py [--tasks 1000] [--workers 50] [--delay 0.2] [--rounds 3]
                                    [--write]

The workload: `--tasks` tasks whose agent answers after `--delay` seconds (a blocking sleep,
as a sync agent calling a model does), `--workers` repetitions at a time, through the whole
lifecycle (environment, agents and evaluator set up per task, traces gathered, one evaluator
run). The ideal is ceil(tasks / workers) * delay (4.0 s with the defaults). Sides, each in a
fresh process after an untimed warm-up of `--workers` tasks, taking turns round by round:

- the floor: the same sleeps in a `ThreadPoolExecutor` of `--workers` threads;
- MASEval (`pip install -e '.[bench]'`): its `Benchmark` with `num_workers=--workers`;
- assay: `assay.benchmark.Benchmark` with `num_workers=--workers`.

Prints the medians and ratios; `--write` appends them to bench/results/benchmark.jsonl.
Target: assay / ideal ≤ 1.15x. Exit: 0 met, 1 missed, 2 a measurement failed.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
SIDES = ("floor", "maseval", "assay")


def run_floor(tasks: int, workers: int, delay: float) -> None:
    with ThreadPoolExecutor(workers) as pool:
        list(pool.map(lambda _: time.sleep(delay), range(tasks)))


def run_assay(tasks: int, workers: int, delay: float) -> None:
    from assay.benchmark import AgentAdapter, Benchmark, Environment, Evaluator, Task

    class Plain(Environment):
        def setup_state(self, data: dict[str, Any]) -> Any:
            return data

        def create_tools(self) -> dict[str, Any]:
            return {}

    class Sleeper(AgentAdapter):
        def _run_agent(self, query: str) -> str:
            time.sleep(delay)
            return query

    class Same(Evaluator):
        def filter_traces(self, traces: dict[str, Any]) -> dict[str, Any]:
            return traces

        def __call__(self, traces: dict[str, Any], final_answer: Any = None) -> dict[str, Any]:
            return {"passed": final_answer == self.task.query}

    class Bench(Benchmark):
        def setup_environment(self, agent_data: Any, task: Any, seed_generator: Any = None) -> Any:
            return Plain(task.environment_data)

        def setup_agents(self, agent_data: Any, environment: Any, task: Any, user: Any,
                         seed_generator: Any = None) -> Any:
            agent = Sleeper(None, "sleeper")
            return [agent], {"sleeper": agent}

        def setup_evaluators(self, environment: Any, task: Any, agents: Any, user: Any,
                             seed_generator: Any = None) -> Any:
            return [Same(task, environment, user)]

        def run_agents(self, agents: Any, task: Any, environment: Any, query: str) -> Any:
            return agents[0].run(query)

    reports = Bench(num_workers=workers).run([Task(f"q{i}", id=str(i)) for i in range(tasks)])
    assert all(r["status"] == "success" for r in reports), "a task did not succeed"


def run_maseval(tasks: int, workers: int, delay: float) -> None:
    import maseval

    class Plain(maseval.Environment):
        def setup_state(self, data: dict[str, Any]) -> Any:
            return data

        def create_tools(self) -> dict[str, Any]:
            return {}

    class Sleeper(maseval.AgentAdapter):
        def _run_agent(self, query: str) -> str:
            time.sleep(delay)
            return query

    class Same(maseval.Evaluator):
        def __init__(self, task: Any, environment: Any, user: Any = None) -> None:
            super().__init__(task, environment, user)
            self.task = task  # MASEval's base class does not keep it

        def filter_traces(self, traces: dict[str, Any]) -> dict[str, Any]:
            return traces

        def __call__(self, traces: dict[str, Any], final_answer: Any = None) -> dict[str, Any]:
            return {"passed": final_answer == self.task.query}

    class Bench(maseval.Benchmark):
        def setup_environment(self, agent_data: Any, task: Any, seed_generator: Any = None) -> Any:
            return Plain(task.environment_data)

        def setup_user(self, agent_data: Any, environment: Any, task: Any,
                       seed_generator: Any = None) -> Any:
            return None

        def setup_agents(self, agent_data: Any, environment: Any, task: Any, user: Any,
                         seed_generator: Any = None) -> Any:
            agent = Sleeper(None, "sleeper")
            return [agent], {"sleeper": agent}

        def setup_evaluators(self, environment: Any, task: Any, agents: Any, user: Any,
                             seed_generator: Any = None) -> Any:
            return [Same(task, environment, user)]

        def run_agents(self, agents: Any, task: Any, environment: Any, query: str) -> Any:
            return agents[0].run(query)

        def evaluate(self, evaluators: Any, agents: Any, final_answer: Any,
                     traces: Any) -> Any:
            return [ev(ev.filter_traces(traces), final_answer) for ev in evaluators]

        def get_model_adapter(self, model_id: str, **kwargs: Any) -> Any:
            raise NotImplementedError

    bench = Bench(num_workers=workers, progress_bar=False)
    reports = bench.run([maseval.Task(query=f"q{i}") for i in range(tasks)], agent_data={})
    assert all(r["status"] == "success" for r in reports), "a task did not succeed"


RUNNERS = {"floor": run_floor, "maseval": run_maseval, "assay": run_assay}


def worker(side: str, tasks: int, workers: int, delay: float) -> None:
    """In a fresh process: one untimed warm-up, then the timed run; prints its figures."""
    RUNNERS[side](workers, workers, delay)
    started, cpu = time.perf_counter(), time.process_time()
    RUNNERS[side](tasks, workers, delay)
    print(json.dumps({"wall": time.perf_counter() - started, "cpu": time.process_time() - cpu}))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=50)
    parser.add_argument("--delay", type=float, default=0.2)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--write", action="store_true")
    parser.add_argument("--worker", choices=SIDES, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker(args.worker, args.tasks, args.workers, args.delay)
        return 0
    ideal = math.ceil(args.tasks / args.workers) * args.delay
    walls: dict[str, list[float]] = {side: [] for side in SIDES}
    cpus: dict[str, list[float]] = {side: [] for side in SIDES}
    for round_index in range(args.rounds):
        order = SIDES[round_index % 3:] + SIDES[: round_index % 3]
        for side in order:
            child = subprocess.run(
                [sys.executable, __file__, "--worker", side, "--tasks", str(args.tasks),
                 "--workers", str(args.workers), "--delay", str(args.delay)],
                capture_output=True, text=True, timeout=600, check=False,
            )
            if child.returncode != 0:
                print(f"{side} failed:\n{child.stderr[-2000:]}", file=sys.stderr)
                return 2
            figures = json.loads(child.stdout.strip().splitlines()[-1])
            walls[side].append(figures["wall"])
            cpus[side].append(figures["cpu"])
        print(f"round {round_index + 1}: " + ", ".join(
            f"{s} {walls[s][-1]:.3f} s" for s in SIDES), flush=True)
    median = {side: statistics.median(walls[side]) for side in SIDES}
    rows = [
        (f"{side}: median wall of {args.rounds}", f"{median[side]:.3f} s "
         f"({median[side] / ideal:.3f}x the ideal; CPU "
         f"{statistics.median(cpus[side]) / args.tasks * 1000:.2f} ms per task)", "—", "info")
        for side in SIDES
    ]
    met = median["assay"] / ideal <= 1.15
    rows.append(("assay / ideal", f"{median['assay'] / ideal:.3f}x", "≤ 1.15x",
                 "met" if met else "MISS"))
    rows.append(("MASEval / assay", f"{median['maseval'] / median['assay']:.3f}x", "—", "info"))
    print(f"\n{args.tasks} tasks, {args.workers} at a time, {args.delay} s each: "
          f"ideal {ideal:.3f} s")
    for measure, result, target, status in rows:
        print(f"  {measure}: {result}  [{target}, {status}]")
    if args.write:
        sys.path.insert(0, str(BENCH))
        import record

        record.append("benchmark", {"figures": record.figures(rows), "ideal_s": ideal})
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
