"""The sentences of the model-drift sentinel (``driftproof drift``, the Action's ``sentinel`` run and its issue,
the badge's "verified" part). Pure.

Beside ``driftproof.core.sentences`` (at its size cap), in the same manner: each string written once, as a
constant or a small function of parts its caller has already formatted. These strings are a public interface
(``docs/drift.md`` quotes them).
"""

from __future__ import annotations

from collections.abc import Sequence

#: Never "no drift": a non-separation is not evidence of no change (DESIGN.md).
DRIFT_STEADY = "steady: no arm separated at this sample size, with the skill and the suite unchanged"
DRIFT_NOT_RECORDED = "not recorded on both sides"
DRIFT_ISSUE_TITLE = "Driftproof sentinel: the stored receipt no longer holds"
TITLE_DRIFTED = "Driftproof: drifted"
TITLE_SENTINEL_ISSUE = "Driftproof sentinel issue"
SENTINEL_ON_PR = (
    "input 'sentinel' is for scheduled (or workflow_dispatch) runs on the default branch, "
    "not for a pull request or a push: drop it from this job, or run the sentinel workflow"
)


def drift_headline(moved: int) -> str:
    """The headline when some arm moved.

    >>> drift_headline(1)
    'drifted: 1 arm moved although neither the skill nor the suite changed'
    >>> drift_headline(3)
    'drifted: 3 arms moved although neither the skill nor the suite changed'
    """
    arms = "arm" if moved == 1 else "arms"
    return f"drifted: {moved} {arms} moved although neither the skill nor the suite changed"


def drift_not_applicable(what: str, before: str, after: str) -> str:
    """Why drift does not apply: the skill or the suite changed (or is not recorded), so this is a normal diff.

    >>> drift_not_applicable("skill sha256", "aaaa", "bbbb")
    'drift does not apply: the skill sha256 changed (aaaa → bbbb); compare them with driftproof diff'
    >>> drift_not_applicable("suite sha256", DRIFT_NOT_RECORDED, "")
    'drift does not apply: the suite sha256 is not recorded on both sides; compare them with driftproof diff'
    """
    if before == DRIFT_NOT_RECORDED:
        return f"drift does not apply: the {what} is {DRIFT_NOT_RECORDED}; compare them with driftproof diff"
    return f"drift does not apply: the {what} changed ({before} → {after}); compare them with driftproof diff"


def drift_no_verdict(reasons: Sequence[str]) -> str:
    """No drift verdict: a side has no verdict, or the two were not graded like for like.

    >>> drift_no_verdict(["after is a smoke run"])
    'no drift verdict: after is a smoke run'
    """
    return "no drift verdict: " + "; ".join(reasons)


def arm_moved(case_id: str, arm: str, direction: str, before: str, after: str, delta: float) -> str:
    """One arm that moved, with both bands.

    >>> arm_moved("subject-line", "baseline", "down", "0.25 ± 0.04 (12/12)", "0.10 ± 0.00 (12/12)", -0.15)
    'case subject-line: the baseline arm moved down: 0.25 ± 0.04 (12/12) then, 0.10 ± 0.00 (12/12) now (Δ -0.15)'
    """
    return f"case {case_id}: the {arm} arm moved {direction}: {before} then, {after} now (Δ {delta:+.2f})"


def answered_as(requested: str, before: str, after: str) -> str:
    """The dated id that changed under an alias.

    >>> answered_as("claude-sonnet-5-5", "claude-sonnet-5-5-20261001", "claude-sonnet-5-5-20261120")
    'claude-sonnet-5-5 answered as claude-sonnet-5-5-20261001 then, claude-sonnet-5-5-20261120 now'
    """
    return f"{requested} answered as {before} then, {after} now"


def answered_by(before: str, after: str) -> str:
    """The answering models of the two sides, when no alias is shared or nothing changed.

    >>> answered_by("m-1", "m-2"), answered_by("m-1", "m-1")
    ('answered by m-1 then, m-2 now', 'answered by m-1 both times')
    """
    if before == after:
        return f"answered by {before} both times"
    return f"answered by {before} then, {after} now"


def verified_on(day: str, model: str | None) -> str:
    """The badge's "verified" part: the receipt's date and the answering model.

    >>> verified_on("2026-12-01", "claude-sonnet-5-5"), verified_on("2026-12-01", None)
    ('verified 2026-12-01 on claude-sonnet-5-5', 'verified 2026-12-01')
    """
    return f"verified {day} on {model}" if model else f"verified {day}"


def sentinel_issue(action: str, url: str) -> str:
    """The log line after the sentinel opened or updated its issue.

    >>> sentinel_issue("opened", "https://github.test/o/r/issues/3")
    'sentinel issue opened: https://github.test/o/r/issues/3'
    """
    return f"sentinel issue {action}: {url}"


def sentinel_issue_failed(reason: str, report: str) -> str:
    """The warning when GitHub refused the issue: the report is still in the job summary and on disk.

    >>> sentinel_issue_failed("403", "r.md")
    'the sentinel issue was not opened or updated (403); the report is in the job summary and at r.md'
    """
    return f"the sentinel issue was not opened or updated ({reason}); the report is in the job summary and at {report}"
