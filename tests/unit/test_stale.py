"""``core.stale``: what a receipt recorded against what would run today, arm by arm, on hand-made receipts."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from driftproof.core import stale_sentences
from driftproof.core.models import Harness, Judge, Receipt, Transcripts
from driftproof.core.stale import (
    ArmStaleness,
    BaselineStanding,
    CaseStaleness,
    CaseToday,
    StaleReport,
    Today,
    baseline_standing,
    major_minor,
    stale,
    stale_json,
)
from driftproof.core.stopping import StoppingRule, reference_form, reference_rule, rule_for
from driftproof.core.words import Staleness
from tests.support.builders import receipt

H = {c: c * 64 for c in "0123456789abcdef"}  # hashes, by one digit
RULE = "settle-v2(min=5,max=20,step=1,alpha_sep=0.05,alpha_ovl=0.1,floor=0.05,resolve=yes,call_min=7)"
STANDS, RERUN, REGRADE = Staleness.STANDS, Staleness.RERUN, Staleness.REGRADE


def _update(model: Any, **fields: Any) -> Any:
    return model.model_copy(update=fields)


def recorded(*, cli: bool = False, kept: bool = False) -> Receipt:
    """A receipt recording every fact ``stale`` compares: two cases, a and b."""
    r = receipt({"a": ([0.8, 0.9], [0.4, 0.5]), "b": ([0.8, 0.9], [0.4, 0.5])})
    lane = _update(r.run.lane, surface="cli" if cli else "api")
    run = _update(
        r.run,
        lane=lane,
        harness=Harness(name="claude-code", version="2.1.3 (Claude Code)") if cli else None,
        settings=_update(r.run.settings, stopping_rule=RULE, delivery="system_prompt", judge_samples=3),
    )
    judge = Judge(
        provider="anthropic",
        surface="api",
        model_requested="judge-1",
        template_sha256=H["1"],
        grading_code_sha256=H["2"],
    )
    cases = [_update(c, prompt_sha256=H["3"], rubric_sha256=H["4"]) for c in r.cases]
    return _update(
        r,
        run=run,
        judge=judge,
        cases=cases,
        suite=_update(r.suite, sha256=H["5"]),
        transcripts=Transcripts(path="r.answers.jsonl", sha256=H["6"]) if kept else None,
    )


def today(r: Receipt, **changes: Any) -> Today:
    """Today's facts equal to what ``r`` recorded, with ``changes``."""
    assert r.judge is not None and r.skill is not None
    facts = Today(
        provider=r.run.lane.provider,
        surface=r.run.lane.surface,
        model_requested=r.run.lane.model_requested,
        base_url=r.run.lane.base_url,
        harness=r.run.harness,
        capture="text",
        delivery="system_prompt",
        skill_sha256=r.skill.sha256,
        suite_sha256=H["5"],
        stopping_rule=RULE,
        judge=r.judge,
        judge_samples=3,
        cases=tuple(CaseToday(c.id, H["3"], H["4"], H["4"]) for c in r.cases),
    )
    return replace(facts, **changes)


def statuses(r: Receipt, t: Today) -> dict[str, tuple[Staleness, Staleness]]:
    return {c.id: (c.with_skill.status, c.baseline.status) for c in stale(r, t).cases}


def every(pair: tuple[Staleness, Staleness]) -> dict[str, tuple[Staleness, Staleness]]:
    return {"a": pair, "b": pair}


def test_nothing_changed_every_arm_stands() -> None:
    r = recorded()
    report = stale(r, today(r))
    assert report.stands and report.advisories == () and report.unknown == ()
    assert statuses(r, today(r)) == every((STANDS, STANDS))


@pytest.mark.parametrize(
    ("kept", "changes", "expected"),
    [
        # the skill: the baseline arm has no skill text, so it stands
        (False, {"skill_sha256": H["9"]}, (RERUN, STANDS)),
        (False, {"delivery": "discover"}, (RERUN, STANDS)),
        # what produced every answer
        (False, {"model_requested": "model-2"}, (RERUN, RERUN)),
        (False, {"provider": "openai"}, (RERUN, RERUN)),
        (False, {"base_url": "http://127.0.0.1:9"}, (RERUN, RERUN)),
        (False, {"capture": "files"}, (RERUN, RERUN)),
        (True, {"capture": "files"}, (RERUN, RERUN)),
        (False, {"stopping_rule": RULE.replace("max=20", "max=30")}, (RERUN, RERUN)),
        (False, {"sampling": {"temperature": 0.5}}, (RERUN, RERUN)),
        # the judge: a regrade when the answers were kept, else a rerun
        (True, {"judge": Judge(provider="anthropic", surface="api", model_requested="judge-2")}, (REGRADE, REGRADE)),
        (False, {"judge_samples": 5}, (RERUN, RERUN)),
        (True, {"judge_samples": 5}, (REGRADE, REGRADE)),
    ],
)
def test_one_change(kept: bool, changes: dict[str, Any], expected: tuple[Staleness, Staleness]) -> None:
    r = recorded(kept=kept)
    t = today(r, **changes)
    if "judge" in changes:  # keep the template and grading code: only the model changed
        assert r.judge is not None
        t = replace(t, judge=_update(r.judge, model_requested="judge-2"))
    assert statuses(r, t) == every(expected)
    assert not stale(r, t).stands


@pytest.mark.parametrize(("kept", "status"), [(True, REGRADE), (False, RERUN)])
def test_judge_model_provider_template_and_code(kept: bool, status: Staleness) -> None:
    r = recorded(kept=kept)
    assert r.judge is not None
    for change in [
        {"model_requested": "judge-2"},
        {"provider": "openai"},
        {"template_sha256": H["7"]},
        {"grading_code_sha256": H["7"]},
        {"base_url": "http://127.0.0.1:9"},
        {"sampling": {"temperature": 0}},
    ]:
        t = today(r, judge=_update(r.judge, **change))
        report = stale(r, t)
        assert statuses(r, t) == every((status, status)), change
        reasons = report.cases[0].baseline.reasons
        assert (stale_sentences.STALE_NO_ANSWERS in reasons) is (not kept)


def test_a_template_change_is_not_also_called_a_rubric_change() -> None:
    r = recorded(kept=True)
    assert r.judge is not None
    # today's rubric hash differs (it covers the template) but under the recorded template it is the same
    t = today(r, judge=_update(r.judge, template_sha256=H["7"]))
    t = replace(t, cases=tuple(CaseToday(c.id, H["3"], H["8"], H["4"]) for c in t.cases))
    (reason,) = stale(r, t).cases[0].with_skill.reasons
    assert reason.startswith("judge template changed")


@pytest.mark.parametrize(("kept", "status"), [(True, REGRADE), (False, RERUN)])
def test_rubric_change_of_one_case(kept: bool, status: Staleness) -> None:
    r = recorded(kept=kept)
    t = today(r, cases=(CaseToday("a", H["3"], H["8"], H["8"]), CaseToday("b", H["3"], H["4"], H["4"])))
    assert statuses(r, t) == {"a": (status, status), "b": (STANDS, STANDS)}
    assert stale(r, t).cases[0].with_skill.reasons[0].startswith("rubric or criteria changed")


def test_prompt_change_is_a_rerun_and_not_also_a_rubric_change() -> None:
    r = recorded(kept=True)
    t = today(r, cases=(CaseToday("a", H["9"], H["8"], H["8"]), CaseToday("b", H["3"], H["4"], H["4"])))
    assert statuses(r, t) == {"a": (RERUN, RERUN), "b": (STANDS, STANDS)}
    (reason,) = stale(r, t).cases[0].baseline.reasons
    assert reason.startswith("prompt changed")


@pytest.mark.parametrize(
    ("version", "expected", "advisory"),
    [
        ("2.1.3 (Claude Code)", STANDS, False),
        ("2.1.9 (Claude Code)", STANDS, True),  # a patch release: stands, with the note
        ("2.2.0 (Claude Code)", RERUN, False),  # minor
        ("3.0.0 (Claude Code)", RERUN, False),  # major
        ("nightly", RERUN, False),  # unreadable and different
        (None, RERUN, False),  # today's binary printed none
    ],
)
def test_harness_version(version: str | None, expected: Staleness, advisory: bool) -> None:
    r = recorded(cli=True)
    t = today(r, harness=Harness(name="claude-code", version=version))
    report = stale(r, t)
    assert statuses(r, t) == every((expected, expected))
    assert bool(report.advisories) is advisory
    if advisory:
        assert report.advisories == (
            stale_sentences.stale_harness_patch("claude-code", "2.1.3 (Claude Code)", version),
        )


def test_another_harness_is_a_rerun() -> None:
    r = recorded(cli=True)
    assert statuses(r, today(r, harness=Harness(name="codex", version="0.45.0"))) == every((RERUN, RERUN))


def test_major_minor() -> None:
    assert major_minor("2.1.3") == (2, 1)
    assert major_minor("codex-cli 0.45.0") == (0, 45)
    assert major_minor("1") is None


@pytest.mark.parametrize(
    ("update", "field", "expected"),
    [
        (lambda r: _update(r, run=_update(r.run, lane=_update(r.run.lane, model_requested=None))),
         "run.lane.model_requested", (RERUN, RERUN)),
        (lambda r: _update(r, run=_update(r.run, capture=None)), "run.capture", (RERUN, RERUN)),
        (lambda r: _update(r, skill=None), "skill.sha256", (RERUN, STANDS)),
        (lambda r: _update(r, judge=None), "judge", (REGRADE, REGRADE)),
        (lambda r: _update(r, judge=_update(r.judge, template_sha256=None)), "judge.template_sha256",
         (REGRADE, REGRADE)),
        (lambda r: _update(r, run=_update(r.run, settings=_update(r.run.settings, stopping_rule=None))),
         "run.settings.stopping_rule", (RERUN, RERUN)),
        (lambda r: _update(r, run=_update(r.run, harness=_update(r.run.harness, version=None))),
         "run.harness.version", (RERUN, RERUN)),
        (lambda r: _update(r, run=_update(r.run, harness=None)), "run.harness", (RERUN, RERUN)),
    ],
)  # fmt: skip
def test_a_field_the_receipt_lacks_is_unknown_never_current(update: Any, field: str, expected: Any) -> None:
    base = recorded(cli=True, kept=True)
    t = today(base)
    r = update(base)
    report = stale(r, t)
    assert field in report.unknown
    assert statuses(r, t) == every(expected)
    # a CLI lane's null model was recorded: none was asked for, the CLI chose (and may choose another today)
    words = "none asked for; the CLI chose" if field == "run.lane.model_requested" else "not recorded by the receipt"
    assert any(words in reason for reason in report.cases[0].with_skill.reasons)


def test_a_null_model_off_the_cli_surface_is_not_recorded() -> None:
    base = recorded(kept=True)
    r = _update(base, run=_update(base.run, lane=_update(base.run.lane, model_requested=None)))
    (reason,) = stale(r, today(base)).cases[0].baseline.reasons
    assert reason == stale_sentences.stale_unknown("answering model")


def test_case_hashes_unknown_per_case() -> None:
    r = recorded()
    r = _update(r, cases=[_update(r.cases[0], prompt_sha256=None, rubric_sha256=None), r.cases[1]])
    report = stale(r, today(r))
    assert report.unknown == ("cases[a].prompt_sha256", "cases[a].rubric_sha256")
    assert statuses(r, today(r)) == {"a": (RERUN, RERUN), "b": (STANDS, STANDS)}


def test_the_builders_receipt_records_little_so_nothing_stands() -> None:
    r = receipt({"a": ([0.8], [0.4])})  # no settings, no hashes: each is unknown
    t = Today(
        provider="anthropic",
        surface="api",
        model_requested="model-1",
        base_url=None,
        harness=None,
        capture="text",
        delivery="system_prompt",
        skill_sha256="0" * 64,
        suite_sha256=H["5"],
        stopping_rule=RULE,
        judge=Judge(provider="anthropic", surface="api", model_requested="judge-1"),
        judge_samples=3,
        cases=(CaseToday("a", H["3"], H["4"]),),
    )
    report = stale(r, t)
    assert not report.stands
    assert "suite.sha256" in report.unknown and "run.settings.stopping_rule" in report.unknown


def test_new_and_dropped_cases_are_reported() -> None:
    r = recorded()
    t = today(r, cases=(CaseToday("a", H["3"], H["4"], H["4"]), CaseToday("c", H["3"], H["4"], H["4"])))
    report = stale(r, t)
    assert statuses(r, t) == {"a": (STANDS, STANDS), "c": (RERUN, RERUN)}
    assert report.cases[1].baseline.reasons == (stale_sentences.STALE_NEW_CASE,)
    assert report.dropped == ("b",)
    assert report.advisories == (stale_sentences.stale_dropped_case("b"),)


def test_suite_bytes_changed_is_an_advisory_when_the_case_hashes_match() -> None:
    r = recorded()
    report = stale(r, today(r, suite_sha256=H["9"]))
    assert report.stands
    assert report.advisories == (stale_sentences.stale_suite_changed(H["5"][:12], H["9"][:12]),)


def test_json_keys() -> None:
    r = recorded()
    doc = stale_json(stale(r, today(r, skill_sha256=H["9"])))
    assert set(doc) == {"stands", "cases", "advisories", "unknown", "dropped_cases"}
    assert doc["stands"] is False
    assert doc["cases"][0]["id"] == "a"
    assert doc["cases"][0]["with_skill"]["status"] == "rerun"
    assert doc["cases"][0]["baseline"] == {"status": "stands", "reasons": []}
    assert doc["cases"][0]["with_skill"]["reasons"] == [
        stale_sentences.stale_changed("skill sha256", "0" * 12, "9" * 12)
    ]


FACTS = st.fixed_dictionaries(
    {},
    optional={
        "model_requested": st.sampled_from(["model-1", "model-2"]),
        "capture": st.sampled_from(["text", "files"]),
        "stopping_rule": st.sampled_from([RULE, RULE.replace("min=5", "min=7")]),
        "judge_samples": st.integers(1, 5),
        "base_url": st.sampled_from([None, "http://127.0.0.1:9"]),
    },
)


@settings(max_examples=60, deadline=None)
@given(facts=FACTS, skill=st.sampled_from(list(H.values())), kept=st.booleans(), cli=st.booleans())
def test_property_the_skill_never_changes_a_baseline_arm(
    facts: dict[str, Any], skill: str, kept: bool, cli: bool
) -> None:
    r = recorded(kept=kept, cli=cli)
    base = today(r, **facts)
    before = stale(r, base)
    after = stale(r, replace(base, skill_sha256=skill, delivery="discover"))
    assert [c.baseline for c in before.cases] == [c.baseline for c in after.cases]
    # and the with-skill arm never does less work than the baseline arm
    order = [STANDS, REGRADE, RERUN]
    for case in after.cases:
        assert order.index(case.with_skill.status) >= order.index(case.baseline.status)


# --- issue 12: a receipt drawn --as-reference, asked about a run of the ordinary rule --------------------------

PR_RULE = rule_for(3, 10).describe()  # what a pull request's run records
MAIN_RULE = reference_rule(3, 10).describe()  # what the store job records: settle-v2(min=12,max=12,...)


def with_rule(r: Receipt, rule: str | None, as_reference: bool | None = True) -> Receipt:
    settings = _update(r.run.settings, stopping_rule=rule, as_reference=as_reference)
    return _update(r, run=_update(r.run, settings=settings))


@pytest.mark.parametrize("as_reference", [True, False, None])  # the rule string decides; the flag is not read
def test_a_receipt_drawn_to_the_reference_form_of_todays_rule_stands_with_an_advisory(
    as_reference: bool | None,
) -> None:
    r = with_rule(recorded(), MAIN_RULE, as_reference)
    report = stale(r, today(r, stopping_rule=PR_RULE))
    assert report.stands and statuses(r, today(r, stopping_rule=PR_RULE)) == every((STANDS, STANDS))
    assert report.advisories == (stale_sentences.stale_reference_rule(12, 12, 3, 10),)
    assert report.unknown == ()


@pytest.mark.parametrize(
    ("recorded_rule", "today_rule"),
    [
        (PR_RULE, MAIN_RULE),  # shallower than today's: a pull request's receipt asked with --as-reference
        (rule_for(12, 20).describe(), PR_RULE),  # deeper, but not the reference form of (3, 10), which is (12, 12)
        (rule_for(13, 13).describe(), PR_RULE),
        (MAIN_RULE.replace("step=1", "step=2"), PR_RULE),  # the counts of the reference form, another step
        (MAIN_RULE.replace("alpha_sep=0.05", "alpha_sep=0.1"), PR_RULE),
        (MAIN_RULE.replace("call_min=7", "call_min=5"), PR_RULE),
        (MAIN_RULE.replace("settle-v2", "settle-v1"), PR_RULE),
        (MAIN_RULE, PR_RULE.replace("min=3", "min=03")),  # today's string does not read back as a rule
        (MAIN_RULE + " ", PR_RULE),
    ],
)
def test_any_other_stopping_rule_difference_is_still_a_rerun(recorded_rule: str, today_rule: str) -> None:
    r = with_rule(recorded(kept=True), recorded_rule)
    report = stale(r, today(r, stopping_rule=today_rule))
    assert statuses(r, today(r, stopping_rule=today_rule)) == every((RERUN, RERUN))
    reason = stale_sentences.stale_changed("stopping rule", recorded_rule, today_rule)
    assert report.cases[0].baseline.reasons == (reason,)
    assert report.advisories == ()


def test_an_unrecorded_stopping_rule_stays_unknown_even_against_a_reference() -> None:
    r = with_rule(recorded(), None)
    report = stale(r, today(r, stopping_rule=MAIN_RULE))
    assert "run.settings.stopping_rule" in report.unknown
    assert statuses(r, today(r, stopping_rule=MAIN_RULE)) == every((RERUN, RERUN))


RULES = st.builds(
    StoppingRule,
    min_draws=st.integers(1, 20),
    max_draws=st.integers(20, 40),
    step=st.integers(1, 2),
    alpha_separate=st.sampled_from([0.05, 0.1]),
    floor=st.sampled_from([0.05, 0.1]),
    resolve=st.booleans(),
)


@settings(max_examples=80, deadline=None)
@given(today_rule=RULES, recorded_rule=RULES, kept=st.booleans())
def test_property_only_the_same_rule_or_its_reference_form_leaves_the_arms_standing(
    today_rule: StoppingRule, recorded_rule: StoppingRule, kept: bool
) -> None:
    for rule in (recorded_rule, reference_form(today_rule), today_rule):
        r = with_rule(recorded(kept=kept), rule.describe())
        report = stale(r, today(r, stopping_rule=today_rule.describe()))
        expected = rule in (today_rule, reference_form(today_rule))
        assert report.stands is expected
        assert bool(report.advisories) is (expected and rule != today_rule)


def test_baseline_standing_counts_the_baseline_arms_and_keeps_what_changed() -> None:
    r = recorded()
    cases = (CaseToday("a", H["3"], H["8"], H["8"]), CaseToday("b", H["3"], H["4"], H["4"]))
    t = today(r, skill_sha256=H["9"], cases=cases)
    standing = baseline_standing(stale(r, t))
    # the skill touches only with-skill arms; a's rubric both of a's: one baseline arm to rerun, its one change
    # named, and not the note that no answers were kept
    rubric = stale_sentences.stale_changed("rubric or criteria", H["4"][:12], H["8"][:12])
    assert standing == BaselineStanding(cases=2, rerun=1, regrade=0, reasons=(rubric,), more=0)
    assert not standing.stands
    assert baseline_standing(stale(r, today(r, skill_sha256=H["9"]))).stands  # a skill-only change


def test_baseline_standing_names_the_first_two_reasons_and_counts_the_rest() -> None:
    def arm(status: Staleness, *reasons: str) -> ArmStaleness:
        return ArmStaleness(status, reasons)

    fine = arm(STANDS)
    cases = (
        CaseStaleness("a", fine, arm(RERUN, "x", "y", stale_sentences.STALE_NO_ANSWERS)),
        CaseStaleness("b", fine, arm(REGRADE, "y", "z")),
        CaseStaleness("c", fine, arm(REGRADE, "w")),
        CaseStaleness("d", fine, fine),
    )
    standing = baseline_standing(StaleReport(cases, (), (), ()))
    assert standing == BaselineStanding(cases=4, rerun=1, regrade=2, reasons=("x", "y"), more=2)  # z, w


@pytest.mark.parametrize(
    ("update", "why"),
    [
        (
            {"judge": {"pairwise": {"template_version": "pairwise-v1", "template_sha256": H["7"]}}},
            "it was judged with --judge-mode pairwise",
        ),
        (
            {"placebo": {"sha256": H["7"], "tokens": 3, "chars": 12, "generator": "placebo-v1"}},
            "a receipt drawn with --placebo has a third arm",
        ),
    ],
)
def test_a_grading_change_is_a_rerun_when_regrade_would_refuse_the_receipt(update: dict[str, Any], why: str) -> None:
    r = recorded(kept=True)
    body = r.model_dump(mode="json")
    for key, value in update.items():
        body[key] = {**(body[key] or {}), **value}
    refused = Receipt.model_validate(body)
    t = today(refused, cases=(CaseToday("a", H["3"], H["8"], H["8"]), CaseToday("b", H["3"], H["4"], H["4"])))
    assert statuses(refused, t) == {"a": (RERUN, RERUN), "b": (STANDS, STANDS)}
    note = stale(refused, t).cases[0].baseline.reasons[-1]
    assert note.startswith(f"driftproof regrade refuses this receipt ({why}")
    assert note.endswith("), so grading again means drawing again")
    assert (
        baseline_standing(stale(refused, t)).reasons
        == (  # the note says why, it is not a change
            stale_sentences.stale_changed("rubric or criteria", H["4"][:12], H["8"][:12]),
        )
    )


@pytest.mark.parametrize(
    ("changes", "what"),
    [
        ({"judge_samples": 5}, stale_sentences.stale_changed("judge samples per draw", "3", "5")),
        ({"judge_model": "judge-2"}, stale_sentences.stale_changed("judge model", "judge-1", "judge-2")),
        ({"judge_provider": "openai"}, stale_sentences.stale_changed("judge provider", "anthropic", "openai")),
    ],
)
def test_a_judge_change_is_a_regrade_whose_reason_says_regrade_keeps_the_receipts_judge(
    changes: dict[str, Any], what: str
) -> None:
    r = recorded(kept=True)
    assert r.judge is not None
    t = today(r, judge_samples=changes.get("judge_samples", 3))
    if "judge_model" in changes or "judge_provider" in changes:
        judge = {"model_requested": changes.get("judge_model", "judge-1"), "provider": changes.get("judge_provider")}
        t = replace(t, judge=_update(r.judge, **{k: v for k, v in judge.items() if v is not None}))
    report = stale(r, t)
    assert statuses(r, t) == every((REGRADE, REGRADE))
    assert report.cases[0].with_skill.reasons == (
        f"{what}: regrading with another judge or judge samples means running again (driftproof regrade keeps the "
        "receipt's own)",
    )
    plain = stale(recorded(), t)  # no answers kept: a rerun, the reason as it was and the note after it
    assert plain.cases[0].with_skill.reasons == (what, stale_sentences.STALE_NO_ANSWERS)
    rubric = today(r, cases=(CaseToday("a", H["3"], H["8"], H["8"]), CaseToday("b", H["3"], H["4"], H["4"])))
    assert (
        stale(r, rubric).cases[0].with_skill.reasons
        == (  # a rubric change is one regrade grades
            stale_sentences.stale_changed("rubric or criteria", H["4"][:12], H["8"][:12]),
        )
    )
