"""Workflow commands and environment files: what the Action writes for the runner to read back.

Stdout workflow commands (``::add-mask::``, ``::notice::``, ``::warning::``, ``::error::``,
``::stop-commands::``) and the one way their text is escaped (``escape_data``), the ``GITHUB_OUTPUT``
and ``GITHUB_STEP_SUMMARY`` files, GitHub's size limits on a comment and a summary, and the secret values
the Action holds. Redaction is :func:`driftproof.credentials.redact`, the one rule. No network and no
third-party import.
"""

from __future__ import annotations

import os
import secrets as _secrets
import sys
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

from driftproof import credentials
from driftproof.atomic import write_failed
from driftproof.safe_text import printable

__all__ = [
    "COMMENT_CUT_NOTE",
    "COMMENT_LIMIT",
    "SUMMARY_CUT_NOTE",
    "SUMMARY_LIMIT_BYTES",
    "add_mask",
    "append_summary",
    "error",
    "escape_data",
    "notice",
    "secret_values",
    "stop_commands",
    "truncate_comment",
    "warning",
    "write_outputs",
]

COMMENT_LIMIT = 65_536
"""GitHub refuses a comment body longer than this many characters (422 "Body is too long")."""

SUMMARY_LIMIT_BYTES = 1_048_576
"""GitHub drops a step's job summary larger than 1 MiB, so the Action stays under it."""


# ---------------------------------------------------------------------------------------------
# Workflow commands (stdout)


def escape_data(value: str) -> str:
    """A workflow command's message, escaped as the runner reads it back: ``%``, CR and LF as ``%25``, ``%0D``,
    ``%0A``, so a message cannot end its line and start another command. The one escape of every command the
    Action prints (the commands here pass ``printable`` text to it first).

    >>> escape_data("50%\\ndone\\r")
    '50%25%0Adone%0D'
    """
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(value: str) -> str:
    """Escape a command property value (``file=``, ``title=``): also ``:`` and ``,``.

    >>> _escape_property("a: b, c")
    'a%3A b%2C c'
    """
    return escape_data(printable(value)).replace(":", "%3A").replace(",", "%2C")


def _command(name: str, message: str, properties: Mapping[str, object], stream: TextIO | None) -> None:
    """Print ``::name k=v,k=v::message`` with both parts printable and escaped."""
    props = ",".join(f"{k}={_escape_property(str(v))}" for k, v in properties.items() if v is not None)
    out = stream if stream is not None else sys.stdout
    out.write(f"::{name}{' ' + props if props else ''}::{escape_data(printable(message))}\n")
    out.flush()


def add_mask(value: str, *, stream: TextIO | None = None) -> None:
    """Ask the runner to mask ``value`` (and each of its lines) in every later log line."""
    for item in dict.fromkeys([value, *value.splitlines()]):
        if item.strip():
            _command("add-mask", item, {}, stream)


def _annotation(
    kind: str,
    message: str,
    file: str | None,
    line: int | None,
    title: str | None,
    stream: TextIO | None,
) -> None:
    _command(kind, message, {"file": file, "line": line, "title": title}, stream)


def notice(
    message: str,
    *,
    file: str | None = None,
    line: int | None = None,
    title: str | None = None,
    stream: TextIO | None = None,
) -> None:
    """A ``::notice::`` annotation."""
    _annotation("notice", message, file, line, title, stream)


def warning(
    message: str,
    *,
    file: str | None = None,
    line: int | None = None,
    title: str | None = None,
    stream: TextIO | None = None,
) -> None:
    """A ``::warning::`` annotation."""
    _annotation("warning", message, file, line, title, stream)


def error(
    message: str,
    *,
    file: str | None = None,
    line: int | None = None,
    title: str | None = None,
    stream: TextIO | None = None,
) -> None:
    """An ``::error::`` annotation."""
    _annotation("error", message, file, line, title, stream)


@contextmanager
def stop_commands(*, stream: TextIO | None = None) -> Iterator[str]:
    """Stop the runner from reading workflow commands while raw model output is printed.

    Yields the random resume token; nothing printed inside can guess it.
    """
    token = _secrets.token_hex(16)
    out = stream if stream is not None else sys.stdout
    out.write(f"::stop-commands::{token}\n")
    out.flush()
    try:
        yield token
    finally:
        out.write(f"::{token}::\n")
        out.flush()


# ---------------------------------------------------------------------------------------------
# Environment files, limits, held secrets


def write_outputs(path: Path, outputs: Mapping[str, str]) -> None:
    """Append outputs to ``GITHUB_OUTPUT`` in the heredoc form, all in one ``write``.

    ``name<<ghadelimiter_<uuid>`` / value / delimiter, so any value (multi-line too) is safe.
    """
    chunks = []
    for name, value in outputs.items():
        delimiter = f"ghadelimiter_{uuid.uuid4()}"
        if not name or any(c in name for c in "\r\n=<") or delimiter in value:
            raise ValueError(f"cannot write output {name!r}: bad name or value")
        chunks.append(f"{name}<<{delimiter}\n{value}\n{delimiter}\n")
    _append(path, "".join(chunks).encode("utf-8"))


def _append(path: Path, data: bytes) -> None:
    """Append with O_APPEND, looping only if the kernel writes short; `OutputError` when it cannot."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
        finally:
            os.close(fd)
    except OSError as exc:
        raise write_failed(path, exc, appending=True) from None


SUMMARY_CUT_NOTE = "\n\n> **Summary cut at GitHub's 1 MiB limit.** The full report is in the report file.\n"


def append_summary(path: Path, markdown: str) -> bool:
    """Append Markdown to ``GITHUB_STEP_SUMMARY``, cut with a note to stay under 1 MiB.

    Returns True when the text had to be cut.
    """
    used = path.stat().st_size if path.exists() else 0
    data = markdown.encode("utf-8")
    room = SUMMARY_LIMIT_BYTES - used
    if len(data) <= room:
        _append(path, data)
        return False
    note = SUMMARY_CUT_NOTE.encode("utf-8")
    keep = data[: max(0, room - len(note))].decode("utf-8", "ignore").encode("utf-8")
    _append(path, keep + note if room >= len(note) else b"")
    return True


COMMENT_CUT_NOTE = (
    "\n\n---\n**This comment was cut to fit GitHub's 65,536-character limit.** "
    "The full report is in the job summary and the report file.\n"
)


def truncate_comment(body: str, limit: int = COMMENT_LIMIT) -> str:
    """Cut ``body`` to ``limit`` characters at a line end, close open blocks, add a note.

    >>> truncate_comment("short")
    'short'
    >>> len(truncate_comment("x\\n" * 40_000)) <= 65_536
    True
    """
    if len(body) <= limit:
        return body
    cut = limit - len(COMMENT_CUT_NOTE)
    while cut > 0:
        head = body[:cut]
        newline = head.rfind("\n")
        head = head[:newline] if newline > 0 else head
        closing = "\n```" if head.count("```") % 2 else ""
        closing += "\n</details>" * max(0, head.count("<details") - head.count("</details>"))
        result = head + closing + COMMENT_CUT_NOTE
        if len(result) <= limit:
            return result
        cut -= len(result) - limit
    return COMMENT_CUT_NOTE[-limit:]


def secret_values(environ: Mapping[str, str]) -> list[str]:
    """The non-empty values of every secret variable, each once, held for redaction from here on."""
    return credentials.hold_environment(environ)
