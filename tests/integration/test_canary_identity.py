"""The canaries' replies are identity-checked like the draws' judge samples (issue 15): a canary reply that
reports another model than the requested judge, or none, is left out of the canary figures with its reason
counted, and lowers the receipt's verification level as a draw's sample would.

One case, 3 draws an arm, 2 judge samples, the suite's 2 canaries (4 canary samples), on recording stub lanes
whose judge reports ``stub-judge``, the judge requested."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from driftproof.core.words import Verification
from driftproof.lanes.base import Generation, GenerationRequest
from tests.integration.test_resume_passes import run, suite  # noqa: F401 - a fixture

OTHER = "a judge reply named 'other-judge' as serving it, not the requested 'stub-judge'"
ANONYMOUS = "a judge reply reported no model (an anonymous reply)"


def canary_replies(good: tuple[str, ...], own: tuple[str, ...]) -> object:
    """Canary 'good' (expected 0.9, graded with case a's rubric) and 'own' (1.0) report these ids."""

    def hook(request: GenerationRequest, _n: int) -> Generation | None:
        if request.arm != "canary":
            return None
        from driftproof.lanes.stub import StubLane

        reply = StubLane().generate(request)
        ids = good if "a, well written" in request.prompt else own
        return replace(reply, reported_ids=ids, attempts=1)

    return hook


def test_a_canary_reply_from_another_model_is_left_out_with_its_reason(
    suite: Path,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _, outcome = run(suite, monkeypatch, canary_replies(("other-judge",), ()))
    record = outcome.receipt.canaries
    assert record is not None
    good, own = record.canaries
    # every sample of both canaries fails the check: 2 invalid each, no score, no mean
    assert (good.scores, good.invalid, good.identity_failures, good.reported_ids) == (
        [],
        2,
        {OTHER: 2},
        ["other-judge"],
    )
    assert (own.scores, own.invalid, own.identity_failures, own.reported_ids) == ([], 2, {ANONYMOUS: 2}, [])
    assert record.scored == 0 and record.judge_drifted is None  # nothing left to compare: drift not ruled out
    overhead = outcome.receipt.economics.judge_overhead.canaries
    assert overhead is not None and overhead.judge_calls == 4  # made and paid all the same


def test_a_canary_that_reports_the_judge_counts(suite: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    _, outcome = run(suite, monkeypatch, canary_replies(("stub-judge-20991231",), ("stub-judge",)))
    record = outcome.receipt.canaries
    assert record is not None
    good, own = record.canaries
    # the stub judge scores an anchor at its expected score: 0.9 twice, 1.0 twice → MAD 0
    assert (good.scores, good.identity_failures, good.reported_ids) == ([0.9, 0.9], None, ["stub-judge-20991231"])
    assert (own.scores, own.identity_failures) == ([1.0, 1.0], None)
    assert record.judge_drifted is False


@pytest.mark.parametrize(
    ("good", "level", "why"),
    [
        (("stub-judge",), Verification.TESTED, None),
        (("other-judge",), Verification.UNVERIFIED, OTHER),
    ],
)
def test_a_canary_identity_failure_lowers_the_verification_level(
    suite: Path,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
    good: tuple[str, ...],
    level: Verification,
    why: str | None,
) -> None:
    import driftproof.assemble as assemble

    # the lanes are stubs; read them as real ones so that the level turns on the judge samples alone
    monkeypatch.setattr(assemble, "verify", _as_real(assemble.verify))
    _, outcome = run(suite, monkeypatch, canary_replies(good, ("stub-judge",)))
    assert (outcome.receipt.verification, outcome.receipt.verification_reason) == (level, why)


def _as_real(verify: object) -> object:
    def real(preset: object, _lane: str, _judge: str, *rest: object, **kw: object) -> object:
        return verify(preset, "anthropic", "anthropic", *rest, **kw)  # type: ignore[operator]

    return real
