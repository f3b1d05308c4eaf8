"""The registry: declared options, declared async scorers, specs, and the built-in list."""

from __future__ import annotations

import ast
import dataclasses
import inspect
import pkgutil
import subprocess
import sys
import typing
from collections.abc import Iterator
from importlib import import_module
from pathlib import Path
from typing import Any, Literal

import pytest

import assay.scorers
from assay.records import Case, Trajectory
from assay.results import Score
from assay.scorers import registry
from assay.scorers.info import REQUIRED, read_info
from assay.scorers.registry import (
    Scorer,
    UnknownScorerError,
    builtin_scorers,
    create_scorer,
    is_async_scorer,
    register_scorer,
    scorer_info,
    scorer_spec,
)

JUDGES = {"llm_judge", "rubric", "trajectory_judge", "safety", "factuality", "hallucination"}


@pytest.fixture
def clean_registry() -> Iterator[None]:
    """Registrations made by a test are forgotten after it."""
    saved = (dict(registry._REGISTRY), set(registry._ASYNC), dict(registry._INFO))
    groups = dict(registry._GROUPS)
    yield
    registry._REGISTRY.clear()
    registry._REGISTRY.update(saved[0])
    registry._ASYNC.clear()
    registry._ASYNC.update(saved[1])
    registry._INFO.clear()
    registry._INFO.update(saved[2])
    registry._GROUPS.clear()
    registry._GROUPS.update(groups)


def _public_scorer_modules() -> list[str]:
    return [
        f"assay.scorers.{module.name}"
        for module in pkgutil.iter_modules(assay.scorers.__path__)
        if not module.name.startswith("_")
    ]


def test_the_built_ins_are_what_the_scorer_modules_register() -> None:
    modules = {name: import_module(name) for name in _public_scorer_modules()}
    # What the modules define at their top level (not what tests or doctests registered).
    registered = {
        name
        for name, factory in registry._REGISTRY.items()
        if factory.__module__ in modules
        and getattr(modules[factory.__module__], factory.__name__, None) is factory
    }
    assert set(builtin_scorers()) == registered
    assert {"static_json", "trajectory", "llm_judge", "node_order"} <= registered


@pytest.mark.parametrize("name", builtin_scorers())
def test_every_built_in_option_is_a_typed_keyword_with_a_default_or_required(name: str) -> None:
    factory = registry.get_scorer_factory(name)
    hints = typing.get_type_hints(factory)  # every annotation resolves at run time
    info = scorer_info(name)
    for parameter in inspect.signature(factory).parameters.values():
        if parameter.kind is inspect.Parameter.VAR_KEYWORD:  # a declared options type's
            assert registry._OPTIONS_TYPES.get(name) is not None, name
            continue
        assert parameter.kind is inspect.Parameter.KEYWORD_ONLY, (name, parameter.name)
        assert parameter.annotation is not inspect.Parameter.empty, (name, parameter.name)
        assert parameter.name in hints
    assert not info.takes_any_option
    assert info.summary, f"{name} has no docstring to summarise"
    assert info.description == info.summary and not info.summary.startswith("Build the")


def test_exactly_the_judges_are_declared_async() -> None:
    declared = {name for name in builtin_scorers() if is_async_scorer(name)}
    assert declared == JUDGES
    assert all(scorer_info(name).is_async for name in JUDGES)


def test_the_judges_share_one_options_type() -> None:
    from assay.scorers._judge_options import JudgeOptions

    shared = [field.name for field in dataclasses.fields(JudgeOptions)]
    for name in JUDGES:
        assert registry._OPTIONS_TYPES[name] is JudgeOptions
        names = [option.name for option in scorer_info(name).options]
        assert set(shared) <= set(names), name
    assert scorer_info("safety").option("threshold").default == 0.5  # its own default wins
    with pytest.raises(TypeError, match="no_such"):
        create_scorer("llm_judge", model="m", no_such=1)


def test_a_declared_async_scorer_builds_objects_that_can_be_awaited() -> None:
    judge = create_scorer("llm_judge", model="local/judge-1", client_factory=lambda: None)
    assert callable(judge.score_async)  # type: ignore[attr-defined]
    assert not hasattr(create_scorer("max_turns"), "score_async")


def test_plain_registration_still_works_and_is_async_is_declared(clean_registry: None) -> None:
    @register_scorer("test_plain")
    def plain(*, level: int = 2) -> Scorer:
        return lambda case, run: Score.scored("test_plain", 1.0, passed=True)

    @register_scorer("test_waits", is_async=True)
    def waits(*, model: str) -> Scorer:
        return lambda case, run: Score.scored("test_waits", 1.0, passed=True)

    assert not is_async_scorer("test_plain") and is_async_scorer("test_waits")
    assert scorer_info("test_waits").option("model").required  # type: ignore[union-attr]
    assert scorer_info("test_plain").option("level").default == 2  # type: ignore[union-attr]

    @register_scorer("test_waits")  # registered again, no longer async: the info follows
    def waits_again(*, model: str = "m") -> Scorer:
        return plain()

    assert not is_async_scorer("test_waits")
    assert scorer_info("test_waits").option("model").default == "m"  # type: ignore[union-attr]


def test_an_unknown_name_is_not_async_and_has_no_info() -> None:
    assert is_async_scorer("no_such_scorer_here") is False
    with pytest.raises(UnknownScorerError, match="no_such_scorer_here"):
        scorer_info("no_such_scorer_here")


def test_a_spec_has_every_option_with_defaults_json_ready_and_no_secrets() -> None:
    spec = scorer_spec(
        "llm_judge",
        {
            "model": "local/judge-1",
            "num_samples": 3,
            "client_options": {
                "api_key": "sk-secret",
                "cache_dir": Path("cache"),
                "prices": {"m": (1.0, 2.0)},
                "timeout_s": 5.0,
            },
        },
    )
    assert spec["name"] == "llm_judge"
    options = spec["options"]
    assert options["num_samples"] == 3 and options["aggregation"] == "mean"  # given, default
    assert options["client_options"] == {
        "api_key": "<redacted>",
        "cache_dir": "cache",
        "prices": {"m": [1.0, 2.0]},
        "timeout_s": 5.0,
    }
    assert "sk-secret" not in repr(spec)
    assert set(options) == {o.name for o in scorer_info("llm_judge").options}


def test_a_spec_names_a_function_by_its_qualified_name_not_its_address() -> None:
    def make_client() -> None:
        return None

    spec = scorer_spec("safety", {"model": "m/x", "client_factory": make_client})
    factory = spec["options"]["client_factory"]
    assert factory.endswith("make_client") and "0x" not in factory
    assert spec["options"]["categories"][0] == "harassment"  # a tuple default, as a list


def test_a_spec_refuses_an_option_the_scorer_does_not_take() -> None:
    with pytest.raises(TypeError, match="temperature"):
        scorer_spec("llm_judge", {"temperature": 1})


def test_a_factory_taking_any_option_lists_its_own_and_records_the_rest() -> None:
    def loose(threshold: float = 0.5, **extra: Any) -> Scorer:
        """Loose."""
        raise NotImplementedError

    info = read_info("loose", loose)
    assert info.takes_any_option and [o.name for o in info.options] == ["threshold"]
    assert info.spec({"colour": "red"})["options"] == {"threshold": 0.5, "colour": "red"}


def test_a_group_is_declared_at_registration_and_other_without_one(
    clean_registry: None,
) -> None:
    @register_scorer("test_grouped", group="answers")
    def grouped() -> Scorer:
        """Checks the answer."""
        raise NotImplementedError

    @register_scorer("test_ungrouped")
    def ungrouped() -> Scorer:
        """Checks something else."""
        raise NotImplementedError

    assert scorer_info("test_grouped").group == "answers"
    assert scorer_info("test_ungrouped").group == "other"
    assert scorer_info("test_grouped").description == "Checks the answer."
    with pytest.raises(ValueError, match="unknown group 'answer'"):
        register_scorer("test_typo", group="answer")  # type: ignore[arg-type]
    assert "test_typo" not in registry._REGISTRY
    # registered again without a group, it is in none: the latest registration is the scorer
    register_scorer("test_grouped")(grouped)
    assert scorer_info("test_grouped").group == "other"


def test_scorer_groups_are_the_declared_literal_in_listing_order() -> None:
    assert tuple(registry.SCORER_GROUPS) == typing.get_args(registry.ScorerGroup)
    assert list(registry.SCORER_GROUPS)[-1] == "other"


def test_options_only_code_can_give_are_functions_and_objects() -> None:
    from collections.abc import Callable, Iterable, Mapping, Sequence

    from assay.records import Rubric
    from assay.scorers.info import code_only

    assert code_only(Callable[[], Any] | None) and code_only(Callable)
    assert code_only(Rubric) and code_only(Sequence[Callable[[], Any]])
    assert code_only(type[int]) and code_only(Mapping[str, Callable[[], Any]])
    for kind in (
        int, float | None, str, bool, Path, Any, Literal["a", "b"], Iterable[str] | None,
        Mapping[str, Any], tuple[str, ...], Sequence[Rubric | Mapping[str, Any]] | None,
        list, dict,
    ):  # fmt: skip
        assert not code_only(kind), kind
    info = scorer_info("llm_judge")
    assert [option.name for option in info.options if option.code_only] == ["client_factory"]


def test_an_entry_point_factory_registered_under_another_name_keeps_its_group(
    clean_registry: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    @register_scorer("test_plugin_grouped_internal", group="checks")
    def factory() -> Scorer:
        """Checks a rule."""
        raise NotImplementedError

    class FakeEntryPoint:
        name = "test_plugin_grouped_public"

        def load(self) -> Any:
            return factory

    def entry_points(*, group: str, name: str | None = None) -> list[FakeEntryPoint]:
        found = [FakeEntryPoint()] if group == registry.ENTRY_POINT_GROUP else []
        return [ep for ep in found if name in (None, ep.name)]

    monkeypatch.setattr("importlib.metadata.entry_points", entry_points)
    assert scorer_info("test_plugin_grouped_public").group == "checks"


def test_an_annotation_that_does_not_resolve_is_typed_any() -> None:
    def odd(*, known: int = 1, unknown: NoSuchType = None) -> Scorer:  # type: ignore[name-defined]  # noqa: F821
        raise NotImplementedError

    info = read_info("odd", odd)
    assert [(o.name, o.type_name) for o in info.options] == [("known", "int"), ("unknown", "Any")]
    assert info.option("known").default == 1  # type: ignore[union-attr]
    assert info.option("unknown").default is None  # type: ignore[union-attr]
    assert REQUIRED is inspect.Parameter.empty


def test_an_entry_point_factory_declared_async_under_another_name_stays_async(
    clean_registry: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    @register_scorer("test_plugin_internal", is_async=True)
    def factory(*, model: str = "m") -> Scorer:
        raise NotImplementedError

    class FakeEntryPoint:
        name = "test_plugin_public"

        def load(self) -> Any:
            return factory

    def entry_points(*, group: str, name: str | None = None) -> list[FakeEntryPoint]:
        found = [FakeEntryPoint()] if group == registry.ENTRY_POINT_GROUP else []
        return [ep for ep in found if name in (None, ep.name)]

    monkeypatch.setattr("importlib.metadata.entry_points", entry_points)
    assert is_async_scorer("test_plugin_public")
    assert scorer_info("test_plugin_public").is_async


def test_all_scorers_reports_a_plugin_that_does_not_load(
    clean_registry: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    class BrokenEntryPoint:
        name = "test_broken_plugin"

        def load(self) -> Any:
            raise ImportError("no module named 'missing_dependency'")

    def entry_points(*, group: str, name: str | None = None) -> list[BrokenEntryPoint]:
        return [BrokenEntryPoint()] if name in (None, "test_broken_plugin") else []

    monkeypatch.setattr("importlib.metadata.entry_points", entry_points)
    infos, problems = registry.all_scorers()
    assert "missing_dependency" in problems["test_broken_plugin"]
    assert {info.name for info in infos} >= set(builtin_scorers())


def test_help_imports_no_scorer_module() -> None:
    """`--help` builds every parser, the judge flags from the judges' declared options
    (`_judge_options`, a module of dataclasses), and loads no scorer."""
    code = (
        "import sys\n"
        "from assay.cli.main import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in sys.modules if m.startswith('assay.scorers')))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    loaded = set(ast.literal_eval(proc.stdout.strip().splitlines()[-1]))
    assert loaded <= {"assay.scorers", "assay.scorers.registry", "assay.scorers._judge_options"}


def test_a_scorer_built_from_a_spec_options_scores_the_same() -> None:
    """The spec's options are the options: building from them gives the same scorer."""
    given = {"threshold": 0.5, "tools": ["a", "b"]}
    spec = scorer_spec("tool_name_match", given)
    run = Trajectory()
    case = Case(id="1", expected_tools=["a"])
    first = create_scorer("tool_name_match", **given)(case, run)
    again = create_scorer("tool_name_match", **spec["options"])(case, run)
    assert (first.value, first.passed) == (again.value, again.passed)
