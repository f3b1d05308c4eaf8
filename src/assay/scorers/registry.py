"""The scorer registry: scorers by name, built-in and from the `assay.scorers` entry points.

A scorer is a pure function `(case, trajectory) -> Score`. It is registered as a *factory* that
takes the scorer's options and returns that function, so a report can name the scorer and the
options it ran with.

Example:
    >>> from assay.results import Score
    >>> @register_scorer("always_pass")
    ... def always_pass() -> Scorer:
    ...     def score(case, run):
    ...         return Score.scored("always_pass", 1.0, passed=True)
    ...     return score
    >>> create_scorer("always_pass")(None, None).passed
    True
"""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable, Mapping
from importlib import import_module
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar

from assay._suggest import did_you_mean

if TYPE_CHECKING:
    from assay.records import Case, Trajectory
    from assay.results import Score
    from assay.scorers.info import ScorerInfo, ScorerSpec

Scorer = Callable[["Case", "Trajectory"], "Score"]
"""A scorer: pure, no I/O, returns a Score for one run against one case."""

ScorerFactory = Callable[..., Scorer]
"""Builds a scorer from keyword options."""


class AsyncScorer(Protocol):
    """What a scorer declared with `is_async=True` is: a scorer that can also be awaited, so
    that many runs wait for a model together."""

    def __call__(self, case: Case, run: Trajectory, /) -> Score:
        """Score one run, blocking until done."""

    def score_async(self, case: Case, run: Trajectory, /) -> Awaitable[Score]:
        """Score one run without blocking the event loop."""


ScorerGroup = Literal["answers", "trajectories", "checks", "judges", "other"]
"""What a scorer looks at, as `assay scorers` groups the list (see `SCORER_GROUPS`)."""

SCORER_GROUPS: dict[ScorerGroup, tuple[str, str]] = {
    "answers": ("answers", "the final answer against the expected answer"),
    "trajectories": ("trajectories", "tool calls, their order and turns; nodes; delegation"),
    "checks": ("rule checks", "budgets, escalation, confirmation, retries, tool errors"),
    "judges": ("judges", "a judge model's verdict (they need a judge model)"),
    "other": ("other", "scorers that declare no group"),
}
"""Each group's title and what its scorers look at, in the order `assay scorers` lists them.
A scorer declares its group when it is registered (`register_scorer(..., group=...)`); one that
declares none, as a plugin written before groups existed, is in `other`."""

_F = TypeVar("_F", bound=Callable[..., Any])

_REGISTRY: dict[str, ScorerFactory] = {}
_ASYNC: set[str] = set()
"""Names registered with `is_async=True`."""
_OPTIONS_TYPES: dict[str, type] = {}
"""The options type a scorer declared beside its keyword parameters (`options=`)."""
_GROUPS: dict[str, ScorerGroup] = {}
"""The group a scorer declared (`group=`); not there: `other`."""
_INFO: dict[str, ScorerInfo] = {}
"""`ScorerInfo` by name, read on first request."""

_SUPPORT_MODULES = frozenset({"registry", "info"})
"""The modules of this package that register no scorer; every other public one is a family of
scorers, registered as it is imported."""

_builtin_modules: list[str] | None = None
"""The scorer modules of this package, once they are imported."""


def _load_builtins() -> list[str]:
    """Import every scorer module of this package (each registers its scorers as it loads):
    the modules themselves are the list of built-in scorers. All of them take some 13 ms."""
    global _builtin_modules
    if _builtin_modules is None:
        import pkgutil

        import assay.scorers as package

        names = [
            f"{package.__name__}.{module.name}"
            for module in pkgutil.iter_modules(package.__path__)
            if not module.name.startswith("_") and module.name not in _SUPPORT_MODULES
        ]
        for name in names:
            import_module(name)
        _builtin_modules = names
    return _builtin_modules


ENTRY_POINT_GROUP = "assay.scorers"


class UnknownScorerError(LookupError):
    """No scorer of that name is built in or installed."""


def register_scorer(
    name: str,
    *,
    is_async: bool = False,
    options: type | None = None,
    group: ScorerGroup = "other",
) -> Callable[[_F], _F]:
    """Register a scorer factory under `name` (a decorator).

    The factory's keyword parameters are the scorer's options: give each a type annotation
    and a default (or none, to make it required). `assay scorers` lists them and
    `assay evaluate -S NAME.OPTION=VALUE` sets them. The first paragraph of the factory's
    docstring is the scorer's one-line description in that list: say there what the scorer
    checks and what it needs ("Checks the final response holds every expected phrase."), not
    that the function builds a scorer.

    Example:
        >>> @register_scorer("short_answer", group="answers")
        ... def short_answer(*, max_words: int = 20) -> Scorer:
        ...     "Checks the final answer is at most `max_words` words long."
        ...     def score(case, run):
        ...         fits = len(str(run.answer).split()) <= max_words
        ...         return Score.scored("short_answer", float(fits), passed=fits)
        ...     return score
        >>> info = scorer_info("short_answer")
        >>> info.group, info.description
        ('answers', 'Checks the final answer is at most `max_words` words long.')
        >>> [(o.name, o.type_name, o.default) for o in info.options]
        [('max_words', 'int', 20)]

    Args:
        name: The scorer's name, as `--scorer` and scenarios' `scoring_method` give it.
        is_async: The scorers it builds ask a model: they have `score_async` (see
            `AsyncScorer`), and the pipeline awaits many runs at once.
        options: A dataclass of options the factory takes as `**options` beside its own
            keyword parameters (the judges share `JudgeOptions`): its fields are options too,
            listed after the factory's own (an own parameter of the same name wins).
        group: What the scorer looks at, the group `assay scorers` lists it in (see
            `SCORER_GROUPS`): `answers`, `trajectories`, `checks` (rule checks), `judges`,
            or `other` (the default).

    Raises:
        ValueError: `group` is none of `SCORER_GROUPS`.
    """
    if group not in SCORER_GROUPS:
        known = ", ".join(SCORER_GROUPS)
        raise ValueError(f"scorer {name!r}: unknown group {group!r} (one of: {known})")

    def decorate(factory: _F) -> _F:
        _REGISTRY[name] = factory
        _INFO.pop(name, None)
        _GROUPS[name] = group
        if options is None:
            _OPTIONS_TYPES.pop(name, None)
        else:
            _OPTIONS_TYPES[name] = options
        if is_async:
            _ASYNC.add(name)
        else:
            _ASYNC.discard(name)
        return factory

    return decorate


def get_scorer_factory(name: str) -> ScorerFactory:
    """The factory registered as `name`, importing built-ins and plugins as needed."""
    if name not in _REGISTRY:
        _load_builtins()
    if name not in _REGISTRY:
        _load_entry_point(name)
    try:
        return _REGISTRY[name]
    except KeyError:
        known = available_scorers()
        hint = did_you_mean(name, known) or f"; available: {', '.join(known)}"
        raise UnknownScorerError(f"unknown scorer {name!r}{hint}") from None


def create_scorer(name: str, **options: Any) -> Scorer:
    """Build the scorer `name` with `options`."""
    return get_scorer_factory(name)(**options)


def scorer_info(name: str) -> ScorerInfo:
    """What the scorer `name` declares: its options with their types and defaults.

    Raises:
        UnknownScorerError: no such scorer.

    Example:
        >>> info = scorer_info("max_turns")
        >>> info.is_async, [(o.name, o.type_name, o.default) for o in info.options]
        (False, [('limit', 'int | None', None)])
    """
    found = _INFO.get(name)
    if found is None:
        from assay.scorers.info import read_info

        factory = get_scorer_factory(name)
        found = _INFO[name] = read_info(
            name,
            factory,
            is_async=name in _ASYNC,
            shared=_OPTIONS_TYPES.get(name),
            group=_GROUPS.get(name, "other"),
        )
    return found


def scorer_spec(name: str, options: Mapping[str, Any]) -> ScorerSpec:
    """What the scorer `name` built with `options` runs with: `{"name", "options"}`, every
    option included (defaults too), JSON-ready, secrets redacted.

    Example:
        >>> scorer_spec("tool_name_match", {"threshold": 0.5})
        {'name': 'tool_name_match', 'options': {'threshold': 0.5, 'tools': None}}
    """
    return scorer_info(name).spec(options)


def is_async_scorer(name: str) -> bool:
    """Whether `name` is declared with `is_async=True` (False for an unknown name).

    Example:
        >>> is_async_scorer("llm_judge"), is_async_scorer("static_json"), is_async_scorer("?")
        (True, False, False)
    """
    try:
        get_scorer_factory(name)
    except UnknownScorerError:
        return False
    return name in _ASYNC


def builtin_scorers() -> list[str]:
    """Names of the scorers that come with assay.

    Example:
        >>> "static_json" in builtin_scorers() and "llm_judge" in builtin_scorers()
        True
    """
    modules = {name: sys.modules[name] for name in _load_builtins()}
    return sorted(
        name
        for name, factory in _REGISTRY.items()
        if factory.__module__ in modules
        and getattr(modules[factory.__module__], factory.__name__, None) is factory
    )


def available_scorers() -> list[str]:
    """Names of every scorer that can be created."""
    from importlib.metadata import entry_points

    _load_builtins()
    names = set(_REGISTRY)
    names |= {ep.name for ep in entry_points(group=ENTRY_POINT_GROUP)}
    return sorted(names)


def all_scorers() -> tuple[list[ScorerInfo], dict[str, str]]:
    """Every scorer that can be created, and the installed ones that could not be loaded
    (name -> why), so that a broken plugin is reported rather than left out unsaid.

    Example:
        >>> infos, problems = all_scorers()
        >>> next(info for info in infos if info.name == "max_turns").options[0].name
        'limit'
    """
    infos: list[ScorerInfo] = []
    problems: dict[str, str] = {}
    for name in available_scorers():
        try:
            infos.append(scorer_info(name))
        except Exception as exc:  # a broken plugin is reported, not fatal
            problems[name] = f"{type(exc).__name__}: {exc}"
    return infos, problems


def _load_entry_point(name: str) -> None:
    from importlib.metadata import entry_points

    for ep in entry_points(group=ENTRY_POINT_GROUP, name=name):
        factory = ep.load()
        if name not in _REGISTRY:
            _REGISTRY[name] = factory
            # A plugin that registered its factory under another name declared it there.
            if any(f is factory for n, f in _REGISTRY.items() if n in _ASYNC):
                _ASYNC.add(name)
            groups = [_GROUPS[n] for n, f in _REGISTRY.items() if f is factory and n in _GROUPS]
            if groups:
                _GROUPS[name] = groups[0]
