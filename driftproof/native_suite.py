"""The native suite format as written (YAML or JSON), and its validation errors in the user's words.

``SuiteIn`` and its parts check a native suite; ``explain`` turns the first validation error into one line
that names the key as written in the file (``cases[2].criteria[0].weight``), says what is expected in plain
words and what was found: never a class name or a pydantic phrase.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictBool,
    ValidationError,
    field_validator,
    model_validator,
)

from driftproof.core.fields import found
from driftproof.errors import InputError
from driftproof.safe_text import shorten

MAX_TEXT = 20_000  # characters of a rubric or one criterion's description
MAX_PROMPT = 200_000
MAX_CRITERIA = 50
MAX_CANARIES = 50
CASE_ID = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$"
CHECK_KINDS = ("regex", "contains", "not_contains", "max_chars", "json", "conventional_commit")
CHECK_ARGUMENTS = {
    "regex": ("name", "pattern", "ignore_case"),
    "contains": ("name", "value", "ignore_case"),
    "not_contains": ("name", "value", "ignore_case"),
    "max_chars": ("name", "value"),
    "json": ("name",),
    "conventional_commit": ("name", "max_subject"),
}
"""What each check kind reads besides its ``kind`` (`driftproof.checks`); any other key is refused."""
ID_RULE = "1 to 128 ASCII letters, digits, '.', '_' or '-', starting with a letter or digit"


def _no_bool(value: Any) -> Any:
    """YAML reads ``yes`` and ``true`` as booleans, which pydantic would take for 1: refuse them as numbers."""
    if isinstance(value, bool):
        raise ValueError("a boolean is not a number")
    return value


def _a_number(value: Any) -> Any:
    """A number as written: neither a boolean nor a quoted number (``"0.5"``), which pydantic would convert."""
    if isinstance(value, str):
        raise ValueError("text is not a number")
    return _no_bool(value)


EMPTY_TEXT = "empty; write the text"
"""Why a text of nothing or only whitespace is refused, in every suite format."""


def _not_blank(value: Any) -> Any:
    """Text of only whitespace is as empty as no text: refused as ``""`` is."""
    if isinstance(value, str) and value and not value.strip():
        raise ValueError(EMPTY_TEXT)
    return value


Number = Annotated[float, BeforeValidator(_a_number)]
Whole = Annotated[int, BeforeValidator(_a_number)]
TextOrWhole = Annotated[str | int, BeforeValidator(_no_bool)]
Text = Annotated[str, BeforeValidator(_not_blank)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class CheckSpec(_Strict):
    """A deterministic post-check on an answer; shown beside the scores, never in a verdict."""

    kind: Literal["regex", "contains", "not_contains", "max_chars", "json", "conventional_commit"]
    name: str | None = Field(None, max_length=200)
    pattern: str | None = Field(None, max_length=2000, description="regex: a Python regular expression")
    value: TextOrWhole | None = Field(None, description="contains/not_contains: text; max_chars: a number")
    ignore_case: StrictBool = False
    max_subject: Whole = Field(72, ge=1, description="conventional_commit: longest subject line allowed")

    @model_validator(mode="after")
    def _needs(self) -> CheckSpec:
        takes = CHECK_ARGUMENTS[self.kind]
        for key in self.model_fields_set - {"kind", *takes}:  # an argument its kind ignores would be dropped
            raise ValueError(f"a {self.kind} check takes no '{key}' (it takes: {', '.join(takes)})")
        if self.kind == "regex":
            if not self.pattern:
                raise ValueError("a regex check needs 'pattern'")
            try:
                re.compile(self.pattern)
            except re.error as exc:
                raise ValueError(f"'pattern' is not a valid regular expression: {exc}") from None
        if self.kind in ("contains", "not_contains") and not isinstance(self.value, str):
            raise ValueError(f"a {self.kind} check needs 'value' (text)")
        if self.kind == "max_chars" and (not isinstance(self.value, int) or self.value < 0):
            raise ValueError("a max_chars check needs 'value' (a non-negative integer)")
        return self

    @property
    def label(self) -> str:
        """The check's name, or one made from its kind and argument."""
        if self.name:
            return self.name
        arg = self.pattern if self.kind == "regex" else self.value
        return self.kind if arg is None else f"{self.kind}: {arg}"


class CriterionIn(_Strict):
    """A weighted criterion."""

    id: Annotated[str, Field(pattern=CASE_ID)]
    weight: Number = Field(1.0, gt=0, le=1000)
    description: Text = Field(min_length=1, max_length=MAX_TEXT)


class CaseIn(_Strict):
    """One case as written in a native suite."""

    id: Annotated[str, Field(pattern=CASE_ID)]
    prompt: Text = Field(min_length=1, max_length=MAX_PROMPT)
    rubric: Text | None = Field(None, min_length=1, max_length=MAX_TEXT)
    criteria: list[CriterionIn] | None = Field(None, max_length=MAX_CRITERIA)
    threshold: Number | None = Field(None, ge=0, le=1)
    checks: list[CheckSpec] = Field(default_factory=list)

    @model_validator(mode="after")
    def _gradeable(self) -> CaseIn:
        if self.rubric is not None and self.criteria is not None:
            raise ValueError("give either 'rubric' or 'criteria', not both")
        if self.rubric is None and not self.criteria:
            what = "an empty 'criteria' list" if self.criteria == [] else "neither 'rubric' nor 'criteria'"
            raise ValueError(f"{what}: a case needs a rubric or at least one criterion for the judge")
        seen: set[str] = set()
        for c in self.criteria or []:
            if c.id in seen:
                raise ValueError(f"criterion id '{c.id}' appears twice")
            seen.add(c.id)
        return self


class CanaryIn(_Strict):
    """A judge-anchor canary: a fixed answer to a case's task (or a task of its own), pre-graded at ``expected``."""

    id: Annotated[str, Field(pattern=CASE_ID)]
    case: Annotated[str, Field(pattern=CASE_ID)] | None = None
    prompt: Text | None = Field(None, min_length=1, max_length=MAX_PROMPT)
    rubric: Text | None = Field(None, min_length=1, max_length=MAX_TEXT)
    answer: str = Field(min_length=1, max_length=MAX_PROMPT)
    expected: Number = Field(ge=0, le=1)

    @model_validator(mode="after")
    def _graded(self) -> CanaryIn:
        if self.case is not None and (self.prompt is not None or self.rubric is not None):
            raise ValueError("give either 'case' (a case id whose task grades it) or 'prompt' and 'rubric', not both")
        if self.case is None and (self.prompt is None or self.rubric is None):
            raise ValueError("a canary needs 'case' (a case id of this suite) or both 'prompt' and 'rubric'")
        return self


class SuiteIn(_Strict):
    """A native suite file."""

    name: str | None = Field(None, max_length=200)
    skill: str | None = Field(None, description="SKILL.md path, relative to the suite file")
    neighbours: list[str] = Field(
        default_factory=list, max_length=50, description="neighbour skills' SKILL.md paths, relative to the suite file"
    )
    threshold: Number | None = Field(None, ge=0, le=1)
    cases: list[CaseIn] = Field(min_length=1)
    canaries: list[CanaryIn] | None = Field(None, min_length=1, max_length=MAX_CANARIES)

    @field_validator("cases")
    @classmethod
    def _unique(cls, cases: list[CaseIn]) -> list[CaseIn]:
        seen: set[str] = set()
        for c in cases:
            if c.id in seen:
                raise ValueError(f"case id '{c.id}' appears twice")
            seen.add(c.id)
        return cases


#: Each model as the user knows it: its noun, its shape, a key to give as an example, what its lists hold.
_NOUN: dict[type[BaseModel], str] = {
    SuiteIn: "a suite",
    CaseIn: "a case",
    CriterionIn: "a criterion",
    CheckSpec: "a check",
    CanaryIn: "a canary",
}
_SHAPE: dict[type[BaseModel], str] = {
    SuiteIn: "the suite is a mapping with a 'cases' list",
    CaseIn: "a case is a mapping with 'id', 'prompt' and a 'rubric' or 'criteria'",
    CriterionIn: "a criterion is a mapping with 'id', 'description' and 'weight'",
    CheckSpec: "a check is a mapping with 'kind' and its arguments",
    CanaryIn: "a canary is a mapping with 'id', 'answer', 'expected' and a 'case' (or 'prompt' and 'rubric')",
}
_EXAMPLE_KEY = {SuiteIn: "cases", CaseIn: "prompt", CriterionIn: "description", CheckSpec: "kind", CanaryIn: "answer"}
_LISTS: dict[tuple[type[BaseModel], str], tuple[type[BaseModel], str]] = {
    (SuiteIn, "cases"): (CaseIn, "cases"),
    (CaseIn, "criteria"): (CriterionIn, "criteria"),
    (CaseIn, "checks"): (CheckSpec, "checks"),
    (SuiteIn, "canaries"): (CanaryIn, "canaries"),
}
_EXPECTED = {
    "threshold": "a number from 0 to 1",
    "weight": "a number above 0, at most 1000",
    "value": "text or a whole number",
    "ignore_case": "true or false",
    "max_subject": "a whole number, at least 1",
    "skill": "a path to SKILL.md (text)",
    "expected": "a number from 0 to 1 (the score the answer should get)",
}


def not_a_key(key: Any, keys: Sequence[str], noun: str) -> str:
    """Why ``key`` is refused, with the nearest of ``keys`` when one is close (every suite format says it so).

    >>> not_a_key("promt", ["id", "prompt"], "a case")
    "not a key of a case (its keys: id, prompt); did you mean 'prompt'?"
    """
    near = difflib.get_close_matches(str(key)[:100], keys, n=1)
    hint = f"; did you mean '{near[0]}'?" if near else ""
    return f"not a key of {noun} (its keys: {', '.join(keys)}){hint}"


def key_name(key: Any) -> str:
    """A key as written in a location (``cases[0].promt``), quoted when it is not a plain name, so that a key
    holding a newline or a space keeps the error on one line."""
    plain = re.fullmatch(r"[A-Za-z0-9_-]{1,80}", str(key))
    return str(key) if plain else repr(shorten(str(key)))


def _walk(loc: tuple[Any, ...]) -> tuple[str, str, type[BaseModel], Any]:
    """The location as written, its parent's, the model that holds the last key, and that key (or None)."""
    where, parent, key = "", "", None
    model: type[BaseModel] = SuiteIn
    items: tuple[type[BaseModel], str] | None = None
    for part in loc:
        if items is not None:  # in a list of models: an index
            if not isinstance(part, int):
                break
            parent, where = where, f"{where}[{part}]"
            model, key, items = items[0], None, None
        elif key is None:  # in a model: a key, quoted when it is not a plain name (a newline, a space, ...)
            name = key_name(part)
            parent, where, key = where, f"{where}.{name}" if where else name, part
            items = _LISTS.get((model, part)) if isinstance(part, str) else None
        else:  # the tag of a union member after a scalar key
            break
    return where, parent, model, key


def _message(err: Any, model: type[BaseModel], key: Any) -> str:
    kind, value, ctx = err["type"], err.get("input"), err.get("ctx") or {}
    keys = list(model.model_fields)
    if kind == "missing":
        return f"missing; {_NOUN[model]} needs '{key}'"
    if kind == "extra_forbidden":
        return not_a_key(key, keys, _NOUN[model])
    if key is None:  # the value where a mapping of this model belongs
        return f"{_SHAPE[model]}, found {found(value)}"
    items = _LISTS.get((model, key))
    if kind == "too_short" and items:
        return f"an empty list; {_NOUN[model]} needs at least one {_NOUN[items[0]].removeprefix('a ')}"
    if kind == "too_long" and items:
        return f"{ctx.get('actual_length', len(value)):,} {items[1]}, more than the {ctx['max_length']} allowed"
    if items:
        return f"a list of {items[1]}, found {found(value)}"
    if kind == "literal_error":
        return f"{value!r} is not a check kind (kinds: {', '.join(CHECK_KINDS)})"
    if kind == "string_pattern_mismatch" or (key == "id" and isinstance(value, str) and len(value) > 128):
        if len(value) > 128:
            return f"{len(value):,} characters, more than the 128 allowed"
        return f"{value!r} is not a usable id: {ID_RULE}"
    if kind == "string_too_short":
        return EMPTY_TEXT
    if kind == "string_too_long":
        return f"{len(value):,} characters, more than the {ctx['max_length']:,} allowed"
    expected = _EXPECTED.get(key, "text")
    quote = f"; quote it ('{value}')" if expected == "text" and isinstance(value, (int, float)) else ""
    number = "the number " if quote else ""
    return f"{expected}, found {number}{found(value)}{quote}"


def explain(path: Path, exc: ValidationError) -> InputError:
    """The first validation error of a native suite, as one line naming the key as written.

    A key that is not known comes first: a typo (``promt``) also makes the key it meant "missing", and the
    typo, with its "did you mean", is what the author has to fix.
    """
    errors = exc.errors()
    err = next((e for e in errors if e["type"] == "extra_forbidden"), errors[0])
    loc = tuple(p for p in err["loc"] if not (isinstance(p, str) and p.startswith("function-")))
    where, parent, model, key = _walk(loc)
    if err["type"] == "invalid_key":
        message = f"the key {key!r} is not text; keys are names such as '{_EXAMPLE_KEY[model]}'"
        return InputError(f"{path}: {parent}: {message}" if parent else f"{path}: {message}")
    if err["type"] == "value_error" and key not in _EXPECTED:  # our own rules, already in plain words
        message = str(err["msg"]).removeprefix("Value error, ")
    else:
        message = _message(err, model, key)
    return InputError(f"{path}: {where}: {message}" if where else f"{path}: {message}")
