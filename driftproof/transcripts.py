"""The answers archive (``--keep-transcripts``), written as the run goes rather than held in memory.

Each finished draw's answer and judge replies go to an anonymous spool file the moment the draw is finished;
memory keeps only where each line starts. The archive is then read back in index order (case, arm, draw), so its
text, and the sha256 the receipt seals, do not depend on which call came back first.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

from driftproof.core.placebo import PLACEBO_ARM
from driftproof.journal import DrawResult
from driftproof.runner import ARMS

ARM_ORDER = (*ARMS, PLACEBO_ARM)
"""The archive's arm order within a case: with_skill, baseline, then a placebo arm (``--placebo``)."""


def archive_beside(out: Path) -> Path:
    """Where the answers archive of receipt ``out`` goes: beside it, as ``NAME.answers.jsonl``.

    >>> archive_beside(Path("out/r.json"))
    PosixPath('out/r.answers.jsonl')
    """
    return out.with_name(out.stem + ".answers.jsonl")


class Archive(NamedTuple):
    """The archive's path, its lines in index order (read from the spool as they are written) and its reference."""

    path: Path
    lines: Iterator[bytes]
    reference: dict[str, str]


class TranscriptSpool:
    """Finished draws' texts on disk, one JSON line per draw, with the offset of each line in memory."""

    def __init__(self) -> None:
        self._file = tempfile.TemporaryFile()  # noqa: SIM115 - closed by close(); gone when closed
        self._where: dict[tuple[int, int, int], tuple[int, int]] = {}
        self._end = 0

    def add(self, ci: int, case_id: str, arm: str, result: DrawResult) -> None:
        """Append one finished draw of case ``ci`` (a draw added again replaces the first)."""
        entry = {
            "case": case_id,
            "arm": arm,
            "index": result.draw.index,
            "answer": result.answer,
            "judge_replies": result.judge_replies,
        }
        line = (json.dumps(entry, ensure_ascii=False, sort_keys=True) + "\n").encode("utf-8")
        self._file.seek(self._end)
        self._file.write(line)
        self._where[(ci, ARM_ORDER.index(arm), result.draw.index)] = (self._end, len(line))
        self._end += len(line)

    def _lines(self) -> Iterator[bytes]:
        if not self._where:  # an archive with no draw is one empty line, as it always was
            yield b"\n"
        for key in sorted(self._where):
            offset, length = self._where[key]
            self._file.seek(offset)
            yield self._file.read(length)

    def archive(self, out: Path) -> Archive:
        """The archive beside receipt ``out`` (``NAME.answers.jsonl``): one pass for its sha256, one to write it."""
        digest = hashlib.sha256()
        for line in self._lines():
            digest.update(line)
        path = archive_beside(out)
        return Archive(path, self._lines(), {"path": path.name, "sha256": digest.hexdigest()})

    def close(self) -> None:
        """Remove the spool."""
        self._file.close()
