"""A ``--batch`` run cancelled while its first batch is still in progress, then resumed (both batch APIs' tests)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import pytest

from driftproof import batch_runner
from driftproof.errors import RunInterrupted
from driftproof.run import RunOutcome
from tests.support.fake_llm_script import RecordedRequest
from tests.support.fake_llm_server import FakeLLMServer


class CancelledThenResumed(NamedTuple):
    """What the first job sent and journaled, and the resumed run's outcome and every request of both jobs."""

    first: int
    journal: str
    outcome: RunOutcome
    requests: list[RecordedRequest]


def cancel_then_resume(
    run: Callable[..., RunOutcome],
    suite: Path,
    server: FakeLLMServer,
    monkeypatch: pytest.MonkeyPatch,
    *,
    polls_before_cancel: int,
) -> CancelledThenResumed:
    """``run(suite, server)`` until ``polls_before_cancel`` polls have read the first batch in progress, cancelled
    at the next wait (a ``KeyboardInterrupt``, as a cancelled job's SIGINT), then resumed with polls that do not
    wait; the journal is the one the first job left beside the suite's receipt."""
    waits = 0

    def cancel_at_the_wait_after(_s: float) -> None:
        nonlocal waits
        waits += 1
        if waits == polls_before_cancel + 1:
            raise KeyboardInterrupt

    monkeypatch.setattr(batch_runner.time, "sleep", cancel_at_the_wait_after)
    with pytest.raises(RunInterrupted):
        run(suite, server)
    journal = (suite.parent / ".driftproof" / "receipt.json.journal").read_text(encoding="utf-8")
    first = len(server.requests)
    monkeypatch.undo()
    monkeypatch.setattr(batch_runner, "POLL_S", 0.001)
    outcome = run(suite, server, resume=True)
    return CancelledThenResumed(first, journal, outcome, list(server.requests))
