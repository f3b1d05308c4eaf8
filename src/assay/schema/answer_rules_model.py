"""The model of a `groundtruth_eval.json` (a scenario's answer rules), for its JSON Schema.

Readers check answer rules with `assay.schema.answer_rules.parse_rules`, which imports no
pydantic: a scenario folder is read for each run that needs it, and a model's round trip there
would be paid per run. This model says the same thing as that check, and a property test keeps
the two equal (`tests/answers/test_answer_rules_model.py`); `assay schema answer_rules` prints
its schema.

Example:
    >>> AnswerRulesFile.model_validate({"keys": {"rate": {"rel_tol": 0.02}}}).keys["rate"].rel_tol
    0.02
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

_Tolerance = Annotated[float, Field(ge=0, strict=True, allow_inf_nan=False)]


class KeyRuleFile(BaseModel):
    """How one key (or every key matching a `[*]` pattern) is compared."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    abs_tol: _Tolerance | None = None
    """Numbers within this absolute difference are exact."""
    rel_tol: _Tolerance | None = None
    """Numbers within this relative difference (of the gold value) are exact."""
    time_tol_s: _Tolerance | None = None
    """Timestamps (ISO 8601) within this many seconds are exact."""
    lenient_number: Annotated[bool, Field(strict=True)] = False
    """Read numbers out of strings with `%`, thousands separators, currency signs or units."""
    list_mode: Literal["content", "unordered", "position", "ordered", "match_on"] | None = Field(
        default=None, alias="list"
    )
    """`list` in the file: how the list at this key is aligned: by content (`unordered`), by
    position (`ordered`), or on the item fields named in `fields` (`match_on`)."""
    fields: list[Annotated[str, Field(strict=True)]] = Field(default_factory=list)
    """For `match_on`: the item fields that identify an item."""
    distinct: Annotated[bool, Field(strict=True)] = False
    """For `match_on`: model items must not repeat an identity."""
    contains_distinct: Annotated[int, Field(ge=1, strict=True)] | None = None
    """The list passes when it holds at least this many distinct items of the gold list."""

    @model_validator(mode="after")
    def _match_on_needs_fields(self) -> KeyRuleFile:
        if self.list_mode == "match_on" and not self.fields:
            raise ValueError("list 'match_on' needs the fields that identify an item")
        return self


class AnswerRulesFile(BaseModel):
    """A scenario's answer rules: `groundtruth_eval.json`, or a scenario's `groundtruth_eval`."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    keys: dict[str, KeyRuleFile] = Field(default_factory=dict)
    """Rules by flattened key path (`answer.items[0].kwh`), `[*]` for any index; the leading
    `answer.` may be left out."""
    list_order: Literal["content", "unordered", "position", "ordered"] = "content"
    """How lists without a rule of their own are aligned."""
    case_insensitive_keys: Annotated[bool, Field(strict=True)] = False
    """Compare dict keys ignoring case."""
