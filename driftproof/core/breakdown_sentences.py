"""Every sentence of the lift breakdown (``driftproof view``, ``driftproof diff --lift-breakdown``). Pure.

A public interface like ``core/sentences.py`` (which is at its size cap): change none of them. Each is written here
once, as a constant or a small function of parts its caller has already formatted (a report escapes a receipt's
strings with ``md`` or ``code``). Every constant and function here is a global of the templates too.
"""

from __future__ import annotations

#: How the carrier is decided, said once under every breakdown.
CARRIER_RULE = (
    "Each included case weighs the same in the measured lift; the lift without a case leaves out both of its arms "
    "and averages the other cases. A case carries the lift when the lift is positive and the lift without it is "
    "zero or below, decided before any rounding."
)
#: What a breakdown is not.
NOT_A_PREDICTION = (
    "This describes the recorded scores at this sample size; it predicts neither future answers nor a causal mechanism."
)
#: What a case with neither label is not.
NO_LABEL_MEANS = (
    "A case that neither helps nor hurts did not separate under the rule at this sample size; that is neither "
    "equality nor the absence of an effect."
)
#: The spread a breakdown shows, and what it is not.
SPREAD_ACROSS_ANSWERS = (
    "The spread is the sample standard deviation of the measured draw scores (one per answer); a draw's extra judge "
    "samples are not separate answers. Lost draws are left out of the means and spreads."
)

NO_INCLUDED_CASE = "no case has a measured draw in both arms"
NO_OTHER_CASE = "no other case is included, so there is no lift without it"
NO_GRADER = "the receipt records no single grader identity (judge.models_reported), so no comparative label is given"
NO_RUBRIC_HASH = "the case records no rubric hash"
LEGACY_NO_SPREAD = (
    "one draw per arm: its judge samples are not separate answers, so this arm has no spread across answers"
)
LIFT_NOT_POSITIVE = "the measured lift is not positive, so no case carries a positive lift"
NO_CARRIER = "no single case carries the lift: without any one of them the lift stays positive"
NO_DOWNWARD = "no case separates downward"


def over_limit(n: int, what: str, limit: int) -> str:
    """A receipt too large for a breakdown, naming the limit (its sheet and its diff report are unaffected).

    >>> over_limit(1001, "cases", 1000)
    "over the breakdown's size limit: 1,001 cases; a breakdown computes over at most 1,000 cases"
    """
    return f"over the breakdown's size limit: {n:,} {what}; a breakdown computes over at most {limit:,} {what}"


def invalid_hash(where: str) -> str:
    """A hash the breakdown relies on is not a SHA-256 digest."""
    return f"invalid hash at {where}: a breakdown uses only evidence sealed by a valid hash"


def malformed(where: str, why: str) -> str:
    """Evidence that is not what a receipt records (the schema's cross-field rules)."""
    return f"malformed evidence at {where}: {why}"


def contradictory_counts(where: str, recorded: str, found: str) -> str:
    """Draw counts that disagree with the draws themselves."""
    return f"contradictory draw counts at {where}: the receipt records {recorded}, its draws give {found}"


def missing_evidence(case_id: str, arm: str) -> str:
    """An arm of a case that records no draw at all: no lift can be said over the suite."""
    return (
        f"case {case_id}: the {arm} arm records no draw, so the suite lift and every omitted-case lift are unavailable"
    )


def lift_unavailable(reason: str) -> str:
    """Why a receipt gives no measured lift, as the lift breakdown and the run's summary say it."""
    return f"measured lift unavailable: {reason}"


def failed_arm(arm: str, drawn: int) -> str:
    """A case left out of the lift, both of its arms together, because one measured none of its draws."""
    noun = "draw" if drawn == 1 else "draws"
    return f"left out of the lift with both arms: the {arm} arm measured none of its {drawn} {noun}"


def not_the_grader(arm: str, grader: str) -> str:
    """A case whose scores were not all given by the receipt's one recorded grader."""
    return f"the {arm} arm's scores were not all given by the receipt's grader {grader}"


def non_model(provider: str, surface: str) -> str:
    """A receipt whose answers did not come from a model lane."""
    return f"not a model receipt: its answers came from {provider} ({surface})"


def narrowed(n: int) -> str:
    """A receipt whose run did not run the suite as written."""
    noun = "notice" if n == 1 else "notices"
    return f"narrowed: the run did not run the suite as written ({n} {noun}, not run on this lane)"


def incomplete(case_id: str) -> str:
    """A receipt with a case that one arm did not measure."""
    return f"incomplete: case {case_id} has an arm with no measured draw"


def lost_prevent_carrier(case_id: str, lost: int) -> str:
    """Lost draws could move any lift without a case, so no case is said to carry it."""
    noun = "draw" if lost == 1 else "draws"
    return f"lost draws prevent a carrier assertion: case {case_id} lost {lost} {noun}"


def case_withheld(case_id: str, why: str) -> str:
    """A receipt's carrier assertion withheld because one included case cannot take a comparative label."""
    return f"case {case_id}: {why}"
