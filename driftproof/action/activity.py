"""What the Action does for the event that started it: comment on a PR, store the receipt, run only, or refuse.

Pure: the table in ``tests/unit/test_activity.py`` is its spec.
"""

from __future__ import annotations

from enum import StrEnum

from driftproof.action.github import Event
from driftproof.core.words import Provider

__all__ = ["Activity", "can_comment", "decide_activity"]


class Activity(StrEnum):
    """What this run does, from the event and the secrets at hand."""

    PR_COMMENT = "pr_comment"
    """A pull request: run, diff against the default branch, post the sticky comment."""
    STORE_RECEIPT = "store_receipt"
    """A push to the default branch: run, write the receipt at receipt-path and the badge."""
    FORK_NO_SECRETS = "fork_no_secrets"
    """A fork (or Dependabot) PR without the provider's key: a notice, exit 0."""
    MISSING_SECRET = "missing_secret"
    """A trusted event without the provider's key: a configuration error naming the variable."""
    RUN_ONLY = "run_only"
    """Anything else (workflow_dispatch, schedule, a fork PR with a read-only token): run and
    write the summary, outputs and files, no comment."""


def can_comment(event: Event) -> bool:
    """Whether the event is a pull request whose token may write its comment: a numbered PR, and not a fork's under
    ``pull_request`` (no secrets and a read-only token). What a failed run's error comment asks, whatever failed.

    >>> from dataclasses import replace
    >>> pr = Event("pull_request", True, 7, False, "main", "o/r", "abc", "main", "refs/pull/7/merge")
    >>> can_comment(pr), can_comment(replace(pr, is_fork=True)), can_comment(replace(pr, pr_number=None))
    (True, False, False)
    """
    read_only_fork = event.is_fork and event.name == "pull_request"
    return event.is_pull_request and event.pr_number is not None and not read_only_fork


def decide_activity(event: Event, has_model_secret: bool, provider: str) -> Activity:
    """What a run does. Pure: the table in ``tests/unit/test_activity.py`` is its spec.

    >>> push = Event("push", False, None, False, "main", "o/r", "abc", None, "refs/heads/main")
    >>> decide_activity(push, True, "anthropic")
    <Activity.STORE_RECEIPT: 'store_receipt'>
    """
    secret_ok = has_model_secret or provider == Provider.STUB
    if not secret_ok:
        return Activity.FORK_NO_SECRETS if event.is_pull_request and event.is_fork else Activity.MISSING_SECRET
    if can_comment(event):
        return Activity.PR_COMMENT
    if event.is_pull_request:  # a fork PR under `pull_request`: a read-only token
        return Activity.RUN_ONLY
    if event.is_default_branch_push:
        return Activity.STORE_RECEIPT
    return Activity.RUN_ONLY
