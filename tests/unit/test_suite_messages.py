"""A wrong native suite is one line in the user's words: the key as written, what is expected, what was found.

Every pydantic error type a native suite can reach is listed here with the exact message it becomes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from driftproof.errors import InputError
from driftproof.suite import load_suite

OK_CASE = {"id": "a", "prompt": "p", "rubric": "r"}
INTERNAL = ("SuiteIn", "CaseIn", "CriterionIn", "CheckSpec", "Input should", "instance of", "Value error", "pydantic")


def case(**kw: Any) -> dict[str, Any]:
    return {"cases": [{**OK_CASE, **kw}]}


def check(**kw: Any) -> dict[str, Any]:
    return case(checks=[kw])


def criteria(*items: dict[str, Any]) -> dict[str, Any]:
    return {"cases": [{"id": "a", "prompt": "p", "criteria": list(items)}]}


TABLE: list[tuple[Any, str]] = [
    # model_type
    (["a", "b"], "the suite is a mapping with a 'cases' list, found a list"),
    ("just text", "the suite is a mapping with a 'cases' list, found 'just text'"),
    ({"cases": [1]}, "cases[0]: a case is a mapping with 'id', 'prompt' and a 'rubric' or 'criteria', found 1"),
    (case(checks=["x"]), "cases[0].checks[0]: a check is a mapping with 'kind' and its arguments, found 'x'"),
    (criteria("c"), "cases[0].criteria[0]: a criterion is a mapping with 'id', 'description' and 'weight', found 'c'"),
    # missing
    ({"name": "x"}, "cases: missing; a suite needs 'cases'"),
    ({"cases": [{"id": "a", "rubric": "r"}]}, "cases[0].prompt: missing; a case needs 'prompt'"),
    (criteria({"id": "c"}), "cases[0].criteria[0].description: missing; a criterion needs 'description'"),
    (check(), "cases[0].checks[0].kind: missing; a check needs 'kind'"),
    # extra_forbidden (with the nearest key when one is close)
    (
        case(surprise=1),
        "cases[0].surprise: not a key of a case (its keys: id, prompt, rubric, criteria, threshold, checks)",
    ),
    (
        case(rubrics="r"),
        "cases[0].rubrics: not a key of a case (its keys: id, prompt, rubric, criteria, threshold, checks);"
        " did you mean 'rubric'?",
    ),
    (  # a typo of a required key: the unknown key is named first, not the "missing" one it causes
        {"cases": [{"id": "a", "promt": "p", "rubric": "r"}]},
        "cases[0].promt: not a key of a case (its keys: id, prompt, rubric, criteria, threshold, checks);"
        " did you mean 'prompt'?",
    ),
    (
        {"skills": ["SKILL.md"], **case()},
        "skills: not a key of a suite (its keys: name, skill, neighbours, threshold, cases, canaries);"
        " did you mean 'skill'?",
    ),
    (
        criteria({"id": "c", "description": "d", "wieght": 2}),
        "cases[0].criteria[0].wieght: not a key of a criterion (its keys: id, weight, description);"
        " did you mean 'weight'?",
    ),
    # wrong types
    ({"cases": "x"}, "cases: a list of cases, found 'x'"),
    ({"cases": {"a": OK_CASE}}, "cases: a list of cases, found a mapping"),
    (case(id=1), "cases[0].id: text, found the number 1; quote it ('1')"),
    ({"name": 5, **case()}, "name: text, found the number 5; quote it ('5')"),
    ({"skill": ["a"], **case()}, "skill: a path to SKILL.md (text), found a list"),
    (case(prompt=None), "cases[0].prompt: text, found null"),
    (case(threshold="hi"), "cases[0].threshold: a number from 0 to 1, found 'hi'"),
    (case(threshold=True), "cases[0].threshold: a number from 0 to 1, found true"),
    (case(threshold=10**400), "cases[0].threshold: a number from 0 to 1, found a number too large to use"),
    (case(checks=None), "cases[0].checks: a list of checks, found null"),
    ({"cases": [{"id": "a", "prompt": "p", "criteria": "c"}]}, "cases[0].criteria: a list of criteria, found 'c'"),
    (check(kind="contains", value=[1]), "cases[0].checks[0].value: text or a whole number, found a list"),
    (check(kind="max_chars", value=True), "cases[0].checks[0].value: text or a whole number, found true"),
    (
        check(kind="contains", value="x", ignore_case="maybe"),
        "cases[0].checks[0].ignore_case: true or false, found 'maybe'",
    ),
    (
        check(kind="conventional_commit", max_subject=1.5),
        "cases[0].checks[0].max_subject: a whole number, at least 1, found 1.5",
    ),
    (
        check(kind="conventional_commit", max_subject="x"),
        "cases[0].checks[0].max_subject: a whole number, at least 1, found 'x'",
    ),
    (
        criteria({"id": "c", "description": "d", "weight": "x"}),
        "cases[0].criteria[0].weight: a number above 0, at most 1000, found 'x'",
    ),
    # out of range
    (case(threshold=1.5), "cases[0].threshold: a number from 0 to 1, found 1.5"),
    (case(threshold=-0.1), "cases[0].threshold: a number from 0 to 1, found -0.1"),
    ({"threshold": 2, **case()}, "threshold: a number from 0 to 1, found 2"),
    (
        criteria({"id": "c", "description": "d", "weight": 0}),
        "cases[0].criteria[0].weight: a number above 0, at most 1000, found 0",
    ),
    (
        criteria({"id": "c", "description": "d", "weight": 2000}),
        "cases[0].criteria[0].weight: a number above 0, at most 1000, found 2000",
    ),
    (
        check(kind="conventional_commit", max_subject=0),
        "cases[0].checks[0].max_subject: a whole number, at least 1, found 0",
    ),
    # literal
    (
        check(kind="spell"),
        "cases[0].checks[0].kind: 'spell' is not a check kind"
        " (kinds: regex, contains, not_contains, max_chars, json, conventional_commit)",
    ),
    # pattern, length
    (
        case(id="bad id!"),
        "cases[0].id: 'bad id!' is not a usable id: 1 to 128 ASCII letters, digits, '.', '_' or '-',"
        " starting with a letter or digit",
    ),
    (  # probe-core #12: é is a letter, but not an ASCII one
        case(id="café-ünïcode"),
        "cases[0].id: 'café-ünïcode' is not a usable id: 1 to 128 ASCII letters, digits, '.', '_' or '-',"
        " starting with a letter or digit",
    ),
    (case(id="x" * 129), "cases[0].id: 129 characters, more than the 128 allowed"),
    (case(prompt=""), "cases[0].prompt: empty; write the text"),
    (case(prompt="x" * 200_001), "cases[0].prompt: 200,001 characters, more than the 200,000 allowed"),
    ({"name": "n" * 201, **case()}, "name: 201 characters, more than the 200 allowed"),
    ({"cases": []}, "cases: an empty list; a suite needs at least one case"),
    (
        criteria(*({"id": f"c{i}", "description": "d"} for i in range(51))),
        "cases[0].criteria: 51 criteria, more than the 50 allowed",
    ),
    # our own rules
    ({"cases": [OK_CASE, OK_CASE]}, "cases: case id 'a' appears twice"),
    (
        criteria({"id": "c", "description": "d"}, {"id": "c", "description": "e"}),
        "cases[0]: criterion id 'c' appears twice",
    ),
    (check(kind="regex"), "cases[0].checks[0]: a regex check needs 'pattern'"),
]


@pytest.mark.parametrize(("data", "message"), TABLE, ids=[m[:60] for _, m in TABLE])
def test_native_suite_errors_speak_the_users_words(tmp_path: Path, data: Any, message: str) -> None:
    path = tmp_path / "suite.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(InputError) as info:
        load_suite(path)
    text = str(info.value)
    assert text == f"{path}: {message}"
    assert not any(word in text for word in INTERNAL)


def test_a_key_that_is_not_text_is_named(tmp_path: Path) -> None:
    path = tmp_path / "suite.yaml"
    path.write_text("cases:\n  - {id: a, prompt: p, rubric: r, 2: x}\n", encoding="utf-8")
    with pytest.raises(InputError) as info:
        load_suite(path)
    assert str(info.value) == f"{path}: cases[0]: the key 2 is not text; keys are names such as 'prompt'"


def test_yaml_nan_threshold_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "suite.yaml"
    path.write_text("cases:\n  - {id: a, prompt: p, rubric: r, threshold: .nan}\n", encoding="utf-8")
    with pytest.raises(InputError) as info:
        load_suite(path)
    assert str(info.value) == f"{path}: cases[0].threshold: a number from 0 to 1, found nan"


KEYS = ["cases", "evals", "tasks", "skills", "skill", "id", "prompt", "rubric", "criteria", "threshold", "checks"]
KEYS += ["kind", "value", "weight", "description", "expect", "assert", "activates", "name", "expectations"]
KEYS += ["assertions", "files", "expected_output", "mcp", "sandbox", "repo", "pattern", "max_subject"]
scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=8)
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=4), inner, max_size=5)
    ),
    max_leaves=25,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(values, st.sampled_from(["suite.json", "x.eval.yaml", "evals.json"]))
def test_any_suite_file_loads_or_is_one_input_error_line(tmp_path: Path, data: Any, name: str) -> None:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    try:
        load_suite(path)
    except InputError as exc:
        text = str(exc)
        assert text.startswith(f"{path}: ") and "\n" not in text
        assert not any(word in text for word in INTERNAL), text


def test_a_key_that_is_not_a_plain_name_is_quoted_so_the_line_stays_one_line(tmp_path: Path) -> None:
    # found by the property below: a JSON key "\n" printed raw split the error over two lines
    path = tmp_path / "suite.json"
    path.write_text('{"cases": [{"id": "a", "prompt": "p", "rubric": "r"}], "\\n": 1}', encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_suite(path)
    keys = "name, skill, neighbours, threshold, cases, canaries"
    assert str(caught.value) == f"{path}: '\\n': not a key of a suite (its keys: {keys})"
