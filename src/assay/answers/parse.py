"""Turn answer text into a structured value: JSON, Python literals, counts and option letters.

The rules, in order:

1. `<think>…</think>` blocks are removed.
2. The answer region is the text after the last `Final Answer:` / `Answer:` label that starts a
   line, or the whole text when there is none. Labels anywhere else (`answer_count`, "Output
   valve") are ordinary text.
3. Within the region, the answer is the *last complete structure*: a balanced `{…}`, `[…]` or
   `(…)` span that parses (as JSON, or as a Python literal without evaluating anything) to a
   dict, list or tuple. Drafts before it lose; prose and parentheses before it do not hide it.
4. Otherwise the region (or the last fenced block in it, if there is one) is read as a scalar:
   a JSON scalar, a quoted string, or the text itself.
5. Only for the model's answer, and only when the gold answer asks for it: a bare-number gold
   answer allows the *count fallback* (a number labelled as the answer or standing alone on the
   last line), and a single-letter gold answer allows the *option fallback*.

A whole-text JSON document is taken as it is, before any of this (its strings may mention
think tags). Nothing raises: text over the limits gives a `ParsedAnswer` with `error` set.

Example:
    >>> parse_answer("Draft: {'a': 1}\\nFinal Answer: {'a': 2}").value
    {'a': 2}
    >>> parse_answer("The answer is 34.", expect="count").value
    34
    >>> parse_answer("failed after examining 34 records", expect="count").value
    'failed after examining 34 records'
"""

from __future__ import annotations

import ast
import math
import re
import warnings
from dataclasses import dataclass
from typing import Any, Literal

import orjson

from assay._jsonable import nested_deeper_than
from assay.limits import MAX_ANSWER_CHARS, MAX_DEPTH, MAX_PARSE_ATTEMPTS

Expect = Literal["any", "count", "option"]
"""Which fallback the model's answer may use; chosen from the gold answer's parsed type."""


@dataclass(frozen=True, slots=True)
class ParsedAnswer:
    """A parsed answer and how it was found."""

    value: Any
    """The parsed value: dict, list, tuple, str, int, float, bool or None."""

    method: str
    """How it was found: `value`, `json`, `structure`, `scalar`, `count`, `option`, `text`,
    or `rejected` when the input broke a limit (then `value` is None)."""

    error: str | None = None
    """Why a structure could not be used, or why the input was rejected."""

    @property
    def rejected(self) -> bool:
        """True when the input broke a size or depth limit and holds no usable value."""
        return self.method == "rejected"


class _ParseError(ValueError):
    pass


_THINK_BLOCK = re.compile(r"<think>.*?</think>", re.IGNORECASE | re.DOTALL)
_THROUGH_LAST_CLOSE = re.compile(r".*</think>", re.IGNORECASE | re.DOTALL)
_OPEN_TAG = re.compile(r"<think>", re.IGNORECASE)
_LABEL = re.compile(
    r"^[ \t]*[*_#>]*[ \t]*(?:final[ \t]+answer|answer)[ \t]*[*_]*[ \t]*[:：]",
    re.IGNORECASE | re.MULTILINE,
)
_TOKEN = re.compile(r"""[{}\[\]()"'\\]""")
_OPENERS = {"{": "}", "[": "]", "(": ")"}
_CLOSERS = {"}": "{", "]": "[", ")": "("}
_FENCE = re.compile(r"^```[\w+-]*[ \t]*\n?(.*?)\n?```$", re.DOTALL)
_FENCED_BLOCK = re.compile(r"```[\w+-]*[ \t]*\n(.*?)\n?```", re.DOTALL)
_EMPHASIS = "*_`"
_NUMBER = r"[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
_LABELLED_NUMBER = re.compile(
    r"(?i:\banswer\b)[ \t]*(?:(?i:is)\b|=|:)?[ \t]*[*_`]*[ \t]*(" + _NUMBER + r")(?![\w%-])(?!\.\d)"
)
_LEADING_NUMBER = re.compile(r"[ \t]*[*_`]*[ \t]*(" + _NUMBER + r")(?![\w%-])(?!\.\d)")
_BARE_NUMBER = re.compile(_NUMBER + r"\.?")
_OPTION_LINE = re.compile(r"[(\[]?([A-Za-z])[)\]]?[.:]?")
_OPTION_PHRASE = re.compile(
    r"(?i:\b(?:option|choice|answer))[ \t]*(?:(?i:is)\b)?[ \t]*[:=-]?[ \t]*[*_`]*[(\[]?"
    r"([A-Z])[)\]]?[*_`]*(?![\w-])"
)


def parse_answer(text: Any, *, expect: Expect = "any") -> ParsedAnswer:
    """Parse a model's final answer.

    Args:
        text: The answer as recorded. Non-string values are taken as already parsed.
        expect: `count` allows the count fallback (gold answer is a bare number), `option` the
            option-letter fallback (gold answer is one letter), `any` neither.

    Returns:
        The parsed answer; never raises.

    Example:
        >>> parse_answer("```json\\n{\\"repair\\": 13}\\n```").value
        {'repair': 13}
    """
    if not isinstance(text, str):
        return _checked_value(text)
    if len(text) > MAX_ANSWER_CHARS:
        return ParsedAnswer(
            None,
            "rejected",
            f"answer is {len(text):,} characters; the limit is {MAX_ANSWER_CHARS:,}",
        )
    stripped = text.strip()
    # The whole text as one JSON document or one simple Python literal is the answer, even
    # when its strings mention "<think>" or "Answer:"; this is also the common case.
    whole = _one_document(stripped)
    if whole is not None:
        return whole
    region, labelled = _answer_region(text)
    try:
        found, structure_error = _last_structure(region, tried=stripped)
    except _ParseError as exc:
        return ParsedAnswer(None, "rejected", str(exc))
    if found is not None:
        return found
    fenced = _last_match(_FENCED_BLOCK, region)
    if fenced is not None:  # "Here is the result: ```json 6```, let me know…": the block is it
        region = fenced.group(1)
    scalar = _scalar(region, structure_error)
    if expect == "count" and not _is_number(scalar.value):
        count = _count_fallback(region, labelled)
        if count is not None:
            return ParsedAnswer(count, "count", structure_error)
    elif expect == "option":
        letter = _option_fallback(region)
        if letter is not None:
            return ParsedAnswer(letter, "option", structure_error)
    return scalar


def parse_gold(text: Any) -> ParsedAnswer:
    """Parse a ground-truth answer: the same steps as `parse_answer`, without fallbacks.

    Example:
        >>> parse_gold("{'energy': 14, 'material': 48}").value
        {'energy': 14, 'material': 48}
        >>> parse_gold("34").value
        34
    """
    return parse_answer(text, expect="any")


def expectation_for(gold: Any) -> Expect:
    """Which fallback a gold value allows the model's answer.

    Example:
        >>> expectation_for(34), expectation_for("C"), expectation_for({"a": 1})
        ('count', 'option', 'any')
    """
    if _is_number(gold):
        return "count"
    if isinstance(gold, str) and len(gold.strip()) == 1 and gold.strip().isalpha():
        return "option"
    return "any"


def answer_region(text: str) -> str:
    """The part of the text that holds the final answer (think blocks and drafts removed).

    Example:
        >>> answer_region("<think>maybe 3</think>Answer: 4")
        ' 4'
    """
    return _answer_region(text)[0]


def _answer_region(text: str) -> tuple[str, bool]:
    """The answer region, and whether it follows an answer label."""
    if "<" in text:  # no think tags without one
        text = _THINK_BLOCK.sub("", text)
        # Searched case-insensitively, not in text.lower(): lower-casing may change the
        # length of a text ("İ" becomes two characters), and positions with it.
        close = _THROUGH_LAST_CLOSE.match(text)
        if close is not None:  # an unopened closing tag: everything before it was thinking
            text = text[close.end() :]
        open_ = _OPEN_TAG.search(text)
        if open_ is not None:  # an unclosed think block never reached an answer
            text = text[: open_.start()]
    last = _last_match(_LABEL, text)
    return (text[last.end() :], True) if last is not None else (text, False)


def _one_document(stripped: str) -> ParsedAnswer | None:
    """The whole text as one JSON document or one simple Python literal.

    This is the common case, and orjson answers it without scanning the text. A document
    nested too deep comes back rejected.
    """
    attempts: list[tuple[str, str | None]] = []
    # A quote outside a string is never JSON, and JSON has no single-quoted strings: a text
    # with `'` but no `"` (a Python dict, say) fails without paying for orjson's error.
    if stripped[:1] in ("{", "[") and ('"' in stripped or "'" not in stripped):
        attempts.append(("json", stripped))
    if stripped[:1] in ("{", "[", "("):
        attempts.append(("structure", _python_as_json(stripped)))
    for method, source in attempts:
        if source is None:
            continue
        try:
            value = orjson.loads(source)
        except orjson.JSONDecodeError:
            continue
        if not isinstance(value, dict | list):
            return None
        # Fewer brackets than the limit cannot nest deeper than it: count before walking.
        if source.count("[") + source.count("{") > MAX_DEPTH and nested_deeper_than(
            value, MAX_DEPTH
        ):
            return ParsedAnswer(None, "rejected", f"answer nested deeper than {MAX_DEPTH} levels")
        return ParsedAnswer(value, method)
    return None


def _last_match(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    matches = list(pattern.finditer(text))
    return matches[-1] if matches else None


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _checked_value(value: Any) -> ParsedAnswer:
    if nested_deeper_than(value, MAX_DEPTH):
        return ParsedAnswer(None, "rejected", f"value nested deeper than {MAX_DEPTH} levels")
    return ParsedAnswer(value, "value")


def _candidate_spans(text: str) -> list[tuple[int, int]]:
    """Balanced spans not inside a `{}`/`[]` span, by end position, last first.

    Parentheses are transparent containers because prose uses them: `(see {…})` still offers
    the structure inside. Quotes are only tracked inside `{}`/`[]`, where they delimit strings;
    outside, an apostrophe is just prose ("Here's the answer").
    """
    stack: list[tuple[str, int]] = []
    brackets = 0  # how many `{`/`[` are open on the stack
    spans: list[tuple[int, int]] = []
    quote: str | None = None
    skip_to = -1
    for match in _TOKEN.finditer(text):
        pos = match.start()
        if pos < skip_to:
            continue
        char = match.group()
        if quote is not None:
            if char == "\\":
                skip_to = pos + 2
            elif char == quote:
                quote = None
            continue
        if char in "\"'":
            if brackets:
                quote = char
            continue
        if char in _OPENERS:
            stack.append((char, pos))
            if char != "(":
                brackets += 1
                # Only brackets count: prose is full of unclosed "(", and a span with too many
                # nested parentheses simply fails to parse.
                if brackets > MAX_DEPTH:
                    raise _ParseError(f"answer nested deeper than {MAX_DEPTH} levels")
            continue
        if char not in _CLOSERS:
            continue
        opener = _CLOSERS[char]
        depth = len(stack) - 1
        while depth >= 0 and stack[depth][0] != opener:
            depth -= 1
        if depth < 0:
            continue  # a stray closer in prose
        for dropped, _ in stack[depth + 1 :]:  # openers that never closed
            if dropped != "(":
                brackets -= 1
        start = stack[depth][1]
        del stack[depth:]
        if opener != "(":
            brackets -= 1
        if brackets == 0:
            spans.append((start, pos + 1))
    return _without_grouping_parentheses(text, spans)


def _without_grouping_parentheses(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Drop `( … )` spans that only wrap another span: `(({...}))` offers the dict once."""
    found = set(spans)
    kept = []
    for start, end in spans:
        if text[start] == "(":
            inner_start, inner_end = start + 1, end - 1
            while inner_start < inner_end and text[inner_start].isspace():
                inner_start += 1
            while inner_end > inner_start and text[inner_end - 1].isspace():
                inner_end -= 1
            if (inner_start, inner_end) in found:
                continue
        kept.append((start, end))
    kept.sort(key=lambda span: (-span[1], span[0]))
    return kept


def _last_structure(
    region: str, tried: str | None = None
) -> tuple[ParsedAnswer | None, str | None]:
    """The last structure in the region, or None and why the bracketed spans did not parse.

    `tried` is a stripped text already tried as one whole document (not tried again).

    Raises:
        _ParseError: the region breaks the depth limit.
    """
    stripped = region.strip()
    whole = None if stripped == tried else _one_document(stripped)
    if whole is not None:
        if whole.rejected:
            raise _ParseError(whole.error or "answer rejected")
        return whole, None
    error = None
    for attempt, (start, end) in enumerate(_candidate_spans(region)):
        if attempt >= MAX_PARSE_ATTEMPTS:
            break
        try:
            value = _parse_literal(region[start:end])
        except _ParseError as exc:
            error = error or str(exc)
            continue
        if isinstance(value, dict | list | tuple):
            return ParsedAnswer(value, "structure"), None
    # No structure at all is not an error; a structure that failed to parse is worth saying.
    return None, error


def _parse_literal(source: str) -> Any:
    if source[0] in "{[":
        try:
            return orjson.loads(source)
        except orjson.JSONDecodeError:
            pass
    as_json = _python_as_json(source)
    if as_json is not None:
        try:
            return orjson.loads(as_json)
        except orjson.JSONDecodeError:
            pass  # e.g. a non-string dict key: the full parser below decides
    try:
        with warnings.catch_warnings():
            # The compiler warns about odd literals ("1if", "\\d"); an answer is data, and its
            # oddities are no business of stderr.
            warnings.simplefilter("ignore")
            tree = ast.parse(source, mode="eval")
    except (SyntaxError, ValueError, MemoryError, RecursionError, OverflowError) as exc:
        message = exc.msg if isinstance(exc, SyntaxError) else str(exc)
        # Python's own advice ("; use sys.set_int_max_str_digits() ...") is no help here.
        message = message.split(";", 1)[0]
        raise _ParseError(f"not JSON or a Python literal: {message[:120]}") from None
    return _literal(tree.body, 0)


_PYTHON_WORDS = r"""'[^'\\\n]*'|"[^"\\\n]*"|\b(?:True|False|None)\b"""
_PYTHON_SIMPLE = re.compile(_PYTHON_WORDS)
_PYTHON_GROUPS = re.compile(_PYTHON_WORDS + r"|[()\[\]{},]")
_JSON_NAMES = {"True": "true", "False": "false", "None": "null"}


def _python_as_json(source: str) -> str | None:
    """The JSON spelling of a simple Python literal, or None when it cannot be one.

    Most Python-style answers are dicts and lists of plain strings, numbers, booleans and
    tuples; rewriting their quotes, names and parentheses and parsing with orjson is several
    times faster than compiling them. Whatever the rewrite leaves that is not JSON (escapes,
    tuple keys, sets, `1_000`) makes orjson fail, and the full parser takes over; a grouping
    `(x)` without a comma returns None here. Tuples come back as lists, as everywhere else in
    comparison.
    """
    if "\\" in source:
        return None  # an escape can end a string where the rewrite does not see it
    if "(" not in source and ")" not in source:
        return _PYTHON_SIMPLE.sub(_json_word, source)
    # (start, is a parenthesis, has a comma at its own level) per open bracket
    stack: list[list[Any]] = []
    broken = False

    def rewrite(match: re.Match[str]) -> str:
        nonlocal broken
        text = match.group()
        if text in "([{":
            stack.append([match.start(), text == "(", False])
            return "[" if text == "(" else text
        if text == ",":
            if stack:
                stack[-1][2] = True
            return text
        if text in ")]}":
            if not stack or stack[-1][1] != (text == ")"):
                broken = True
                return text
            start, is_paren, has_comma = stack.pop()
            if is_paren and not has_comma and source[start + 1 : match.start()].strip():
                broken = True  # "(x)" is x, not a one-item tuple
            return "]" if is_paren else text
        return _json_word(match)

    rewritten = _PYTHON_GROUPS.sub(rewrite, source)
    return None if broken or stack else rewritten


def _json_word(match: re.Match[str]) -> str:
    text = match.group()
    if text[0] == "'":
        inner = text[1:-1]
        if '"' in inner or not inner.isprintable():
            return orjson.dumps(inner).decode()  # quotes and control characters escaped
        return f'"{inner}"'  # the usual word or phrase: nothing to escape
    return _JSON_NAMES.get(text, text)


_NAMES = {"true": True, "false": False, "null": None, "none": None}


def _literal(node: ast.expr, depth: int) -> Any:
    """Convert a literal expression node into a value. Only data nodes are accepted."""
    if depth > MAX_DEPTH:
        raise _ParseError(f"answer nested deeper than {MAX_DEPTH} levels")
    if isinstance(node, ast.Constant):
        value = node.value
        if value is None or isinstance(value, str | int | float | bool):
            if isinstance(value, float) and not math.isfinite(value):
                raise _ParseError("non-finite number")
            return value
        raise _ParseError(f"unsupported literal of type {type(value).__name__}")
    if isinstance(node, ast.Dict):
        result: dict[Any, Any] = {}
        for key_node, value_node in zip(node.keys, node.values, strict=True):
            if key_node is None:
                raise _ParseError("dict unpacking is not a literal")
            key = _literal(key_node, depth + 1)
            if isinstance(key, dict | list):
                raise _ParseError("unhashable dict key")
            result[key] = _literal(value_node, depth + 1)
        return result
    if isinstance(node, ast.List | ast.Set):
        return [_literal(item, depth + 1) for item in node.elts]
    if isinstance(node, ast.Tuple):
        items = tuple(_literal(item, depth + 1) for item in node.elts)
        if any(isinstance(item, list | dict) for item in items) and depth > 0:
            return list(items)  # a tuple used as a key must stay hashable; elsewhere it is a list
        return items
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        operand = _literal(node.operand, depth + 1)
        if _is_number(operand):
            return -operand if isinstance(node.op, ast.USub) else operand
        raise _ParseError("sign on a non-number")
    if isinstance(node, ast.Name) and node.id.lower() in _NAMES:
        return _NAMES[node.id.lower()]
    raise _ParseError(f"not a literal: {type(node).__name__}")


def _strip_wrapping(text: str) -> str:
    text = text.strip()
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1).strip()
    return text.strip(_EMPHASIS).strip()


def _scalar(region: str, structure_error: str | None = None) -> ParsedAnswer:
    text = _strip_wrapping(region)
    if text and text[0] in '"-0123456789tfn':
        try:
            value = orjson.loads(text)
        except orjson.JSONDecodeError:
            pass
        else:
            if not isinstance(value, dict | list):
                return ParsedAnswer(value, "scalar", structure_error)
    if len(text) >= 2 and text[0] == text[-1] == "'":
        try:
            value = _parse_literal(text)
        except _ParseError:
            pass
        else:
            if isinstance(value, str):
                return ParsedAnswer(value, "scalar", structure_error)
    return ParsedAnswer(text, "text", structure_error)


_MAX_NUMBER_CHARS = 300


def _to_number(token: str) -> int | float | None:
    """The value of a number token; None for one too long to be a count (a hostile input)."""
    token = token.replace(",", "").rstrip(".")
    if len(token) > _MAX_NUMBER_CHARS:
        return None
    return float(token) if "." in token else int(token)


def _count_fallback(region: str, labelled: bool) -> int | float | None:
    if labelled:  # "Answer: 34 work orders": the label names the number right after it
        leading = _LEADING_NUMBER.match(region)
        if leading:
            return _to_number(leading.group(1))
    lines = [line for line in region.splitlines() if line.strip()]
    if lines:
        last = _strip_wrapping(lines[-1])
        if _BARE_NUMBER.fullmatch(last):
            return _to_number(last)
    named = _last_match(_LABELLED_NUMBER, region)
    return _to_number(named.group(1)) if named is not None else None


def _option_fallback(region: str) -> str | None:
    whole = _OPTION_LINE.fullmatch(_strip_wrapping(region))
    if whole:
        return whole.group(1).upper()
    phrase = _last_match(_OPTION_PHRASE, region)
    if phrase is not None:
        return phrase.group(1)
    lines = [line for line in region.splitlines() if line.strip()]
    if lines:
        last = _OPTION_LINE.fullmatch(_strip_wrapping(lines[-1]))
        if last:
            return last.group(1).upper()
    return None
