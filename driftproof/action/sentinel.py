"""The Action's model-drift sentinel (input ``sentinel: true``): a scheduled re-run of the default branch,
compared arm by arm with the stored receipt (`driftproof.core.drift`), and one issue opened or updated.

The rest of the run is the Action's own: the stored receipt is read as on a pull request, the suite is run to
the reference rule with every arm drawn (no baseline carried: a carried arm could never move), the diff and
the gate are computed as always. This module adds what is the sentinel's alone: which events may run it, the
drift verdict and its report, the ``drifted`` output, the exit status, and the one issue (found again by a
hidden marker in its body, as the PR comment is).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TextIO

from driftproof.action.github import Event, GitHubClient
from driftproof.action.workflow import notice, warning
from driftproof.core.drift import DriftResult, drift
from driftproof.core.drift_sentences import (
    DRIFT_ISSUE_TITLE,
    SENTINEL_ON_PR,
    TITLE_DRIFTED,
    TITLE_SENTINEL_ISSUE,
    sentinel_issue,
    sentinel_issue_failed,
)
from driftproof.core.models import Receipt
from driftproof.core.words import FailOn
from driftproof.credentials import redact
from driftproof.drift_report import render_drift
from driftproof.errors import GitHubError, InputError
from driftproof.safe_text import printable

__all__ = ["SENTINEL_MARKER", "check_event", "drift_exit", "drift_outputs", "file_issue", "sentinel_drift"]

SENTINEL_MARKER = "<!-- driftproof:sentinel -->"
"""Hidden first line of the sentinel's issue; the only way a later run finds it again."""


def check_event(event: Event) -> None:
    """The sentinel runs on a schedule or by hand, never on a pull request or a push (which stores)."""
    if event.is_pull_request or event.name in ("pull_request", "pull_request_target", "push"):
        raise InputError(SENTINEL_ON_PR)


def sentinel_drift(before: Receipt | None, receipt: Receipt) -> DriftResult | None:
    """The drift verdict of today's receipt against the stored one; ``None`` on a first run."""
    return None if before is None else drift(before, receipt)


def with_drift(result: DriftResult | None, report: str, labels: tuple[str, str]) -> str:
    """The full report: the drift section first, then the comparison report."""
    if result is None:
        return report
    return f"{render_drift(result, before_label=labels[0], after_label=labels[1])}\n---\n\n{report}"


def drift_outputs(result: DriftResult | None) -> dict[str, str]:
    """``drifted``: ``true``/``false`` when compared, else empty."""
    return {"drifted": "" if result is None else str(result.drifted).lower()}


def drift_exit(code: int, result: DriftResult | None, fail_on: FailOn) -> int:
    """A drift fails the step as a regression does (exit 1), unless ``fail-on: never``.

    >>> drift_exit(0, None, FailOn.REGRESSED)
    0
    """
    if result is not None and result.drifted and fail_on != FailOn.NEVER:
        return max(code, 1)
    return code


def file_issue(
    client: GitHubClient | None,
    result: DriftResult | None,
    regressed: bool,
    report: str,
    *,
    report_path: str,
    out: TextIO,
    secrets: Sequence[str],
) -> None:
    """On a drift or a regression, open the one sentinel issue or update it; a refusal is a warning."""
    if not (regressed or (result is not None and result.drifted)):
        return
    if result is not None and result.drifted:
        warning(redact(printable(result.headline), tuple(secrets)), title=TITLE_DRIFTED, stream=out)
    if client is None:
        warning(sentinel_issue_failed("no github-token", report_path), title=TITLE_SENTINEL_ISSUE, stream=out)
        return
    try:
        issue = client.upsert_issue(DRIFT_ISSUE_TITLE, report, SENTINEL_MARKER)
    except GitHubError as exc:
        warning(sentinel_issue_failed(str(exc), report_path), title=TITLE_SENTINEL_ISSUE, stream=out)
        return
    notice(sentinel_issue(issue.action, issue.url), title=TITLE_SENTINEL_ISSUE, stream=out)
