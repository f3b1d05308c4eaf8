"""`assay run`: run a live agent over an eval set, score every run, write the reports."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay._signals import exit_code_of
from assay._text import path_text
from assay.cli._fail_under import add_fail_under, fail_under_exit
from assay.cli._github import add_github_arguments, github_output
from assay.cli._types import seconds, size, whole
from assay.cli._verbosity import add_verbosity
from assay.cli.messages import error
from assay.exit_codes import ExitCode
from assay.limits import MAX_REPLY_CHARS, MAX_TOOL_RESULT_CHARS

if TYPE_CHECKING:
    from assay.live.criteria import EvalConfig
    from assay.live.evalset import EvalSet
    from assay.live.executors import Executor

DESCRIPTION = """\
Run an agent over an eval set, capture every run (its reply, the nodes it entered, the tools
it called), check each run against the criteria, and write the reports `assay evaluate`
writes, plus runs.jsonl (the captured runs) and evalset.jsonl (the cases).

AGENT is module:attribute or path/to/file.py:attribute naming a sync or async function that
takes the conversation's messages and returns the reply (text, or a dict with content and
the turn's messages), a LangGraph graph or LangChain runnable (with langchain-core and
langgraph installed), or an assay ToolAgent. EVALSET is a JSON or JSONL file of cases
(eval_id, user_query or turns, expected_response, expected_tools, expected_trajectory), a
CSV file with a header row (eval_id, user_query, expected_response, expected_tools as names
separated by ; or |; other columns kept as metadata), or a Google ADK eval set. Without
--config, the criteria follow from what the cases expect.
"""

EPILOG = """examples:
  assay run examples/agents/agent.py:agent examples/agents/evalset.jsonl --timeout 2
  assay run my_agent:graph cases.jsonl --concurrency 16 --repeat 5 --reports-dir reports/
  assay run my_agent:graph cases.jsonl --reports-dir reports/ --resume
  assay run my_agent:graph cases.csv --reports-dir reports/
  assay run my_agent:graph cases.jsonl --executor ray --ray-address 127.0.0.1:6379

exit codes: 0 ok, 1 pass rate below --fail-under, 2 bad arguments, 3 missing or unusable
input (agent, eval set, config, a Ray cluster that cannot run it), 4 internal error or
interrupted (a Ray cluster that went away included).
"""


DEFAULT_CONCURRENCY = 8
"""Runs in flight at once unless `--concurrency` says: an agent that waits on a model spends
its time waiting, so several at once (as the tools of the field default to) finish sooner.
The API's `AgentEvaluator` keeps 1, as its documentation gives."""

def add_parser(commands: Any, name: str) -> None:
    """Register the subcommand on the `assay` parser."""
    parser = commands.add_parser(
        name,
        help="run a live agent over an eval set and score every run",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    configure(parser)


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the options of `run` to a parser."""
    from assay.cli._criteria import add_config_argument, add_judge_arguments

    parser.add_argument("agent", metavar="AGENT", help="module:attribute or file.py:attribute")
    parser.add_argument(
        "evalset",
        metavar="EVALSET",
        type=Path,
        help="the eval-set file: JSON, JSONL, CSV (.csv) or a Google ADK eval set",
    )
    add_config_argument(
        parser, "the criteria; without it, those the cases' expectations call for"
    )
    parser.add_argument(
        "--concurrency",
        type=whole(1),
        default=DEFAULT_CONCURRENCY,
        metavar="N",
        help="runs in flight at once (default: %(default)s, for agents that wait on a model; "
        "1 runs one case after another)",
    )
    parser.add_argument(
        "--repeat",
        type=whole(1),
        default=1,
        metavar="K",
        help="run every case K times: pass@k, pass^k and flaky cases in the report",
    )
    parser.add_argument(
        "--timeout",
        type=seconds,
        default=None,
        metavar="S",
        help="seconds one run (all its turns) may take; the agent is cancelled and the run "
        "recorded as a timeout (default: no limit)",
    )
    parser.add_argument(
        "--max-reply-size",
        type=size,
        default=MAX_REPLY_CHARS,
        metavar="N",
        help="longest reply of one turn, in characters, e.g. 200K or 4M (default 1,000,000); "
        "a longer reply makes its run an agent error and is not kept",
    )
    parser.add_argument(
        "--max-tool-result-size",
        type=size,
        default=MAX_TOOL_RESULT_CHARS,
        metavar="N",
        help="longest tool result, in characters of JSON (default 10,000,000); a longer one "
        "makes its run an agent error and is not kept",
    )
    parser.add_argument(
        "--retries",
        type=whole(0),
        default=2,
        metavar="N",
        help="extra attempts of a run after an infrastructure error (a failed connection, a "
        "model's 429 or 5xx); never after a wrong answer (default: %(default)s)",
    )
    parser.add_argument(
        "--reports-dir",
        default=Path("reports"),
        type=Path,
        metavar="DIR",
        help="where reports are written (default: %(default)s)",
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="keep the runs that finished in --reports-dir (an interrupted run) and run only "
        "the others",
    )
    add_fail_under(parser)
    parser.add_argument(
        "--junit", type=Path, metavar="FILE", help="also write the results as JUnit XML"
    )
    parser.add_argument(
        "--html", type=Path, metavar="FILE", help="also write the report as one HTML page"
    )
    add_github_arguments(parser)
    add_judge_arguments(parser)
    from assay.cli._executor import add_executor_arguments

    add_executor_arguments(parser, "runs")
    add_verbosity(parser, verbose="list every run that did not pass")
    parser.add_argument("--no-progress", action="store_true", help="never show a progress bar")


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Run the live evaluation described by `args`; returns the exit code."""
    from assay.cli._executor import executor_from
    from assay.cli._junit import refused_outputs

    executor = executor_from(args, parser)
    if not args.evalset.exists():
        error(f"no such file: {path_text(args.evalset)}")
        return ExitCode.INPUT_ERROR
    if args.reports_dir.exists() and not args.reports_dir.is_dir():
        error(f"--reports-dir is not a directory: {path_text(args.reports_dir)}")
        return ExitCode.INPUT_ERROR
    # Every file written after the run is checked now: the run may take hours.
    refused = refused_outputs(args.reports_dir, junit=args.junit, html=args.html)
    if refused is not None:
        error(refused)
        return ExitCode.INPUT_ERROR
    eval_set = _eval_set(args.evalset)
    if eval_set is None:
        return ExitCode.INPUT_ERROR
    config = None
    if args.config is not None:
        from assay.cli._criteria import read_config

        config = read_config(args.config)
        if config is None:
            return ExitCode.INPUT_ERROR
    from assay.live.agents import as_agent
    from assay.live.loading import AgentLoadError, load_agent

    try:
        agent = as_agent(load_agent(args.agent))
    except AgentLoadError as exc:
        error(str(exc))
        if args.verbose and exc.__cause__ is not None:
            raise exc.__cause__ from None
        return ExitCode.INPUT_ERROR
    except TypeError as exc:  # not something assay can run as an agent
        error(f"{args.agent}: {exc}")
        return ExitCode.INPUT_ERROR
    return _run_and_report(args, parser, agent, eval_set, config, executor)


def _eval_set(path: Path) -> EvalSet | None:
    from assay.live.evalset import EvalSet, EvalSetError

    try:
        eval_set = EvalSet.from_file(path)
    except EvalSetError as exc:
        for problem in exc.problems[:20]:
            error(f"{path_text(problem.source)}: {problem.reason}")
        if len(exc.problems) > 20:
            error(f"... and {len(exc.problems) - 20} more problems")
        return None
    if not eval_set.cases:
        error(f"{path_text(path)}: no cases")
        return None
    ids = [case.eval_id for case in eval_set.cases]
    if len(set(ids)) != len(ids):
        twice = sorted({i for i in ids if ids.count(i) > 1})
        error(f"{path_text(path)}: eval_id used by more than one case: {', '.join(twice[:10])}")
        return None
    return eval_set


def _run_and_report(
    args: argparse.Namespace,
    parser: argparse.ArgumentParser,
    agent: Any,
    eval_set: EvalSet,
    config: EvalConfig | None,
    executor: Executor | None,
) -> int:
    from assay.cli._criteria import judge_options
    from assay.cli.report import write_outputs
    from assay.live.command import RunRequest, run_live
    from assay.live.executors import ExecutorError
    from assay.reports.console import Progress, print_summary
    from assay.scorers.registry import UnknownScorerError

    show_progress = (
        not (args.quiet or args.no_progress) and sys.stderr is not None and sys.stderr.isatty()
    )
    request = RunRequest(
        agent=agent,
        agent_name=args.agent,
        eval_set=eval_set,
        eval_set_path=path_text(args.evalset),
        config=config,
        concurrency=args.concurrency,
        repeat=args.repeat,
        timeout_s=args.timeout,
        retries=args.retries,
        max_reply_chars=args.max_reply_size,
        max_tool_result_chars=args.max_tool_result_size,
        reports_dir=args.reports_dir,
        resume=args.resume,
        judge_options=judge_options(args),
        executor=executor,
    )
    try:
        # On resume, how many runs are left is known only once the directory is read.
        total = None if args.resume else len(eval_set.cases) * args.repeat
        with Progress(enabled=show_progress, label="running cases", total=total) as progress:
            report, summary = run_live(request, on_progress=progress.advance)
    except UnknownScorerError as exc:
        parser.error(str(exc))  # exits with USAGE_ERROR
    except ExecutorError as exc:
        if exc.before_run:
            error(str(exc))
            return ExitCode.INPUT_ERROR
        error(f"{exc} (the runs that finished are saved in {path_text(args.reports_dir)})")
        return ExitCode.INTERNAL_ERROR
    except ValueError as exc:  # no criterion follows from the cases, bad settings
        error(str(exc))
        return ExitCode.INPUT_ERROR
    except OSError as exc:
        error(f"{exc.strerror or exc}: {exc.filename or ''}".rstrip(": "))
        return ExitCode.INPUT_ERROR
    except KeyboardInterrupt as stopped:
        error(
            "interrupted; the runs that finished are saved in "
            f"{path_text(args.reports_dir)} (run again with --resume to finish)"
        )
        return exit_code_of(stopped)  # 130 for Ctrl-C, 143 for SIGTERM
    except Exception as exc:
        if args.verbose:
            raise
        error(f"internal error: {type(exc).__name__}: {exc} (run with -v for the traceback)")
        return ExitCode.INTERNAL_ERROR

    if not args.quiet:
        print_summary(summary, Path(path_text(args.reports_dir)), verbose=args.verbose)
        text = report.format_summary()
        # Without -v, the figures and warnings only (the runs not passed are in the table).
        print(text if args.verbose else text.split("\n  ")[0])
    github_output(args, "assay run", args.reports_dir)
    failed = write_outputs(args.reports_dir, junit=args.junit, html=args.html)
    if failed is not None:
        return failed
    return fail_under_exit(summary, args.fail_under)
