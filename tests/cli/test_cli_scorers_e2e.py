"""End-to-end: `assay scorers`, `assay evaluate -S NAME.OPTION=VALUE`, and the aggregate's
record of the scorers that ran (`scorers` in `_aggregate.json`)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_cli_evaluate_e2e import (
    evaluate,
    make_run,
    read_aggregate,
    reports_by_run_id,
    scenario_folder,
    write_json,
)

from _cli import assay, explain
from assay.cli._criteria import _FLAG_OPTIONS
from assay.cli.main import main
from assay.scorers import registry
from assay.scorers.registry import SCORER_GROUPS, available_scorers, builtin_scorers, scorer_info

GROUPED = {"answers", "trajectories", "checks", "judges"}
"""The groups that say what a scorer looks at (`other` is for those that declare none)."""

UNGROUPED_BUILT_INS = {"composite": "combines scorers of any group: it looks at nothing itself"}
"""The built-in scorers listed under `other`, and why."""

# --- assay scorers --------------------------------------------------------------------------


@pytest.mark.slow
def test_scorers_lists_every_built_in_with_its_summary_and_options() -> None:
    proc = assay("scorers")
    assert proc.returncode == 0, explain(proc)
    for name in builtin_scorers():
        assert any(line.startswith(f"{name} ") for line in proc.stdout.splitlines()), name
    assert "  threshold: float = 1.0" in proc.stdout  # tool_name_match, with its default
    assert "  scorers: Sequence[" in proc.stdout and "(required)" in proc.stdout  # composite
    assert "llm_judge - Asks a judge model whether the answer" in proc.stdout
    assert "max_tokens" in proc.stdout and "client_factory" not in proc.stdout


@pytest.mark.slow
def test_scorers_fits_80_columns_at_columns_80() -> None:
    """The real console script in a terminal 80 columns wide, every way it lists."""
    for flags in ((), ("-v",), ("-q",), ("--help",)):
        proc = assay("scorers", *flags, env={"COLUMNS": "80"})
        assert proc.returncode == 0, explain(proc)
        too_wide = [line for line in proc.stdout.splitlines() if len(line) > 80]
        assert too_wide == [], flags


@pytest.mark.slow
def test_scorers_name_shows_one_in_full() -> None:
    proc = assay("scorers", "static_json")
    assert proc.returncode == 0, explain(proc)
    assert proc.stdout.startswith("static_json (answers; offline; from assay.scorers.static_json)")
    assert "list_order: Literal['content', 'position'] | None = null" in proc.stdout
    assert "set one with: assay evaluate -S static_json.OPTION=VALUE" in proc.stdout


def test_scorers_json_is_the_machine_form(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scorers", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["problems"] == []
    by_name = {item["name"]: item for item in document["scorers"]}
    assert set(by_name) >= set(builtin_scorers())
    judge = by_name["llm_judge"]
    assert judge["is_async"] is True and judge["module"] == "assay.scorers.judges"
    assert list(judge) == [
        "name", "module", "group", "description", "summary", "doc", "is_async", "options",
        "takes_any_option",
    ]  # fmt: skip
    assert judge["group"] == "judges"
    assert judge["description"] == judge["summary"] == scorer_info("llm_judge").description
    assert by_name["static_json"]["group"] == "answers"
    assert "client_factory" in {option["name"] for option in judge["options"]}  # every option
    options = {option["name"]: option for option in judge["options"]}
    assert options["num_samples"] == {
        "name": "num_samples",
        "type": "int",
        "required": False,
        "default": 1,
    }
    assert main(["scorers", "max_turns", "--json"]) == 0
    one = json.loads(capsys.readouterr().out)
    assert one["name"] == "max_turns" and one["options"][0]["name"] == "limit"


# --- the listing: descriptions, groups, options, width -------------------------------------


@pytest.fixture
def columns_80(monkeypatch: pytest.MonkeyPatch) -> None:
    """A terminal 80 columns wide (`shutil.get_terminal_size` reads `COLUMNS` first)."""
    monkeypatch.setenv("COLUMNS", "80")


@pytest.fixture
def plugin(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A third-party scorer as one written before groups existed: a plain factory with a
    docstring, found by its entry point, registered with no group; forgotten after the test."""

    def factory(*, phrase: str = "pumps") -> Any:
        """Pass when the answer mentions `phrase`.

        Args:
            phrase: The word to look for.
        """
        raise NotImplementedError

    class EntryPoint:
        name = "test_third_party"

        def load(self) -> Any:
            return factory

    def entry_points(*, group: str, name: str | None = None) -> list[EntryPoint]:
        found = [EntryPoint()] if group == registry.ENTRY_POINT_GROUP else []
        return [ep for ep in found if name in (None, ep.name)]

    monkeypatch.setattr("importlib.metadata.entry_points", entry_points)
    yield EntryPoint.name
    for table in (registry._REGISTRY, registry._INFO, registry._GROUPS):
        table.pop(EntryPoint.name, None)  # type: ignore[attr-defined]


def _sections(text: str) -> dict[str, list[str]]:
    """The scorer names the listing shows under each group's heading, by heading."""
    titles = {title.upper(): group for group, (title, _) in SCORER_GROUPS.items()}
    sections: dict[str, list[str]] = {}
    current = None
    for line in text.splitlines():
        title, colon, _ = line.partition(": ")
        if colon and title in titles:
            current = titles[title]
            sections[current] = []
        elif line and not line.startswith(" "):
            assert current is not None, line
            sections[current].append(line.split()[0])
    return sections


@pytest.mark.parametrize("name", builtin_scorers())
def test_every_built_in_says_what_it_checks_not_that_it_is_built(name: str) -> None:
    description = scorer_info(name).description
    assert description and not description.startswith("Build"), name
    assert len(description) <= 130, name  # one line's worth, wrapped at most once or twice


@pytest.mark.parametrize("name", builtin_scorers())
def test_every_built_in_declares_a_group_that_says_what_it_looks_at(name: str) -> None:
    group = scorer_info(name).group
    if name in UNGROUPED_BUILT_INS:
        assert group == "other", UNGROUPED_BUILT_INS[name]
    else:
        assert group in GROUPED, name


def test_the_listing_is_grouped_by_what_each_scorer_declared(
    capsys: pytest.CaptureFixture[str], columns_80: None
) -> None:
    assert main(["scorers"]) == 0
    out = capsys.readouterr().out
    sections = _sections(out)
    assert list(sections) == ["answers", "trajectories", "checks", "judges", "other"]
    for group, names in sections.items():
        assert names == sorted(names), group
        assert {scorer_info(name).group for name in names} == {group}
    assert sorted(name for names in sections.values() for name in names) == available_scorers()
    assert "static_json" in sections["answers"] and "trajectory" in sections["trajectories"]
    assert "max_turns" in sections["checks"] and "llm_judge" in sections["judges"]
    assert "Build the" not in out


def test_the_listing_shows_user_options_and_hides_those_only_code_can_give(
    capsys: pytest.CaptureFixture[str], columns_80: None
) -> None:
    assert main(["scorers"]) == 0
    out = capsys.readouterr().out
    assert "client_factory" not in out
    assert "    client_options: Mapping[str, Any] | None = null" in out  # JSON: -S gives it
    assert "    list_order: Literal['content', 'position'] | None = null" in out
    assert "    threshold: float | None = 0.5" in out  # safety's own default
    assert main(["scorers", "llm_judge"]) == 0
    assert "client_factory" not in capsys.readouterr().out
    assert main(["scorers", "-v"]) == 0
    verbose = capsys.readouterr().out
    judges = {name for name in builtin_scorers() if scorer_info(name).group == "judges"}
    marked = "client_factory: Callable | None = null (only code can give it)"
    assert verbose.count(marked) == len(judges)
    assert main(["scorers", "--verbose", "llm_judge"]) == 0
    assert marked in capsys.readouterr().out


@pytest.mark.parametrize("name", builtin_scorers())
def test_an_option_hidden_as_code_only_is_one_dash_s_refuses(name: str) -> None:
    from assay.scorers._convert import OptionValueError, from_text

    for option in scorer_info(name).options:
        if option.code_only:
            with pytest.raises(OptionValueError, match="cannot be given on the command line"):
                from_text("x", option.type)


@pytest.mark.parametrize("flags", [[], ["-v"]])
def test_every_line_fits_80_columns_at_columns_80(
    capsys: pytest.CaptureFixture[str], columns_80: None, flags: list[str]
) -> None:
    assert main(["scorers", *flags]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert max(len(line) for line in lines) > 70  # set to the width, not merely short
    # the long ones are wrapped, not cut: safety's categories go on past the line's end
    assert any(line.strip().endswith('"privacy"]') for line in lines)


def test_the_width_is_the_terminal_s_up_to_100_columns(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "2000")
    assert main(["scorers", "-v"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert 90 < max(len(line) for line in lines) <= 100


def test_quiet_prints_the_names_alone(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scorers", "-q"]) == 0
    assert capsys.readouterr().out.splitlines() == available_scorers()
    assert main(["scorers", "--quiet", "max_turns"]) == 0
    assert capsys.readouterr().out == "max_turns\n"
    with pytest.raises(SystemExit) as exited:
        main(["scorers", "-q", "-v"])
    assert exited.value.code == 2


def test_a_third_party_scorer_without_group_or_description_is_listed_under_other(
    capsys: pytest.CaptureFixture[str], columns_80: None, plugin: str
) -> None:
    assert main(["scorers"]) == 0
    out = capsys.readouterr().out
    assert plugin in _sections(out)["other"]
    assert f"{plugin} - Pass when the answer mentions `phrase`." in out
    assert '    phrase: str = "pumps"' in out
    assert main(["scorers", "--json"]) == 0
    listed = {s["name"]: s for s in json.loads(capsys.readouterr().out)["scorers"]}
    assert listed[plugin]["group"] == "other"
    assert listed[plugin]["description"] == "Pass when the answer mentions `phrase`."
    assert main(["scorers", "-q"]) == 0
    assert plugin in capsys.readouterr().out.splitlines()


@pytest.mark.slow
def test_scorers_with_an_unknown_name_is_a_usage_error() -> None:
    proc = assay("scorers", "no_such_scorer")
    assert proc.returncode == 2
    assert "unknown scorer 'no_such_scorer'" in proc.stderr


# --- evaluate -S ----------------------------------------------------------------------------


def _inputs(tmp_path: Path) -> tuple[Path, Path]:
    runs, gt = tmp_path / "runs", tmp_path / "gt"
    write_json(runs / "11.json", make_run("r11", "11", '{"ids": [2, 1]}'))
    scenario_folder(gt, "11", "{'ids': [1, 2]}")
    return runs, gt


@pytest.mark.slow
def test_an_option_set_with_dash_s_is_used_and_recorded_with_the_defaults(tmp_path: Path) -> None:
    runs, gt = _inputs(tmp_path)
    proc = evaluate(runs, gt, tmp_path / "out", "-S", "static_json.list_order=position")
    assert proc.returncode == 0, explain(proc)
    report = reports_by_run_id(tmp_path / "out")["r11"]
    assert report["score"]["passed"] is False  # [2, 1] is not [1, 2] position by position
    assert read_aggregate(tmp_path / "out")["scorers"] == [
        {
            "name": "static_json",
            "options": {
                "list_order": "position",
                "case_insensitive_keys": None,
                "alignment_budget": 500_000,
            },
        }
    ]
    default = evaluate(runs, gt, tmp_path / "default")
    assert reports_by_run_id(tmp_path / "default")["r11"]["score"]["passed"] is True
    assert read_aggregate(tmp_path / "default")["scorers"] == [
        {
            "name": "static_json",
            "options": {
                "list_order": None,
                "case_insensitive_keys": None,
                "alignment_budget": 500_000,
            },
        }
    ]
    assert default.returncode == 0


@pytest.mark.slow
def test_a_flag_is_the_same_option_and_dash_s_wins_over_it(tmp_path: Path) -> None:
    runs, gt = _inputs(tmp_path)
    flag = evaluate(runs, gt, tmp_path / "flag", "--list-order", "position")
    assert flag.returncode == 0, explain(flag)
    by_flag = read_aggregate(tmp_path / "flag")["scorers"]
    assert by_flag[0]["options"]["list_order"] == "position"
    both = evaluate(
        runs, gt, tmp_path / "both",
        "--list-order", "position", "-S", "static_json.list_order=content",
    )  # fmt: skip
    assert both.returncode == 0, explain(both)
    assert read_aggregate(tmp_path / "both")["scorers"][0]["options"]["list_order"] == "content"
    assert reports_by_run_id(tmp_path / "both")["r11"]["score"]["passed"] is True


@pytest.mark.parametrize(("flag", "scorer", "option"), _FLAG_OPTIONS)
def test_every_option_flag_targets_a_declared_option(flag: str, scorer: str, option: str) -> None:
    assert scorer_info(scorer).option(option) is not None


@pytest.mark.slow
def test_several_scorers_are_recorded_in_the_order_they_were_used(tmp_path: Path) -> None:
    runs, gt = _inputs(tmp_path)
    proc = evaluate(
        runs, gt, tmp_path / "out",
        "--scorer", "tool_name_match", "--scorer", "static_json",
        "--scorer-option", "tool_name_match.tools=get_work_orders,get_sites",
        "-S", "tool_name_match.threshold=0.5",
    )  # fmt: skip
    assert proc.returncode == 0, explain(proc)
    report = reports_by_run_id(tmp_path / "out")["r11"]
    matched = next(part for part in report["scores"] if part["scorer"] == "tool_name_match")
    assert matched["score"] == 0.5 and matched["passed"] is True  # 1 of 2 tools, threshold 0.5
    specs = read_aggregate(tmp_path / "out")["scorers"]
    assert [spec["name"] for spec in specs] == ["tool_name_match", "static_json"]
    assert specs[0]["options"] == {"threshold": 0.5, "tools": ["get_work_orders", "get_sites"]}


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ("nope.limit=3", "-S nope.limit: unknown scorer 'nope'"),
        (
            "static_json.bogus=1",
            "static_json has no option 'bogus' (its options: list_order, case_insensitive_keys, "
            "alignment_budget)",
        ),
        ("static_json.list_order=sideways", "expected one of 'content', 'position'"),
        ("max_turns.limit=three", "-S max_turns.limit=three: expected a whole number"),
        ("llm_judge.client_factory=x", "a function cannot be given on the command line"),
        ("static_json", "expected NAME.OPTION=VALUE"),
        ("list_order=position", "expected NAME.OPTION=VALUE"),
    ],
)
@pytest.mark.slow
def test_a_bad_setting_is_a_usage_error_naming_the_problem(
    tmp_path: Path, setting: str, message: str
) -> None:
    runs, gt = _inputs(tmp_path)
    proc = evaluate(runs, gt, tmp_path / "out", "-S", setting)
    assert proc.returncode == 2, explain(proc)
    assert message in proc.stderr
    assert not (tmp_path / "out").exists()  # refused before anything was read or written


@pytest.mark.slow
def test_an_option_the_scorer_refuses_is_a_usage_error_for_an_every_run_scorer(
    tmp_path: Path,
) -> None:
    runs, gt = _inputs(tmp_path)
    proc = evaluate(
        runs, gt, tmp_path / "out", "--scorer", "trajectory", "-S", "trajectory.mode=sideways"
    )
    assert proc.returncode == 2, explain(proc)
    assert "cannot use scorer 'trajectory'" in proc.stderr


@pytest.mark.slow
def test_scorers_named_by_scenarios_in_worker_processes_are_recorded(tmp_path: Path) -> None:
    """Enough runs for worker processes: the scorers they build are still recorded."""
    runs, gt = tmp_path / "runs", tmp_path / "gt"
    scenarios = []
    for number in range(80):
        method = "max_turns" if number % 2 else None
        scenario = {"id": str(number), "expected_answer": '{"n": 1}', "max_turns": 5}
        if method:
            scenario["scoring_method"] = method
        scenarios.append(scenario)
        write_json(runs / f"{number}.json", make_run(f"r{number}", str(number), '{"n": 1}'))
    write_json(gt / "scenarios.json", scenarios)
    proc = evaluate(runs, gt, tmp_path / "out", "--workers", "2", "-S", "max_turns.limit=9")
    assert proc.returncode == 0, explain(proc)
    aggregate = read_aggregate(tmp_path / "out")
    assert aggregate["totals"]["scored"] == 80
    assert aggregate["scorers"] == [
        {
            "name": "static_json",
            "options": {
                "list_order": None,
                "case_insensitive_keys": None,
                "alignment_budget": 500_000,
            },
        },
        {"name": "max_turns", "options": {"limit": 9}},
    ]


@pytest.mark.slow
def test_a_scorer_that_cannot_be_built_is_not_recorded_as_run(tmp_path: Path) -> None:
    runs, gt = tmp_path / "runs", tmp_path / "gt"
    write_json(runs / "1.json", make_run("r1", "1", "x"))
    write_json(gt / "s.json", [{"id": "1", "expected_answer": "x", "scoring_method": "nope"}])
    proc = evaluate(runs, gt, tmp_path / "out")
    assert proc.returncode == 0, explain(proc)
    aggregate = read_aggregate(tmp_path / "out")
    assert aggregate["totals"]["errors"] == 1
    assert aggregate["scorers"] == []


def test_a_plugin_that_does_not_load_is_reported_and_the_rest_still_listed(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    class BrokenEntryPoint:
        name = "test_broken_plugin"

        def load(self) -> None:
            raise ImportError("No module named 'missing_dependency'")

    def entry_points(*, group: str, name: str | None = None) -> list[BrokenEntryPoint]:
        return [BrokenEntryPoint()] if name in (None, "test_broken_plugin") else []

    monkeypatch.setattr("importlib.metadata.entry_points", entry_points)
    assert main(["scorers"]) == 3
    said = capsys.readouterr()
    assert "static_json - Compares the final answer" in said.out
    assert "cannot load scorer 'test_broken_plugin': ImportError: No module named" in said.err
    assert main(["scorers", "--json"]) == 3
    problems = json.loads(capsys.readouterr().out)["problems"]
    reason = "ImportError: No module named 'missing_dependency'"
    assert problems == [{"name": "test_broken_plugin", "reason": reason}]
