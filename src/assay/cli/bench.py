"""`assay bench`: run a benchmark (an `assay.benchmark.Benchmark` subclass) over its tasks,
and write the reports `assay run` writes."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from assay._signals import exit_code_of
from assay._text import path_text
from assay.cli._fail_under import add_fail_under, fail_under_exit
from assay.cli._github import add_github_arguments, github_output
from assay.cli._verbosity import add_verbosity
from assay.cli.messages import error
from assay.exit_codes import ExitCode

DESCRIPTION = """\
Run a benchmark: for every task and repetition, set up its environment, user, agents and
evaluators, let them run, and score the repetition from its evaluators' metrics. Writes the
reports `assay run` writes (results.jsonl, a report per repetition, _aggregate.json with
pass@k, pass^k and flaky tasks, runs.jsonl).

BENCHMARK is module:attribute or path/to/file.py:attribute naming a subclass of
assay.benchmark.Benchmark. TASKS is a JSON file (a list of tasks, or an object with a `data`
or `tasks` list) or a JSONL file, each task with a `query` and optionally an `id`,
`environment_data`, `user_data`, `evaluation_data`, `metadata` and `protocol`
(`timeout_seconds`, `max_retries`).
"""

EPILOG = """examples:
  assay bench examples/benchmark/bank.py:BankBenchmark examples/benchmark/tasks.jsonl --repeat 3
  assay bench my_bench:Bench tasks.json --agent-data agent.json --workers 8 --timeout 60
  assay bench my_bench.py:Bench tasks.json --executor ray --ray-workers 4 --workers 8

exit codes: 0 ok, 1 pass rate below --fail-under, 2 bad arguments, 3 missing or unusable
input (benchmark, tasks, agent data, a Ray cluster that cannot run it), 4 internal error
or interrupted (a Ray cluster that went away included).
"""


def add_parser(commands: Any, name: str) -> None:
    """Register the subcommand on the `assay` parser."""
    parser = commands.add_parser(
        name,
        help="run a benchmark (environment, user, agents, evaluators) over its tasks",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    configure(parser)


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the options of `bench` to a parser."""
    from assay.cli._types import seconds, whole

    parser.add_argument(
        "benchmark", metavar="BENCHMARK", help="module:attribute or file.py:attribute"
    )
    parser.add_argument("tasks", metavar="TASKS", type=Path, help="the tasks file")
    parser.add_argument(
        "--agent-data",
        type=Path,
        metavar="FILE",
        help="a JSON file of what the agents are set up with: one object for every task, or "
        "a list with one per task",
    )
    parser.add_argument(
        "--repeat", type=whole(1), default=1, metavar="K",
        help="run every task K times: pass@k, pass^k and flaky tasks in the report",
    )
    parser.add_argument(
        "--workers", type=whole(1), default=1, metavar="N",
        help="task repetitions run at once (default: %(default)s)",
    )
    parser.add_argument(
        "--timeout", type=seconds, default=None, metavar="S",
        help="seconds one repetition may take where its task sets none; past it the agents "
        "are left behind and the repetition is a task_timeout (default: no limit)",
    )
    parser.add_argument(
        "--reports-dir", default=Path("reports"), type=Path, metavar="DIR",
        help="where reports are written (default: %(default)s)",
    )
    parser.add_argument(
        "--resume", action="store_true",
        help="keep the repetitions that finished in --reports-dir and run only the others",
    )
    add_fail_under(parser)
    parser.add_argument("--junit", type=Path, metavar="FILE", help="also write JUnit XML")
    parser.add_argument(
        "--html", type=Path, metavar="FILE", help="also write the report as one HTML page"
    )
    add_github_arguments(parser)
    from assay.cli._criteria import add_judge_arguments

    add_judge_arguments(parser)
    from assay.cli._executor import add_executor_arguments

    add_executor_arguments(parser, "task repetitions (--workers)")
    add_verbosity(
        parser, verbose="say more: every run that did not pass, an internal error's traceback"
    )
    parser.add_argument("--no-progress", action="store_true", help="never show a progress bar")


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Run the benchmark described by `args`; returns the exit code."""
    from assay.cli._executor import executor_from
    from assay.cli._junit import refused_outputs
    from assay.cli.report import write_outputs
    from assay.live.executors import ExecutorError
    from assay.reports.console import print_summary

    executor = executor_from(args, parser)
    if args.reports_dir.exists() and not args.reports_dir.is_dir():
        error(f"--reports-dir is not a directory: {path_text(args.reports_dir)}")
        return ExitCode.INPUT_ERROR
    refused = refused_outputs(args.reports_dir, junit=args.junit, html=args.html)
    if refused is not None:
        error(refused)
        return ExitCode.INPUT_ERROR
    loaded = _load(args)
    if loaded is None:
        return ExitCode.INPUT_ERROR
    benchmark, tasks, agent_data = loaded
    if executor is not None:
        benchmark.executor = executor
    from assay.benchmark import BenchmarkCallback
    from assay.reports.console import Progress

    class Advance(BenchmarkCallback):
        def on_task_repeat_end(self, bench: Any, report: dict[str, Any]) -> None:
            progress.advance()

    show_progress = (
        not (args.quiet or args.no_progress) and sys.stderr is not None and sys.stderr.isatty()
    )
    total = None if args.resume else len(tasks) * args.repeat
    try:
        with Progress(enabled=show_progress, label="running tasks", total=total) as progress:
            benchmark.callbacks.append(Advance())
            benchmark.run(tasks, agent_data, reports_dir=args.reports_dir, resume=args.resume)
    except KeyboardInterrupt as stopped:
        error(
            "interrupted; the repetitions that finished are saved in "
            f"{path_text(args.reports_dir)} (run again with --resume to finish)"
        )
        return exit_code_of(stopped)  # 130 for Ctrl-C, 143 for SIGTERM
    except ExecutorError as exc:
        if exc.before_run:
            error(str(exc))
            return ExitCode.INPUT_ERROR
        error(f"{exc} (the repetitions that finished are saved in {path_text(args.reports_dir)})")
        return ExitCode.INTERNAL_ERROR
    except ValueError as exc:  # tasks or agent data that do not fit, a resume refused
        error(str(exc))
        return ExitCode.INPUT_ERROR
    except OSError as exc:
        error(f"{exc.strerror or exc}: {exc.filename or ''}".rstrip(": "))
        return ExitCode.INPUT_ERROR
    except Exception as exc:  # a fail_on_* flag's failure, or assay's own
        if args.verbose:
            raise
        error(f"{type(exc).__name__}: {exc} (run with -v for the traceback)")
        return ExitCode.INTERNAL_ERROR
    summary = benchmark.summary
    assert summary is not None  # written by every run into a reports directory
    if not args.quiet:
        print_summary(summary, Path(path_text(args.reports_dir)), verbose=args.verbose)
    github_output(args, "assay bench", args.reports_dir)
    failed = write_outputs(args.reports_dir, junit=args.junit, html=args.html)
    if failed is not None:
        return failed
    return fail_under_exit(summary, args.fail_under)


def _load(args: argparse.Namespace) -> tuple[Any, Any, Any] | None:
    """The benchmark (built with the command's settings), its tasks and agent data; None
    (the problem said) when one cannot be had."""
    import orjson

    from assay.benchmark import Benchmark, load_tasks
    from assay.live.loading import AgentLoadError, load_agent

    try:
        found = load_agent(args.benchmark)
    except AgentLoadError as exc:
        error(str(exc))
        return None
    if not (isinstance(found, type) and issubclass(found, Benchmark)):
        error(f"{args.benchmark}: not a subclass of assay.benchmark.Benchmark")
        return None
    try:
        tasks = load_tasks(args.tasks)
    except (OSError, ValueError) as exc:
        error(f"{path_text(args.tasks)}: {exc}")
        return None
    if not tasks:
        error(f"{path_text(args.tasks)}: no tasks")
        return None
    agent_data: Any = None
    if args.agent_data is not None:
        try:
            agent_data = orjson.loads(args.agent_data.read_bytes())
        except (OSError, orjson.JSONDecodeError) as exc:
            error(f"{path_text(args.agent_data)}: {exc}")
            return None
        if not isinstance(agent_data, dict | list):
            error(f"{path_text(args.agent_data)}: not an object or a list of objects")
            return None
    try:
        benchmark = found(
            n_task_repeats=args.repeat, num_workers=args.workers, timeout=args.timeout
        )
    except TypeError as exc:
        error(f"{args.benchmark}: cannot be built with the command's settings: {exc}")
        return None
    from assay.cli._criteria import judge_cache_problem, judge_options

    judges = judge_options(args)
    if (problem := judge_cache_problem(judges)) is not None:
        error(problem)
        return None
    benchmark.judge_options = {**judges, **benchmark.judge_options}
    if sys.stderr is not None and args.verbose:
        print(f"{len(tasks)} tasks, {args.repeat} repetitions each", file=sys.stderr)
    return benchmark, tasks, agent_data
