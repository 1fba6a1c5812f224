"""The run journal: every call that came back and every finished draw, appended as it happens, so an interrupted
run can be resumed without asking again for anything it already has.

A journal is JSONL beside the receipt (``<receipt>.journal``). Its first line carries the journal version and a
fingerprint of what shapes the run (suite, skill, the neighbour skills installed beside it, lanes, models,
stopping rule, samples, capture, preset), and the neighbours' hashes by path, so a refusal can name the one edited;
``--resume`` refuses a journal of another version or fingerprint. Every later line is one entry, a JSON object
whose ``kind`` says what it holds:

- ``round``: the draw indices a round of one case committed to, per arm, before any of them is asked for;
- ``answer``: an answer the moment it came back (`AnswerRecord`), by case, arm and draw index;
- ``sample``: a judge sample the moment it came back (`SampleRecord`), by case, arm, draw and sample index;
- ``draw``: a finished draw (`DrawResult`);
- ``canary`` and ``pairwise``: a canary judge sample or a pairwise call, outside the draws
  (`driftproof.journal_passes`).

Each line is written whole and flushed before the next; a line cut by an interruption is dropped with
everything after it. The journal is removed once its run is sealed in a receipt. What a resumed run makes of
the entries is `driftproof.resume`.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Literal

from driftproof.atomic import write_failed
from driftproof.core.models import CapturedFileRecord, Draw, JudgeSample, SideCall, Usage
from driftproof.core.seal import content_hash
from driftproof.errors import InputError, OutputError

JOURNAL_VERSION = 2
"""2: answers and judge samples are journaled as they come back, and rounds as they are decided (1: draws only)."""

Entry = dict[str, Any]


@dataclass(slots=True)
class DrawResult:
    """A finished draw and what the archive keeps of it."""

    draw: Draw
    answer: str | None
    judge_replies: list[str]
    judged: bool
    failed_call: bool = False
    """Lost because its call failed (the endpoint, or every judge call): it may be replaced (``core.rounds``)."""


@dataclass(frozen=True, slots=True)
class AnswerRecord:
    """An answer as it came back: everything its draw needs from the generation, and the attempts it took."""

    text: str
    attempts: int
    lost_reason: str | None = None
    """Why the draw is lost before any judging (its call failed, a timeout, no answer, ...); null when it is judged."""
    call_error: str | None = None
    """The error the call ended on after its retries: the draw is lost to a failed call."""
    failed_call: bool = False
    """The endpoint failed (a classified failure), not the answer: the draw may be replaced."""
    reported_model: str | None = None
    model_source: Literal["reported", "configured"] | None = None
    served_model: str | None = None
    request_id: str | None = None
    usage: Usage | None = None
    captured_files: tuple[CapturedFileRecord, ...] | None = None
    skill_fired: bool | None = None
    side_calls: tuple[SideCall, ...] | None = None
    skills_fired: tuple[str, ...] | None = None
    harness_overhead: Mapping[str, Any] | None = None
    request_draws: int | None = None
    """How many draws the one request that returned this answer returned, when more than one (`Draw.request_draws`)."""

    def to_json(self) -> Entry:
        """The record as JSON values."""
        data: Entry = {f.name: getattr(self, f.name) for f in fields(self)}
        data["usage"] = self.usage.model_dump(mode="json") if self.usage is not None else None
        for name in ("captured_files", "side_calls"):
            items: Sequence[CapturedFileRecord | SideCall] | None = getattr(self, name)
            data[name] = [item.model_dump(mode="json") for item in items] if items is not None else None
        data["harness_overhead"] = dict(self.harness_overhead) if self.harness_overhead is not None else None
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> AnswerRecord:
        """The record `to_json` wrote."""
        files, calls = data.get("captured_files"), data.get("side_calls")
        return cls(
            **{k: v for k, v in data.items() if k not in ("usage", "captured_files", "side_calls", "serving_id")},
            usage=Usage.model_validate(data["usage"]) if data.get("usage") is not None else None,
            captured_files=tuple(CapturedFileRecord.model_validate(f) for f in files) if files is not None else None,
            side_calls=tuple(SideCall.model_validate(c) for c in calls) if calls is not None else None,
        )


@dataclass(frozen=True, slots=True)
class SampleRecord:
    """A judge sample as it came back: the sample, the judge's reply text, and the attempts its call took."""

    sample: JudgeSample
    reply: str
    attempts: int


def round_entry(case_id: str, indices: Mapping[str, Sequence[int]]) -> Entry:
    """The draws a round of ``case_id`` committed to, per arm."""
    return {"kind": "round", "case": case_id, **{arm: list(drawn) for arm, drawn in indices.items()}}


def answer_entry(case_id: str, arm: str, index: int, record: AnswerRecord) -> Entry:
    """One answer as it came back."""
    return {"kind": "answer", "case": case_id, "arm": arm, "index": index, "answer": record.to_json()}


def sample_entry(case_id: str, arm: str, index: int, sample: int, record: SampleRecord) -> Entry:
    """One judge sample as it came back: sample index, the `JudgeSample` fields, the reply text, the attempts."""
    return {
        "kind": "sample",
        "case": case_id,
        "arm": arm,
        "index": index,
        "sample": sample,
        "judge_sample": record.sample.model_dump(mode="json"),
        "reply": record.reply,
        "attempts": record.attempts,
    }


def draw_entry(case_id: str, arm: str, result: DrawResult) -> Entry:
    """One finished draw."""
    return {
        "kind": "draw",
        "case": case_id,
        "arm": arm,
        "draw": result.draw.model_dump(mode="json"),
        "answer": result.answer,
        "judge_replies": result.judge_replies,
        "judged": result.judged,
        "failed_call": result.failed_call,
    }


def changed_neighbour(then: Any, now: Mapping[str, str] | None) -> str | None:
    """The first neighbour SKILL.md (by path) whose hash differs between a journal's header and this run, or
    ``None`` when they match (an older header, without ``neighbours``, reads as none installed)."""
    before = then if isinstance(then, dict) else {}
    after = dict(now or {})
    for name in sorted(before.keys() | after.keys()):
        if before.get(name) != after.get(name):
            return name
    return None


def unread_batches(lines: Sequence[bytes]) -> list[str]:
    """The ids of the batches a journal's entry lines hold that were submitted and never read (``--batch``)."""
    submitted: list[str] = []
    read: set[str] = set()
    for line in lines:
        try:
            entry = json.loads(line)
        except ValueError:
            break
        if isinstance(entry, dict) and isinstance(entry.get("id"), str):
            if entry.get("kind") == "batch":
                submitted.append(entry["id"])
            elif entry.get("kind") == "batch_read":
                read.add(entry["id"])
    return [b for b in submitted if b not in read]


def _held(unread: Sequence[str]) -> str:
    """``batch X, which the provider runs (and bills) once submitted``: the unread batches a refusal names."""
    one = len(unread) == 1
    return f"batch{'' if one else 'es'} {', '.join(unread)}, which the provider runs (and bills) once submitted"


def batch_switched(path: Path, *, journal_batch: bool, unread: Sequence[str]) -> str:
    """Why ``--resume`` is refused when only ``--batch`` differs from the run that made the journal, and the way
    to resume it: never advising a fresh start while it holds a batch not yet read, which would be paid again.

    >>> batch_switched(Path("r.json.journal"), journal_batch=False, unread=[])
    'r.json.journal: this journal was made by a run without --batch, and this run has it; drop --batch to resume \
it, or run without --resume to start afresh'
    """
    if not journal_batch:
        return (
            f"{path}: this journal was made by a run without --batch, and this run has it; drop --batch to resume "
            "it, or run without --resume to start afresh"
        )
    head = f"{path}: this journal was made by a run with --batch, and this run is without it"
    if not unread:
        return f"{head}; add --batch to resume it, or run without --resume to start afresh"
    it = "it" if len(unread) == 1 else "them"
    return (
        f"{head}; it holds {_held(unread)}: add --batch to resume it and poll that batch"
        f"{'' if len(unread) == 1 else 'es'} (without --resume, the run would submit and pay for {it} again)"
    )


def _refusal(
    path: Path,
    header: Mapping[str, Any],
    fingerprint: str,
    neighbours: Mapping[str, str] | None = None,
    *,
    batch: tuple[bool, str] | None = None,
    lines: Sequence[bytes] = (),
) -> InputError | None:
    """Why a journal with ``header`` (and entry ``lines``) cannot be resumed by this run, or ``None``. ``batch``:
    whether this run has ``--batch``, and the fingerprint it would have with the other setting."""
    version = header.get("journal")
    if isinstance(version, int) and not isinstance(version, bool) and version != JOURNAL_VERSION:
        return InputError(
            f"{path}: this journal was written by another version of Driftproof (journal version {version}, this "
            f"one reads {JOURNAL_VERSION}), so it cannot be resumed; run without --resume to start afresh"
        )
    if header.get("fingerprint") != fingerprint:
        changed = changed_neighbour(header.get("neighbours"), neighbours)
        if changed is not None:
            return InputError(
                f"{path}: the neighbour skill {changed} is not the one the stopped run installed (it was edited, "
                "added or removed since), so the journal cannot be resumed; run without --resume to start afresh"
            )
        unread = unread_batches(lines)
        if batch is not None and header.get("fingerprint") == batch[1]:  # only --batch differs
            return InputError(batch_switched(path, journal_batch=not batch[0], unread=unread))
        if unread:
            return InputError(
                f"{path}: this journal was made by a run with other settings, suite or skill; it holds "
                f"{_held(unread)}: resume it with the settings of the run that made it (without --resume, the run "
                "would submit and pay for it again)"
            )
        return InputError(
            f"{path}: this journal was made by a run with other settings, suite or skill; "
            "run without --resume to start afresh"
        )
    return None


class Journal:
    """An append-only JSONL record of a run's calls and finished draws, with a fingerprint of the run."""

    def __init__(
        self,
        path: Path,
        fingerprint: str,
        neighbours: Mapping[str, str] | None = None,
        *,
        batch: tuple[bool, str] | None = None,
    ) -> None:
        self.path = path
        self.fingerprint = fingerprint
        self.batch = batch
        """Whether the run has ``--batch``, and the fingerprint it would have with the other setting: a refused
        resume that only ``--batch`` sets apart says so (`batch_switched`)."""
        self.neighbours = dict(neighbours) if neighbours else None
        """With ``discover`` delivery, each installed neighbour SKILL.md's SHA-256 by path: in the fingerprint, and
        in the header too, so that a resume refused for an edited neighbour names it."""
        self._handle: Any = None
        self._kept_bytes: int | None = None
        self._broken = False
        """A write failed (a full disk): later writes are skipped and closing does not raise again."""

    def load(self) -> list[Entry]:
        """The entries a matching journal holds, in order; refuses a journal of another version or run.

        Only whole lines count: a line cut by an interruption (no newline after it, or not JSON) is dropped with
        everything after it, and `open` cuts the file back to the lines kept before it appends.
        """
        if not self.path.exists():
            return []
        lines = self.path.read_bytes().split(b"\n")
        try:
            header = json.loads(lines[0]) if len(lines) > 1 else {}
        except ValueError:
            header = {}
        refusal = _refusal(
            self.path,
            header if isinstance(header, dict) else {},
            self.fingerprint,
            self.neighbours,
            batch=self.batch,
            lines=lines[1:-1],
        )
        if refusal is not None:
            raise refusal
        entries, kept = [], len(lines[0]) + 1
        for line in lines[1:-1]:  # the piece after the last newline is empty, or a line cut short
            try:
                entry = json.loads(line)
            except ValueError:
                break
            if not isinstance(entry, dict):
                break
            entries.append(entry)
            kept += len(line) + 1
        if self._handle is None:  # read again while open (the passes before the draws): nothing to cut
            self._kept_bytes = kept
        return entries

    def open(self, *, fresh: bool) -> None:
        """Open for appending; a fresh journal starts with its header, a loaded one loses a cut last line.

        Opening an open journal does nothing, and opening one again once closed appends to it: the canaries
        open it before the runner does, the pairwise pass after the runner closed it.
        Raises `OutputError` (one line) when the file cannot be written.
        """
        if self._handle is not None:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if fresh or not self.path.exists():
                named = {"neighbours": self.neighbours} if self.neighbours else {}
                header = json.dumps({"journal": JOURNAL_VERSION, "fingerprint": self.fingerprint, **named}) + "\n"
                try:
                    self.path.write_text(header, encoding="utf-8")
                except OSError:
                    with contextlib.suppress(OSError):  # no header cut short for a later --resume to trip on
                        self.path.unlink()
                    raise
            elif self._kept_bytes is not None:
                with self.path.open("r+b") as handle:
                    handle.truncate(self._kept_bytes)
                self._kept_bytes = None
            self._handle = self.path.open("a", encoding="utf-8")
        except OSError as exc:
            raise write_failed(self.path, exc, appending=True) from None

    def write(self, entry: Entry) -> None:
        """Append one entry as one whole line, flushed; the first write that fails raises `OutputError`.

        After a failed write the journal is broken: later writes (the error handler's) are skipped, so the
        first error is the one reported, and what the journal held before stays for ``--resume``.
        """
        if self._broken:
            return
        try:
            self._handle.write(json.dumps(entry, ensure_ascii=False) + "\n")
            self._handle.flush()
        except OSError as exc:
            self._broken = True
            cause = exc.strerror or str(exc)
            raise OutputError(
                f"{self.path}: could not write to the run's journal: {cause}; no receipt was written or changed, "
                "and the calls journaled so far are kept (free some space, then run again with --resume)"
            ) from None

    def close(self, *, remove: bool = False) -> None:
        """Close, and remove the file once its run is sealed in a receipt. A broken journal closes quietly."""
        if self._handle is not None:
            handle, self._handle = self._handle, None
            try:
                handle.close()
            except OSError as exc:  # the buffer of a failed write cannot be flushed either
                if not self._broken:
                    raise write_failed(self.path, exc, appending=True) from None
        if remove:
            self.path.unlink(missing_ok=True)


def run_fingerprint(parts: dict[str, Any]) -> str:
    """The fingerprint a journal carries: a content hash of what shapes the run."""
    return content_hash(parts)
