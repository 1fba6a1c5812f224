"""The placebo arm (``--placebo``): its text, its draws, and the "lift vs more context" readers give."""

from __future__ import annotations

from math import isclose

from hypothesis import given
from hypothesis import strategies as st

from driftproof.core.economics import estimate_tokens
from driftproof.core.placebo import GENERATOR, placebo_draws, placebo_record, placebo_text
from driftproof.core.placebo_reading import read_placebo
from driftproof.core.reading import read_receipt
from driftproof.core.rounds import ArmDraws
from driftproof.core.words import CaseVerdict, Status
from tests.support.builders import receipt
from tests.support.placebo import with_placebo

WORDS_OF_INSTRUCTION = ("you", "must", "should", "always", "never", "write", "use", "answer", "please", "step")


@given(st.integers(min_value=1, max_value=6000))
def test_placebo_text_has_the_skills_token_estimate_and_is_deterministic(tokens: int) -> None:
    text = placebo_text(tokens)
    assert estimate_tokens(text) == tokens  # the estimator skill.tokens uses: ceil(chars / 4)
    assert len(text) == 4 * tokens
    assert placebo_text(tokens) == text  # same length in, same text out
    assert text == text.strip() and text.endswith(".")


@given(st.text(min_size=1, max_size=3000).filter(str.strip))
def test_a_skill_and_its_placebo_weigh_the_same(skill: str) -> None:
    assert estimate_tokens(placebo_text(estimate_tokens(skill))) == estimate_tokens(skill)


def test_placebo_text_is_neutral_prose() -> None:
    text = placebo_text(2000)
    words = {w.strip(".").lower() for w in text.split()}
    assert not words & set(WORDS_OF_INSTRUCTION)
    assert text.count(".") >= 100  # sentences, not one run-on line: 8,000 chars at about 55 a sentence
    assert placebo_text(2000) != placebo_text(2001)  # the text follows the length


def test_placebo_record_holds_the_text_by_hash() -> None:
    record = placebo_record(placebo_text(401))
    assert record is not None
    assert (record.tokens, record.chars, record.generator) == (401, 1604, GENERATOR)
    assert len(record.sha256) == 64 and placebo_record(None) is None


def test_placebo_draws_level_with_the_with_skill_arm() -> None:
    # round 1: with_skill will have 3 made, placebo 0 → 3
    assert placebo_draws(10, 3, ArmDraws()) == 3
    # the rule adds 1 with-skill draw (4 made), placebo has 3 → 1
    assert placebo_draws(10, 4, ArmDraws((0.5, 0.6, 0.7))) == 1
    # level (3 and 3) but one placebo draw was lost to a failed call → it is drawn again
    assert placebo_draws(10, 3, ArmDraws((0.5, 0.6), lost=1, pending=1)) == 1
    # never past max_draws: 3 made of 3
    assert placebo_draws(3, 3, ArmDraws((0.5,), lost=2, pending=2)) == 0


def three_arms(verification: str = "TESTED") -> object:
    """Two cases, three arms each (arithmetic in the test below)."""
    base = receipt(
        {
            "a": ([0.80, 0.85, 0.90], [0.50, 0.55, 0.60]),
            "b": ([0.60, 0.65, 0.70], [0.40, 0.45, 0.50]),
        },
        verification=verification,
    )
    return with_placebo(base, {"a": [0.65, 0.70, 0.75], "b": [0.60, 0.65, 0.70]})


def test_three_arm_lifts_hand_computed() -> None:
    r = three_arms()
    # a: with 0.85 ± 0.05, baseline 0.55 ± 0.05, placebo 0.70 ± 0.05
    #    vs no skill:      0.85 − 0.55 = 0.30; bands [0.80, 0.90] and [0.50, 0.60] apart, 0.30 ≥ 0.05 → improved
    #    vs more context:  0.85 − 0.70 = 0.15; bands [0.80, 0.90] and [0.65, 0.75] apart, 0.15 ≥ 0.05 → improved
    # b: with 0.65 ± 0.05, baseline 0.45 ± 0.05, placebo 0.65 ± 0.05
    #    vs no skill:      0.65 − 0.45 = 0.20 → improved
    #    vs more context:  0.65 − 0.65 = 0.00; the bands coincide → not separated, and the resolution
    #    (0.18, at 3 draws a side) reaches the floor → underpowered, as it would read against baseline
    # overall vs no skill:     (0.30 + 0.20) / 2 = 0.25
    # overall vs more context: (0.15 + 0.00) / 2 = 0.075, sd of (0.15, 0) = 0.15 / √2 = 0.10607
    reading = read_receipt(r)
    assert reading.lift is not None and isclose(reading.lift, 0.25, abs_tol=1e-12)
    assert [c.verdict for c in reading.cases] == [CaseVerdict.IMPROVED, CaseVerdict.IMPROVED]
    placebo = read_placebo(r)
    assert placebo is not None
    a, b = placebo.cases
    assert a.lift is not None and isclose(a.lift, 0.15, abs_tol=1e-12)
    assert b.lift is not None and isclose(b.lift, 0.0, abs_tol=1e-12)
    assert a.verdict == CaseVerdict.IMPROVED
    assert b.verdict == CaseVerdict.UNDERPOWERED
    assert placebo.lift is not None and isclose(placebo.lift, 0.075, abs_tol=1e-12)
    assert placebo.lift_spread is not None and isclose(placebo.lift_spread, 0.15 / 2**0.5, abs_tol=1e-12)
    assert placebo.status == Status.PASSING  # one case separated upward, none downward: the headline's words
    assert placebo.tokens == 400  # the fixture's skill: 1,600 chars


def test_the_placebo_pair_gets_no_verdict_where_the_receipt_gets_none() -> None:
    placebo = read_placebo(three_arms("UNVERIFIED"))
    assert placebo is not None
    assert placebo.status == Status.NO_VERDICT and {c.verdict for c in placebo.cases} == {None}
    assert placebo.lift is not None and isclose(placebo.lift, 0.075, abs_tol=1e-12)  # the lift stays, as context


def test_a_receipt_without_a_placebo_reads_none() -> None:
    assert read_placebo(receipt({"a": ([0.8, 0.85, 0.9], [0.5, 0.55, 0.6])})) is None
