"""The receipt's pairwise part (``--judge-mode pairwise``): each draw pair judged side by side, twice. Pure.

Part of the receipt models (``driftproof.core.models`` re-exports every one); kept apart so each module stays
small. Every field is optional from 0.17 on: a receipt without pairwise judging has none of them. Nothing here is
read by the band rule, a verdict, a status or a gate: it is evidence shown beside the absolute scores.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from driftproof.core.model_base import Count, Sha256
from driftproof.core.model_base import ReceiptPart as _Model
from driftproof.core.usage_model import Usage

Preference = Literal["with_skill", "baseline", "tie"]
"""Which arm's answer the judge preferred, once its A/B positions are mapped back to the arms."""


class PairwiseCall(_Model):
    """One side-by-side judge call: its reply as parsed, and the reply's identity evidence (as judge samples')."""

    with_skill_position: Literal["A", "B"]
    """Where the with-skill answer was shown in this call: A (first) or B (second)."""
    choice: Literal["A", "B", "tie"] | None = None
    """The position the judge replied was better, or tie, verbatim; null when the reply held no valid choice."""
    returned: bool
    """True when the call returned a reply; false when it failed (timeout, error) with none."""
    invalid_reason: str | None = None
    """Why the call yields no preference (failed, unparseable, or the reply is not the requested judge's); null
    when it yields one."""
    reply_sha256: Sha256 | None = Field(None, description="SHA-256 of the judge's reply text; null without one.")
    reported_model: str | None = None
    """Model id the judge reply reported, verbatim, dates kept; null when it reported none."""
    reported_ids: list[str] = Field(default_factory=list)
    """Every model id the reply reported, verbatim, in the reply's order, each once; empty for an anonymous reply."""
    serving_id: str | None = None
    """The model id the reply names as the one that served it; null when it names none."""
    request_id: str | None = None
    """The provider's request id the reply carried; null when none."""
    evidence_refused: str | None = None
    """Why the reply's identity evidence was not kept (over its bounds); null when kept."""
    usage: Usage | None = None
    """Tokens this call reported (counted in economics.judge_overhead); null when it reported none."""


class PairwiseResult(_Model):
    """One draw pair: with-skill draw i and baseline draw i, judged side by side in both orders."""

    draw_index: Count
    """The index i of both draws (with_skill.draws[i] and baseline.draws[i])."""
    first: Preference | None = None
    """The preferred arm in the first call (A = with-skill, B = baseline); null when that call yields none."""
    second: Preference | None = None
    """The preferred arm in the second call (positions swapped: A = baseline); null when that call yields none."""
    agree: bool | None = None
    """True when both calls preferred the same arm (or both a tie) once un-swapped; false when the preference moved
    with the positions (position-bias evidence); null when either call yields none."""
    calls: list[PairwiseCall]
    """The two calls, first then second, with their evidence."""


class PairwiseSummary(_Model):
    """Pairwise results in figures, over one case or the whole receipt (`driftproof.core.pairwise.summarize`)."""

    pairs: Count
    """Draw pairs judged."""
    complete: Count
    """Pairs whose both calls yielded a preference: the denominator of both rates."""
    with_skill_preferred: Count
    """Complete pairs in which both calls preferred the with-skill answer."""
    baseline_preferred: Count
    """Complete pairs in which both calls preferred the baseline answer."""
    ties: Count
    """Complete pairs in which both calls replied tie."""
    disagreed: Count
    """Complete pairs whose two calls disagreed once un-swapped: the verdict followed the position."""
    with_skill_preferred_rate: float | None = Field(None, ge=0, le=1)
    """with_skill_preferred / complete; null when no pair is complete."""
    position_bias_rate: float | None = Field(None, ge=0, le=1)
    """disagreed / complete; null when no pair is complete."""


class PairwiseSettings(_Model):
    """How pairwise judging ran: its template, recorded in the judge's settings like the absolute template's."""

    template_version: str
    """Version label of the pairwise judge template (pairwise-v1)."""
    template_sha256: Sha256 = Field(description="SHA-256 over the pairwise template's version and its parts.")
