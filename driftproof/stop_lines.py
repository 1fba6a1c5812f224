"""The one line a stopped run ends with: which lane failed, at which endpoint host, with what, and what to do.

Never a key: the line names the environment variables a key comes from, not their values.
"""

from __future__ import annotations

from driftproof.errors import RunStopped
from driftproof.lanes.base import FATAL, AttemptFailure, FailureKind, Lane, url_host

_HINTS = {
    FailureKind.AUTHENTICATION: "check the key in {keys}",
    FailureKind.PERMISSION: "the key in {keys} may not use this model or endpoint",
    FailureKind.NOT_FOUND: "check the model name and the endpoint",
    FailureKind.BAD_REQUEST: "the endpoint refused the request as written",
    FailureKind.QUOTA: "the account's spend limit or quota is reached",
}


def _where(lane: Lane, role: str) -> str:
    """``the judge (anthropic api at api.anthropic.com)``."""
    endpoint = lane.endpoint()
    at = url_host(endpoint) if "://" in endpoint else endpoint
    return f"the {role} ({lane.provider} {lane.surface} at {at})"


def stop_message(lane: Lane, role: str, failure: AttemptFailure | None, reason: str, streak: int) -> str:
    """The one line a stopped run ends with: provider, endpoint host, status, the provider's error type; no key."""
    keys = " or ".join(lane.credential_names()) or "the environment"
    if failure is not None and failure.kind in FATAL:
        # the reason already reads "<status> <provider's error type>: <message>", as the lanes word it
        said = f"HTTP {reason}" if failure.status is not None else f"{failure.kind.value.replace('_', ' ')}: {reason}"
        hint = _HINTS[failure.kind].format(keys=keys)
        return (
            f"{_where(lane, role)} refused the call: {said}; {hint}. Every later call would fail the same way, "
            "so the run stopped at the first one and wrote no receipt"
        )
    endpoint = "--judge-base-url" if role == "judge" else "--base-url"
    return (
        f"{streak} calls in a row failed; the last, to {_where(lane, role)}: {reason}. The run stopped and wrote "
        f"no receipt: check the network and the endpoint ({endpoint}), or raise --max-consecutive-failures"
    )


def stopped(lane: Lane, role: str, failure: AttemptFailure | None, reason: str, streak: int) -> RunStopped:
    """The error a stopped run raises, worded by `stop_message`; ``in_a_row`` when failures in a row stopped it,
    not a refusal every call would meet."""
    fatal = failure is not None and failure.kind in FATAL
    return RunStopped(stop_message(lane, role, failure, reason, streak), in_a_row=not fatal)
