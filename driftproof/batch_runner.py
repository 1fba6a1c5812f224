"""The runner through provider batch APIs (``--batch``): a round's answers as one batch, then its judge calls.

`BatchRunner` is the `Runner` with one change: a call is not sent at once but queued, and when every call that
came back has been handled (so each case has asked the stopping rule for its next round), the queue goes out as
one batch per lane: the answers of every case's round together, then their judge calls together. The stopping
rule runs round by round, as without ``--batch``, and results are stored by index, so the receipt is the same
as a run's without it, plus the batch ids (``batch_ids``).

A batch line asks for the answers of an arm's round of draws and for a draw's judge samples in as few lines as each
lane allows, as `Runner` asks in requests (``n`` on the OpenAI Batch API, whose line's body is the lane's request;
one draw and one sample a line on Message Batches, which has no ``n``): a line's custom_id names each draw (or
sample) it asks for, and its result is split into one logical call each (`driftproof.judge_batch`).

Each lane goes through its provider's batch API (`driftproof.lanes.batch_api.BatchApi`: Anthropic Message
Batches, the OpenAI Batch API), so an Anthropic answerer and an OpenAI judge each use their own.

Each batch is journaled (``kind: batch``, with its custom_ids and the HTTP requests its create took) before it
is polled, after each poll (``kind: batch_poll``: its id and its HTTP requests so far, the create's included),
and once its results are read (``kind: batch_read``): ``--resume`` after a cancelled or timed-out job polls a
batch that was submitted and never read instead of submitting the same requests again, counting on from its last
journaled figure (a journal without ``batch_poll`` entries, from before they were written, counts on from the
create). It asks for the draws of such a batch in that batch's lines (`answer_lines` of its custom_ids: a
journal written one draw a line, before draws were grouped, is polled too), so its custom_ids are the batch's.
Polling waits ``poll_s``, doubling up to `POLL_CAP_S`. The endpoint attempts of a batch are its HTTP requests (the
create, and OpenAI's upload before it; each poll, before a cancel and after it; the reads of its results), counted
on its last item.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any

from driftproof.core import batch_sentences as words
from driftproof.core.batch_sentences import batch_refusal
from driftproof.errors import InputError, RunStopped
from driftproof.journal import Entry, Journal
from driftproof.lanes.anthropic_api import AnthropicApiLane
from driftproof.lanes.anthropic_batch import AnthropicBatches
from driftproof.lanes.base import FATAL, AttemptFailure, Generation, GenerationRequest, Lane
from driftproof.lanes.batch_api import BatchApi, BatchRequestFailed, BatchRequests, failed
from driftproof.lanes.openai_api import OpenAIApiLane
from driftproof.lanes.openai_batch import OpenAIBatches
from driftproof.runner import Futures, Runner

POLL_S = 30.0
"""Seconds before the first poll of a batch (a batch takes minutes to hours)."""
POLL_CAP_S = 600.0
"""The longest wait between two polls."""
LONG_POLL_S = 60.0
"""A wait between two polls this long or longer is said first (the batch's id, how long it has been, the next
poll's time), so a run waiting on a batch does not look hung."""


def _sleep(seconds: float) -> None:
    """Wait between polls and before a retry (``time.sleep``, looked up at each call)."""
    time.sleep(seconds)


def batch_api_for(lane: Lane) -> BatchApi | None:
    """The batch API a lane's calls go through (Message Batches, the OpenAI Batch API); ``None`` without one."""
    if isinstance(lane, AnthropicApiLane):
        return AnthropicBatches(lane)
    if isinstance(lane, OpenAIApiLane):
        return OpenAIBatches(lane)
    return None


BATCH_LANES = (AnthropicApiLane, OpenAIApiLane)
"""The lanes with a batch API (`batch_api_for`)."""


def check_batch_lanes(lane: Lane, judge: Lane) -> None:
    """Refuse ``--batch`` (one line, exit 2) unless both lanes can go through a batch API."""
    for role, each in (("answering model", lane), ("judge", judge)):
        if batch_api_for(each) is None:
            raise InputError(batch_refusal(role, each.provider, each.surface))


def check_batch_choice(lanes: Sequence[tuple[str, str, str]]) -> None:
    """`check_batch_lanes` before any lane is built (``driftproof plan``): each (role, provider, surface) asked
    for must be one of `BATCH_LANES`, or ``--batch`` is refused in the same line."""
    for role, provider, surface in lanes:
        if not any((kind.provider, kind.surface) == (provider, surface) for kind in BATCH_LANES):
            raise InputError(batch_refusal(role, provider, surface))


@dataclass(frozen=True, slots=True)
class _Queued:
    future: Future[Generation]
    kind: str
    custom_id: str
    request: GenerationRequest


def custom_id(kind: str, key: Sequence[Any]) -> str:
    """The custom_id of one line: its kind, case index, arm, then the draws an answer line asks for, or a judge
    line's draw and samples (a group joined by ``_``), within ``[A-Za-z0-9_-]``.

    >>> custom_id("answer", (0, "with_skill", (2,))), custom_id("answer", (1, "baseline", (0, 1, 2)))
    ('answer-0-with_skill-2', 'answer-1-baseline-0_1_2')
    >>> custom_id("judge", (3, "baseline", 0, (1,))), custom_id("judge", (0, "with_skill", 4, (0, 1)))
    ('judge-3-baseline-0-1', 'judge-0-with_skill-4-0_1')
    """
    ci, arm, *rest = key
    parts = "".join(f"-{'_'.join(map(str, part)) if isinstance(part, tuple) else part}" for part in rest)
    return f"{kind}-{ci}-{arm}{parts}"


CUSTOM_ID_MAX = 64
"""The longest custom_id Message Batches accepts (``^[a-zA-Z0-9_-]{1,64}$``); the OpenAI Batch API documents no
limit, so both are held to it."""


def fitting(kind: str, head: tuple[Any, ...], groups: list[tuple[int, ...]]) -> list[tuple[int, ...]]:
    """``groups`` (of draws, or of a draw's samples) split where a line's custom_id would pass `CUSTOM_ID_MAX`
    characters; ``head`` is the key before the group (case index and arm, and a judge line's draw index).

    >>> fitting("answer", (7, "with_skill"), [(0, 1, 2)])
    [(0, 1, 2)]
    >>> [len(g) for g in fitting("answer", (99999, "with_skill"), [tuple(range(30))])]  # 24 + 19 + 7 x 3 = 64
    [17, 13]
    >>> [len(custom_id("answer", (99999, "with_skill", tuple(range(n))))) for n in (17, 18)]
    [64, 67]
    """
    lines: list[tuple[int, ...]] = []
    for group in groups:
        line: list[int] = []
        for item in group:
            if line and len(custom_id(kind, (*head, (*line, item)))) > CUSTOM_ID_MAX:
                lines.append(tuple(line))
                line = []
            line.append(item)
        lines.append(tuple(line))
    return lines


def answer_lines(custom_ids: Sequence[str]) -> dict[tuple[int, str], list[tuple[int, ...]]]:
    """By case index and arm, the draws of each answer line the custom_ids name (`custom_id`); others are skipped.

    >>> answer_lines(["answer-0-with_skill-0_1", "judge-0-baseline-0-1", "answer-1-baseline-2", "answer-1-baseline-3"])
    {(0, 'with_skill'): [(0, 1)], (1, 'baseline'): [(2,), (3,)]}
    """
    groups: dict[tuple[int, str], list[tuple[int, ...]]] = {}
    for name in custom_ids:
        kind, *parts = name.split("-")
        if kind == "answer" and len(parts) == 3 and parts[0].isdigit():
            draws = parts[2].split("_")
            if all(d.isdigit() for d in draws):
                groups.setdefault((int(parts[0]), parts[1]), []).append(tuple(map(int, draws)))
    return groups


class BatchRunner(Runner):
    """The `Runner`, its calls sent one batch per round and lane (`driftproof.batch_runner`)."""

    def __init__(self, *args: Any, say: Callable[[str], None] | None = None, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self._say_line = say
        """Where a batch's lines go (its id once submitted, the long waits): the progress stream."""
        self._queued: list[_Queued] = []
        self._apis = {"answer": batch_api_for(self.lane), "judge": batch_api_for(self.judge)}
        self._poll_s = POLL_S
        self._unread: dict[tuple[str, frozenset[str]], tuple[str, int]] = {}
        """Batches a journal holds that were submitted and never read, by role and custom_ids: their id and the
        HTTP requests made for them so far (the create and the polls journaled), polled again."""
        self._unread_lines: dict[tuple[int, str], list[tuple[int, ...]]] = {}
        """By case index and arm, the draws of each answer line of those batches: asked for in the same lines."""
        self._unread_ids: list[str] = []
        """The ids of the batches submitted (by this run or the one a journal holds) and not yet read."""
        self.tally.retries = 0  # the batch requests' retries, not the attempts beyond one a call

    def run(self, journal: Journal | None = None, *, resume: bool = False) -> None:
        """As `Runner.run`; a resumed run first reads the journal's batches."""
        if journal is not None and resume:
            self._read_batches(journal.load())
        super().run(journal, resume=resume)

    def _read_batches(self, entries: Sequence[Entry]) -> None:
        read = {e.get("id") for e in entries if e.get("kind") == "batch_read"}
        polled = {e.get("id"): int(e.get("http", 0)) for e in entries if e.get("kind") == "batch_poll"}  # the last
        for entry in entries:
            if entry.get("kind") == "batch" and isinstance(entry.get("id"), str):
                if entry["id"] not in self.batch_ids:
                    self.batch_ids.append(entry["id"])
                if entry["id"] not in read:
                    key = (str(entry.get("role")), frozenset(entry.get("custom_ids", ())))
                    http = max(int(entry.get("http", 1)), polled.get(entry["id"], 0))
                    self._unread[key] = (entry["id"], http)
                    self._unread_ids.append(entry["id"])
                    if entry.get("role") == "answer":
                        self._unread_lines.update(answer_lines(list(entry.get("custom_ids", ()))))

    def _submit(self, pool: ThreadPoolExecutor, futures: Futures, kind: str, key: Any, fn: Any, *args: Any) -> None:
        """Queue one call for the next batch of its lane."""
        future: Future[Generation] = Future()
        futures[future] = (kind, key)
        future.add_done_callback(self._done.put)
        request = self.answers_request(*args) if kind == "answer" else self.judge_call_request(*args)
        self._queued.append(_Queued(future, kind, custom_id(kind, key), request))

    def answer_groups(self, ci: int, arm: str, indices: list[int]) -> list[tuple[int, ...]]:
        """As `Runner.answer_groups`; draws a journaled batch not yet read asked for go in that batch's lines, so a
        resumed run's custom_ids are that batch's and it is polled, not submitted again."""
        journaled = self._unread_lines.pop((ci, arm), None)
        if journaled is not None and sorted(i for group in journaled for i in group) == sorted(indices):
            return journaled
        return fitting("answer", (ci, arm), super().answer_groups(ci, arm, indices))

    def sample_groups(self, key: tuple[int, str, int], missing: list[int]) -> list[tuple[int, ...]]:
        """As `Runner.sample_groups`, each line's custom_id within `CUSTOM_ID_MAX` characters."""
        return fitting("judge", key, super().sample_groups(key, missing))

    def _next_done(self) -> Future[Generation]:
        """The next call that came back; once all are handled, the queued calls go out as batches."""
        while self._done.empty() and self._queued:
            self._flush()
        return super()._next_done()

    def _flush(self) -> None:
        queued, self._queued = self._queued, []
        for kind, lane in (("answer", self.lane), ("judge", self.judge)):
            items = [q for q in queued if q.kind == kind]
            if items:
                self._send(kind, lane, items)

    def _send(self, role: str, lane: Lane, items: list[_Queued]) -> None:
        """One batch: submitted (or found in the journal), polled until it ends, its results handed back. Each HTTP
        request is retried by the lane's retry policy (`BatchRequests`); a create that fails for good fails every
        call of the batch, its reason naming the step, and a poll or read that does stops the run (`_batch_failed`)."""
        api = self._apis[role]
        if api is None:  # check_batch_lanes refused any other lane before the run
            raise TypeError(f"no batch API on {lane.provider}/{lane.surface}")
        ids = [q.custom_id for q in items]
        batch_id, journaled = self._unread.pop((role, frozenset(ids)), (None, 0))
        send = BatchRequests(api.classify, api.policy(), _sleep)
        step = words.CREATING
        try:
            if batch_id is None:
                batch_id = api.submit(send, {q.custom_id: q.request for q in items})
                self.batch_ids.append(batch_id)
                self._unread_ids.append(batch_id)
                self._journal_entry(
                    {"kind": "batch", "role": role, "id": batch_id, "custom_ids": ids, "http": send.http}
                )
                self._say(words.batch_submitted(batch_id, len(items), role, self._poll_s, POLL_CAP_S))
            else:
                self._say(words.batch_polled_again(batch_id, len(items), role, self._poll_s))
            step = words.polling(batch_id)
            self._poll(api, send, batch_id, journaled)
            step = words.reading(batch_id)
            got = api.results(send, batch_id, ids)
            self._journal_entry({"kind": "batch_read", "id": batch_id})
            self._unread_ids.remove(batch_id)
        except BatchRequestFailed as exc:  # retried as far as the policy allows
            failure = replace(exc.failure, reason=words.batch_step_failed(step, exc.error))
            got = self._batch_failed(batch_id, journaled, send, failure, ids)
        except Exception as exc:  # the batch's reply could not be read (not an HTTP failure): the same
            failure = api.classify(exc)
            failure = replace(failure, reason=words.batch_step_failed(step, failure.reason))
            got = self._batch_failed(batch_id, journaled, send, failure, ids)
        self._count_retries(send)
        http = journaled + send.http
        last = len(items) - 1  # the batch's HTTP requests on its last call, so progress shows no retries mid-batch
        for n, q in enumerate(items):
            gen = got[q.custom_id]
            q.future.set_result(replace(gen, attempts=http) if n == last else gen)

    def _count_retries(self, send: BatchRequests) -> None:
        """The retries of a batch's requests: the retries the progress line shows (`Tally.retries`)."""
        self.tally.retries = (self.tally.retries or 0) + send.retries

    def _batch_failed(
        self, batch_id: str | None, journaled: int, send: BatchRequests, failure: AttemptFailure, ids: list[str]
    ) -> dict[str, Generation]:
        """A batch request that failed for good. Before the batch exists (its create failed), every call of it is
        a failed call. Once it exists, the provider runs and bills it whatever the run does, so it is never dropped:
        its HTTP requests so far are journaled and the run stops (`RunStopped`), its journal kept, for
        ``--resume`` to poll it again."""
        if batch_id is None:
            return dict.fromkeys(ids, failed(failure))
        self._journal_entry({"kind": "batch_poll", "id": batch_id, "http": journaled + send.http})
        self._count_retries(send)
        journal = str(self._journal.path) if self._journal is not None else "the run's journal"
        raise RunStopped(
            words.batch_stopped(failure.reason, batch_id, journal, self.finished_draws()),
            in_a_row=failure.kind not in FATAL,
            keep_journal=True,
        )

    def interrupted_line(self, where: str) -> str:
        """As `Runner.interrupted_line`, naming the batches submitted and not yet read, which ``--resume`` polls."""
        return words.interrupted_with_batches(self.finished_draws(), where, list(self._unread_ids))

    def _poll(self, api: BatchApi, send: BatchRequests, batch_id: str, journaled: int) -> None:
        """Poll until the batch has ended: ``poll_s`` first, doubling up to `POLL_CAP_S`; a wait of `LONG_POLL_S`
        or more is said first, with when the next poll is. Each poll is journaled with the batch's HTTP requests so
        far (``journaled``: those a resumed run's journal held), so ``--resume`` counts on from it."""
        wait, waited = self._poll_s, 0.0
        while True:
            if wait >= LONG_POLL_S:
                at = (datetime.now(UTC) + timedelta(seconds=wait)).strftime("%H:%M:%S UTC")
                self._say(words.batch_waiting(batch_id, waited, wait, at))
            _sleep(wait)
            waited += wait
            ended = api.ended(send, batch_id)
            self._journal_entry({"kind": "batch_poll", "id": batch_id, "http": journaled + send.http})
            if ended:
                return
            wait = min(wait * 2, POLL_CAP_S)

    def _say(self, line: str) -> None:
        if self._say_line is not None:
            self._say_line(line)

    def _journal_entry(self, entry: Entry) -> None:
        if self._journal is not None:
            self._journal.write(entry)
