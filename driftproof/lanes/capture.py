"""Which answer is graded: the reply check and the ``files`` capture.

Two jobs, both done before any grading call:

- :func:`classify_reply` decides whether an agent's reply holds a gradeable answer, or is a lost
  draw because it points at a file the grader was not shown, only describes work it did, or holds
  no answer (seed 000, "Which answer is graded"). It lives in :mod:`driftproof.lanes.reply_rules`
  (its vocabulary in :mod:`driftproof.lanes.reply_patterns`); this module applies it.
- :func:`capture_files` reads back what an agent left in its fresh working directory (``files``
  capture mode); :func:`graded_answer` builds the text the grader sees and :func:`assess_draw`
  joins the two into one :class:`DrawAssessment` per draw.

Pure standard library; the only I/O is reading the draw's directory in :func:`capture_files`.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from driftproof.lanes.reply_rules import (
    REASON_NO_ANSWER,
    classify_reply,
)

__all__ = [
    "MAX_FILES",
    "MAX_FILE_BYTES",
    "MAX_TOTAL_BYTES",
    "REASON_BINARY",
    "REASON_CHANGED",
    "REASON_NOT_REGULAR",
    "REASON_NOT_UTF8",
    "REASON_PERMISSION",
    "REASON_READ_ERROR",
    "REASON_SYMLINK",
    "REASON_TOTAL_CAP",
    "CapturedFile",
    "DirectoryCapture",
    "DrawAssessment",
    "assess_draw",
    "capture_files",
    "graded_answer",
]

MAX_FILES = 50
MAX_FILE_BYTES = 65_536
MAX_TOTAL_BYTES = 262_144


# --------------------------------------------------------------------------------------------
# files capture
# --------------------------------------------------------------------------------------------

REASON_SYMLINK = "symlink, not followed"
REASON_PERMISSION = "unreadable: permission denied"
REASON_READ_ERROR = "unreadable: read error"
REASON_NOT_REGULAR = "unreadable: not a regular file"
REASON_BINARY = "binary"
REASON_NOT_UTF8 = "not valid UTF-8"
REASON_CHANGED = "changed while read"
REASON_TOTAL_CAP = "past the total cap"


@dataclass(frozen=True)
class CapturedFile:
    """One entry the agent left in its working directory, as the receipt's ``captured_files`` lists it."""

    path: str
    """Relative POSIX path; a directory that could not be read ends with ``/``."""
    size: int
    """Size in bytes (0 for a directory)."""
    included: bool
    """True when the file's text is in the graded answer."""
    reason: str | None
    """Why it is not included ("binary", "past the 50-file cap", ...); None when included."""

    def to_json(self) -> dict[str, str | int | bool | None]:
        """The receipt form: ``{path, size, included, reason}``."""
        return {"path": self.path, "size": self.size, "included": self.included, "reason": self.reason}


@dataclass(frozen=True)
class DirectoryCapture:
    """What was read back from a draw's working directory."""

    files: tuple[CapturedFile, ...] = ()
    """Every entry, in sorted path order."""
    texts: dict[str, str] = field(default_factory=dict, hash=False)
    """Path to text, for the included files only."""
    directory_error: str | None = None
    """Why the directory itself could not be read; the draw is then lost."""


class _Entry(NamedTuple):
    path: str
    size: int
    regular: bool
    reason: str | None


def _list_dir(path: Path) -> list[os.DirEntry[str]]:
    """The entries of one directory (a seam for tests)."""
    with os.scandir(path) as entries:
        return list(entries)


def _read_bytes(path: Path, limit: int) -> bytes:
    """At most ``limit`` bytes of ``path``, never following a symlink (a seam for tests)."""
    flags: int = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    with os.fdopen(os.open(path, flags), "rb") as handle:
        return handle.read(limit)


def _os_reason(error: OSError) -> str:
    return REASON_PERMISSION if isinstance(error, PermissionError) else REASON_READ_ERROR


def _walk(root: Path, relative: str, out: list[_Entry]) -> None:
    try:
        entries = _list_dir(root / relative if relative else root)
    except OSError as error:
        if not relative:
            raise
        out.append(_Entry(relative + "/", 0, False, _os_reason(error)))
        return
    for entry in entries:
        path = f"{relative}/{entry.name}" if relative else entry.name
        try:
            if entry.is_symlink():
                out.append(_Entry(path, entry.stat(follow_symlinks=False).st_size, False, REASON_SYMLINK))
            elif entry.is_dir(follow_symlinks=False):
                _walk(root, path, out)
            elif entry.is_file(follow_symlinks=False):
                out.append(_Entry(path, entry.stat(follow_symlinks=False).st_size, True, None))
            else:
                out.append(_Entry(path, entry.stat(follow_symlinks=False).st_size, False, REASON_NOT_REGULAR))
        except OSError as error:
            out.append(_Entry(path, 0, False, _os_reason(error)))


class _Read(NamedTuple):
    size: int
    text: str | None
    reason: str | None


def _read_one(path: Path, max_file_bytes: int) -> _Read:
    try:
        before = os.lstat(path)
    except OSError as error:
        return _Read(0, None, _os_reason(error))
    if not stat.S_ISREG(before.st_mode):
        return _Read(before.st_size, None, REASON_NOT_REGULAR)
    if before.st_size > max_file_bytes:
        return _Read(before.st_size, None, f"truncated: {before.st_size} bytes, cap {max_file_bytes}")
    try:
        data = _read_bytes(path, max_file_bytes + 1)
    except OSError as error:
        return _Read(before.st_size, None, _os_reason(error))
    try:
        after = os.lstat(path)
    except OSError:
        return _Read(before.st_size, None, REASON_CHANGED)
    unchanged = (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    if not unchanged or len(data) != before.st_size:
        return _Read(after.st_size, None, REASON_CHANGED)
    if b"\0" in data:
        return _Read(len(data), None, REASON_BINARY)
    try:
        return _Read(len(data), data.decode("utf-8"), None)
    except UnicodeDecodeError:
        return _Read(len(data), None, REASON_NOT_UTF8)


def capture_files(
    directory: Path,
    *,
    max_files: int = MAX_FILES,
    max_file_bytes: int = MAX_FILE_BYTES,
    max_total_bytes: int = MAX_TOTAL_BYTES,
) -> DirectoryCapture:
    """Read back every entry an agent left in ``directory`` (``files`` capture).

    Entries are named in sorted relative POSIX path order; nothing is skipped. A symlink is named
    and not followed; a subdirectory that cannot be listed is named (``sub/``) with its reason; a
    root that cannot be listed sets ``directory_error``. The first ``max_files`` regular files are
    read: each is included when it is UTF-8 text without a NUL byte, at most ``max_file_bytes``
    long, unchanged (size and mtime) across the read, and still fits under ``max_total_bytes``
    together with the files included before it (a later smaller file may still fit).
    """
    entries: list[_Entry] = []
    try:
        _walk(directory, "", entries)
    except OSError as error:
        return DirectoryCapture(directory_error=_os_reason(error))
    files: list[CapturedFile] = []
    texts: dict[str, str] = {}
    regular = total = 0
    for entry in sorted(entries, key=lambda e: e.path):
        if not entry.regular:
            files.append(CapturedFile(entry.path, entry.size, False, entry.reason))
            continue
        regular += 1
        if regular > max_files:
            files.append(CapturedFile(entry.path, entry.size, False, f"past the {max_files}-file cap"))
            continue
        read = _read_one(directory / entry.path, max_file_bytes)
        reason = read.reason
        if read.text is not None and total + read.size > max_total_bytes:
            reason = REASON_TOTAL_CAP
        elif read.text is not None:
            total += read.size
            texts[entry.path] = read.text
        files.append(CapturedFile(entry.path, read.size, reason is None, reason))
    return DirectoryCapture(tuple(files), texts)


# --------------------------------------------------------------------------------------------
# What the grader sees
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DrawAssessment:
    """A draw's answer, or why it is lost, decided before any grading call."""

    answer: str | None
    """The text shown to the grader; None when the draw is lost."""
    lost: bool
    """True when the draw must not be graded."""
    reason: str | None
    """Why the draw is lost; None otherwise."""
    captured_files: tuple[CapturedFile, ...]
    """Every file left in the working directory (empty in ``text`` capture)."""


def _describe(item: CapturedFile) -> str:
    size = "directory" if item.path.endswith("/") else f"{item.size} bytes"
    return f"{item.path} ({size})" + ("" if item.included else f": not shown, {item.reason}")


def graded_answer(reply: str, capture: DirectoryCapture) -> str:
    """The text shown to the grader: the reply, the list of files, then each shown file's text.

    >>> cap = DirectoryCapture((CapturedFile("a.md", 3, True, None), CapturedFile("b.bin", 2, False, "binary")),
    ...               {"a.md": "hi\\n"})
    >>> print(graded_answer("See a.md.", cap))
    See a.md.
    <BLANKLINE>
    ----- files left in the working directory: 2 -----
    a.md (3 bytes)
    b.bin (2 bytes): not shown, binary
    <BLANKLINE>
    ----- file: a.md (3 bytes) -----
    hi
    ----- end of file: a.md -----
    """
    parts = [reply.rstrip() + "\n\n"] if reply.strip() else []
    parts.append(f"----- files left in the working directory: {len(capture.files)} -----\n")
    parts.extend(_describe(item) + "\n" for item in capture.files)
    if not capture.files:
        parts.append("(none)\n")
    for item in capture.files:
        if item.included:
            text = capture.texts.get(item.path, "")
            body = text if text.endswith("\n") or not text else text + "\n"
            parts.append(f"\n----- file: {item.path} ({item.size} bytes) -----\n{body}")
            parts.append(f"----- end of file: {item.path} -----\n")
    return "".join(parts).rstrip("\n")


def assess_draw(reply: str, capture: DirectoryCapture | None) -> DrawAssessment:
    """Decide what a draw's grader sees; ``capture`` is None in ``text`` capture.

    - The working directory could not be read: lost.
    - An empty reply with an included file: graded on the file(s).
    - An empty reply with no file shown: lost, naming each file with its reason.
    - Otherwise :func:`classify_reply` against the included files decides.

    >>> assess_draw("Use an index.", None).answer
    'Use an index.'
    >>> assess_draw("", DirectoryCapture()).reason
    'no answer'
    """
    if capture is None:
        verdict = classify_reply(reply, ())
        return DrawAssessment(None if verdict.lost else reply, verdict.lost, verdict.reason, ())
    files = capture.files
    if capture.directory_error is not None:
        reason = f"working directory could not be read: {capture.directory_error}"
        return DrawAssessment(None, True, reason, files)
    shown = [item.path for item in files if item.included]
    if not reply.strip() and not shown:
        if not files:
            return DrawAssessment(None, True, REASON_NO_ANSWER, files)
        named = ", ".join(f"{item.path}: {item.reason}" for item in files)
        reason = f"{REASON_NO_ANSWER}: reply empty and no file could be shown ({named})"
        return DrawAssessment(None, True, reason, files)
    verdict = classify_reply(reply, shown)
    if verdict.lost:
        return DrawAssessment(None, True, verdict.reason, files)
    return DrawAssessment(graded_answer(reply, capture), False, None, files)
