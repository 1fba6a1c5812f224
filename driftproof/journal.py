"""The run journal: every finished draw, appended as it finishes, so an interrupted run can be resumed.

A journal is JSONL beside the receipt (``<receipt>.journal``). Its first line carries a fingerprint of what
shapes the run (suite, skill, lanes, models, stopping rule, samples, capture, preset); ``--resume`` refuses
a journal with another fingerprint. A line cut by an interruption is dropped with everything after it.
The journal is removed once its run is sealed in a receipt.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from driftproof.core.models import Draw
from driftproof.core.seal import content_hash
from driftproof.errors import InputError

JOURNAL_VERSION = 1


@dataclass(slots=True)
class DrawResult:
    """A finished draw and what the archive keeps of it."""

    draw: Draw
    answer: str | None
    judge_replies: list[str]
    judged: bool
    failed_call: bool = False
    """Lost because its call failed (the endpoint, or every judge call): it may be replaced (``core.rounds``)."""


class Journal:
    """An append-only JSONL record of finished draws, with a fingerprint of the run that made them."""

    def __init__(self, path: Path, fingerprint: str) -> None:
        self.path = path
        self.fingerprint = fingerprint
        self._handle: Any = None

    def load(self) -> list[dict[str, Any]]:
        """The draws a matching journal holds; refuses a journal made by a different run."""
        if not self.path.exists():
            return []
        lines = self.path.read_text(encoding="utf-8").splitlines()
        try:
            header = json.loads(lines[0]) if lines else {}
        except ValueError:
            header = {}
        if header.get("fingerprint") != self.fingerprint:
            raise InputError(
                f"{self.path}: this journal was made by a run with other settings, suite or skill; "
                "run without --resume to start afresh"
            )
        entries = []
        for line in lines[1:]:
            try:
                entries.append(json.loads(line))
            except ValueError:
                break  # a line cut by an interruption: everything before it stands
        return entries

    def open(self, *, fresh: bool) -> None:
        """Open for appending; a fresh journal starts with its header."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if fresh or not self.path.exists():
            self.path.write_text(json.dumps({"journal": JOURNAL_VERSION, "fingerprint": self.fingerprint}) + "\n")
        self._handle = self.path.open("a", encoding="utf-8")

    def append(self, case_id: str, arm: str, result: DrawResult) -> None:
        """Record one finished draw."""
        entry = {
            "case": case_id,
            "arm": arm,
            "draw": result.draw.model_dump(mode="json"),
            "answer": result.answer,
            "judge_replies": result.judge_replies,
            "judged": result.judged,
            "failed_call": result.failed_call,
        }
        self._handle.write(json.dumps(entry, ensure_ascii=False) + "\n")
        self._handle.flush()

    def close(self, *, remove: bool = False) -> None:
        """Close, and remove the file once its run is sealed in a receipt."""
        if self._handle is not None:
            self._handle.close()
            self._handle = None
        if remove:
            self.path.unlink(missing_ok=True)


def run_fingerprint(parts: dict[str, Any]) -> str:
    """The fingerprint a journal carries: a content hash of what shapes the run."""
    return content_hash(parts)
