"""Build sealed receipts from plain score lists, for tests and benchmarks."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from driftproof.core.build import arm_of, lost_draw, measured_draw
from driftproof.core.models import Arm, JudgeSample, Receipt
from driftproof.core.seal import seal_receipt, sha256_text
from driftproof.core.words import BandSource

#: A draw given as a score (one judge sample of that score per ``samples``) or ``None`` for a lost draw.
DrawSpec = float | None


def seven(three: Sequence[float]) -> list[float]:
    """Three draw scores drawn to the 7 measured draws R-7 asks of a call between two receipts: the three
    twice, then the middle one. For an evenly spaced three (a, a + d, a + 2d) the mean stays a + d and the sd
    becomes d·sqrt(4/6) = 0.8165·d (0.05 apart: 0.0408).

    >>> seven([0.85, 0.90, 0.95])
    [0.85, 0.9, 0.95, 0.85, 0.9, 0.95, 0.9]
    """
    first, middle, last = three
    return [first, middle, last, first, middle, last, middle]


def arm(scores: Sequence[DrawSpec], samples: int = 1, reason: str = "timeout") -> Arm:
    """An arm whose draws score exactly ``scores`` (None = lost with ``reason``)."""
    draws = []
    for i, s in enumerate(scores):
        if s is None:
            draws.append(lost_draw(i, reason))
        else:
            js = [
                JudgeSample(score=s, valid=True, reported_model="judge-1", score_text_sha256=sha256_text(str(s)))
            ] * samples
            draws.append(measured_draw(i, js, reported_model="model-1"))
    return arm_of(draws)


def legacy_arm(samples: Sequence[float]) -> Arm:
    """A legacy arm: one draw, band from its judge samples."""
    js = [JudgeSample(score=s, valid=True, reported_model="judge-1") for s in samples]
    return Arm(band_source=BandSource.LEGACY, draws=[measured_draw(0, js)])


def receipt(
    cases: Mapping[str, tuple[Arm | Sequence[DrawSpec], Arm | Sequence[DrawSpec]]],
    *,
    verification: str = "TESTED",
    preset: str | None = None,
    skill_chars: int | None = 1600,
    thresholds: Mapping[str, float] | None = None,
    extra: Mapping[str, Any] | None = None,
) -> Receipt:
    """A sealed receipt: ``cases`` maps id -> (with_skill, baseline) as arms or score lists."""

    def as_arm(x: Arm | Sequence[DrawSpec]) -> Arm:
        return x if isinstance(x, Arm) else arm(x)

    body: dict[str, Any] = {
        "tool": {"name": "driftproof", "version": "test"},
        "verification": verification,
        "verification_reason": None if verification == "TESTED" else "test fixture",
        "run": {
            "lane": {"provider": "anthropic", "surface": "api", "model_requested": "model-1"},
            "preset": preset,
            "capture": "text",
        },
        "suite": {"name": "fixture", "format": "native"},
        "judge": {"provider": "anthropic", "surface": "api", "model_requested": "judge-1"},
        "cases": [
            {
                "id": cid,
                "threshold": (thresholds or {}).get(cid),
                "with_skill": as_arm(w).model_dump(mode="json"),
                "baseline": as_arm(b).model_dump(mode="json"),
            }
            for cid, (w, b) in cases.items()
        ],
    }
    if skill_chars is not None:
        body["skill"] = {
            "path": "SKILL.md",
            "sha256": "0" * 64,
            "chars": skill_chars,
            "tokens": -(-skill_chars // 4),
        }
    body.update(extra or {})
    return seal_receipt(body)


def reseal(r: Receipt, edit: Any) -> Receipt:
    """``r`` with ``edit(body)`` applied to its JSON body, sealed again at the current schema version."""
    body = r.model_dump(mode="json")
    del body["seal"], body["schema_version"]
    edit(body)
    return seal_receipt(body)


def graded(r: Receipt, grader: str = "judge-1") -> Receipt:
    """``r`` as a real run records it: the judge's one reported id (``arm``'s samples report ``judge-1``) and a rubric
    hash per case, so the lift breakdown may give comparative labels when ``r`` reads TESTED."""

    def edit(body: dict[str, Any]) -> None:
        body["judge"]["models_reported"] = [grader]
        for case in body["cases"]:
            case["rubric_sha256"] = sha256_text(f"rubric of {case['id']}")

    return reseal(r, edit)
