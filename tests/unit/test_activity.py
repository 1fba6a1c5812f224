"""decide_activity: one table over the events the Action meets, plus Event.from_environ."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import pytest

from driftproof.action.activity import Activity, decide_activity
from driftproof.action.github import Event
from driftproof.errors import GitHubError

BASE = "acme/skills"


def pr_event(head_repo: str = BASE, name: str = "pull_request") -> Event:
    return Event(
        name=name,
        is_pull_request=True,
        pr_number=7,
        is_fork=head_repo != BASE,
        default_branch="main",
        repository=BASE,
        head_sha="abc123",
        base_ref="main",
        ref="refs/pull/7/merge",
    )


def push_event(ref: str) -> Event:
    return Event("push", False, None, False, "main", BASE, "abc123", None, ref)


DISPATCH = Event("workflow_dispatch", False, None, False, "main", BASE, "abc123", None, "refs/heads/main")


@pytest.mark.parametrize(
    ("event", "has_secret", "provider", "expected"),
    [
        # push to the default branch: run, store the receipt and the badge, no comment
        (push_event("refs/heads/main"), True, "anthropic", Activity.STORE_RECEIPT),
        (push_event("refs/heads/main"), False, "stub", Activity.STORE_RECEIPT),
        # push elsewhere
        (push_event("refs/heads/feature"), True, "openai", Activity.RUN_ONLY),
        # same-repo PR
        (pr_event(), True, "anthropic", Activity.PR_COMMENT),
        (pr_event(), False, "stub", Activity.PR_COMMENT),
        # fork PR: no secrets under pull_request, so a notice and exit 0
        (pr_event("mallory/skills"), False, "anthropic", Activity.FORK_NO_SECRETS),
        # fork PR whose secrets reached it (e.g. Dependabot secrets): the token is still read-only
        (pr_event("mallory/skills"), True, "anthropic", Activity.RUN_ONLY),
        # stub needs no secret; fork token cannot comment
        (pr_event("mallory/skills"), False, "stub", Activity.RUN_ONLY),
        # pull_request_target: base code with a write token; comment if the keys are there
        (pr_event("mallory/skills", "pull_request_target"), True, "openai", Activity.PR_COMMENT),
        (pr_event("mallory/skills", "pull_request_target"), False, "openai", Activity.FORK_NO_SECRETS),
        # trusted events without the key: a configuration error, not a silent skip
        (pr_event(), False, "anthropic", Activity.MISSING_SECRET),
        (push_event("refs/heads/main"), False, "openai", Activity.MISSING_SECRET),
        # anything else just runs
        (DISPATCH, True, "anthropic", Activity.RUN_ONLY),
        (DISPATCH, False, "stub", Activity.RUN_ONLY),
    ],
)
def test_decide_activity(event: Event, has_secret: bool, provider: str, expected: Activity) -> None:
    assert decide_activity(event, has_secret, provider) is expected


def write_event(tmp_path: Path, payload: Mapping[str, object]) -> str:
    path = tmp_path / "event.json"
    path.write_text(json.dumps(payload), encoding="utf-8")
    return str(path)


def pr_payload(head: str, *, fork: bool = False, user: str = "alice") -> dict[str, object]:
    return {
        "pull_request": {
            "number": 7,
            "user": {"login": user},
            "head": {"sha": "headsha", "repo": {"full_name": head, "fork": fork}},
            "base": {"ref": "main", "repo": {"full_name": BASE, "fork": fork}},
        },
        "repository": {"full_name": BASE, "default_branch": "main"},
    }


@pytest.mark.parametrize(
    ("payload", "is_fork"),
    [
        (pr_payload(BASE), False),
        (pr_payload("mallory/skills", fork=True), True),
        (pr_payload("Acme/Skills"), False),  # names compare case-insensitively
        (pr_payload(BASE, fork=True), False),  # base repo is itself a fork: same-repo PR
        (pr_payload(BASE, user="dependabot[bot]"), True),  # GitHub gives Dependabot no secrets
    ],
)
def test_event_from_pull_request_payload(tmp_path: Path, payload: dict[str, object], is_fork: bool) -> None:
    env = {
        "GITHUB_EVENT_NAME": "pull_request",
        "GITHUB_EVENT_PATH": write_event(tmp_path, payload),
        "GITHUB_REPOSITORY": BASE,
        "GITHUB_REF": "refs/pull/7/merge",
        "GITHUB_SHA": "mergesha",
    }

    event = Event.from_environ(env)

    assert event == Event(
        name="pull_request",
        is_pull_request=True,
        pr_number=7,
        is_fork=is_fork,
        default_branch="main",
        repository=BASE,
        head_sha="headsha",
        base_ref="main",
        ref="refs/pull/7/merge",
    )


def test_event_from_push_payload(tmp_path: Path) -> None:
    payload = {
        "ref": "refs/heads/main",
        "after": "abc",
        "repository": {"full_name": BASE, "default_branch": "main"},
    }
    env = {
        "GITHUB_EVENT_NAME": "push",
        "GITHUB_EVENT_PATH": write_event(tmp_path, payload),
        "GITHUB_SHA": "abc",
    }

    event = Event.from_environ(env)

    assert (event.is_pull_request, event.pr_number, event.is_fork) == (False, None, False)
    assert (event.repository, event.default_branch, event.head_sha) == (BASE, "main", "abc")
    assert event.is_default_branch_push


def test_event_outside_actions_is_empty() -> None:
    event = Event.from_environ({})
    assert event == Event("", False, None, False, None, None, None, None, None)
    assert decide_activity(event, False, "stub") is Activity.RUN_ONLY


def test_unreadable_event_payload_is_a_github_error(tmp_path: Path) -> None:
    bad = tmp_path / "event.json"
    bad.write_text("{not json", encoding="utf-8")

    with pytest.raises(GitHubError, match="cannot read the event payload at GITHUB_EVENT_PATH="):
        Event.from_environ({"GITHUB_EVENT_NAME": "push", "GITHUB_EVENT_PATH": str(bad)})
