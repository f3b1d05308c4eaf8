"""The flag groups `evaluate`, `run` and `rescore` share: what is checked (`--config`,
`-S NAME.OPTION=VALUE`, the judge flags) and how saved runs are read (`--workers`). The first
build the criteria of the one scoring step (`assay.scoring`): what is checked (recorded in
`_config.json`), and apart from it how a judge is called (server, cache, budget, limits),
which is not recorded.
"""

from __future__ import annotations

import argparse
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay._text import path_text
from assay.cli.messages import error

if TYPE_CHECKING:
    from assay.schema.evalconfig import EvalConfig
    from assay.scoring import Criterion

def add_judge_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the judge flags (model, server, samples, limits, budget, cache) to a parser:
    `evaluate` and `run` share them."""
    judges = parser.add_argument_group(
        "judges",
        "for the model-judged scorers (llm_judge, rubric, trajectory_judge, safety, "
        "factuality, hallucination); no model is called unless --judge-model is given",
    )
    _add_shared_judge_options(judges)
    judges.add_argument("--judge-base-url", metavar="URL", help="the judge server's API root")
    judges.add_argument(
        "--judge-preset",
        choices=("agent_review",),
        help="llm_judge: review the whole run on six criteria (task completion, data retrieval "
        "accuracy, result verification, step sequence, clarity, hallucinations) with suggestions",
    )
    judges.add_argument(
        "--judge-concurrency",
        type=positive,
        metavar="N",
        help="judge calls open at once (default 8)",
    )
    judges.add_argument(
        "--judge-timeout",
        type=amount,
        metavar="SECONDS",
        help="seconds per judge call attempt (default 60)",
    )
    judges.add_argument(
        "--judge-call-timeout",
        type=amount,
        metavar="SECONDS",
        help="seconds one judge call may take in all, retries and waits included; a call "
        "that cannot end in time (a longer Retry-After) is unscored at once (default 180)",
    )
    judges.add_argument(
        "--judge-retries",
        type=whole,
        metavar="N",
        help="retries after 429, 5xx and timeouts (default 4)",
    )
    judges.add_argument(
        "--judge-budget-usd",
        type=amount,
        metavar="USD",
        help="stop starting judge calls once they have cost this much (estimated)",
    )
    judges.add_argument(
        "--judge-budget-tokens",
        type=positive,
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



def _shared_judge_dests() -> list[tuple[str, str]]:
    """Each `JudgeOptions` field that has a flag, and the flag's argparse destination."""
    from assay.scorers._judge_options import JudgeOptions, fields

    return [(f.name, f"judge_{f.name}") for f in fields(JudgeOptions) if "flag" in f.metadata]


def _add_shared_judge_options(judges: Any) -> None:
    """The flags of the options every judge takes, made from their declaration
    (`JudgeOptions`): its fields' types say how each flag reads its value."""
    from assay.scorers._judge_options import JudgeOptions, fields

    hints = typing.get_type_hints(JudgeOptions)
    for item in fields(JudgeOptions):
        meta = item.metadata
        if "flag" not in meta:
            continue
        kind = hints[item.name]
        settings: dict[str, Any] = {"dest": f"judge_{item.name}", "help": meta["help"]}
        if kind is bool:
            settings.update(action="store_const", const=True)
        elif typing.get_origin(kind) is typing.Literal:
            settings["choices"] = typing.get_args(kind)
        else:
            accepted = {kind, *typing.get_args(kind)}
            number = next((t for t in (int, float) if t in accepted), None)
            if number is int:
                settings["type"] = positive
            elif number is float:
                settings["type"] = fraction
            settings["metavar"] = meta.get("metavar")
        judges.add_argument(meta["flag"], **settings)


def setting(text: str) -> tuple[str, str, str]:
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


class SettingError(ValueError):
    """A scorer option that cannot be set as asked: a usage error."""


def scorer_options(args: argparse.Namespace) -> dict[str, dict[str, Any]]:
    """Options per scorer: from the flags that set one, the judge flags, then `-S` (which
    wins).

    Raises:
        SettingError: an unknown scorer or option, or a value that does not convert.
    """
    options: dict[str, dict[str, Any]] = {}
    for flag, scorer, option in _FLAG_OPTIONS:
        value = getattr(args, flag, None)  # offline flags: not every command has them
        if isinstance(value, str):  # read as `-S` reads it: the same values, the same errors
            value = _converted(scorer, option, value)
        if value is not None:
            options.setdefault(scorer, {})[option] = value
    for scorer, chosen in judge_options(args).items():
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
        raise SettingError(f"{where}: {exc}") from None
    except Exception as exc:  # an installed scorer that does not import
        raise SettingError(f"{where}: cannot load scorer {scorer!r}: {exc}") from None
    declared = info.option(option)
    if declared is None and not info.takes_any_option:
        known = ", ".join(o.name for o in info.options) or "none"
        raise SettingError(f"{where}: {scorer} has no option {option!r} (its options: {known})")
    kind = Any if declared is None else declared.type
    try:
        return from_text(text, kind)
    except OptionValueError as exc:
        raise SettingError(f"{where}={text}: {exc}") from None



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


positive = _number(int, "a whole number", lambda v: v >= 1, "1 or more")
whole = _number(int, "a whole number", lambda v: v >= 0, "0 or more")
amount = _number(float, "a number", lambda v: 0 < v < float("inf"), "a positive number")
fraction = _number(float, "a number", lambda v: 0 <= v <= 1, "between 0 and 1")



def judge_options(args: argparse.Namespace) -> dict[str, dict[str, Any]]:
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
    shared: dict[str, Any] = {
        name: value
        for name, value in ((name, getattr(args, dest)) for name, dest in _shared_judge_dests())
        if value is not None
    }
    shared["client_options"] = client
    if args.judge_preset:
        shared["preset"] = args.judge_preset
    options: dict[str, dict[str, Any]] = {}
    for name in builtin_scorers():
        if is_async_scorer(name):
            declared = scorer_info(name)
            options[name] = {k: v for k, v in shared.items() if declared.option(k) is not None}
    return options


def judge_cache_problem(options: dict[str, dict[str, Any]]) -> str | None:
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


def add_config_argument(parser: argparse.ArgumentParser, what: str) -> None:
    """Add `--config FILE` (an `EvalConfig`, such as the `_config.json` of a reports
    directory)."""
    parser.add_argument(
        "--config",
        type=Path,
        metavar="FILE",
        help=f"{what} (an EvalConfig JSON file: `assay schema evalconfig`; every reports "
        "directory records its own as _config.json)",
    )


def add_scorer_option_argument(parser: argparse.ArgumentParser) -> None:
    """Add `-S NAME.OPTION=VALUE`."""
    parser.add_argument(
        "-S",
        "--scorer-option",
        dest="scorer_settings",
        action="append",
        default=[],
        type=setting,
        metavar="NAME.OPTION=VALUE",
        help="set an option of a scorer (`assay scorers NAME` lists them), converted to the "
        "option's type: numbers, true/false, a choice by name, lists comma-separated or as "
        "JSON, anything else as JSON; null for none; repeat for several; wins over the "
        "flags that set the same option",
    )


def add_workers_argument(parser: argparse.ArgumentParser) -> None:
    """Add `--workers N`, the processes that read and score saved runs."""
    parser.add_argument(
        "--workers",
        type=whole,
        default=0,
        metavar="N",
        help="processes that read and score runs (default 0: one per CPU; 1: none extra)",
    )


_MAX_CONFIG_BYTES = 16 * 2**20
"""The largest config file read: a config is a few criteria, never megabytes."""


def read_config(path: Path) -> EvalConfig | None:
    """The `EvalConfig` of `--config`, or None after saying why it cannot be used (a file
    that is not a regular one, a FIFO say, is refused rather than waited on)."""
    from pydantic import ValidationError

    from assay.reports.files import read_regular
    from assay.schema.evalconfig import EvalConfig

    try:
        # A link to a config is followed (it is input); a FIFO or a device is refused.
        return EvalConfig.model_validate_json(read_regular(path.resolve(), _MAX_CONFIG_BYTES))
    except OSError as exc:
        error(f"--config: {exc.strerror or exc}: {path_text(path)}")
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        where = ".".join(str(part) for part in first["loc"]) or "config"
        error(f"--config {path_text(path)}: {where}: {first['msg']}")
    return None


@dataclass(slots=True)
class Checks:
    """What a command checks runs with, from its flags: the arguments of `assay.scoring.Scoring`."""

    criteria: tuple[Criterion, ...] = ()
    scorer_default: str | None = None
    scorer_options: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    """The config's options by scorer."""
    settings: dict[str, dict[str, Any]] = field(default_factory=dict)
    """What `-S` and the judge flags give by scorer (winning over `scorer_options`; their
    `client_options` are how a judge is called, never recorded)."""


def flag_options(
    args: argparse.Namespace, parser: argparse.ArgumentParser
) -> dict[str, dict[str, Any]] | None:
    """The options by scorer that `-S` and the judge flags give; None after saying why a
    judge's cache cannot be used (exit 3); a bad `-S` is a usage error (exit 2)."""
    try:
        options = scorer_options(args)
    except SettingError as exc:
        parser.error(str(exc))  # exits with USAGE_ERROR
    problem = judge_cache_problem(options)
    if problem is not None:
        error(problem)
        return None
    return options


def checks_of(
    args: argparse.Namespace,
    parser: argparse.ArgumentParser,
    *,
    scorer_default: str | None = None,
) -> Checks | None:
    """The checks the flags ask for: `--config`, else the `--scorer` names, else each case's
    own scorer (`scorer_default`); `-S` and the judge flags add options by scorer (winning
    over the config's). None after saying why they cannot be used (exit 3).
    """
    options = flag_options(args, parser)
    if options is None:
        return None
    path = getattr(args, "config", None)
    names = list(dict.fromkeys(getattr(args, "scorers", None) or ()))
    config = None
    if path is not None:
        if names:
            parser.error("--config and --scorer both say what to check: give one")
        config = read_config(path)
        if config is None:
            return None
    if config is not None:
        from assay.scoring import criteria_of

        criteria = criteria_of(config)
        default = None if criteria else config.scorer_default
        return Checks(criteria, default, config.scorer_options, options)
    from assay.scoring import Criterion

    criteria = tuple(Criterion(name, name, {}) for name in names)
    return Checks(criteria, None if criteria else scorer_default, {}, options)
