"""Output paths, checked before any model call: the one rule every command that writes a file applies.

A command names each file it will write (an `Output`: the path, the flag or Action input that named it, what goes
there) and each file it reads (an `Input`), and calls `check_outputs` before its first model call and before it
writes anything. An output is refused in one line, ``FLAG: PATH …`` (an `InputError`, exit status 2), when:

1. it exists and is not a regular file: a directory, a device (``/dev/full``), a FIFO, a socket. A file is written
   as a temp file renamed over its target, which would replace the device node or the FIFO itself;
2. it is a file the command reads (compared with ``os.path.samefile``, so ``./x``, an absolute path, a symlink or
   a hard link to it are caught), or where another output of the same command goes;
3. its directory cannot be written: the nearest directory on its path that exists is a file, or this process may
   not write in it. Directories that do not exist yet are created when the file is written, for every output
   alike (``-o``, ``--junit``, the Action's paths): the check itself creates nothing;
4. a file is there that is not of the `Kind` it writes (a receipt, a summary, a badge, a JUnit report, JSON lines)
   and is not empty: a command writes over its own kind of file only, never over a README, a suite or a skill a
   typo named (or that a path recorded relative to another directory did not recognise as the run's).

The atomic writer (`driftproof.atomic`) refuses a target that is not a regular file again when it writes, so a path
that became one after the check is not renamed over either.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from driftproof.atomic import special_kind
from driftproof.bounded import RECEIPT, Limits, load_json_bytes, read_capped
from driftproof.core.models import Receipt
from driftproof.errors import DriftproofError, InputError

__all__ = [
    "ANSWERS",
    "BADGE",
    "BADGE_KIND",
    "JOURNAL",
    "JUNIT",
    "JUNIT_KIND",
    "RECEIPT_KIND",
    "RECEIPT_OUT",
    "REPORT",
    "SUMMARY",
    "Input",
    "Kind",
    "Output",
    "What",
    "check_outputs",
    "receipt_inputs",
]


@dataclass(frozen=True)
class What:
    """What goes in an output, as its messages name it, and the file name a directory given for it is told to take."""

    noun: str
    example: str = ""
    advice: str | None = None
    """What to do instead, when it is not "write NOUN elsewhere" (a file placed beside the receipt: pick another -o);
    a directory given for it is then told the same, not to take ``example``."""
    kind: Kind | None = None
    """The kind of file written there: a file already at the path is written over only when it is one (or empty);
    ``None``: any regular file is (a report whose name the Action derives)."""


@dataclass(frozen=True)
class Kind:
    """The kind of file an Action output writes: a file already at its path is written over only when it is one."""

    name: str
    """As the refusal names it: ``README.md exists and is not {name}``."""
    test: Callable[[bytes], bool]
    max_bytes: int
    whole: bool = True
    """Read the whole file, a larger one than ``max_bytes`` being not of the kind; ``False``: its first
    ``max_bytes`` only."""


def _json_object(raw: bytes, limits: Limits) -> dict[str, object] | None:
    try:
        doc = load_json_bytes(raw, "file", limits=limits, error=InputError, what="a file")
    except DriftproofError:
        return None
    return doc if isinstance(doc, dict) else None


def is_receipt(raw: bytes) -> bool:
    """A Driftproof receipt of any version, valid or not: a JSON object holding ``schema_version`` and ``seal``.

    Its seal and schema are not checked, so the store job can still replace a stored receipt that no longer verifies.

    >>> is_receipt(b'{"schema_version": "0.17", "seal": {"sha256": "x"}}'), is_receipt(b"# README")
    (True, False)
    """
    doc = _json_object(raw, RECEIPT)
    return doc is not None and isinstance(doc.get("schema_version"), str) and isinstance(doc.get("seal"), dict)


_BADGE_LIMITS = Limits(max_bytes=64 * 1024, max_depth=8)


def is_badge(raw: bytes) -> bool:
    """A shields.io endpoint JSON: an object with ``schemaVersion`` 1 and a text ``label`` and ``message``.

    >>> is_badge(b'{"schemaVersion": 1, "label": "skill", "message": "passing"}'), is_badge(b'{"name": "x"}')
    (True, False)
    """
    doc = _json_object(raw, _BADGE_LIMITS)
    return (
        doc is not None
        and doc.get("schemaVersion") == 1
        and isinstance(doc.get("label"), str)
        and isinstance(doc.get("message"), str)
    )


_JUNIT_START = re.compile(r"\A\ufeff?\s*(?:<\?xml[^>]*\?>\s*)?(?:<!--.*?-->\s*)*<testsuites?[\s/>]", re.S)


def is_junit(raw: bytes) -> bool:
    """A JUnit XML report: its root element, after any XML declaration and comments, is ``<testsuites>`` or
    ``<testsuite>`` (only the file's start is read).

    >>> is_junit(b"<?xml version='1.0'?>\\n<testsuites name='x'>"), is_junit(b"<html>")
    (True, False)
    """
    return _JUNIT_START.match(raw.decode("utf-8", "replace")) is not None


def is_summary(raw: bytes) -> bool:
    """A Driftproof summary (``driftproof export``): a JSON object with ``summary_version`` and ``receipt``.

    >>> is_summary(b'{"summary_version": "1", "receipt": {}}'), is_summary(b"name: x")
    (True, False)
    """
    doc = _json_object(raw, RECEIPT)
    return doc is not None and "summary_version" in doc and "receipt" in doc


_JSON_LINE = re.compile(rb"\A\s*\{")


def is_json_lines(raw: bytes) -> bool:
    r"""JSON lines of objects, as Driftproof's answers archives and journals are: the file starts with ``{`` (only
    its start is read: a line may hold a whole answer).

    >>> is_json_lines(b'{"case": "a"}\n'), is_json_lines(b"# Skill")
    (True, False)
    """
    return _JSON_LINE.match(raw) is not None


RECEIPT_KIND = Kind("a Driftproof receipt (a JSON object with schema_version and seal)", is_receipt, RECEIPT.max_bytes)
BADGE_KIND = Kind("a shields.io endpoint JSON (a Driftproof badge)", is_badge, _BADGE_LIMITS.max_bytes)
JUNIT_KIND = Kind("a JUnit XML report", is_junit, 64 * 1024, whole=False)
SUMMARY_KIND = Kind(
    "a Driftproof summary (a JSON object with summary_version and receipt)", is_summary, RECEIPT.max_bytes
)
JSON_LINES_KIND = Kind("JSON lines (a Driftproof answers archive or journal)", is_json_lines, 1024, whole=False)

RECEIPT_OUT = What("the receipt", "receipt.json", kind=RECEIPT_KIND)
JUNIT = What("the JUnit report", "junit.xml", kind=JUNIT_KIND)
BADGE = What("the badge", "badge.json", kind=BADGE_KIND)
SUMMARY = What("the summary", "summary.json", kind=SUMMARY_KIND)
REPORT = What("the report", "receipt.report.md")
ANSWERS = What(
    "the answers archive",
    advice="pick another -o (the answers archive goes beside the receipt, as NAME.answers.jsonl)",
    kind=JSON_LINES_KIND,
)
JOURNAL = What(
    "the run's journal", advice="pick another -o (the run's journal goes beside the receipt)", kind=JSON_LINES_KIND
)


@dataclass(frozen=True)
class Output:
    """A file a command will write, as its messages name it."""

    path: Path
    flag: str
    """What named it: ``-o``, ``--junit``, ``input 'badge-path'``."""
    what: What = RECEIPT_OUT
    kind: Kind | None = None
    """A file already there must be of this kind (or empty); ``None``: the kind of ``what``."""
    root: Path | None = None
    """The Action's workspace: paths are shown relative to it, as the inputs name them; ``None``: as given."""

    def shown(self, path: Path | None = None) -> str:
        """``path`` (default: this output's) as its message shows it."""
        path = self.path if path is None else path
        if self.root is None:
            return str(path)
        try:
            relative = os.path.relpath(path, self.root)
        except ValueError:
            return str(path)
        if relative == ".":
            return "the workspace"
        return str(path) if relative.startswith("..") else relative

    @property
    def advice(self) -> str:
        """What a refusal tells the user to do instead."""
        return self.what.advice or f"write {self.what.noun} elsewhere"


@dataclass(frozen=True)
class Input:
    """A file a command reads, as a refusal names it: ``-o: FILE is {what}``."""

    path: Path
    what: str


def receipt_inputs(path: Path, receipt: Receipt, what: str, owner: str) -> list[Input]:
    """A receipt the command read, then the files it records: its answers archive (beside it) and the suite and
    SKILL.md it ran (paths as recorded, read from the working directory, as ``regrade`` and ``stale`` read them).

    ``what`` names the receipt itself, ``owner`` the receipt in "the suite recorded in {owner}"."""
    files = [Input(path, what)]
    if receipt.transcripts is not None:
        files.append(Input(path.parent / receipt.transcripts.path, f"the answers archive of {owner}"))
    if receipt.suite.path:
        files.append(Input(Path(receipt.suite.path), f"the suite recorded in {owner}"))
    if receipt.skill is not None and receipt.skill.path:
        files.append(Input(Path(receipt.skill.path), f"the SKILL.md recorded in {owner}"))
    return files


def _same(a: Path, b: Path) -> bool:
    """One file: ``samefile`` when both exist (a symlink or a hard link too), else the same resolved path."""
    with contextlib.suppress(OSError):
        return os.path.samefile(a, b)
    try:
        return a.resolve() == b.resolve()
    except (OSError, RuntimeError):
        return os.path.abspath(a) == os.path.abspath(b)


def _read_only(path: Path) -> bool:
    try:
        return bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def _directory_refusal(out: Output) -> str | None:
    """Why ``out``'s directory cannot take it: the nearest one that exists is a file, or cannot be written in."""
    parent = out.path.parent
    ancestor = next((p for p in (parent, *parent.parents) if p.exists()), Path("."))
    lead = f"{out.flag}: {out.shown()}"
    if not ancestor.is_dir():
        return f"{lead}: {out.shown(ancestor)} is a file, not a directory, so {out.what.noun} cannot go there"
    if not os.access(ancestor, os.W_OK | os.X_OK):
        why = "Read-only file system" if _read_only(ancestor) else "Permission denied"
        return f"{lead}: cannot write in {out.shown(ancestor)} ({why}); {out.advice}"
    return None


def _of_kind(out: Output) -> bool:
    """Whether the regular file at ``out`` (if any) is of its kind, or empty (there is nothing to lose)."""
    kind = out.kind or out.what.kind
    if kind is None or not out.path.is_file() or out.path.stat().st_size == 0:
        return True
    try:
        if kind.whole:
            raw = read_capped(out.path, Limits(kind.max_bytes, RECEIPT.max_depth), InputError, "a file")
        else:
            with out.path.open("rb") as handle:
                raw = handle.read(kind.max_bytes)
    except (DriftproofError, OSError):
        return False
    return kind.test(raw)


def refusal(out: Output, inputs: Iterable[Input], earlier: Sequence[Output] = ()) -> str | None:
    """Why ``out`` may not be written (`check_outputs`'s rules in order), or ``None``."""
    lead = f"{out.flag}: {out.shown()}"
    special = special_kind(out.path)
    if special == "a directory":
        advice = out.what.advice or f"name a file such as {Path(out.shown()) / out.what.example}"
        return f"{lead} is a directory; {advice}"
    if special is not None:
        return f"{lead} is {special}, not a regular file, so it is never written over; {out.advice}"
    read = next((i for i in inputs if _same(out.path, i.path)), None)
    if read is not None:
        return f"{lead} is {read.what}; {out.advice}"
    other = next((o for o in earlier if _same(out.path, o.path)), None)
    if other is not None:
        return f"{lead} is also where {other.what.noun} goes ({other.flag}); {out.advice}"
    blocked = _directory_refusal(out)
    if blocked is not None:
        return blocked
    if not _of_kind(out):
        kind = out.kind or out.what.kind
        assert kind is not None
        return f"{lead} exists and is not {kind.name}, so it is not written over; name another file"
    return None


def check_outputs(outputs: Sequence[Output], inputs: Sequence[Input] = ()) -> None:
    """Refuse, before any call and before anything is written, the first output that may not be written
    (`refusal`); creates nothing. Raises `InputError` (one line naming the flag and the path)."""
    for i, out in enumerate(outputs):
        why = refusal(out, inputs, outputs[:i])
        if why is not None:
            raise InputError(why)
