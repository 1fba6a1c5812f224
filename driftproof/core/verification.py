"""How far a receipt's numbers can be trusted: the verification level of a run and the reason it is not higher.

``TESTED`` needs a real lane and a real judge, no preset, and every returned judge sample reporting the judge
that was asked for. ``DECLARED`` is for figures a source printed (imports); it never earns a verdict.
``FORMAL`` is reserved and refused on read.

>>> verify(None, "anthropic", "anthropic", [True, True])
(<Verification.TESTED: 'TESTED'>, None)
>>> verify("quick", "anthropic", "anthropic", [True])[1]
'smoke run (preset quick)'
"""

from __future__ import annotations

from collections.abc import Sequence

from driftproof.core.carry_sentences import CARRIED_ONLY
from driftproof.core.plan_sentences import EVERY_CASE_AT_BUDGET
from driftproof.core.words import Provider, Verification

CANARIES_ONLY = "no judge sample of a draw was returned: the judge-anchor canaries' alone never make a receipt TESTED"
"""Why a receipt whose only returned judge samples are the canaries' is not TESTED (every draw lost, say)."""


def verify(
    preset: str | None,
    lane_provider: str,
    judge_provider: str,
    samples_match: Sequence[bool],
    mismatch: str | None = None,
    carried: int = 0,
    budget_stopped: bool = False,
    drawn: int | None = None,
) -> tuple[Verification, str | None]:
    """The level of a run and why it is not ``TESTED``.

    ``samples_match`` holds, for each judge sample that returned a reply, whether it reported the requested
    judge; a sample whose call failed returned nothing, is out of its draw's mean and has no identity to check
    (one timeout must not void a verdict). ``mismatch`` words the first sample that did not match. ``carried``
    counts the returned samples of draws carried from another receipt (`core.carry`): they are not in
    ``samples_match``, since this run's identity check applies to what it drew, and they never make a receipt
    ``TESTED`` on their own. ``budget_stopped``: the budget stopped every case (``--budget``); when it did so
    before any sample of this run returned, that is the reason named (`EVERY_CASE_AT_BUDGET`), whatever was
    carried, and readers read the receipt ``underpowered`` (`core.reading.no_verdict`).

    >>> verify(None, "anthropic", "anthropic", [], carried=5)[1]
    'every judge sample was carried from another receipt: a carried arm never makes a receipt TESTED on its own'
    >>> verify(None, "anthropic", "anthropic", [], carried=5, budget_stopped=True)[1]
    'every case stopped at the token budget before a draw of this run returned a judge sample'

    ``drawn`` counts, of ``samples_match``, the samples of this run's draws (the rest are the judge-anchor
    canaries'); when it is 0 the canaries alone never make a receipt ``TESTED``: nothing it measured was judged.

    >>> verify(None, "anthropic", "anthropic", [True, True], drawn=0)[1]
    "no judge sample of a draw was returned: the judge-anchor canaries' alone never make a receipt TESTED"
    """
    if preset is not None:
        return Verification.UNVERIFIED, f"smoke run (preset {preset})"
    if lane_provider == judge_provider == Provider.STUB:
        return Verification.UNVERIFIED, "stub lane: no model answered or judged"
    if lane_provider == Provider.STUB:
        return Verification.UNVERIFIED, "stub lane: no model answered"
    if judge_provider == Provider.STUB:
        return Verification.UNVERIFIED, "stub judge: no model judged"
    if not samples_match and budget_stopped:
        return Verification.UNVERIFIED, EVERY_CASE_AT_BUDGET
    if not samples_match:
        return Verification.UNVERIFIED, CARRIED_ONLY if carried else "no judge sample was returned"
    if drawn == 0:  # the canaries' samples came back, none of a draw's
        if budget_stopped:
            return Verification.UNVERIFIED, EVERY_CASE_AT_BUDGET
        return Verification.UNVERIFIED, CARRIED_ONLY if carried else CANARIES_ONLY
    if not all(samples_match):
        return Verification.UNVERIFIED, mismatch or "a judge sample reported another judge than the requested one"
    return Verification.TESTED, None
