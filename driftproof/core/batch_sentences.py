"""The sentences of ``--batch`` (`driftproof.batch_runner`)."""

from __future__ import annotations


def batch_refusal(role: str, provider: str, surface: str) -> str:
    """Why ``--batch`` is refused: the lane named has no batch API here.

    >>> batch_refusal("judge", "stub", "none")
    '--batch: the judge goes through stub/none, which has no batch API; --batch needs the anthropic or openai API lane'
    """
    return (
        f"--batch: the {role} goes through {provider}/{surface}, which has no batch API; "
        "--batch needs the anthropic or openai API lane"
    )


BATCH_PREFIX = "batch: "


def duration(seconds: float) -> str:
    """A wait in words, to the second.

    >>> duration(30), duration(90), duration(600), duration(3_930), duration(0.001)
    ('30 s', '1 min 30 s', '10 min', '1 h 5 min', '0 s')
    """
    whole = round(seconds)
    if whole < 60:
        return f"{whole} s"
    minutes, rest = divmod(whole, 60)
    if minutes < 60:
        return f"{minutes} min" + (f" {rest} s" if rest else "")
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h" + (f" {minutes} min" if minutes else "")


def _requests(count: int, role: str) -> str:
    return f"{count} {role} request{'' if count == 1 else 's'}"


def batch_submitted(batch_id: str, count: int, role: str, first_s: float, cap_s: float) -> str:
    """Printed once a batch is created: its id, what it holds, and that the run now waits on it.

    >>> batch_submitted("msgbatch_01", 8, "answer", 30, 600)
    'batch: msgbatch_01 submitted (8 answer requests); waiting for it to end: first poll in 30 s, then at twice \
the wait, up to 10 min (a batch may take up to 24 h)'
    """
    return (
        f"{BATCH_PREFIX}{batch_id} submitted ({_requests(count, role)}); waiting for it to end: first poll in "
        f"{duration(first_s)}, then at twice the wait, up to {duration(cap_s)} (a batch may take up to 24 h)"
    )


def batch_polled_again(batch_id: str, count: int, role: str, first_s: float) -> str:
    """Printed when a resumed run polls a batch the journal holds instead of submitting it again.

    >>> batch_polled_again("msgbatch_01", 8, "answer", 30)
    'batch: msgbatch_01 (8 answer requests) was submitted before the run was interrupted: polling it, not \
submitting it again; first poll in 30 s'
    """
    return (
        f"{BATCH_PREFIX}{batch_id} ({_requests(count, role)}) was submitted before the run was interrupted: polling "
        f"it, not submitting it again; first poll in {duration(first_s)}"
    )


def batch_waiting(batch_id: str, waited_s: float, wait_s: float, at: str) -> str:
    """Printed before a long wait between two polls (``at``: when the next poll is, as a clock time).

    >>> batch_waiting("msgbatch_01", 90, 120, "14:05:12 UTC")
    'batch: msgbatch_01 still in progress after 1 min 30 s; next poll in 2 min (at 14:05:12 UTC)'
    """
    return (
        f"{BATCH_PREFIX}{batch_id} still in progress after {duration(waited_s)}; next poll in {duration(wait_s)} "
        f"(at {at})"
    )


def batch_step_failed(step: str, error: str) -> str:
    """Why every call of a batch failed: the step whose request failed for good, and its error.

    >>> batch_step_failed("polling batch msgbatch_01", "529 overloaded_error: Overloaded after 5 attempts")
    'polling batch msgbatch_01 failed: 529 overloaded_error: Overloaded after 5 attempts'
    """
    return f"{step} failed: {error}"


CREATING = "creating the batch"


def polling(batch_id: str) -> str:
    """The step of polling a batch, as `batch_step_failed` names it."""
    return f"polling batch {batch_id}"


def reading(batch_id: str) -> str:
    """The step of reading a batch's results, as `batch_step_failed` names it."""
    return f"reading the results of batch {batch_id}"


def batch_stopped(failed_step: str, batch_id: str, journal: str, finished: int) -> str:
    """Why a run stopped when a request of a batch already submitted (a poll, a read of its results) failed for
    good: the batch runs (and is billed) whatever the run does, so it is kept for ``--resume``, never dropped.

    >>> batch_stopped("polling batch msgbatch_01 failed: 500 api_error: internal after 3 attempts", "msgbatch_01",
    ...               "r.json.journal", 2)
    'polling batch msgbatch_01 failed: 500 api_error: internal after 3 attempts; the provider runs (and bills) \
batch msgbatch_01 once submitted, so the run stopped and wrote no receipt: the batch and the 2 finished draws are \
kept in r.json.journal, and driftproof run … --resume polls it again'
    """
    return (
        f"{failed_step}; the provider runs (and bills) batch {batch_id} once submitted, so the run stopped and "
        f"wrote no receipt: the batch and the {finished} finished draws are kept in {journal}, and driftproof "
        "run … --resume polls it again"
    )


def interrupted_with_batches(finished: int, where: str, pending: list[str]) -> str:
    """The line of a ``--batch`` run interrupted: what the journal keeps, the batches not yet read included.

    >>> interrupted_with_batches(0, " in r.json.journal", ["msgbatch_01"])
    'interrupted: 0 finished draws and the calls that came back are kept in r.json.journal, with batch \
msgbatch_01, submitted and not yet read, which --resume polls instead of submitting it again; add --resume to \
finish the run'
    >>> interrupted_with_batches(3, "", [])
    'interrupted: 3 finished draws and the calls that came back are kept; add --resume to finish the run'
    """
    batches = ""
    if pending:
        named = ", ".join(pending)
        one = len(pending) == 1
        batches = (
            f", with batch{'' if one else 'es'} {named}, submitted and not yet read, which --resume polls instead "
            f"of submitting {'it' if one else 'them'} again"
        )
    return (
        f"interrupted: {finished} finished draws and the calls that came back are kept{where}{batches}; add "
        "--resume to finish the run"
    )
