"""``core.stale_conditions``: the neighbour skills (both arms), pairwise judging, the placebo text and the canaries,
on hand-made receipts through ``core.stale.stale`` (and ``core.carry.promotion_refusal``, which reads it)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from driftproof.core.carry import promotion_refusal, standing_baselines
from driftproof.core.models import Canaries, NeighbourSkill, PairwiseSettings, PlaceboText, Receipt
from driftproof.core.placebo import placebo_record, placebo_text
from driftproof.core.stale import stale, stale_json
from driftproof.core.stale_conditions import CanariesToday, ConditionsToday, neighbour_parts
from driftproof.core.words import Staleness
from tests.unit.test_stale import RULE, H, _update, recorded, statuses, today

STANDS, RERUN = Staleness.STANDS, Staleness.RERUN
NONE = ConditionsToday(neighbours=None, pairwise=None, placebo=None, canaries=None)
BETA = NeighbourSkill(name="beta", path="skills/beta/SKILL.md", sha256="1a2b3c4d5e6f" + "0" * 52, chars=120)
BETA_EDITED = BETA.model_copy(update={"sha256": "9f8e7d6c5b4a" + "0" * 52, "chars": 131})
GAMMA = NeighbourSkill(name="gamma", path="skills/gamma/SKILL.md", sha256=H["7"], chars=80)
PAIRWISE_V1 = PairwiseSettings(template_version="pairwise-v1", template_sha256=H["8"])


def discover(r: Receipt, neighbours: list[NeighbourSkill] | None, version: str = "0.17") -> Receipt:
    """``r`` as a ``discover`` run of schema ``version`` that recorded ``neighbours`` (``None``: not recorded)."""
    assert r.skill is not None
    settings = _update(r.run.settings, delivery="discover")
    return _update(
        r,
        schema_version=version,
        run=_update(r.run, settings=settings),
        skill=_update(r.skill, neighbours=neighbours),
    )


def asked(r: Receipt, **conditions: Any) -> Any:
    """Today's facts equal to ``r``'s (delivered as ``r`` was), with these conditions."""
    return today(r, delivery=r.run.settings.delivery, conditions=replace(NONE, **conditions))


def test_unchanged_neighbours_stand() -> None:
    r = discover(recorded(), [BETA, GAMMA])
    report = stale(r, asked(r, neighbours=(BETA, GAMMA)))
    assert report.stands and report.advisories == () and report.unknown == ()


def test_an_edited_neighbour_draws_both_arms_again_and_names_it() -> None:
    r = discover(recorded(), [BETA])
    report = stale(r, asked(r, neighbours=(BETA_EDITED,)))
    want = "neighbour skills changed: beta 1a2b3c4d5e6f → 9f8e7d6c5b4a"
    for case in report.cases:  # the baseline arm contains the neighbours too: it does not stand
        assert case.with_skill == case.baseline == (RERUN, (want,))
    assert standing_baselines(report) == ()  # so nothing is carried


def test_an_added_and_a_removed_neighbour() -> None:
    r = discover(recorded(), [BETA])
    reason = "neighbour skills changed: beta removed (1a2b3c4d5e6f); gamma added (777777777777)"
    assert stale(r, asked(r, neighbours=(GAMMA,))).cases[0].baseline.reasons == (reason,)
    assert stale(r, asked(r, neighbours=())).cases[0].baseline.reasons == (
        "neighbour skills changed: beta removed (1a2b3c4d5e6f)",
    )


def test_a_moved_neighbour_with_the_same_text_stands() -> None:
    r = discover(recorded(), [BETA])
    assert stale(r, asked(r, neighbours=(BETA.model_copy(update={"path": "elsewhere/SKILL.md"}),))).stands


def test_another_delivery_drops_the_neighbours_from_the_baseline_too() -> None:
    r = discover(recorded(), [BETA])
    report = stale(r, today(r, delivery="system_prompt", conditions=NONE))
    base = report.cases[0].baseline
    assert base == (RERUN, ("neighbour skills changed: beta removed (1a2b3c4d5e6f)",))


def test_a_0_17_discover_receipt_without_neighbours_is_unknown() -> None:
    r = discover(recorded(), None)
    report = stale(r, asked(r, neighbours=()))
    assert report.unknown == ("skill.neighbours",)
    want = "neighbour skills: not recorded by the receipt, so unknown (never read as current)"
    assert report.cases[0].baseline == (RERUN, (want,))


def test_a_0_16_discover_receipt_installed_no_neighbours() -> None:
    r = discover(recorded(), None, version="0.16")  # before 0.17 no run installed neighbours: none, known
    assert stale(r, asked(r, neighbours=())).stands
    added = stale(r, asked(r, neighbours=(BETA,))).cases[0].baseline
    assert added == (RERUN, ("neighbour skills changed: beta added (1a2b3c4d5e6f)",))


@given(
    st.lists(st.sampled_from([BETA, BETA_EDITED, GAMMA]), max_size=3),
    st.lists(st.sampled_from([BETA, BETA_EDITED, GAMMA]), max_size=3),
)
def test_neighbours_stand_exactly_when_each_name_has_the_same_texts(
    was: list[NeighbourSkill], now: list[NeighbourSkill]
) -> None:
    """Rule: both arms stand iff, name by name, the installed texts are the same (order and paths aside)."""

    def texts(skills: list[NeighbourSkill]) -> dict[str, list[str]]:
        return {n: sorted(s.sha256 for s in skills if s.name == n) for n in {s.name for s in skills}}

    r = discover(recorded(), was)
    report = stale(r, asked(r, neighbours=tuple(now)))
    assert report.stands == (texts(was) == texts(now)) == (neighbour_parts(was, now) == [])


# -- pairwise: beside the verdict, an advisory ------------------------------------------------------------


def pairwise(r: Receipt, setting: PairwiseSettings | None) -> Receipt:
    assert r.judge is not None
    return _update(r, judge=_update(r.judge, pairwise=setting))


@pytest.mark.parametrize(
    ("was", "now", "shown"),
    [
        (PAIRWISE_V1, None, "pairwise-v1 (888888888888) → none"),
        (None, PAIRWISE_V1, "none → pairwise-v1 (888888888888)"),
        (PAIRWISE_V1, PAIRWISE_V1.model_copy(update={"template_sha256": H["9"]}), "(888888888888) → pairwise-v1"),
    ],
)
def test_pairwise_differences_are_an_advisory_and_every_arm_stands(
    was: PairwiseSettings | None, now: PairwiseSettings | None, shown: str
) -> None:
    r = pairwise(recorded(), was)
    report = stale(r, asked(r, pairwise=now))
    assert report.stands  # the scores stand: pairwise is never in the band rule
    (advisory,) = report.advisories
    assert advisory.startswith("pairwise judging changed: ") and shown in advisory
    assert "the receipt's pairwise figures do not stand for this run" in advisory
    # and the store job's promotion, which stands only with no advisory, is refused with that advisory
    assert promotion_refusal(r, report, H["5"], RULE) == advisory


def test_the_same_pairwise_template_says_nothing() -> None:
    r = pairwise(recorded(), PAIRWISE_V1)
    assert stale(r, asked(r, pairwise=PAIRWISE_V1)).advisories == ()


# -- the placebo arm ------------------------------------------------------------------------------------


def placebo(tokens: int) -> PlaceboText:
    text = placebo_record(placebo_text(tokens))
    assert text is not None
    return text


def test_placebo_asked_on_one_side_only_is_said_and_refuses_promotion() -> None:
    r = _update(recorded(), placebo=placebo(30))
    dropped = stale(r, asked(r))
    assert dropped.stands
    assert dropped.advisories == (
        f"placebo arm: the receipt has one (text {placebo(30).sha256[:12]}) and this run asks none (no --placebo):"
        " its lift vs more context does not stand for this run",
    )
    assert promotion_refusal(r, dropped, H["5"], RULE) == dropped.advisories[0]
    plain = recorded()
    new = stale(plain, asked(plain, placebo=placebo(30)))
    assert new.advisories == (
        "placebo arm: this run asks --placebo and the receipt has none: the placebo arm is drawn",
    )
    assert promotion_refusal(plain, new, H["5"], RULE) == new.advisories[0]


def test_a_placebo_of_another_skill_length_no_longer_stands() -> None:
    r = _update(recorded(), placebo=placebo(30))
    same = stale(r, asked(r, placebo=placebo(30)))
    assert same.advisories == ()
    # a skill of 121 to 124 chars is ceil(chars / 4) = 31 tokens: another placebo text, 124 chars
    (advisory,) = stale(r, asked(r, placebo=placebo(31))).advisories
    assert advisory == (
        f"placebo text changed: {placebo(30).sha256[:12]}, 30 tokens, placebo-v1 → "
        f"{placebo(31).sha256[:12]}, 31 tokens, placebo-v1: the placebo arm no longer stands (it is drawn again)"
    )
    assert placebo(31).chars == 124


# -- the canaries -----------------------------------------------------------------------------------------


def test_canaries_of_another_set_are_an_advisory() -> None:
    anchors = Canaries(
        source="suite", set_sha256=H["a"], judge_samples=3, tolerance=0.1, sentence="judge held", canaries=[]
    )
    r = _update(recorded(), canaries=anchors)
    assert stale(r, asked(r, canaries=CanariesToday("suite", H["a"]))).advisories == ()
    (advisory,) = stale(r, asked(r, canaries=None)).advisories
    assert advisory.startswith("judge-anchor canaries changed: suite set aaaaaaaaaaaa → none: the arms stand")


def test_json_keys_are_unchanged_by_the_conditions() -> None:
    r = discover(recorded(), [BETA])
    doc = stale_json(stale(r, asked(r, neighbours=(BETA_EDITED,))))
    assert set(doc) == {"stands", "cases", "advisories", "unknown", "dropped_cases"}
    assert doc["cases"][0]["baseline"]["status"] == "rerun"
    assert statuses(r, asked(r, neighbours=(BETA,))) == {"a": (STANDS, STANDS), "b": (STANDS, STANDS)}
