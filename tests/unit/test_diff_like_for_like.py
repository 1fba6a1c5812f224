"""Diff across judges and providers (issue 8): not like for like gives no per-case verdict, and says why.

Also the "Not run on this lane" notices in the JSON forms, and the badge's label.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest

from driftproof.core.badge import badge_json
from driftproof.core.diff import diff
from driftproof.core.export import diff_json, view_json
from driftproof.core.models import Receipt
from driftproof.core.reading import read_receipt
from driftproof.core.seal import seal_receipt
from driftproof.core.sentences import DIFFERENT_JUDGES, DIFFERENT_PROVIDERS
from driftproof.core.words import Status
from tests.support.builders import receipt

BASE = [0.20, 0.25, 0.30]
# with-skill arms, before → after, 7 draws each: 0.90 ± 0.041 over 0.55 ± 0.041, Δ −0.35: regressed
# under one judge and one provider (sd = sqrt(2 · 0.05² / 6) = 0.0408)
BEFORE = {"a": ([0.85, 0.90, 0.95] + [0.90] * 4, BASE), "b": ([0.70] * 7, BASE)}
AFTER = {"a": ([0.50, 0.55, 0.60] + [0.55] * 4, BASE), "b": ([0.70] * 7, BASE)}
JUDGE = {"provider": "anthropic", "surface": "api", "model_requested": "judge-1"}
SHA_A, SHA_B = "a" * 64, "b" * 64


def reseal(made: Receipt, edit: Callable[[dict[str, Any]], None]) -> Receipt:
    """The receipt with ``edit`` applied to its JSON body, sealed again."""
    body = made.model_dump(mode="json")
    del body["seal"], body["schema_version"]
    edit(body)
    return seal_receipt(body)


def judged(**fields: Any) -> dict[str, Any]:
    return {"judge": {**JUDGE, **fields}}


def test_same_judge_and_provider_keep_the_verdict() -> None:
    before = receipt(BEFORE, extra=judged(template_sha256=SHA_A, sampling={"max_tokens": 512}))
    after = receipt(AFTER, extra=judged(template_sha256=SHA_A, sampling={"max_tokens": 512}))
    d = diff(before, after)
    assert d.status is Status.REGRESSED and d.not_like_for_like is None
    assert diff_json(d)["not_like_for_like"] is None


@pytest.mark.parametrize(
    ("before_judge", "after_judge", "field", "said"),
    [
        (
            judged(),
            judged(model_requested="judge-2"),
            "judge.model_requested",
            "judge model requested: judge-1 → judge-2",
        ),
        (
            judged(models_reported=["judge-1-20250101"]),
            judged(models_reported=["judge-1-20250601"]),
            "judge.models_reported",
            "judge models reported: judge-1-20250101 → judge-1-20250601",
        ),
        (
            judged(template_sha256=SHA_A),
            judged(template_sha256=SHA_B),
            "judge.template_sha256",
            "judge template sha256: aaaaaaaaaaaa → bbbbbbbbbbbb",
        ),
        (
            judged(sampling={"max_tokens": 512}),
            judged(sampling={"max_tokens": 1024}),
            "judge.sampling",
            'judge sampling: {"max_tokens":512} → {"max_tokens":1024}',
        ),
    ],
    ids=["model-requested", "model-reported", "template", "sampling"],
)
def test_different_judges_give_no_verdict_and_say_what_differs(
    before_judge: dict[str, Any], after_judge: dict[str, Any], field: str, said: str
) -> None:
    d = diff(receipt(BEFORE, extra=before_judge), receipt(AFTER, extra=after_judge))
    assert d.status is Status.NO_VERDICT
    assert [c.verdict for c in d.cases] == [None, None]
    assert d.counts.regressed == 0 and d.no_verdict == {}  # each side may have a verdict; the pair may not
    assert d.not_like_for_like is not None
    assert d.not_like_for_like.reason == f"{DIFFERENT_JUDGES} ({said})"
    assert [x.field for x in d.not_like_for_like.differs] == [field]
    assert d.headline == f"no verdict: {DIFFERENT_JUDGES} ({said})" == d.status_reason
    # the raw move stays as context: Δ = 0.55 − 0.90 = −0.35
    assert math.isclose(d.cases[0].comparison.delta or 0, -0.35, abs_tol=1e-12)


def test_reported_ids_template_and_sampling_are_compared_only_when_both_sides_record_them() -> None:
    # an unrecorded value is unknown, not different: the runner records both on every real lane
    before = receipt(
        BEFORE, extra=judged(models_reported=["judge-1-20250101"], template_sha256=SHA_A, sampling={"max_tokens": 9})
    )
    d = diff(before, receipt(AFTER, extra=judged()))
    assert d.not_like_for_like is None and d.status is Status.REGRESSED


@pytest.mark.parametrize(
    ("before_judge", "after_judge", "differs"),
    [
        ({"judge": None}, judged(), [("judge", "none", "anthropic")]),
        ({"judge": None}, {"judge": None}, []),
        (judged(model_requested=None), judged(), [("judge.model_requested", "default", "judge-1")]),
        (
            judged(provider="openai", surface="cli"),
            judged(),
            [("judge.provider", "openai", "anthropic"), ("judge.surface", "cli", "api")],
        ),
    ],
    ids=["one-side-has-no-judge", "neither-has-one", "default-model", "provider-and-surface"],
)
def test_judge_presence_default_model_provider_and_surface_are_compared(
    before_judge: dict[str, Any], after_judge: dict[str, Any], differs: list[tuple[str, str, str]]
) -> None:
    d = diff(receipt(BEFORE, extra=before_judge), receipt(AFTER, extra=after_judge))
    found = [] if d.not_like_for_like is None else [(x.field, x.before, x.after) for x in d.not_like_for_like.differs]
    assert found == differs
    assert d.status is (Status.NO_VERDICT if differs else Status.REGRESSED)


def test_different_judges_json_names_each_difference_with_both_values() -> None:
    before = receipt(BEFORE, extra=judged(template_sha256=SHA_A))
    after = receipt(AFTER, extra=judged(model_requested="judge-2", template_sha256=SHA_B))
    out = diff_json(diff(before, after))
    assert out["not_like_for_like"] == {
        "reason": f"{DIFFERENT_JUDGES} (judge model requested: judge-1 → judge-2; "
        "judge template sha256: aaaaaaaaaaaa → bbbbbbbbbbbb)",
        "differs": [
            {"field": "judge.model_requested", "before": "judge-1", "after": "judge-2"},
            {"field": "judge.template_sha256", "before": SHA_A, "after": SHA_B},
        ],
    }
    assert out["status"] == "no_verdict" and [c["verdict"] for c in out["cases"]] == [None, None]
    assert out["cases"][0]["draws_needed_reason"] == "no verdict, so no draw count"


def openai_lane(body: dict[str, Any]) -> None:
    body["run"]["lane"] = {"provider": "openai", "surface": "api", "model_requested": "gpt-x"}


def test_different_providers_lead_with_the_lifts_and_rank_nothing() -> None:
    before, after = receipt(BEFORE), reseal(receipt(AFTER), openai_lane)
    d = diff(before, after)
    reason = f"answering models of different providers (anthropic → openai): {DIFFERENT_PROVIDERS}"
    assert d.status is Status.NO_VERDICT and d.status_reason == f"no verdict: {reason}"
    assert d.not_like_for_like is not None and d.not_like_for_like.reason == reason
    assert d.not_like_for_like.providers_differ
    assert [c.verdict for c in d.cases] == [None, None] and d.counts.regressed == 0
    # each side's lift stays: before (0.65 + 0.45) / 2 = 0.55; after (0.30 + 0.45) / 2 = 0.375
    assert math.isclose(d.before.lift or 0, 0.55, abs_tol=1e-12)
    assert math.isclose(d.after.lift or 0, 0.375, abs_tol=1e-12)
    assert diff_json(d)["not_like_for_like"]["differs"] == [
        {"field": "run.lane.provider", "before": "anthropic", "after": "openai"}
    ]


def test_judge_and_provider_differences_are_both_named() -> None:
    before = receipt(BEFORE)
    after = reseal(receipt(AFTER, extra=judged(model_requested="judge-2")), openai_lane)
    nl = diff(before, after).not_like_for_like
    assert nl is not None
    assert [x.field for x in nl.differs] == ["judge.model_requested", "run.lane.provider"]
    assert nl.reason == (
        f"{DIFFERENT_JUDGES} (judge model requested: judge-1 → judge-2) · "
        f"answering models of different providers (anthropic → openai): {DIFFERENT_PROVIDERS}"
    )


# --- not run on this lane --------------------------------------------------------------------------------


def with_notices(body: dict[str, Any]) -> None:
    body["suite"]["notices"] = ["task-003 (unnamed): no expect:, nothing to grade; left out"]
    body["cases"][0]["notices"] = ["assert: not run on this lane", "activates: not run on this lane"]


def test_view_json_carries_the_notices_from_the_receipt() -> None:
    out = view_json(read_receipt(reseal(receipt(BEFORE), with_notices)))
    assert out["not_run"] == {
        "suite": ["task-003 (unnamed): no expect:, nothing to grade; left out"],
        "cases": [{"id": "a", "notices": ["assert: not run on this lane", "activates: not run on this lane"]}],
    }
    assert view_json(read_receipt(receipt(BEFORE)))["not_run"] == {"suite": [], "cases": []}


def test_diff_json_carries_each_sides_notices() -> None:
    out = diff_json(diff(receipt(BEFORE), reseal(receipt(AFTER), with_notices)))
    assert out["receipts"]["before"]["not_run"] == {"suite": [], "cases": []}
    assert out["receipts"]["after"]["not_run"]["cases"] == [
        {"id": "a", "notices": ["assert: not run on this lane", "activates: not run on this lane"]}
    ]


# --- the badge's label ---------------------------------------------------------------------------------


def skill_at(path: str) -> Callable[[dict[str, Any]], None]:
    def edit(body: dict[str, Any]) -> None:
        body["skill"]["path"] = path

    return edit


@pytest.mark.parametrize(
    ("edit", "label"),
    [
        (skill_at("skills/commit-writer/SKILL.md"), "commit-writer"),
        (skill_at("C:\\repo\\skills\\pr-review\\SKILL.md"), "pr-review"),
        (skill_at("SKILL.md"), "fixture"),  # no parent directory: the suite's name
        (skill_at("../SKILL.md"), "fixture"),
        (lambda body: body.update(skill=None, suite={"name": None}), "skill lift"),
    ],
    ids=["skill-directory", "windows-path", "suite-name", "parent-outside", "neither"],
)
def test_badge_label_says_what_it_measures(edit: Callable[[dict[str, Any]], None], label: str) -> None:
    badge = badge_json(read_receipt(reseal(receipt(BEFORE), edit)))
    assert set(badge) == {"schemaVersion", "label", "message", "color"}  # the shields.io endpoint schema
    assert badge["label"] == label
