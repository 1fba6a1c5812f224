"""``driftproof import KIND FILE…``: read another tool's result files within bounds, convert them in the core
(`driftproof.core.imports`), and write the sealed DECLARED receipt atomically.

Every file is refused from its size before it is read (``IMPORT``: at most 64 MiB, 64 levels of nesting), then
parsed; a refusal is one ``InputError`` line, ``FILE: field: reason``, raised before anything is written. The
digests recorded are of the bytes read: SHA-256, and git's blob sha1 for a file read from a git checkout.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from pydantic import ValidationError

from driftproof._version import __version__
from driftproof.bounded import Limits, MiB, load_json_bytes, read_file
from driftproof.core.fields import Refusal
from driftproof.core.import_sentences import imported_line
from driftproof.core.imports.caliper import import_caliper
from driftproof.core.imports.common import SourceDoc, Written
from driftproof.core.imports.nvidia_card import import_nvidia_card
from driftproof.core.imports.plugin_eval import import_plugin_eval
from driftproof.core.imports.promptfoo import import_promptfoo
from driftproof.core.imports.skill_creator import import_skill_creator
from driftproof.core.models import Receipt, Tool
from driftproof.core.sentences import next_line, receipt_line
from driftproof.core.words import ImportKind
from driftproof.errors import InputError
from driftproof.receipts import write_receipt
from driftproof.targets import Input, Output, check_outputs

IMPORT = Limits(max_bytes=64 * MiB, max_depth=64)
"""Result files of another tool. Caliper's two real files with transcripts are 42 and 46 KB for 5 tasks x 3
attempts; 64 MiB holds some 1,400 times that. 64 levels is far deeper than any of the formats nests (8 or so)."""

WHAT = "an import source"


@dataclass(frozen=True, slots=True)
class ImportRequest:
    """What ``driftproof import`` was asked: the kind, the files, where to write, and the options some kinds take."""

    kind: ImportKind
    files: tuple[Path, ...]
    out: Path | None = None
    skill: str | None = None
    repository: str | None = None
    commit: str | None = None


def read_bytes(path: Path) -> bytes:
    """The bytes of one source file within ``IMPORT``, or one line naming the file."""
    return read_file(path, IMPORT, InputError, WHAT, "a result file")


def git_blob_sha1(raw: bytes) -> str:
    """Git's object id of a blob of these bytes: sha1 of ``blob <size>\\0`` and the bytes.

    >>> git_blob_sha1(b"")
    'e69de29bb2d1d6434b8b29ae775ad8c2e48c5391'
    """
    return hashlib.sha1(b"blob %d\0" % len(raw) + raw, usedforsecurity=False).hexdigest()


def read_json_source(path: Path) -> SourceDoc:
    """One JSON source document: bounded, parsed, its digests taken."""
    raw = read_bytes(path)
    data = load_json_bytes(raw, str(path), limits=IMPORT, error=InputError, what=WHAT)
    return SourceDoc(name=str(path), sha256=hashlib.sha256(raw).hexdigest(), data=data)


def read_card_source(path: Path) -> SourceDoc:
    """One source read at a commit (an NVIDIA card): bounded, its digests taken, git's blob sha1 among them; a
    Markdown card is kept as its text, any other file parsed as JSON."""
    raw = read_bytes(path)
    if path.suffix.lower() == ".md":
        try:
            data: object = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    else:
        data = load_json_bytes(raw, str(path), limits=IMPORT, error=InputError, what=WHAT)
    return SourceDoc(str(path), hashlib.sha256(raw).hexdigest(), data, git_blob_sha1=git_blob_sha1(raw))


REPOSITORY = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9._-]+$")
COMMIT = re.compile(r"^[0-9a-f]{40}$")


def read_at(request: ImportRequest) -> tuple[str, str]:
    """The repository and commit an NVIDIA card was read at, as the user gave them, or a ``--flag: reason`` line."""
    if request.repository is None or request.commit is None:
        missing = "--repository" if request.repository is None else "--commit"
        raise InputError(
            f"{missing}: nvidia-card needs the repository and commit the files were read at "
            "(--repository OWNER/NAME --commit SHA)"
        )
    if not REPOSITORY.match(request.repository):
        raise InputError(f"--repository: expected OWNER/NAME, found {request.repository!r}")
    if not COMMIT.match(request.commit):
        raise InputError(f"--commit: expected the full 40-character lowercase hex sha, found {request.commit!r}")
    return request.repository, request.commit


Importer = Callable[[Sequence[SourceDoc], Written, ImportRequest], Receipt]


def _caliper(docs: Sequence[SourceDoc], written: Written, request: ImportRequest) -> Receipt:
    return import_caliper(docs, written, skill=request.skill)


def _skill_creator(docs: Sequence[SourceDoc], written: Written, request: ImportRequest) -> Receipt:
    return import_skill_creator(docs, written)


def _plugin_eval(docs: Sequence[SourceDoc], written: Written, request: ImportRequest) -> Receipt:
    return import_plugin_eval(docs, written)


def _promptfoo(docs: Sequence[SourceDoc], written: Written, request: ImportRequest) -> Receipt:
    return import_promptfoo(docs, written)


def _nvidia_card(docs: Sequence[SourceDoc], written: Written, request: ImportRequest) -> Receipt:
    repository, commit = read_at(request)
    return import_nvidia_card(docs, written, repository=repository, commit=commit, skill=request.skill)


IMPORTERS: dict[ImportKind, Importer] = {
    ImportKind.CALIPER: _caliper,
    ImportKind.SKILL_CREATOR: _skill_creator,
    ImportKind.PLUGIN_EVAL: _plugin_eval,
    ImportKind.PROMPTFOO: _promptfoo,
    ImportKind.NVIDIA_CARD: _nvidia_card,
}


def default_out(request: ImportRequest) -> Path:
    """``.driftproof/import-<kind>-<stem of the first file>.json`` in the working directory."""
    return Path(".driftproof") / f"import-{request.kind}-{request.files[0].stem}.json"


def convert(request: ImportRequest) -> Receipt:
    """The sealed receipt of ``request``'s files, or one ``InputError`` line; nothing is written."""
    importer = IMPORTERS.get(request.kind)
    if importer is None:
        raise InputError(f"{request.kind}: this kind is not imported yet")
    if request.kind == ImportKind.NVIDIA_CARD:
        read_at(request)  # refused before any file is read
        docs = [read_card_source(p) for p in request.files]
    else:
        docs = [read_json_source(p) for p in request.files]
    written = Written(Tool(name="driftproof", version=__version__), datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"))
    try:
        return importer(docs, written, request)
    except Refusal as exc:
        raise InputError(str(exc)) from None
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(top level)"
        raise InputError(f"{docs[0].name}: {where}: {first['msg']} (in the receipt it would make)") from None


def import_results(request: ImportRequest) -> tuple[Receipt, Path]:
    """Convert and write atomically; return the receipt and its path."""
    out = request.out or default_out(request)
    check_outputs([Output(out, "-o")], [Input(f, "one of the files imported") for f in request.files])
    receipt = convert(request)
    return receipt, write_receipt(receipt, out)


def import_lines(receipt: Receipt, path: Path) -> list[str]:
    """What ``driftproof import`` prints: what was read, where the receipt went, what to run next."""
    source = receipt.source
    lost = sum(1 for c in receipt.cases for a in (c.with_skill, c.baseline) for d in a.draws if d.lost_reason)
    harness = source.harness if source and source.harness else "unknown"
    documents = len(source.documents) if source else 0
    return [
        imported_line(harness, documents, len(receipt.cases), lost),
        receipt_line(str(path), receipt.verification, receipt.seal.sha256[:12]),
        next_line(str(path)),
    ]
