"""``driftproof verify RECEIPT [--bundle FILE]``: the receipt's schema and seal, and, with a bundle, its signature.

Without ``--bundle``: the receipt's own schema and seal (`driftproof.receipts`). With it: a Sigstore bundle,
either the attestation ``actions/attest-build-provenance`` writes (a DSSE envelope holding an in-toto statement
whose subject must carry the receipt file's sha256) or a plain ``sigstore sign`` of the file, checked offline by
the ``sigstore`` library against its bundled production trust root (the Fulcio certificate chain, the Rekor
transparency log entry, the signature); then the workflow identity in the certificate is printed and compared
with ``--identity``, ``--repository``, ``--workflow`` and ``--ref`` (`driftproof.core.signing`). A bundle file of
JSON lines (what ``gh attestation download`` writes) is tried a bundle at a time.

Exit status: 0 verified; 1 not verified (a seal mismatch, a signature that does not verify, a subject or signer
that is not the one asked), with one line saying why; 2 bad input (not a receipt, not a bundle,
the ``verify`` extra missing), before anything is verified.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from driftproof.bounded import INPUT, RECEIPT, read_file
from driftproof.core.seal import check_seal
from driftproof.core.signing import OIDS, IdentityAsked, WorkflowIdentity, identity_of, identity_refusal
from driftproof.core.signing import subject_refusal as statement_refusal
from driftproof.core.signing_sentences import (
    SIGNER_NOT_PINNED,
    VERIFY_EXTRA,
    bad_signature,
    identity_line,
    not_verified,
    seal_line,
    seal_mismatch,
    signature_line,
)
from driftproof.errors import InputError, ReceiptError
from driftproof.receipts import check_document, parse_document
from driftproof.safe_text import one_line, shorten

FULCIO_ARC = "1.3.6.1.4.1.57264.1."
"""Fulcio's certificate extensions; from ``.8`` on each value is a DER UTF8String."""


@dataclass(frozen=True, slots=True)
class VerifyRequest:
    receipt: Path
    bundle: Path | None = None
    asked: IdentityAsked = field(default_factory=IdentityAsked)


@dataclass(frozen=True, slots=True)
class VerifyOutcome:
    """What ``verify`` found: ``lines`` to print; ``failure`` the one line when it is not verified (exit 1)."""

    lines: tuple[str, ...]
    failure: str | None = None
    identity: WorkflowIdentity | None = None

    @property
    def exit_code(self) -> int:
        return 0 if self.failure is None else 1


def verify_receipt(request: VerifyRequest) -> VerifyOutcome:
    """Check the receipt's seal, then the bundle's signature and signer; raise `InputError`/`ReceiptError` (exit
    2) for input that is not what it must be, before anything is verified."""
    if request.bundle is None and request.asked.any:
        raise InputError("--identity, --repository, --workflow, --ref: they check a signature; give it with --bundle")
    source = str(request.receipt)
    raw = read_file(request.receipt, RECEIPT, ReceiptError, "a receipt", "a receipt file")
    digest = hashlib.sha256(raw).hexdigest()
    doc = parse_document(raw, source)
    try:
        seal = check_seal(doc)
    except UnicodeEncodeError:
        raise ReceiptError(f"{source}: a string holds a lone surrogate (not valid Unicode text)") from None
    # the schema and every other rule first, on the document as its content would seal: a receipt whose only fault
    # is its seal's digest is a tampered receipt (exit 1); anything else, a seal that is missing or holds no digest
    # among them, is not a receipt (exit 2), as the schema says
    recorded = doc.get("seal")
    if not seal.ok and isinstance(recorded, dict) and re.fullmatch(r"[0-9a-f]{64}", str(seal.expected)):
        doc = {**doc, "seal": {**recorded, "sha256": seal.actual}}
    check_document(doc, source)
    if not seal.ok:
        return VerifyOutcome((), not_verified(source, seal_mismatch(seal.expected, seal.actual)))
    lines = [seal_line(source, str(doc["schema_version"]), str(doc["verification"]), seal.actual, digest)]
    if request.bundle is None:
        return VerifyOutcome(tuple(lines))
    signed = check_signature(raw, request.bundle, request.asked, source)
    return VerifyOutcome((*lines, *signed.lines), signed.failure, signed.identity)


def _sigstore() -> Any:
    """The ``sigstore`` library (the ``verify`` extra), imported when a bundle is checked."""
    try:
        import sigstore.verify
    except ImportError:
        raise InputError(f"--bundle: the sigstore library is not installed; {VERIFY_EXTRA}") from None
    logging.getLogger("sigstore").setLevel(logging.ERROR)  # "offline mode" and the like are not the user's concern
    return sigstore


def _bundles(path: Path) -> list[tuple[dict[str, Any], bytes]]:
    """The bundles in a file: one JSON document, or JSON lines (``gh attestation download``); each parsed once to
    tell its kind, and its bytes for the library."""
    text = read_file(path, INPUT, InputError, "a Sigstore bundle", "a bundle file", missing="no such file (--bundle)")
    chunks: list[bytes]
    try:
        chunks = [text] if isinstance(json.loads(text), dict) else []
    except (ValueError, UnicodeDecodeError):
        chunks = [line for line in text.splitlines() if line.strip()]
    found = []
    for chunk in chunks:
        try:
            doc = json.loads(chunk)
        except (ValueError, UnicodeDecodeError):
            doc = None
        if not isinstance(doc, dict) or "verificationMaterial" not in doc:
            raise InputError(f"{path}: not a Sigstore bundle (a JSON object with verificationMaterial)")
        found.append((doc, chunk))
    if not found:
        raise InputError(f"{path}: not a Sigstore bundle (a JSON object with verificationMaterial)")
    return found


class _CheckedAfter:
    """The library's identity policy: none, because `identity_refusal` checks the identity the moment the chain,
    the log and the signature have verified, with the flags given (``verify --bundle`` requires at least one)."""

    def verify(self, cert: Any) -> None:
        return None


def _extensions(cert: Any) -> dict[str, str]:
    """Fulcio's extensions of a certificate, as text (dotted OID → value)."""
    from cryptography.hazmat import asn1

    values: dict[str, str] = {}
    wanted = set(OIDS.values())
    for ext in cert.extensions:
        oid = ext.oid.dotted_string
        if oid in wanted:
            try:
                values[oid] = asn1.decode_der(str, ext.value.value)
            except (ValueError, TypeError):  # not a DER UTF8String: a value that cannot be shown
                continue
    return values


def _logged(doc: dict[str, Any]) -> tuple[int | None, str | None]:
    """The Rekor log index and integrated time of a bundle's first log entry (already verified by the library)."""
    entries = doc.get("verificationMaterial", {}).get("tlogEntries") or [{}]
    entry = entries[0] if isinstance(entries[0], dict) else {}
    index, when = str(entry.get("logIndex")), str(entry.get("integratedTime"))
    at = datetime.fromtimestamp(int(when), UTC).strftime("%Y-%m-%dT%H:%M:%SZ") if when.isdigit() else None
    return (int(index) if index.isdigit() else None), at


def _check_one(sigstore: Any, verifier: Any, doc: dict[str, Any], chunk: bytes, raw: bytes, digest: str) -> Any:
    """Verify one bundle against the receipt's bytes: returns its certificate, or the reason it does not verify."""
    from sigstore.errors import Error
    from sigstore.models import Bundle

    try:
        bundle = Bundle.from_json(chunk)
    except (Error, ValueError) as exc:
        return bad_signature(shorten(one_line(str(exc)) or type(exc).__name__))
    try:
        if "dsseEnvelope" in doc:
            payload_type, payload = verifier.verify_dsse(bundle, _CheckedAfter())
            try:
                statement = json.loads(payload)
            except ValueError:
                statement = None
            refusal = statement_refusal(payload_type, statement, digest)
            if refusal is not None:
                return refusal
        else:
            verifier.verify_artifact(raw, bundle, _CheckedAfter())
    except Error as exc:
        return bad_signature(shorten(one_line(str(exc)) or type(exc).__name__))
    return bundle.signing_certificate


def check_signature(raw: bytes, path: Path, asked: IdentityAsked, source: str) -> VerifyOutcome:
    """Whether the bundle at ``path`` signs the bytes ``raw`` (named ``source`` in lines), by the signer
    ``asked``: the library's offline checks, the attestation's subject, then the workflow identity."""
    sigstore = _sigstore()
    bundles = _bundles(path)
    verifier = sigstore.verify.Verifier.production(offline=True)
    digest, first_refusal = hashlib.sha256(raw).hexdigest(), None
    lines: list[str] = []
    for doc, chunk in bundles:
        cert = _check_one(sigstore, verifier, doc, chunk, raw, digest)
        if isinstance(cert, str):
            first_refusal = first_refusal or cert
            continue
        identity = identity_of(_extensions(cert))
        refusal = identity_refusal(identity, asked)
        if refusal is not None:
            first_refusal = first_refusal or refusal
            continue
        index, when = _logged(doc)
        kind = "attestation" if "dsseEnvelope" in doc else "signature of the file"
        lines.append(signature_line(source, kind, index, when))
        lines += [identity_line(label, value) for label, value in _shown(identity)]
        if not asked.any:  # verified, and who signed is shown; whether that signer is trusted is the reader's call
            lines.append(SIGNER_NOT_PINNED)
        return VerifyOutcome(tuple(lines), identity=identity)
    why = first_refusal or bad_signature("no bundle")
    if len(bundles) > 1:
        why = f"none of the {len(bundles)} bundles in {path} verifies; the first: {why}"
    return VerifyOutcome(tuple(lines), not_verified(source, why))


def _shown(identity: WorkflowIdentity) -> list[tuple[str, str | None]]:
    """The identity lines, in the order a reader checks them."""
    workflow = identity.workflow and f"{identity.workflow} at {identity.workflow_ref}"
    return [
        ("repository", identity.repository),
        ("workflow", workflow),
        ("ref", identity.ref),
        ("commit", identity.commit),
        ("trigger", identity.trigger),
        ("run", identity.run),
        ("signer", identity.signer),
    ]
