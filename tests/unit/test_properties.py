"""Hypothesis properties of the rule (R-1 … R-6) and the seal."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from driftproof.core.compare import ArmEvidence, compare
from driftproof.core.diff import diff
from driftproof.core.seal import check_seal, sealed
from driftproof.core.words import CaseVerdict
from tests.support.builders import receipt

# Judge scores live on a 0.05 grid.
grid = st.integers(min_value=0, max_value=20).map(lambda k: k / 20)
scores = st.lists(grid, min_size=1, max_size=8)
lost_counts = st.integers(min_value=0, max_value=3)

MIRROR = {CaseVerdict.IMPROVED: CaseVerdict.REGRESSED, CaseVerdict.REGRESSED: CaseVerdict.IMPROVED}


@given(scores, scores, lost_counts, lost_counts)
def test_swapping_sides_swaps_improved_and_regressed(a: list[float], b: list[float], la: int, lb: int) -> None:
    x, y = ArmEvidence(tuple(a), la), ArmEvidence(tuple(b), lb)
    forward, backward = compare(x, y).verdict, compare(y, x).verdict
    assert backward == MIRROR.get(forward, forward)


@settings(max_examples=40, deadline=None)
@given(scores, scores)
def test_swapping_receipts_swaps_improved_and_regressed_in_diff(a: list[float], b: list[float]) -> None:
    r_a, r_b = receipt({"c": (a, [0.5])}), receipt({"c": (b, [0.5])})
    forward, backward = diff(r_a, r_b).cases[0].verdict, diff(r_b, r_a).cases[0].verdict
    assert forward is not None and backward == MIRROR.get(forward, forward)


@given(scores, scores, st.integers(min_value=-20, max_value=20))
def test_shifting_a_case_by_a_constant_changes_no_verdict(a: list[float], b: list[float], k: int) -> None:
    shift = k / 20
    if not all(0 <= v + shift <= 1 for v in a + b):
        return
    moved = compare(ArmEvidence(tuple(v + shift for v in a)), ArmEvidence(tuple(v + shift for v in b)))
    assert moved.verdict == compare(ArmEvidence(tuple(a)), ArmEvidence(tuple(b))).verdict


@given(scores, scores, lost_counts, lost_counts, lost_counts, lost_counts)
def test_adding_lost_draws_never_turns_inconclusive_into_a_call(
    a: list[float], b: list[float], la: int, lb: int, more_a: int, more_b: int
) -> None:
    before = compare(ArmEvidence(tuple(a), la), ArmEvidence(tuple(b), lb)).verdict
    after = compare(ArmEvidence(tuple(a), la + more_a), ArmEvidence(tuple(b), lb + more_b)).verdict
    if before == CaseVerdict.INCONCLUSIVE:
        assert after == CaseVerdict.INCONCLUSIVE


@given(scores, scores, lost_counts, lost_counts)
def test_a_call_with_lost_draws_also_holds_without_them(a: list[float], b: list[float], la: int, lb: int) -> None:
    with_lost = compare(ArmEvidence(tuple(a), la), ArmEvidence(tuple(b), lb)).verdict
    if with_lost in (CaseVerdict.IMPROVED, CaseVerdict.REGRESSED):
        assert compare(ArmEvidence(tuple(a)), ArmEvidence(tuple(b))).verdict == with_lost


json_leaf = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), grid, st.text(max_size=5))
documents = st.dictionaries(st.text(min_size=1, max_size=6), json_leaf, min_size=1, max_size=6)


@given(documents, st.data())
def test_seal_changes_when_any_field_changes(doc: dict, data: st.DataObject) -> None:
    doc = {k: v for k, v in doc.items() if k != "seal"}
    if not doc:
        return
    original = sealed(doc)
    key = data.draw(st.sampled_from(sorted(doc)))
    new_value = data.draw(json_leaf.filter(lambda v: v != doc[key] or type(v) is not type(doc[key])))
    tampered = {**original, key: new_value}
    assert check_seal(original).ok
    assert not check_seal(tampered).ok
