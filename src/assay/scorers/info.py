"""What a scorer declares: its options, read from its factory's keyword parameters.

A scorer's options are its factory's parameters: each has a name, a type annotation and a
default (or is required). `read_info` reads them once into a `ScorerInfo`, which lists them
(`assay scorers`), checks option names, and records what a scorer ran with (`ScorerSpec`).

Example:
    >>> def shout(*, times: int = 1, word: str = "hi") -> None:
    ...     '''Say the word, loudly.'''
    >>> info = read_info("shout", shout)
    >>> info.summary, [(o.name, o.type_name, o.default) for o in info.options]
    ('Say the word, loudly.', [('times', 'int', 1), ('word', 'str', 'hi')])
    >>> info.spec({"times": 3})
    {'name': 'shout', 'options': {'times': 3, 'word': 'hi'}}
"""

from __future__ import annotations

import collections.abc
import dataclasses
import inspect
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import TYPE_CHECKING, Any, TypedDict

from assay.scorers._convert import _MAPPINGS, _PLAIN, _SEQUENCES
from assay.scorers._describe import json_ready, type_name

if TYPE_CHECKING:
    from assay.scorers.registry import ScorerGroup

REQUIRED: Any = inspect.Parameter.empty
"""The `default` of an option that must be given."""


class ScorerSpec(TypedDict):
    """What one scorer ran with, as the aggregate report records it."""

    name: str
    """The scorer's registered name."""

    options: dict[str, Any]
    """Every option's value as used, defaults included, JSON-ready (secrets redacted)."""


@dataclass(frozen=True, slots=True)
class OptionInfo:
    """One option of a scorer: a keyword parameter of its factory."""

    name: str
    """The option's (parameter's) name."""

    type: Any
    """The annotated type, resolved (`Any` where the factory gives none)."""

    default: Any = REQUIRED
    """The default value, or `REQUIRED`."""

    @property
    def required(self) -> bool:
        """Whether the option must be given (it has no default)."""
        return self.default is REQUIRED

    @property
    def type_name(self) -> str:
        """The type as people read it, e.g. `int | None`."""
        return type_name(self.type)

    @property
    def code_only(self) -> bool:
        """Only code can give the option (a function, an object): not `-S`, not JSON (see
        `code_only`). `assay scorers` lists such options only with `-v`."""
        return code_only(self.type)

    def to_json(self) -> dict[str, Any]:
        """The option as JSON-ready data (its default JSON-ready too)."""
        return {
            "name": self.name,
            "type": self.type_name,
            "required": self.required,
            "default": None if self.required else json_ready(self.default, self.name),
        }


@dataclass(frozen=True, slots=True)
class ScorerInfo:
    """A registered scorer: its name, where it lives, what it does and its options."""

    name: str
    """The registered name."""

    module: str
    """The module that defines the factory."""

    doc: str
    """The factory's docstring, cleaned of indentation ("" when it has none)."""

    is_async: bool
    """Declared with `is_async=True`: its scorers have `score_async` and ask a model."""

    options: tuple[OptionInfo, ...]
    """The options, in the factory's order."""

    takes_any_option: bool = False
    """The factory also takes `**options`: option names beyond `options` are accepted."""

    group: ScorerGroup = "other"
    """What the scorer looks at, as it declared when registered (`register_scorer(...,
    group=...)`; `SCORER_GROUPS`); `other` when it declared none."""

    factory: Callable[..., Any] | None = field(default=None, compare=False, repr=False)
    """The factory itself."""

    @property
    def summary(self) -> str:
        """The docstring's first paragraph, on one line."""
        paragraph = self.doc.strip().split("\n\n", 1)[0]
        return " ".join(paragraph.split())

    @property
    def description(self) -> str:
        """What the scorer checks and what it needs, in one line: the first paragraph of its
        factory's docstring (the `summary`), for built-in and installed scorers alike."""
        return self.summary

    def option(self, name: str) -> OptionInfo | None:
        """The option called `name`, or None."""
        for option in self.options:
            if option.name == name:
                return option
        return None

    def spec(self, given: Mapping[str, Any]) -> ScorerSpec:
        """What a scorer built with the options `given` runs with: every option, defaults
        included, as JSON-ready values; secrets such as API keys show as `<redacted>`.

        Raises:
            TypeError: `given` names an option the factory does not take.
        """
        unknown = [key for key in given if self.option(key) is None]
        if unknown and not self.takes_any_option:
            raise TypeError(f"{self.name} has no option {unknown[0]!r}")
        values = {o.name: given.get(o.name, o.default) for o in self.options}
        values.update((key, given[key]) for key in unknown)
        return {
            "name": self.name,
            "options": {
                key: json_ready(value, key)
                for key, value in values.items()
                if value is not REQUIRED  # a required option not given: the build failed
            },
        }

    def to_json(self) -> dict[str, Any]:
        """The scorer as JSON-ready data (`assay scorers --json`): `name`, `module`, `group`,
        `description` (the line `assay scorers` shows; `summary` is the same text, kept for
        the scripts that read it), `doc`, `is_async`, `options` (every one, those only code
        can give too) and `takes_any_option`."""
        return {
            "name": self.name,
            "module": self.module,
            "group": self.group,
            "description": self.description,
            "summary": self.summary,
            "doc": self.doc,
            "is_async": self.is_async,
            "options": [option.to_json() for option in self.options],
            "takes_any_option": self.takes_any_option,
        }


def read_info(
    name: str,
    factory: Callable[..., Any],
    *,
    is_async: bool = False,
    shared: type | None = None,
    group: ScorerGroup = "other",
) -> ScorerInfo:
    """Read the options of `factory` (registered as `name`) from its signature, and from the
    fields of `shared`, the dataclass of options it takes as `**options` (its own parameters
    first; one of the same name wins).

    Annotations are resolved with `typing.get_type_hints`; a parameter without one, or whose
    annotation cannot be resolved, is typed `Any`. Positional-only and `*args` parameters are
    not options (a scorer is built from keywords only).

    Example:
        >>> from dataclasses import dataclass
        >>> @dataclass(kw_only=True)
        ... class Common:
        ...     model: str | None = None
        >>> def judge(*, prompt: str = "", **options: Any) -> None: ...
        >>> [o.name for o in read_info("judge", judge, shared=Common).options]
        ['prompt', 'model']
    """
    signature = inspect.signature(factory)
    hints = _hints(factory)
    options = []
    takes_any = False
    for parameter in signature.parameters.values():
        if parameter.kind is inspect.Parameter.VAR_KEYWORD:
            takes_any = shared is None
        elif parameter.kind in (
            inspect.Parameter.KEYWORD_ONLY,
            inspect.Parameter.POSITIONAL_OR_KEYWORD,
        ):
            options.append(
                OptionInfo(parameter.name, hints.get(parameter.name, Any), parameter.default)
            )
    if shared is not None:
        own = {option.name for option in options}
        shared_hints = typing.get_type_hints(shared)
        for item in dataclasses.fields(shared):
            if item.name in own:
                continue
            if item.default is not dataclasses.MISSING:
                default = item.default
            elif item.default_factory is not dataclasses.MISSING:
                default = item.default_factory()
            else:
                default = REQUIRED
            options.append(OptionInfo(item.name, shared_hints.get(item.name, Any), default))
    return ScorerInfo(
        name=name,
        module=getattr(factory, "__module__", None) or "",
        doc=inspect.getdoc(factory) or "",
        is_async=is_async,
        options=tuple(options),
        takes_any_option=takes_any,
        group=group,
        factory=factory,
    )


def code_only(kind: Any) -> bool:
    """Whether no value of the type `kind` can be written as text or JSON, so that only code
    that builds the scorer can give it: a function, an object of a class other than plain
    values and paths, or a collection of them. What `-S` converts (`assay.scorers._convert`) is
    the rest; an option without a type (`Any`) is not code only.

    Example:
        >>> from collections.abc import Callable, Mapping, Sequence
        >>> code_only(Callable[[], object] | None), code_only(Mapping[str, Any] | None)
        (True, False)
        >>> code_only(tuple[str, ...]), code_only(Sequence[Callable[[], object]])
        (False, True)
    """
    origin = typing.get_origin(kind)
    args = typing.get_args(kind)
    if origin is typing.Union or origin is types.UnionType:
        members = [arg for arg in args if arg is not type(None)]
        return bool(members) and all(code_only(arg) for arg in members)
    if origin is collections.abc.Callable or kind is collections.abc.Callable:
        return True
    if origin in _SEQUENCES or origin in _MAPPINGS:
        return any(code_only(arg) for arg in args if arg is not Ellipsis)
    if origin is not None:  # a choice of values reads by name; other generics are objects
        return origin is not typing.Literal
    if kind is Any or kind is object or kind is None or kind is type(None):
        return False
    if isinstance(kind, type):
        plain = kind in _PLAIN or kind in _SEQUENCES or kind in _MAPPINGS
        return not (plain or issubclass(kind, PurePath))
    return False


def _hints(factory: Callable[..., Any]) -> dict[str, Any]:
    target = factory.__init__ if inspect.isclass(factory) else factory
    try:
        return typing.get_type_hints(target)
    except Exception:  # a plugin's unresolvable annotation: typed Any, not fatal
        # One at a time, so that one bad annotation does not lose the others.
        found: dict[str, Any] = {}
        for key, annotation in getattr(target, "__annotations__", {}).items():
            if key == "return":
                continue
            try:
                found[key] = typing.get_type_hints(_Annotated({key: annotation}, target))[key]
            except Exception:
                found[key] = Any
        return found


class _Annotated:
    """Stands in for a function with only the given annotations, in the function's globals."""

    def __init__(self, annotations: dict[str, Any], like: Any) -> None:
        self.__annotations__ = annotations
        self.__globals__ = getattr(like, "__globals__", {})
