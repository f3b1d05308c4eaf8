"""`assay evaluate`: score saved agent runs against ground truth."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay._text import path_text
from assay.cli._fail_under import add_fail_under, below_fail_under
from assay.cli.messages import error
from assay.exit_codes import ExitCode

if TYPE_CHECKING:
    from assay.limits import InputLimits

DESCRIPTION = """\
Score saved agent runs against ground truth and write reports.

Runs are read from --trajectories (a file, or a directory searched recursively for *.json,
*.jsonl and *.ndjson) in any format `assay convert` reads: saved AssetOpsBench runs, track-1
trajectory files, ADK eval sets, MASEval reports, OTLP spans, OpenAI or LangChain chats. Each
file's format is told from its name and content, unless --from names it. Ground truth comes
from --scenarios: folders scenario_<id>/groundtruth.txt (or turns/<NN>/groundtruth.txt) and/or
JSON/JSONL scenario files. Each run is joined to its scenario by id and scored; every input
that cannot be scored is listed with its reason in _aggregate.json.
"""

EPILOG = """examples:
  assay evaluate --trajectories runs/ --scenarios scenarios/ --reports-dir reports/ --fail-under 0.8
  assay evaluate --trajectories runs/ --scenarios gt/ --scorer static_json --scorer trajectory
  assay evaluate --trajectories runs/ --scenarios gt/ --scorer tool_name_match \\
      -S tool_name_match.threshold=0.75 -S tool_name_match.tools=search,fetch

exit codes: 0 ok, 1 pass rate below --fail-under, 2 bad arguments, 3 missing input or no runs,
4 internal error.
"""


def add_parser(commands: Any, name: str) -> None:
    """Register the subcommand on the `assay` parser."""
    parser = commands.add_parser(
        name,
        help="score saved agent runs against ground truth",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    configure(parser)


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the options of `evaluate` to a parser."""
    parser.add_argument(
        "--trajectories",
        required=True,
        type=Path,
        metavar="PATH",
        help="a run file or a directory of *.json / *.jsonl / *.ndjson runs",
    )
    parser.add_argument(
        "--from",
        dest="fmt",
        metavar="FORMAT",
        help="read every run file with this reader (assetopsbench, track1, adk, maseval, otel, "
        "openai, langchain; see `assay convert --help`) instead of telling each file's format",
    )
    parser.add_argument(
        "--scenarios",
        required=True,
        type=Path,
        nargs="+",
        action="extend",
        metavar="PATH",
        help="scenario folders or JSON/JSONL scenario files",
    )
    parser.add_argument(
        "--scorer-default",
        default="static_json",
        metavar="NAME",
        help="scorer for scenarios without a scoring_method (default: %(default)s)",
    )
    parser.add_argument(
        "--scorer",
        dest="scorers",
        action="append",
        default=[],
        metavar="NAME",
        help="run this scorer on every run, whatever the scenario names; repeat to run several "
        "(each run then gets each score and a combined verdict)",
    )
    parser.add_argument(
        "-S",
        "--scorer-option",
        dest="scorer_settings",
        action="append",
        default=[],
        type=_setting,
        metavar="NAME.OPTION=VALUE",
        help="set an option of a scorer (`assay scorers NAME` lists them), converted to the "
        "option's type: numbers, true/false, a choice by name, lists comma-separated or as "
        "JSON, anything else as JSON; null for none; repeat for several; wins over the "
        "flags that set the same option",
    )
    parser.add_argument(
        "--reports-dir",
        default=Path("reports"),
        type=_directory,
        metavar="DIR",
        help="where reports are written (default: %(default)s)",
    )
    add_fail_under(parser)
    parser.add_argument(
        "--junit",
        type=Path,
        metavar="FILE",
        help="also write the results as JUnit XML to FILE, for CI (a test case per run)",
    )
    parser.add_argument(
        "--html", type=Path, metavar="FILE", help="also write the report as one HTML page"
    )
    parser.add_argument(
        "--workers",
        type=_workers,
        default=0,
        metavar="N",
        help="processes that read and score runs (default 0: one per CPU; 1: none extra)",
    )
    parser.add_argument(
        "--max-file-size",
        type=_size,
        metavar="SIZE",
        help="largest run or scenario file read whole, e.g. 512M or 2G (default 256M); a "
        "larger file is listed as unreadable and the others are read",
    )
    parser.add_argument(
        "--max-line-size",
        type=_size,
        metavar="SIZE",
        help="longest line of a *.jsonl run file (default 64M); a longer line is listed as "
        "unreadable and the lines after it are read",
    )
    parser.add_argument(
        "--list-order",
        choices=("content", "position"),
        help="static_json: align lists by content (default) or by position",
    )
    parser.add_argument(
        "--case-insensitive-keys",
        action="store_true",
        default=None,
        help="static_json: compare dict keys ignoring case",
    )
    parser.add_argument(
        "--trajectory-mode",
        choices=("strict", "unordered", "subsequence", "superset", "subset"),
        help="trajectory: how expected steps must appear, for scenarios that do not say "
        "(default: strict)",
    )
    parser.add_argument(
        "--trajectory-args",
        choices=("exact", "ignore", "subset", "superset"),
        help="trajectory: how call arguments compare, for scenarios that do not say "
        "(default: superset, the arguments given must match)",
    )
    add_judge_arguments(parser)
    parser.add_argument(
        "--red-flag",
        dest="red_flags",
        action="append",
        default=[],
        type=_red_flag,
        metavar="FIGURE=VALUE",
        help="move a red-flag threshold, or switch it off with FIGURE=off; figures: "
        "tool_selection_accuracy, context_overflow_rate, scenario_pass_rate (fractions), "
        "avg_latency_s (seconds), escalation_rate",
    )
    parser.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="list every run that was not scored, with its reason",
    )
    parser.add_argument("-q", "--quiet", action="store_true", help="print nothing but errors")
    parser.add_argument("--no-progress", action="store_true", help="never show a progress bar")


def add_judge_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the judge flags (model, server, samples, limits, budget, cache) to a parser:
    `evaluate` and `run` share them."""
    judges = parser.add_argument_group(
        "judges",
        "for the model-judged scorers (llm_judge, rubric, trajectory_judge, safety, "
        "factuality, hallucination); no model is called unless --judge-model is given",
    )
    judges.add_argument(
        "--judge-model",
        metavar="PROVIDER/MODEL",
        help="the judge model, e.g. openai/gpt-4.1-mini or litellm_proxy/Azure/gpt-5-mini; "
        "base URL and key from OPENAI_BASE_URL / OPENAI_API_KEY, LITELLM_BASE_URL / "
        "LITELLM_API_KEY, or <PROVIDER>_BASE_URL / <PROVIDER>_API_KEY",
    )
    judges.add_argument("--judge-base-url", metavar="URL", help="the judge server's API root")
    judges.add_argument(
        "--judge-preset",
        choices=("agent_review",),
        help="llm_judge: review the whole run on six criteria (task completion, data retrieval "
        "accuracy, result verification, step sequence, clarity, hallucinations) with suggestions",
    )
    judges.add_argument(
        "--judge-samples",
        type=_positive,
        default=1,
        metavar="N",
        help="ask each question N times, in parallel (default 1)",
    )
    judges.add_argument(
        "--judge-aggregation",
        choices=("mean", "majority"),
        default="mean",
        help="combine samples by mean score, or by majority of passes (a tie fails)",
    )
    judges.add_argument(
        "--judge-concurrency",
        type=_positive,
        metavar="N",
        help="judge calls open at once (default 8)",
    )
    judges.add_argument(
        "--judge-timeout",
        type=_amount,
        metavar="SECONDS",
        help="seconds per judge call attempt (default 60)",
    )
    judges.add_argument(
        "--judge-call-timeout",
        type=_amount,
        metavar="SECONDS",
        help="seconds one judge call may take in all, retries and waits included; a call "
        "that cannot end in time (a longer Retry-After) is unscored at once (default 180)",
    )
    judges.add_argument(
        "--judge-retries",
        type=_workers,
        metavar="N",
        help="retries after 429, 5xx and timeouts (default 4)",
    )
    judges.add_argument(
        "--judge-budget-usd",
        type=_amount,
        metavar="USD",
        help="stop starting judge calls once they have cost this much (estimated)",
    )
    judges.add_argument(
        "--judge-budget-tokens",
        type=_positive,
        metavar="N",
        help="stop starting judge calls once they have used this many tokens",
    )
    judges.add_argument(
        "--judge-prices",
        type=_prices,
        metavar="FILE",
        help='a JSON file of USD per million tokens by model, {"model": [input, output]}, '
        "added to (or replacing entries of) the built-in price table",
    )
    judges.add_argument(
        "--allow-self-judge",
        action="store_true",
        help="let the judge model score runs its own model produced",
    )
    judges.add_argument(
        "--cache-dir",
        type=Path,
        metavar="DIR",
        help="where judge replies are cached (default: $ASSAY_CACHE_DIR or ~/.cache/assay)",
    )
    cache = judges.add_mutually_exclusive_group()
    cache.add_argument(
        "--no-cache",
        dest="cache",
        action="store_const",
        const="off",
        default="read_write",
        help="neither read nor write the judge cache",
    )
    cache.add_argument(
        "--replay",
        dest="cache",
        action="store_const",
        const="replay",
        help="answer judges from the cache only; a reply not cached is an error (for CI)",
    )
    cache.add_argument(
        "--refresh-cache",
        dest="cache",
        action="store_const",
        const="refresh",
        help="ask the judge again and overwrite cached replies",
    )


def _setting(text: str) -> tuple[str, str, str]:
    """`NAME.OPTION=VALUE` as its three parts (the value is converted once the scorer's
    declaration is at hand, when the command runs)."""
    target, sep, value = text.partition("=")
    name, dot, option = target.strip().rpartition(".")
    if not sep or not dot or not name or not option.isidentifier():
        raise argparse.ArgumentTypeError(
            f"expected NAME.OPTION=VALUE (e.g. static_json.list_order=position); got {text!r}"
        )
    return name, option, value


_FLAG_OPTIONS = (
    ("list_order", "static_json", "list_order"),
    ("case_insensitive_keys", "static_json", "case_insensitive_keys"),
    ("trajectory_mode", "trajectory", "mode"),
    ("trajectory_args", "trajectory", "args"),
)
"""Flags that set one scorer option each: (flag's dest, scorer, option). `--list-order X`
is `-S static_json.list_order=X`."""


class _SettingError(ValueError):
    """A scorer option that cannot be set as asked: a usage error."""


def _scorer_options(args: argparse.Namespace) -> dict[str, dict[str, Any]]:
    """Options per scorer: from the flags that set one, the judge flags, then `-S` (which
    wins).

    Raises:
        _SettingError: an unknown scorer or option, or a value that does not convert.
    """
    options: dict[str, dict[str, Any]] = {}
    for flag, scorer, option in _FLAG_OPTIONS:
        value = getattr(args, flag)
        if value is not None:
            options.setdefault(scorer, {})[option] = value
    for scorer, chosen in _judge_options(args).items():
        options.setdefault(scorer, {}).update(chosen)
    for scorer, option, text in args.scorer_settings:
        options.setdefault(scorer, {})[option] = _converted(scorer, option, text)
    return options


def _converted(scorer: str, option: str, text: str) -> Any:
    """The text of `-S scorer.option=text` as a value of the option's declared type."""
    from assay.scorers._convert import OptionValueError, from_text
    from assay.scorers.registry import UnknownScorerError, scorer_info

    where = f"-S {scorer}.{option}"
    try:
        info = scorer_info(scorer)
    except UnknownScorerError as exc:
        raise _SettingError(f"{where}: {exc}") from None
    except Exception as exc:  # an installed scorer that does not import
        raise _SettingError(f"{where}: cannot load scorer {scorer!r}: {exc}") from None
    declared = info.option(option)
    if declared is None and not info.takes_any_option:
        known = ", ".join(o.name for o in info.options) or "none"
        raise _SettingError(f"{where}: {scorer} has no option {option!r} (its options: {known})")
    kind = Any if declared is None else declared.type
    try:
        return from_text(text, kind)
    except OptionValueError as exc:
        raise _SettingError(f"{where}={text}: {exc}") from None


_RED_FLAG_FIGURES = (
    "tool_selection_accuracy",
    "context_overflow_rate",
    "scenario_pass_rate",
    "avg_latency_s",
    "escalation_rate",
)


def _directory(text: str) -> Path:
    # Path("") is the current directory: an empty value is a mistake, not a request to write
    # reports among whatever is there.
    if not text.strip():
        raise argparse.ArgumentTypeError("must name a directory, got an empty value")
    return Path(text)


def _size(text: str) -> int:
    from assay.limits import parse_size

    try:
        return parse_size(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _red_flag(text: str) -> tuple[str, float | None]:
    name, sep, value = text.partition("=")
    name = name.strip()
    if not sep or name not in _RED_FLAG_FIGURES:
        raise argparse.ArgumentTypeError(
            f"expected FIGURE=VALUE with FIGURE one of {', '.join(_RED_FLAG_FIGURES)}; got {text!r}"
        )
    if value.strip().lower() == "off":
        return name, None
    try:
        number = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {value!r}") from None
    if number != number or number in (float("inf"), float("-inf")):
        raise argparse.ArgumentTypeError(f"not a finite number: {value!r}")
    return name, number


def _prices(text: str) -> dict[str, tuple[float, float]]:
    import orjson

    try:
        data = orjson.loads(Path(text).read_bytes())
    except OSError as exc:
        raise argparse.ArgumentTypeError(f"cannot read {text}: {exc.strerror or exc}") from None
    except orjson.JSONDecodeError as exc:
        raise argparse.ArgumentTypeError(f"{text} is not JSON: {exc.msg}") from None
    if not isinstance(data, dict):
        raise argparse.ArgumentTypeError(f"{text}: expected an object of model: [input, output]")
    prices: dict[str, tuple[float, float]] = {}
    for model, pair in data.items():
        if (
            not isinstance(pair, list)
            or len(pair) != 2
            or not all(
                isinstance(v, int | float) and not isinstance(v, bool) and v >= 0 for v in pair
            )
        ):
            raise argparse.ArgumentTypeError(
                f"{text}: {model!r} must be [input, output] USD per million tokens"
            )
        prices[model] = (float(pair[0]), float(pair[1]))
    return prices


def _number(
    convert: Callable[[str], float], kind: str, fits: Callable[[float], bool], rule: str
) -> Callable[[str], Any]:
    """An argparse type: `convert` the text, and refuse it unless `fits` (saying `rule`)."""

    def parse(text: str) -> Any:
        try:
            value = convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not {kind}: {text!r}") from None
        if not fits(value):
            raise argparse.ArgumentTypeError(f"must be {rule}, got {text}")
        return value

    return parse


_positive = _number(int, "a whole number", lambda v: v >= 1, "1 or more")
_workers = _number(int, "a whole number", lambda v: v >= 0, "0 or more")
_amount = _number(float, "a number", lambda v: 0 < v < float("inf"), "a positive number")


def _limits(args: argparse.Namespace) -> InputLimits:
    """The input limits of `--max-file-size` and `--max-line-size` (the defaults where not
    given)."""
    from assay.limits import InputLimits

    given = {"max_file_bytes": args.max_file_size, "max_line_bytes": args.max_line_size}
    return InputLimits(**{name: size for name, size in given.items() if size is not None})


def _judge_options(args: argparse.Namespace) -> dict[str, dict[str, Any]]:
    """Options of every judge (each built-in scorer declared `is_async`) from the judge
    flags, each given only the options it declares (none without --judge-model)."""
    if not args.judge_model:
        return {}
    from assay.models.budget import Budget
    from assay.scorers.registry import builtin_scorers, is_async_scorer, scorer_info

    budget = None
    if args.judge_budget_usd is not None or args.judge_budget_tokens is not None:
        budget = Budget(max_tokens=args.judge_budget_tokens, max_cost_usd=args.judge_budget_usd)
    client: dict[str, Any] = {"cache": args.cache, "budget": budget}
    for option, value in (
        ("base_url", args.judge_base_url),
        ("cache_dir", args.cache_dir),
        ("timeout_s", args.judge_timeout),
        ("call_timeout_s", args.judge_call_timeout),
        ("max_retries", args.judge_retries),
        ("max_concurrency", args.judge_concurrency),
        ("prices", args.judge_prices),
    ):
        if value is not None:
            client[option] = value
    shared = {
        "model": args.judge_model,
        "num_samples": args.judge_samples,
        "aggregation": args.judge_aggregation,
        "allow_self_judge": args.allow_self_judge,
        "client_options": client,
    }
    if args.judge_preset:
        shared["preset"] = args.judge_preset
    options: dict[str, dict[str, Any]] = {}
    for name in builtin_scorers():
        if is_async_scorer(name):
            declared = scorer_info(name)
            options[name] = {k: v for k, v in shared.items() if declared.option(k) is not None}
    return options


def _judge_cache_problem(options: dict[str, dict[str, Any]]) -> str | None:
    """Why the cache of a judge about to be built cannot be used, or None.

    A cache file that is not one, or cannot be written, is an input error found before any
    run is read, not an unusable scorer.
    """
    from assay.models.cache import CACHE_MODES, CacheError, ResponseCache, cache_file
    from assay.scorers.registry import is_async_scorer

    checked: set[tuple[Path, bool]] = set()
    for name, chosen in options.items():
        client = chosen.get("client_options") or {}
        if not chosen.get("model") or not isinstance(client, dict) or not is_async_scorer(name):
            continue
        mode, folder = client.get("cache", "read_write"), client.get("cache_dir")
        if mode not in CACHE_MODES or mode == "off" or not isinstance(folder, str | Path | None):
            continue  # the judge itself says what is wrong with these
        probe = (cache_file(folder), mode != "replay")
        if probe in checked:
            continue
        checked.add(probe)
        try:
            with ResponseCache(probe[0]) as cache:
                cache.check(write=probe[1])
        except CacheError as exc:
            return f"judge {exc}"
    return None


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Run the evaluation described by `args`; returns the exit code."""
    missing = [p for p in [args.trajectories, *args.scenarios] if not p.exists()]
    if missing:
        for path in missing:
            error(f"no such file or directory: {path_text(path)}")
        return ExitCode.INPUT_ERROR
    if args.reports_dir.resolve() == args.trajectories.resolve():
        error("--reports-dir must not be the --trajectories directory: reports are not runs")
        return ExitCode.USAGE_ERROR
    if args.reports_dir.exists() and not args.reports_dir.is_dir():
        error(f"--reports-dir is not a directory: {path_text(args.reports_dir)}")
        return ExitCode.INPUT_ERROR
    from assay.cli._junit import refused_junit

    if (refused := refused_junit(args.junit, args.reports_dir)) is not None:
        error(refused)
        return ExitCode.INPUT_ERROR
    if args.fmt is not None:
        from assay.formats.registry import UnknownReaderError, get_reader

        try:
            get_reader(args.fmt)
        except UnknownReaderError as exc:
            parser.error(f"--from: {exc}")  # exits with USAGE_ERROR

    show_progress = (
        not (args.quiet or args.no_progress) and sys.stderr is not None and sys.stderr.isatty()
    )
    return _evaluate_and_report(args, parser, show_progress)


def _evaluate_and_report(
    args: argparse.Namespace,
    parser: argparse.ArgumentParser,
    show_progress: bool,
) -> int:
    from assay.cli._junit import write_junit_file
    from assay.cli.report import html_after_evaluate
    from assay.formats.registry import UnknownReaderError
    from assay.pipeline import EvaluateOptions, evaluate
    from assay.reports.console import Progress, import_rich, print_summary
    from assay.scorers.registry import UnknownScorerError

    try:
        scorer_options = _scorer_options(args)
    except _SettingError as exc:
        parser.error(str(exc))  # exits with USAGE_ERROR
    cache_problem = _judge_cache_problem(scorer_options)
    if cache_problem is not None:
        error(cache_problem)
        return ExitCode.INPUT_ERROR
    thresholds = None
    if args.red_flags:
        from assay.reports.red_flags import RedFlagThresholds

        thresholds = RedFlagThresholds(**dict(args.red_flags))
    options = EvaluateOptions(
        trajectories=args.trajectories,
        scenarios=tuple(args.scenarios),
        reports_dir=args.reports_dir,
        scorer_default=args.scorer_default,
        scorers=tuple(dict.fromkeys(args.scorers)),
        scorer_options=scorer_options,
        workers=args.workers,
        red_flag_thresholds=thresholds,
        reader=args.fmt,
        limits=_limits(args),
    )
    rich_imported = args.quiet

    def on_progress() -> None:
        nonlocal rich_imported
        progress.advance()
        if not rich_imported:
            rich_imported = True
            import_rich()

    try:
        with Progress(enabled=show_progress) as progress:
            summary = evaluate(options, on_progress=on_progress)
    except UnknownScorerError as exc:
        parser.error(str(exc))  # exits with USAGE_ERROR
    except UnknownReaderError as exc:
        parser.error(f"--from: {exc}")  # exits with USAGE_ERROR
    except OSError as exc:
        error(f"{exc.strerror or exc}: {exc.filename or ''}".rstrip(": "))
        return ExitCode.INPUT_ERROR
    except KeyboardInterrupt:
        error(f"interrupted; reports of finished runs are in {path_text(args.reports_dir)}")
        return ExitCode.INTERNAL_ERROR
    except Exception as exc:
        if args.verbose:
            raise
        error(f"internal error: {type(exc).__name__}: {exc} (run with -v for the traceback)")
        return ExitCode.INTERNAL_ERROR

    if not args.quiet:
        # Paths are shown as in the reports (a name that is not UTF-8 with `\xNN` escapes).
        print_summary(summary, Path(path_text(args.reports_dir)), verbose=args.verbose)
    if (junit_failed := write_junit_file(args.reports_dir, args.junit)) is not None:
        return junit_failed
    if args.html is not None and not html_after_evaluate(args.reports_dir, args.html):
        return ExitCode.INPUT_ERROR
    totals = summary.totals
    if totals["runs_read"] == totals["unreadable"]:  # not a single run record was found
        shown = path_text(args.trajectories)
        error(f"no runs found (no readable *.json or *.jsonl) under {shown}")
        return ExitCode.INPUT_ERROR
    below = below_fail_under(summary, args.fail_under)
    if below is not None:
        error(below)
        return ExitCode.THRESHOLD_NOT_MET
    return ExitCode.OK
