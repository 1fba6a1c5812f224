"""Suites: the native format (YAML or JSON), skill-creator ``evals/evals.json`` and Caliper ``.eval.yaml``.

Every problem is one ``InputError`` line naming the file and the field, raised before any model call.
A case needs a rubric or at least one criterion; an empty criteria list is refused.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from driftproof.errors import InputError

MAX_TEXT = 20_000  # characters of a rubric or one criterion's description
MAX_PROMPT = 200_000
MAX_CRITERIA = 50
CASE_ID = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$"
CHECK_KINDS = ("regex", "contains", "not_contains", "max_chars", "json", "conventional_commit")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class CheckSpec(_Strict):
    """A deterministic post-check on an answer; shown beside the scores, never in a verdict."""

    kind: Literal["regex", "contains", "not_contains", "max_chars", "json", "conventional_commit"]
    name: str | None = Field(None, max_length=200)
    pattern: str | None = Field(None, max_length=2000, description="regex: a Python regular expression")
    value: str | int | None = Field(None, description="contains/not_contains: text; max_chars: a number")
    ignore_case: bool = False
    max_subject: int = Field(72, ge=1, description="conventional_commit: longest subject line allowed")

    @model_validator(mode="after")
    def _needs(self) -> CheckSpec:
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
    weight: float = Field(1.0, gt=0, le=1000)
    description: str = Field(min_length=1, max_length=MAX_TEXT)


class CaseIn(_Strict):
    """One case as written in a native suite."""

    id: Annotated[str, Field(pattern=CASE_ID)]
    prompt: str = Field(min_length=1, max_length=MAX_PROMPT)
    rubric: str | None = Field(None, min_length=1, max_length=MAX_TEXT)
    criteria: list[CriterionIn] | None = Field(None, max_length=MAX_CRITERIA)
    threshold: float | None = Field(None, ge=0, le=1)
    checks: list[CheckSpec] = Field(default_factory=list)

    @model_validator(mode="after")
    def _gradeable(self) -> CaseIn:
        if self.rubric is not None and self.criteria is not None:
            raise ValueError("give either 'rubric' or 'criteria', not both")
        if self.rubric is None and not self.criteria:
            what = "an empty 'criteria' list" if self.criteria == [] else "neither 'rubric' nor 'criteria'"
            raise ValueError(f"{what}: a case needs a rubric or at least one criterion for the judge")
        if self.criteria:
            ids = [c.id for c in self.criteria]
            if len(set(ids)) != len(ids):
                raise ValueError("criterion ids must be unique")
        return self


class SuiteIn(_Strict):
    """A native suite file."""

    name: str | None = Field(None, max_length=200)
    skill: str | None = Field(None, description="SKILL.md path, relative to the suite file")
    threshold: float | None = Field(None, ge=0, le=1)
    cases: list[CaseIn] = Field(min_length=1)

    @field_validator("cases")
    @classmethod
    def _unique(cls, cases: list[CaseIn]) -> list[CaseIn]:
        seen: set[str] = set()
        for c in cases:
            if c.id in seen:
                raise ValueError(f"case id '{c.id}' appears twice")
            seen.add(c.id)
        return cases


@dataclass(frozen=True, slots=True)
class Criterion:
    """A weighted criterion of a case."""

    id: str
    weight: float
    description: str


@dataclass(frozen=True, slots=True)
class SuiteCase:
    """One case, whatever format it came from."""

    id: str
    prompt: str
    rubric: str | None
    criteria: tuple[Criterion, ...] | None
    threshold: float | None
    checks: tuple[CheckSpec, ...] = ()
    notices: tuple[str, ...] = ()

    @property
    def mode(self) -> Literal["rubric", "criteria"]:
        """How the judge grades the case."""
        return "criteria" if self.criteria else "rubric"


@dataclass(frozen=True, slots=True)
class Suite:
    """A loaded suite."""

    path: Path
    format: str
    name: str
    sha256: str
    skill: Path | None
    cases: tuple[SuiteCase, ...]
    notices: tuple[str, ...] = ()


def _field(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


def _invalid(path: Path, exc: ValidationError) -> InputError:
    err = exc.errors()[0]
    loc = tuple(p for p in err["loc"] if not (isinstance(p, str) and p.startswith("function-")))
    message = str(err["msg"]).removeprefix("Value error, ")
    return InputError(f"{path}: {_field(loc)}: {message}")


def _read(path: Path) -> tuple[Any, bytes]:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise InputError(f"{path}: no such suite file") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot be read ({exc.strerror})") from None
    try:
        text = raw.decode("utf-8")
        data = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
    except UnicodeDecodeError:
        raise InputError(f"{path}: not UTF-8 text") from None
    except (json.JSONDecodeError, yaml.YAMLError) as exc:
        first = str(exc).splitlines()[0]
        raise InputError(f"{path}: not valid {'JSON' if path.suffix == '.json' else 'YAML'}: {first}") from None
    return data, raw


def _native(path: Path, data: Any, raw: bytes) -> Suite:
    try:
        parsed = SuiteIn.model_validate(data)
    except ValidationError as exc:
        raise _invalid(path, exc) from None
    cases = tuple(
        SuiteCase(
            id=c.id,
            prompt=c.prompt,
            rubric=c.rubric,
            criteria=tuple(Criterion(k.id, k.weight, k.description) for k in c.criteria) if c.criteria else None,
            threshold=c.threshold if c.threshold is not None else parsed.threshold,
            checks=tuple(c.checks),
        )
        for c in parsed.cases
    )
    skill = (path.parent / parsed.skill) if parsed.skill else None
    return Suite(path, "native", parsed.name or path.stem, _sha(raw), skill, cases)


def _skill_creator(path: Path, data: dict[str, Any], raw: bytes) -> Suite:
    """skill-creator ``evals/evals.json``: prompt, expected output, expectations (or assertions) → criteria."""
    evals = data.get("evals")
    if not isinstance(evals, list) or not evals:
        raise InputError(f"{path}: evals: a non-empty list of evals is required")
    cases = []
    for i, item in enumerate(evals):
        where = f"{path}: evals[{i}]"
        if not isinstance(item, dict):
            raise InputError(f"{where}: an eval is an object")
        prompt = item.get("prompt")
        if not isinstance(prompt, str) or not prompt.strip():
            raise InputError(f"{where}.prompt: a non-empty prompt is required")
        raw_id = item.get("id", i + 1)
        case_id = str(raw_id) if isinstance(raw_id, (int, str)) and str(raw_id) else f"eval-{i + 1}"
        if not re.match(CASE_ID, case_id):
            raise InputError(f"{where}.id: {case_id!r} is not a usable case id")
        statements = [*item.get("expectations", []), *item.get("assertions", [])]
        if not all(isinstance(s, str) and s.strip() for s in statements):
            raise InputError(f"{where}.expectations: every expectation is a non-empty string")
        expected = item.get("expected_output")
        criteria = [Criterion(f"e{k + 1}", 1.0, s.strip()) for k, s in enumerate(dict.fromkeys(statements))]
        if isinstance(expected, str) and expected.strip():
            criteria.insert(0, Criterion("expected-output", 1.0, f"The answer matches: {expected.strip()}"))
        if not criteria:
            raise InputError(f"{where}: neither expected_output nor expectations: nothing for the judge to grade")
        if len(criteria) > MAX_CRITERIA:
            raise InputError(f"{where}.expectations: at most {MAX_CRITERIA} criteria, found {len(criteria)}")
        if any(len(c.description) > MAX_TEXT for c in criteria):
            raise InputError(f"{where}.expectations: an expectation is longer than {MAX_TEXT} characters")
        notices = ("files: attached input files are not supplied on this lane",) if item.get("files") else ()
        cases.append(SuiteCase(case_id, prompt, None, tuple(criteria), None, (), notices))
    ids = [c.id for c in cases]
    if len(set(ids)) != len(ids):
        raise InputError(f"{path}: evals: ids must be unique")
    skill = path.parent.parent / "SKILL.md" if (path.parent.parent / "SKILL.md").is_file() else None
    name = data.get("skill_name") if isinstance(data.get("skill_name"), str) else path.parent.parent.name
    return Suite(path, "skill-creator", str(name), _sha(raw), skill, tuple(cases))


def _caliper(path: Path, data: dict[str, Any], raw: bytes) -> Suite:
    """Caliper ``.eval.yaml``: ``expect:`` → rubric; ``assert:`` and ``activates:`` are not run on this lane."""
    tasks = data.get("tasks")
    if not isinstance(tasks, list) or not tasks:
        raise InputError(f"{path}: tasks: a non-empty list of tasks is required")
    cases, notices = [], []
    for i, task in enumerate(tasks):
        where = f"{path}: tasks[{i}]"
        if not isinstance(task, dict):
            raise InputError(f"{where}: a task is a mapping")
        case_id = f"task-{i + 1:03d}"
        prompt, expect = task.get("prompt"), task.get("expect")
        if not isinstance(prompt, str) or not prompt.strip():
            raise InputError(f"{where}.prompt: a non-empty prompt is required")
        skipped = [k for k in ("assert", "activates", "setup", "cleanup") if k in task]
        if not isinstance(expect, str) or not expect.strip():
            notices.append(f"{case_id} ({task.get('name', 'unnamed')}): no expect:, nothing to grade; left out")
            continue
        case_notices = tuple(f"{k}: not run on this lane" for k in skipped)
        cases.append(SuiteCase(case_id, prompt, expect.strip(), None, None, (), case_notices))
    if not cases:
        raise InputError(f"{path}: tasks: no task has an expect:, so nothing can be graded on this lane")
    skill = None
    for entry in data.get("skills", []) or []:
        if isinstance(entry, str):
            skill = (path.parent / entry).resolve()
            notices.append(f"skill under test taken from skills[0]: {entry}")
            break
    return Suite(path, "caliper", path.name.removesuffix(".eval.yaml"), _sha(raw), skill, tuple(cases), tuple(notices))


def _sha(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()


def load_suite(path: Path | str) -> Suite:
    """Load a suite in any supported format; the format is told from the name and the shape."""
    path = Path(path)
    data, raw = _read(path)
    if not isinstance(data, (dict, list)):
        raise InputError(f"{path}: a suite is a mapping with a 'cases' list")
    if isinstance(data, dict) and "evals" in data and "cases" not in data:
        return _skill_creator(path, data, raw)
    if isinstance(data, dict) and "tasks" in data and "cases" not in data:
        return _caliper(path, data, raw)
    return _native(path, data, raw)
