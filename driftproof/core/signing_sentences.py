"""The sentences of ``driftproof verify``: what was verified, the signer's identity, and why a check failed."""

from __future__ import annotations

from collections.abc import Sequence

NOT_A_STATEMENT = "the attestation's payload is not an in-toto statement (application/vnd.in-toto+json)"
NO_SUBJECT = "the attestation's in-toto statement names no subject"
VERIFY_EXTRA = "install the verify extra: pip install 'driftproof[verify]'"
SIGNER_NOT_PINNED = (
    "  signer not pinned: any GitHub workflow can sign any bytes, so this says who signed, not that it was the one "
    "you trust; to require it, add --repository OWNER/NAME (and --workflow, --ref) or --identity URI"
)


def seal_line(path: str, version: str, verification: str, seal: str, sha256: str) -> str:
    """The first line of a verified receipt.

    >>> seal_line("r.json", "0.17", "TESTED", "ab" * 32, "cd" * 4)
    'r.json: seal ok (schema 0.17, TESTED, seal abababababab); file sha256 cdcdcdcd'
    """
    return f"{path}: seal ok (schema {version}, {verification}, seal {seal[:12]}); file sha256 {sha256}"


def signature_line(path: str, kind: str, log_index: int | None, when: str | None) -> str:
    """The line of a verified signature: what was checked, and where the transparency log recorded it.

    >>> signature_line("r.json", "attestation", 7, "2024-05-24T19:14:24Z")
    'r.json: signature ok (attestation; Fulcio certificate, Rekor log entry 7 at 2024-05-24T19:14:24Z)'
    """
    logged = "" if log_index is None else f", Rekor log entry {log_index}" + (f" at {when}" if when else "")
    return f"{path}: signature ok ({kind}; Fulcio certificate{logged})"


def identity_line(label: str, value: str | None) -> str:
    """One line of the signer's identity, indented under the signature line.

    >>> identity_line("repository", "o/r"), identity_line("run", None)
    ('  repository: o/r', '  run: (not in the certificate)')
    """
    return f"  {label}: {value if value is not None else '(not in the certificate)'}"


def not_verified(path: str, why: str) -> str:
    """The one line of a receipt that is not what it claims: exit status 1.

    >>> not_verified("r.json", "seal mismatch")
    'r.json: NOT VERIFIED: seal mismatch'
    """
    return f"{path}: NOT VERIFIED: {why}"


def seal_mismatch(expected: str | None, actual: str) -> str:
    """The content is not the content that was sealed.

    >>> seal_mismatch("ab", "cd")
    'seal mismatch: recorded ab, content gives cd (the receipt was edited after it was sealed)'
    """
    return f"seal mismatch: recorded {expected}, content gives {actual} (the receipt was edited after it was sealed)"


def bad_signature(reason: str) -> str:
    """The sigstore library refused the bundle for these bytes (a chain, log or signature check).

    >>> bad_signature("Signature is invalid for input")
    'the signature does not verify: Signature is invalid for input'
    """
    return f"the signature does not verify: {reason}"


def not_github_actions(issuer: str | None) -> str:
    """A certificate issued to something other than a GitHub Actions run.

    >>> not_github_actions("https://accounts.google.com")
    'the signer is not a GitHub Actions workflow (OIDC issuer https://accounts.google.com)'
    """
    return f"the signer is not a GitHub Actions workflow (OIDC issuer {issuer or 'missing'})"


_WHOSE = {
    "identity": "another workflow signed these bytes",
    "repository": "a workflow of another repository signed these bytes",
    "workflow": "another workflow file signed these bytes",
    "ref": "a run for another ref signed these bytes",
}


def not_the_one_asked(what: str, found: str | None, wanted: str) -> str:
    """The signer differs from the flag given.

    >>> not_the_one_asked("ref", "refs/heads/dev", "refs/heads/main")
    'the ref is refs/heads/dev, not refs/heads/main: a run for another ref signed these bytes'
    """
    return f"the {what} is {found or '(not in the certificate)'}, not {wanted}: {_WHOSE[what]}"


def subject_differs(named: Sequence[tuple[str, str]], sha256: str) -> str:
    """No subject of the attestation has the receipt file's sha256.

    >>> subject_differs([("a.json", "ab"), ("b.json", "cd")], "ef")
    'the attestation is for a.json (sha256 ab), b.json (sha256 cd), not for these bytes (sha256 ef)'
    """
    shown = ", ".join(f"{name} (sha256 {digest})" for name, digest in named[:3])
    more = f" and {len(named) - 3} more" if len(named) > 3 else ""
    return f"the attestation is for {shown}{more}, not for these bytes (sha256 {sha256})"
