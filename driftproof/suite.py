"""Suites: the native format (YAML or JSON), skill-creator ``evals/evals.json`` and Caliper ``.eval.yaml``.

Every problem is one ``InputError`` line naming the file and the field as written, raised before any model
call. A case needs a rubric or at least one criterion; an empty criteria list is refused. Whatever of a
suite this lane does not run (a Caliper task left out, an ``assert:`` not run, attached files not supplied)
becomes a notice: ``Suite.notices`` for the suite, ``SuiteCase.notices`` for a case; ``notice_lines`` prints
them before the first call and the receipt keeps them. The native format's models live in
:mod:`driftproof.native_suite`; this module is the public face.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from driftproof.bounded import INPUT, decode, load_data, read_capped, read_file
from driftproof.core.fields import found
from driftproof.core.models import CriterionSpec
from driftproof.errors import InputError
from driftproof.native_suite import (
    CASE_ID,
    EMPTY_TEXT,
    MAX_CRITERIA,
    MAX_TEXT,
    CanaryIn,
    CheckSpec,
    SuiteIn,
    explain,
    key_name,
    not_a_key,
)
from driftproof.safe_text import shorten

__all__ = [
    "Canary",
    "CheckSpec",
    "Suite",
    "SuiteCase",
    "canaries_of",
    "installed_neighbours",
    "load_suite",
    "neighbour_notice",
    "neighbour_texts",
    "notice_lines",
    "read_skill",
    "skill_flag_given",
]

NOT_RUN = "driftproof: not run on this lane: "
"""The prefix of each notice line printed before a run's first call (but `STOOD_IN`'s)."""
STOOD_IN = "driftproof: skill: "
"""The prefix of the line saying that ``--skill`` stands in for a git source the suite names (it was measured)."""


@dataclass(frozen=True, slots=True)
class SuiteCase:
    """One case, whatever format it came from."""

    id: str
    prompt: str
    rubric: str | None
    criteria: tuple[CriterionSpec, ...] | None
    threshold: float | None
    checks: tuple[CheckSpec, ...] = ()
    notices: tuple[str, ...] = ()
    label: str | None = None
    """How a notice printed before the run names the case (Caliper: ``task-001 (its name:)``); ``None``: its id."""

    @property
    def mode(self) -> Literal["rubric", "criteria"]:
        """How the judge grades the case."""
        return "criteria" if self.criteria else "rubric"


@dataclass(frozen=True, slots=True)
class Canary:
    """A judge-anchor canary: a fixed answer, the task and rubric that grade it (``grading``), its expected score."""

    id: str
    grading: SuiteCase
    """What the judge is shown with the answer: the case's task and rubric or criteria, or the canary's own."""
    answer: str
    expected: float
    case_id: str | None = None
    """The suite case it answers; ``None`` when it carries a task of its own."""


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
    canaries: tuple[Canary, ...] = ()
    """The suite's own ``canaries:`` (native format only); empty: the run uses the default set."""
    neighbours: tuple[Path, ...] = ()
    """Neighbour skills' SKILL.md files the suite declares (Caliper ``skills[1:]``, native ``neighbours:``):
    installed beside the skill under test, in both arms, with ``--delivery discover``."""


def _read(path: Path) -> tuple[Any, bytes]:
    raw = read_file(path, INPUT, InputError, "a suite", "a suite file", missing="no such suite file")
    data = load_data(raw, str(path), as_json=path.suffix == ".json", limits=INPUT, error=InputError, what="a suite")
    return data, raw


def _native(path: Path, data: Any, raw: bytes) -> Suite:
    try:
        parsed = SuiteIn.model_validate(data)
    except ValidationError as exc:
        raise explain(path, exc) from None
    cases = tuple(
        SuiteCase(
            id=c.id,
            prompt=c.prompt,
            rubric=c.rubric,
            criteria=tuple(CriterionSpec(id=k.id, weight=k.weight, description=k.description) for k in c.criteria)
            if c.criteria
            else None,
            threshold=c.threshold if c.threshold is not None else parsed.threshold,
            checks=tuple(c.checks),
        )
        for c in parsed.cases
    )
    skill = (path.parent / parsed.skill) if parsed.skill else None
    canaries = canaries_of(path, parsed.canaries or [], cases)
    suite = Suite(path, "native", parsed.name or path.stem, _sha(raw), skill, cases, canaries=canaries)
    if not parsed.neighbours:
        return suite
    neighbours = tuple(path.parent / n for n in parsed.neighbours)
    return replace(suite, neighbours=neighbours, notices=tuple(neighbour_notice(suite, n) for n in neighbours))


def canaries_of(path: Path, items: list[CanaryIn], cases: tuple[SuiteCase, ...]) -> tuple[Canary, ...]:
    """The canaries as the run judges them; a duplicate id or an unknown case is one line ``FILE: canaries[k]...``."""
    by_id = {c.id: c for c in cases}
    seen: set[str] = set()
    found_canaries = []
    for k, item in enumerate(items):
        if item.id in seen:
            raise InputError(f"{path}: canaries[{k}].id: canary id '{item.id}' appears twice")
        seen.add(item.id)
        if item.case is not None and item.case not in by_id:
            listed = ", ".join(list(by_id)[:10]) + (f", ... ({len(by_id)} cases)" if len(by_id) > 10 else "")
            raise InputError(f"{path}: canaries[{k}].case: '{item.case}' is not a case of this suite (cases: {listed})")
        if item.case is not None:
            grading = by_id[item.case]
            grading = SuiteCase(item.id, grading.prompt, grading.rubric, grading.criteria, None)
        else:
            grading = SuiteCase(item.id, item.prompt or "", item.rubric, None, None)
        found_canaries.append(Canary(item.id, grading, item.answer, item.expected, item.case))
    return tuple(found_canaries)


def _only_keys(data: dict[Any, Any], keys: tuple[str, ...], noun: str, path: Path, at: str = "") -> None:
    """Refuse a key the format does not have, with the nearest one when it is close, as a native suite does: a
    key nothing reads would be dropped without a word."""
    for key in data:
        if key not in keys:
            where = f"{at}.{key_name(key)}" if at else key_name(key)
            raise InputError(f"{path}: {where}: {not_a_key(key, keys, noun)}")


#: skill-creator's keys (references/schemas.md; ``name`` as real files write it), at the top and in an eval.
_EVALS_KEYS = ("skill_name", "evals")
_EVAL_KEYS = ("id", "name", "prompt", "expected_output", "expectations", "assertions", "files")
#: The keys NVIDIA's reader of evals.json adds, none of which this lane checks.
_EVAL_NOT_RUN = {
    "expected_skill": "expected_skill: (which skill should take the task) is not checked",
    "acceptable_skills": "acceptable_skills: (other skills that may take it) are not checked",
    "acceptable_alternates": "acceptable_alternates: (other skills that may take it) are not checked",
    "expected_script": "expected_script: (a script the skill should run) is not checked",
}


def _strings(item: dict[str, Any], key: str, where: str) -> list[str]:
    """``expectations`` or ``assertions``: absent, or a list of non-empty strings."""
    if key not in item:
        return []
    value = item[key]
    if not isinstance(value, list):
        raise InputError(f"{where}.{key}: a list of strings, found {found(value)}")
    for k, s in enumerate(value):
        if not isinstance(s, str) or not s.strip():
            raise InputError(f"{where}.{key}[{k}]: a non-empty string, found {found(s)}")
    return [s.strip() for s in value]


def _eval_id(item: dict[str, Any], i: int, where: str) -> str:
    raw_id = item.get("id", i + 1)
    if isinstance(raw_id, bool) or not isinstance(raw_id, (int, str)):
        raise InputError(f"{where}.id: a whole number or text, found {found(raw_id)}")
    case_id = str(raw_id)
    if not re.match(CASE_ID, case_id):
        raise InputError(f"{where}.id: {case_id!r} is not a usable case id")
    return case_id


def _files_notice(item: dict[str, Any], case_id: str, where: str) -> tuple[str, ...]:
    files = item.get("files")
    if files is None or files == []:
        return ()
    if not isinstance(files, list) or not all(isinstance(f, str) for f in files):
        raise InputError(f"{where}.files: a list of paths, found {found(files)}")
    n = len(files)
    shown = ", ".join(files[:5]) + (", ..." if n > 5 else "")
    noun = "file is" if n == 1 else "files are"
    return (f"files: {n} attached input {noun} not supplied ({shown})",)


def _eval_case(item: Any, i: int, path: Path) -> SuiteCase:
    where = f"{path}: evals[{i}]"
    if not isinstance(item, dict):
        raise InputError(f"{where}: an eval is an object, found {found(item)}")
    _only_keys(item, (*_EVAL_KEYS, *_EVAL_NOT_RUN), "an eval", path, f"evals[{i}]")
    if item.get("name") is not None and not isinstance(item["name"], str):
        raise InputError(f"{where}.name: text, found {found(item['name'])}")
    prompt = item.get("prompt")
    if not isinstance(prompt, str) or not prompt.strip():
        raise InputError(f"{where}.prompt: a non-empty prompt is required")
    case_id = _eval_id(item, i, where)
    statements = [*_strings(item, "expectations", where), *_strings(item, "assertions", where)]
    expected = item.get("expected_output")
    if expected is not None and not isinstance(expected, str):
        raise InputError(f"{where}.expected_output: text, found {found(expected)}")
    criteria = [
        CriterionSpec(id=f"e{k + 1}", weight=1.0, description=s) for k, s in enumerate(dict.fromkeys(statements))
    ]
    if expected and expected.strip():
        criteria.insert(
            0, CriterionSpec(id="expected-output", weight=1.0, description=f"The answer matches: {expected.strip()}")
        )
    if not criteria and expected is not None:  # the key is there, only blank: said as other blank texts are
        raise InputError(f"{where}.expected_output: {EMPTY_TEXT}")
    if not criteria:
        raise InputError(f"{where}: neither expected_output nor expectations: nothing for the judge to grade")
    if len(criteria) > MAX_CRITERIA:
        raise InputError(f"{where}.expectations: at most {MAX_CRITERIA} criteria, found {len(criteria)}")
    if any(len(c.description) > MAX_TEXT for c in criteria):
        raise InputError(f"{where}.expectations: an expectation is longer than {MAX_TEXT} characters")
    notices = (*_files_notice(item, case_id, where), *(_EVAL_NOT_RUN[k] for k in _EVAL_NOT_RUN if k in item))
    return SuiteCase(case_id, prompt, None, tuple(criteria), None, (), notices)


def _skill_creator(path: Path, data: dict[str, Any], raw: bytes) -> Suite:
    """skill-creator ``evals/evals.json``: prompt, expected output, expectations (or assertions) → criteria."""
    _only_keys(data, _EVALS_KEYS, "an evals.json", path)
    name = data.get("skill_name")
    if name is not None and not isinstance(name, str):
        raise InputError(f"{path}: skill_name: text, found {found(name)}")
    evals = data.get("evals")
    if not isinstance(evals, list) or not evals:
        raise InputError(f"{path}: evals: a non-empty list of evals is required")
    cases = [_eval_case(item, i, path) for i, item in enumerate(evals)]
    first: dict[str, int] = {}
    for i, case in enumerate(cases):
        if case.id in first:
            raise InputError(
                f"{path}: evals[{i}].id: eval id '{case.id}' appears twice (evals[{first[case.id]}] has it too)"
            )
        first[case.id] = i
    beside = _beside_evals(path)
    skill = beside if beside.is_file() else None
    name = name if name is not None else Path(os.path.normpath(beside.absolute())).parent.name
    return Suite(path, "skill-creator", str(name), _sha(raw), skill, tuple(cases))


def _beside_evals(path: Path) -> Path:
    """The SKILL.md of an ``evals/evals.json``: in the folder above the one the file is in. A path that names
    that folder (``evals/evals.json``, ``../evals/evals.json``) is gone up from as written; one that does not
    (``evals.json`` or ``../evals.json``, run inside ``evals/``) from where the folder really is, the working
    directory's real path, and written relative to the working directory (``../SKILL.md``) as the others are."""
    if path.parent.name not in ("", ".."):
        return path.parent.parent / "SKILL.md"
    real = Path(os.path.normpath(path.absolute().parent)).parent / "SKILL.md"
    return real if path.is_absolute() else Path(os.path.relpath(real))


#: Caliper's spec keys (``EvalSpec``, which refuses any other) at the top and in a task.
_SPEC_KEYS = ("skills", "sandbox", "mcp", "user_customizations", "tasks")
_TASK_KEYS = ("name", "prompt", "history", "expect", "assert", "activates", "setup", "cleanup")
#: The keys Caliper removed, each refused with its migration message as Caliper refuses it.
_REMOVED = {
    "skill": "became skills: in v0.10; see Caliper's docs/MIGRATING-to-skills.md",
    "judge": "no longer a spec key: Caliper chooses the judge at run time (--judge-model), never in the spec; "
    "give driftproof run --judge-provider and --judge-model",
}
_NAMED = "a task needs a name, unique in the spec (Caliper's rule)"

#: What each Caliper task key asks for that this lane does not do.
_NOT_RUN_KEYS = {
    "assert": "assert: (a Python assertion) is not run",
    "activates": "activates: (which skills the agent loads) is not checked",
    "setup": "setup: (a shell command before each attempt) is not run",
    "cleanup": "cleanup: (a shell command after each attempt) is not run",
    "history": "history: (planted earlier turns) is not supplied",
}


def _caliper_skills(path: Path, data: dict[str, Any]) -> tuple[Path | None, list[str]]:
    """The skill under test (``skills[0]`` when it is a path) and what is said about the others (their paths:
    `caliper_neighbours`)."""
    skills = data.get("skills")
    if skills is None or skills == []:
        return None, []  # a bare agent: read_skill asks for --skill
    if not isinstance(skills, list):
        raise InputError(f"{path}: skills: a list of skills (- ./SKILL.md), found {found(skills)}")
    for k, entry in enumerate(skills):
        if not (isinstance(entry, str) and entry.strip()) and not (
            isinstance(entry, dict) and isinstance(entry.get("repo"), str)
        ):
            raise InputError(
                f"{path}: skills[{k}]: a path (text) or a git source (repo:, ref:, path:), found {found(entry)}"
            )
    for k, entry in enumerate(skills):
        if isinstance(entry, str) and _GIT_URL.match(entry):
            raise InputError(f"{path}: skills[{k}]: {_git_url(entry, k)}")
    said = [f"skills[{k}]: {_source(e)}, a neighbour skill, is not installed" for k, e in enumerate(skills) if k]
    first = skills[0]
    if isinstance(first, dict):
        note = f"skills[0]: a git source (repo: {first['repo']}), which Driftproof does not fetch;"
        return None, [f"{note} {_ASK_SKILL}", *said]
    return path.parent / first, said  # as the other formats: relative to where the run is made, when the suite is


#: A git URL (``https://…``, ``ssh://…``, ``git@host:…``), which Caliper reads as a path that does not exist.
_GIT_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://|[\w.-]+@[\w.-]+:")
_GITHUB_REPO = re.compile(
    r"(?:[A-Za-z0-9+.-]+://(?:[^/@]+@)?|[\w.-]+@)github\.com[/:]([\w.-]+)/([\w.-]+?)(?:\.git)?/?$"
)


def _git_url(entry: str, k: int) -> str:
    """Why a ``skills:`` entry written as a git URL is refused: Caliper's git source is a mapping."""
    github = _GITHUB_REPO.match(entry)
    repo = f"{github[1]}/{github[2]}" if github else "owner/name"
    local = f"; {_ASK_SKILL}" if k == 0 else ""  # a neighbour is never measured: no --skill stands in for it
    return (
        f"{shorten(entry)!r} is a URL, not a path: Caliper writes a git source as a mapping,"
        f" {{repo: {repo}, ref: REF, path: DIR/SKILL.md}}, which Driftproof does not fetch{local}"
    )


def _caliper_neighbours(path: Path, data: dict[str, Any]) -> tuple[Path, ...]:
    """The local neighbour skills of a checked ``skills:`` list (``skills[1:]`` given as paths)."""
    skills = data.get("skills") or []
    return tuple(path.parent / e for e in skills[1:] if isinstance(e, str))


_ASK_SKILL = "give --skill PATH to a local copy of its SKILL.md"
_SKILL_GIVEN = "--skill gave the SKILL.md measured in its place"


def skill_flag_given(suite: Suite) -> Suite:
    """The suite as a run given ``--skill`` reads it: a git source in Caliper's ``skills[0]`` no longer asks for
    the flag; its notice says the flag stands in for it."""
    said = tuple(n.replace(_ASK_SKILL, _SKILL_GIVEN) if n.startswith("skills[0]: ") else n for n in suite.notices)
    return replace(suite, notices=said)


def neighbour_notice(suite: Suite, neighbour: Path) -> str:
    """The notice a neighbour gets when it is not installed (any delivery but ``discover``)."""
    return f"neighbours: {neighbour}, a neighbour skill, is not installed (only --delivery discover installs it)"


def installed_neighbours(suite: Suite) -> Suite:
    """The suite as a ``discover`` run reads it: its local neighbours are installed, so no notice says otherwise."""
    if suite.format == "caliper":  # a local entry's notice; a git source's (``skills[k]: repo ...``) stays
        local = re.compile(r"^skills\[\d+\]: (?!repo ).*, a neighbour skill, is not installed$")
        kept = tuple(n for n in suite.notices if not local.match(n))
    else:
        kept = tuple(n for n in suite.notices if n not in {neighbour_notice(suite, p) for p in suite.neighbours})
    return replace(suite, notices=kept)


def neighbour_texts(suite: Suite) -> tuple[str, ...]:
    """The text of each neighbour SKILL.md the suite declares, read as a SKILL.md is (``discover`` delivery);
    a missing, unreadable or empty one is refused naming the suite and the path."""
    field = "skills[k]" if suite.format == "caliper" else "neighbours"
    texts = []
    for path in suite.neighbours:
        try:
            text = decode(read_capped(path, INPUT, InputError, "a SKILL.md"), str(path), InputError)
        except OSError as exc:
            raise InputError(f"{suite.path}: {field}: {path}: cannot be read ({exc.strerror})") from None
        if not text.strip():
            raise InputError(f"{suite.path}: {field}: {path}: the neighbour SKILL.md is empty")
        texts.append(text)
    return tuple(texts)


def _source(entry: str | dict[str, Any]) -> str:
    return entry if isinstance(entry, str) else f"repo {entry['repo']}"


def _caliper_blocks(data: dict[str, Any]) -> list[str]:
    """Top-level blocks of a spec that this lane does not honour."""
    said = []
    mcp = data.get("mcp")
    if isinstance(mcp, dict) and mcp:
        names = ", ".join(str(k) for k in mcp)
        servers = "1 MCP server" if len(mcp) == 1 else f"{len(mcp)} MCP servers"
        said.append(f"mcp: {servers} ({names}) {'is' if len(mcp) == 1 else 'are'} not started")
    if data.get("sandbox"):
        said.append("sandbox: forbidden_files and extra_path are not applied")
    return said


def _caliper_task(task: Any, i: int, path: Path) -> tuple[SuiteCase | None, str | None]:
    """One task: its case, or None with the notice saying why it was left out."""
    where = f"{path}: tasks[{i}]"
    if not isinstance(task, dict):
        raise InputError(f"{where}: a task is a mapping, found {found(task)}")
    _only_keys(task, _TASK_KEYS, "a task", path, f"tasks[{i}]")
    if "name" not in task:
        raise InputError(f"{where}.name: missing; {_NAMED}")
    if not isinstance(task["name"], str):
        raise InputError(f"{where}.name: text, found {found(task['name'])}")
    if not task["name"].strip():
        raise InputError(f"{where}.name: empty; {_NAMED}")
    label = f"task-{i + 1:03d} ({task['name']})"
    prompt, expect = task.get("prompt"), task.get("expect")
    if not isinstance(prompt, str) or not prompt.strip():
        raise InputError(f"{where}.prompt: a non-empty prompt is required")
    if expect is not None and not isinstance(expect, str):
        raise InputError(f"{where}.expect: text (the condition the judge checks), found {found(expect)}")
    if isinstance(expect, str) and not expect.strip():
        raise InputError(f"{where}.expect: empty; write the condition the judge checks, or remove the key")
    skipped = [k for k in _NOT_RUN_KEYS if k in task]
    if expect is None:
        checks = [k for k in skipped if k in ("assert", "activates")]
        if not checks:
            raise InputError(f"{where}: a task needs expect:, assert: or activates: (Caliper's rule)")
        why = " and ".join(_NOT_RUN_KEYS[k] for k in checks)
        return None, f"{label}: left out: it has no expect: for the judge, and {why}"
    notices = tuple(_NOT_RUN_KEYS[k] for k in skipped)  # the case's own notices: its id is said beside them
    return SuiteCase(f"task-{i + 1:03d}", prompt, expect.strip(), None, None, (), notices, label), None


def _caliper(path: Path, data: dict[str, Any], raw: bytes) -> Suite:
    """Caliper ``.eval.yaml``: ``expect:`` → rubric; ``assert:``, ``activates:`` and the rest are noticed."""
    for key, why in _REMOVED.items():
        if key in data:
            raise InputError(f"{path}: {key}: {why}")
    _only_keys(data, _SPEC_KEYS, "a Caliper spec", path)
    skill, notices = _caliper_skills(path, data)
    notices += _caliper_blocks(data)
    tasks = data.get("tasks")
    if not isinstance(tasks, list) or not tasks:
        raise InputError(f"{path}: tasks: a non-empty list of tasks is required")
    cases: list[SuiteCase] = []
    named: dict[str, int] = {}
    for i, task in enumerate(tasks):
        case, left_out = _caliper_task(task, i, path)
        if task["name"] in named:
            rule = "task names are unique (Caliper's rule)"
            raise InputError(
                f"{path}: tasks[{i}].name: {task['name']!r} is also the name of tasks[{named[task['name']]}]; {rule}"
            )
        named[task["name"]] = i
        if case is not None:
            cases.append(case)
        if left_out is not None:
            notices.append(left_out)
    if not cases:
        raise InputError(f"{path}: tasks: no task has an expect:, so nothing can be graded on this lane")
    name = path.name.removesuffix(".eval.yaml")
    return Suite(
        path,
        "caliper",
        name,
        _sha(raw),
        skill,
        tuple(cases),
        tuple(notices),
        neighbours=_caliper_neighbours(path, data),
    )


def _sha(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()


def load_suite(path: Path | str) -> Suite:
    """Load a suite in any supported format; the format is told from the name and the shape."""
    path = Path(path)
    data, raw = _read(path)
    if isinstance(data, dict) and "evals" in data and "cases" not in data:
        return _skill_creator(path, data, raw)
    if isinstance(data, dict) and "tasks" in data and "cases" not in data:
        return _caliper(path, data, raw)
    return _native(path, data, raw)


def notice_lines(suite: Suite) -> list[str]:
    """Every notice of the suite, then of each case, as the lines printed before a run's first call."""
    cases = [NOT_RUN + f"{c.label or c.id}: {n}" for c in suite.cases for n in c.notices]
    # the notice that --skill stands in for a git skills[0] tells what was measured, not what was left out
    return [(STOOD_IN if n.endswith(_SKILL_GIVEN) else NOT_RUN) + n for n in suite.notices] + cases


def _no_skill(suite: Suite) -> InputError:
    why = "a run with no skill measures nothing"
    if suite.format == "caliper":
        return InputError(
            f"{suite.path}: skills: no local SKILL.md path in skills[0], and no --skill given: {why}; give --skill PATH"
        )
    if suite.format == "skill-creator":
        beside = _beside_evals(suite.path)
        return InputError(
            f"{suite.path}: no SKILL.md at {beside} (beside evals/), and no --skill given: {why}; give --skill PATH"
        )
    fix = "add 'skill: SKILL.md' to the suite or give --skill PATH"
    return InputError(f"{suite.path}: skill: missing, and no --skill given: {why}; {fix}")


def read_skill(path: Path | None, suite: Suite) -> tuple[Path, str]:
    """The SKILL.md under test (``--skill`` first, else the suite's) and its text; refused when there is none,
    when it is missing, a directory, not UTF-8, over 8 MiB, or empty."""
    given = path is not None
    path = path if path is not None else suite.skill
    if path is None:
        raise _no_skill(suite)
    field = "skills[0]" if suite.format == "caliper" else "skill"
    try:
        raw = read_capped(path, INPUT, InputError, "a SKILL.md")
    except FileNotFoundError:
        if not given:
            raise InputError(f"{suite.path}: {field}: {path} does not exist") from None
        raise InputError(f"{path}: no such SKILL.md (given by --skill)") from None
    except IsADirectoryError:
        inside = path / "SKILL.md"
        hint = f" (did you mean {inside}?)" if inside.is_file() else ""
        where = "" if given else f"{suite.path}: {field}: "  # the suite named it: the suite and its key first
        raise InputError(f"{where}{path}: is a directory, not a SKILL.md{hint}") from None
    except OSError as exc:
        raise InputError(f"{path}: SKILL.md cannot be read ({exc.strerror})") from None
    try:
        text = decode(raw, str(path), InputError)
    except InputError:
        raise InputError(f"{path}: SKILL.md is not UTF-8 text") from None
    if not text.strip():
        raise InputError(f"{path}: SKILL.md is empty: a run with an empty skill measures nothing")
    return path, text
