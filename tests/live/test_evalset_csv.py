"""CSV eval sets: columns read into the same `EvalCase` as JSON, every bad input a problem
naming the file and line, and `assay run` over a CSV file end to end."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from _cli import assay, explain
from _examples import examples
from assay.cli.main import main
from assay.evaluation import EvalCase, EvalSet, EvalSetError
from assay.exit_codes import ExitCode
from assay.formats.evalset import csv_eval_cases
from assay.limits import InputLimits, using_input_limits

EXAMPLE_AGENT = Path(__file__).resolve().parents[2] / "examples" / "agents" / "agent.py"


def _write(folder: Path, text: str | bytes, name: str = "cases.csv") -> Path:
    path = folder / name
    if isinstance(text, str):
        path.write_bytes(text.encode("utf-8"))
    else:
        path.write_bytes(text)
    return path


def _problems(path: Path) -> list[tuple[str, str]]:
    with pytest.raises(EvalSetError) as raised:
        EvalSet.from_file(path)
    return [(problem.source, problem.reason) for problem in raised.value.problems]


def test_columns_become_the_case_fields_and_the_rest_metadata(tmp_path: Path) -> None:
    path = _write(tmp_path, (
        "eval_id,user_query,expected_response,expected_tools,topic,notes\r\n"
        'paris,"Weather in Paris, today?",sunny,get_weather,weather,\r\n'
        'money,"Convert 100 USD\nto EUR",92.00 EUR,get_rate | convert_currency,fx,"said ""hi"""\r\n'
        'json,Hi?,,"[""a"", ""b""]",,\r\n'
        "none,Hello?,,,,\r\n"
        ",,,,,\r\n"  # a blank spreadsheet row
        "\r\n"
    ))
    paris, money, listed, bare = EvalSet.from_file(path).cases
    assert paris == EvalCase.single_turn(
        "paris", "Weather in Paris, today?", expected_response="sunny",
        expected_tools=["get_weather"], metadata={"topic": "weather", "notes": ""})
    assert money.user_query == "Convert 100 USD\nto EUR"
    assert money.expected_tools == ["get_rate", "convert_currency"]
    assert money.metadata == {"topic": "fx", "notes": 'said "hi"'}
    assert listed.expected_tools == ["a", "b"]
    assert listed.expected_response is None
    assert bare.expected_tools is None and bare.expected_response is None


def test_a_row_is_the_case_its_json_twin_is(tmp_path: Path) -> None:
    row = {"eval_id": "t", "user_query": "Plan it", "expected_response": "done",
           "expected_tools": ["search", "book"],
           "expected_trajectory": ["search", {"name": "book", "args": {"id": 1}}]}
    (tmp_path / "cases.jsonl").write_text(json.dumps(row) + "\n")
    path = _write(tmp_path, (
        "eval_id,user_query,expected_response,expected_tools,expected_trajectory\n"
        't,Plan it,done,search;book,"[""search"", {""name"": ""book"", ""args"": {""id"": 1}}]"\n'
    ))
    assert EvalSet.from_file(path) == EvalSet.from_file(tmp_path / "cases.jsonl")


def test_a_byte_order_mark_and_column_order_do_not_matter(tmp_path: Path) -> None:
    path = _write(tmp_path, b"\xef\xbb\xbfuser_query, eval_id \nHi?,a\n")
    [case] = EvalSet.from_file(path).cases
    assert (case.eval_id, case.user_query, case.metadata) == ("a", "Hi?", {})


def test_the_suffix_is_read_in_any_case(tmp_path: Path) -> None:
    path = _write(tmp_path, "eval_id,user_query\na,Hi?\n", name="CASES.CSV")
    assert [case.eval_id for case in EvalSet.from_file(path).cases] == ["a"]


@pytest.mark.parametrize(
    ("text", "where", "said"),
    [
        ("", "", "empty file: no cases"),
        ("\n\n,,\n", "", "empty file: no cases"),
        ("eval_id,user_query\n", "", "no cases: the file has a header row and no rows"),
        ("eval_id,question\na,Hi?\n", ":1",
         "the header has no `user_query` column (columns: 'eval_id', 'question')"),
        ("\nid,user_query\na,Hi?\n", ":2", "no `eval_id` column"),
        ("eval_id,user_qeury\na,Hi?\n", ":1", "did you mean 'user_qeury'?"),
        ("eval_id;user_query\na;Hi?\n", ":1", "columns are separated by commas"),
        ("eval_id,user_query,eval_id\na,b,c\n", ":1", "'eval_id' appears more than once"),
        ("eval_id,user_query,\na,b,\n", ":1", "column 3 of the header has no name"),
        ("eval_id,turns\na,b\n", ":1", "'turns': multi-turn cases are not read from CSV"),
        ("eval_id,user_query\na,Hi?\nb,Hi?,extra\n", ":3", "3 cells; the header has 2 columns"),
        ("eval_id,user_query\na,Hi?\nb\n", ":3", "1 cell; the header has 2 columns"),
        ("eval_id,user_query\na,Hi?\nb,Hi?\na,Again?\n", ":4",
         "eval_id 'a' is already the id of the case on line 2"),
        ("eval_id,user_query\na,Hi?\n,Hi?\n", ":3", "eval_id: String should have at least"),
        ("eval_id,user_query\na,Hi?\nb,\n", ":3", "a case needs `user_query`"),
        ('eval_id,user_query\na,Hi?\nb,"unclosed\n', ":3", "not CSV: unexpected end of data"),
        ('eval_id,user_query\na,Hi?\nb,"x"y\n', ":3", "not CSV: ',' expected after '\"'"),
        ("eval_id,user_query,expected_tools\na,Hi?,\"[1\"\n", ":2",
         "expected_tools: invalid JSON"),
        ("eval_id,user_query,expected_tools\na,Hi?,\"[1]\"\n", ":2",
         "expected_tools[0]: Input should be a valid string"),
        ("eval_id,user_query,expected_trajectory\na,Hi?,\"[3]\"\n", ":2",
         "expected_trajectory[0]: a step is a tool name"),
    ],
)
def test_bad_files_are_problems_naming_the_file_and_line(
    tmp_path: Path, text: str, where: str, said: str
) -> None:
    path = _write(tmp_path, text)
    problems = _problems(path)
    assert any(source == f"{path}{where}" and said in reason for source, reason in problems), (
        problems
    )


def test_a_file_that_is_not_utf8_names_the_line(tmp_path: Path) -> None:
    path = _write(tmp_path, b"eval_id,user_query\r\na,Hi?\r\nb,caf\xe9\r\n")
    [(source, reason)] = _problems(path)
    assert source == f"{path}:3"
    assert reason == "not UTF-8: undecodable byte 0xe9; save the file as UTF-8 CSV"
    utf16 = _write(tmp_path, "eval_id,user_query\na,Hi?\n".encode("utf-16"), name="u.csv")
    assert _problems(utf16) == [
        (str(utf16), "not UTF-8: the file is UTF-16 text; save it as UTF-8 CSV")]


def test_a_cell_past_the_line_limit_is_a_problem_and_the_limit_is_put_back(
    tmp_path: Path,
) -> None:
    before = csv.field_size_limit()
    path = _write(tmp_path, "eval_id,user_query\na,Hi?\nb," + "x" * 5000 + "\nc,Bye\n")
    with using_input_limits(InputLimits(max_line_bytes=4096)):
        problems = _problems(path)
    assert problems == [(f"{path}:3", "a cell is longer than 4 KB, the line limit "
                         "(--max-line-size); the rows after it are not read")]
    assert csv.field_size_limit() == before
    # The default limit (64 MB) takes a cell far longer than the csv module's own 128 KB.
    big = _write(tmp_path, "eval_id,user_query\na," + "y" * 300_000 + "\n", name="big.csv")
    assert len(EvalSet.from_file(big).cases[0].user_query or "") == 300_000
    assert csv.field_size_limit() == before


def test_a_file_past_the_file_limit_is_not_read(tmp_path: Path) -> None:
    path = _write(tmp_path, "eval_id,user_query\n" + "a,Hi?\n" * 400)
    with using_input_limits(InputLimits(max_file_bytes=1024)):
        [(source, reason)] = _problems(path)
    assert source == str(path) and "--max-file-size" in reason


def test_every_bad_row_is_listed_and_the_good_ones_read(tmp_path: Path) -> None:
    items = list(csv_eval_cases(b"eval_id,user_query\na,1\nb\nc,3\nc,4\n", "x.csv"))
    assert [getattr(item, "eval_id", None) for item in items] == ["a", None, "c", None]
    assert [getattr(item, "source", None) for item in items] == [None, "x.csv:3", None,
                                                                  "x.csv:5"]


_CSV_ALPHABET = st.sampled_from(
    [",", '"', "\n", "\r", "\r\n", ";", "|", "[", "]", "{", "}", ":", " ", "a", "b", "é",
     "\x00", "\ufeff", "eval_id", "user_query", "expected_response", "expected_tools",
     "expected_trajectory", "turns", "metadata", '["x"]', "[1]"]
)


@settings(max_examples=examples(400), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    text=st.one_of(
        st.lists(_CSV_ALPHABET, max_size=40).map("".join),
        st.text(max_size=200),
    ),
    raw=st.binary(max_size=40),
)
def test_any_csv_text_gives_cases_or_the_one_documented_error(
    tmp_path: Path, text: str, raw: bytes
) -> None:
    for data in (text.encode("utf-8", "surrogatepass"), raw, b"eval_id,user_query\n" + raw):
        path = _write(tmp_path, data)
        try:
            eval_set = EvalSet.from_file(path)
        except EvalSetError as error:
            assert error.problems
            assert all(p.source.startswith(str(path)) and p.reason for p in error.problems)
        else:
            assert eval_set.cases
            assert all(isinstance(case, EvalCase) for case in eval_set.cases)


def test_assay_run_refuses_a_bad_csv_naming_the_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    _write(tmp_path, "eval_id,user_query\na,Hi?\na,Twice?\n")
    code = main(["run", f"{EXAMPLE_AGENT}:agent", "cases.csv", "--reports-dir", "out"])
    assert code == ExitCode.INPUT_ERROR
    err = capsys.readouterr().err
    assert "cases.csv:3: eval_id 'a' is already the id of the case on line 2" in err
    assert not (tmp_path / "out").exists()


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.mark.slow
def test_assay_run_over_a_csv_eval_set_end_to_end(tmp_path: Path) -> None:
    _write(tmp_path, (
        "\ufeffeval_id,user_query,expected_response,expected_tools,topic\r\n"
        "weather-paris,What is the weather in Paris today?,sunny,get_weather,weather\r\n"
        '"convert-usd-eur","Convert 100 USD to EUR, please.",92.00 EUR,convert_currency,fx\r\n'
        "weather-tokyo,What is the weather in Tokyo?,cloudy,get_weather,weather\r\n"
        "both,\"What is the weather in London, and how much is 50 GBP in USD?\",63.50 USD,"
        "get_weather|convert_currency,mixed\r\n"
    ))
    proc = assay("run", f"{EXAMPLE_AGENT}:agent", "cases.csv", "--timeout", "10",
                 "--reports-dir", "out", "--no-progress", cwd=tmp_path, timeout=120)
    assert proc.returncode == 0, explain(proc)
    out = tmp_path / "out"
    live = json.loads((out / "_aggregate.json").read_text())["live"]
    assert (live["runs"], live["passed"]) == (4, 3)
    results = {line["run_id"]: line for line in _lines(out / "results.jsonl")}
    assert {rid: line["score"]["passed"] for rid, line in results.items()} == {
        "weather-paris": True, "convert-usd-eur": True, "weather-tokyo": False, "both": True}
    cases = {line["eval_id"]: line for line in _lines(out / "evalset.jsonl")}
    assert cases["both"]["expected_tools"] == ["get_weather", "convert_currency"]
    assert cases["convert-usd-eur"]["metadata"] == {"topic": "fx"}
    assert "Evaluated 4 runs: 3 passed" in proc.stdout
