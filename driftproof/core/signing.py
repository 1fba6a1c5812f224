"""What a receipt's signature says, and whether it is the one asked for (``driftproof verify --bundle``). Pure.

The cryptography (the Fulcio certificate chain, the transparency log entry, the signature over the bytes) is
checked by the ``sigstore`` library in `driftproof.verify`; this module reads what the verified certificate says
about the GitHub Actions run that signed (Fulcio's OIDC extensions, OID arc ``1.3.6.1.4.1.57264.1``), checks the
in-toto statement's subject against the receipt file's sha256, and compares the identity with the flags given.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from driftproof.core.signing_sentences import (
    NO_SUBJECT,
    NOT_A_STATEMENT,
    not_github_actions,
    not_the_one_asked,
    subject_differs,
)

GITHUB_ISSUER = "https://token.actions.githubusercontent.com"
"""The OIDC issuer of GitHub Actions' workflow tokens: the only one whose signatures name a workflow run."""

GITHUB = "https://github.com/"

#: Fulcio's certificate extensions (docs: sigstore/fulcio, docs/oid-info.md), by the name they are read under.
OIDS: Mapping[str, str] = {
    "issuer": "1.3.6.1.4.1.57264.1.8",
    "signer": "1.3.6.1.4.1.57264.1.9",
    "signer_digest": "1.3.6.1.4.1.57264.1.10",
    "runner": "1.3.6.1.4.1.57264.1.11",
    "repository": "1.3.6.1.4.1.57264.1.12",
    "commit": "1.3.6.1.4.1.57264.1.13",
    "ref": "1.3.6.1.4.1.57264.1.14",
    "build_config": "1.3.6.1.4.1.57264.1.18",
    "trigger": "1.3.6.1.4.1.57264.1.20",
    "run": "1.3.6.1.4.1.57264.1.21",
}

IN_TOTO = "application/vnd.in-toto+json"
"""The DSSE payload type of an in-toto statement (what ``actions/attest-build-provenance`` signs)."""


@dataclass(frozen=True, slots=True)
class WorkflowIdentity:
    """The GitHub Actions run a certificate was issued to. Each field is ``None`` when the certificate lacks it."""

    issuer: str | None
    signer: str | None
    """The workflow that held the token, ``https://github.com/OWNER/REPO/.github/workflows/FILE@REF`` (a reusable
    workflow's own when one signed; the certificate's identity, what ``--identity`` compares)."""
    repository: str | None
    """``OWNER/REPO`` whose code ran."""
    workflow: str | None
    """The workflow file the run started from, ``.github/workflows/FILE``."""
    workflow_ref: str | None
    """The ref that workflow file was read at (``refs/heads/main``)."""
    ref: str | None
    """The ref the run was for (``refs/heads/main``)."""
    commit: str | None
    trigger: str | None
    """The event that started the run (``push``, ``workflow_dispatch``)."""
    run: str | None
    """``https://github.com/OWNER/REPO/actions/runs/ID/attempts/N``."""
    runner: str | None
    """``github-hosted`` or ``self-hosted``."""


def _split_workflow(uri: str | None) -> tuple[str | None, str | None]:
    """``https://github.com/o/r/.github/workflows/x.yml@refs/heads/main`` → ``(".github/workflows/x.yml",
    "refs/heads/main")``.

    >>> _split_workflow("https://github.com/o/r/.github/workflows/x.yml@refs/heads/main")
    ('.github/workflows/x.yml', 'refs/heads/main')
    >>> _split_workflow(None), _split_workflow("https://example.test/x")
    ((None, None), (None, None))
    """
    if uri is None or not uri.startswith(GITHUB) or ".github/workflows/" not in uri:
        return None, None
    path, _, ref = uri.partition("@")
    return ".github/workflows/" + path.split("/.github/workflows/", 1)[1], ref or None


def identity_of(extensions: Mapping[str, str]) -> WorkflowIdentity:
    """The identity a certificate's extensions (dotted OID → text) give.

    >>> identity_of({OIDS["repository"]: "https://github.com/o/r", OIDS["build_config"]:
    ...     "https://github.com/o/r/.github/workflows/d.yml@refs/heads/main"}).repository
    'o/r'
    """
    value = {name: extensions.get(oid) for name, oid in OIDS.items()}
    repository = value["repository"]
    workflow, workflow_ref = _split_workflow(value["build_config"])
    return WorkflowIdentity(
        issuer=value["issuer"],
        signer=value["signer"],
        repository=repository.removeprefix(GITHUB) if repository and repository.startswith(GITHUB) else repository,
        workflow=workflow,
        workflow_ref=workflow_ref,
        ref=value["ref"],
        commit=value["commit"],
        trigger=value["trigger"],
        run=value["run"],
        runner=value["runner"],
    )


@dataclass(frozen=True, slots=True)
class IdentityAsked:
    """What ``--identity``, ``--repository``, ``--workflow`` and ``--ref`` ask of the signer; ``None``: anything."""

    identity: str | None = None
    repository: str | None = None
    workflow: str | None = None
    ref: str | None = None

    @property
    def any(self) -> bool:
        """Whether anything is asked at all (``verify --bundle`` refuses to accept any signer)."""
        return any((self.identity, self.repository, self.workflow, self.ref))


def _workflow_matches(asked: str, found: str | None) -> bool:
    """``--workflow`` names the file (``driftproof.yml``) or its path (``.github/workflows/driftproof.yml``).

    >>> _workflow_matches("d.yml", ".github/workflows/d.yml"), _workflow_matches("x/d.yml", ".github/workflows/d.yml")
    (True, False)
    """
    return found is not None and (found == asked or found == f".github/workflows/{asked}")


def identity_refusal(identity: WorkflowIdentity, asked: IdentityAsked) -> str | None:
    """Why the signer is not the one asked for (the first thing that differs), or ``None`` when it is.

    A signature whose issuer is not GitHub Actions names no workflow run and is always refused. Repositories
    compare without regard to case (GitHub's names do not depend on it); the rest exactly.

    >>> who = WorkflowIdentity(GITHUB_ISSUER, "s", "O/r", ".github/workflows/d.yml", "refs/heads/main",
    ...     "refs/heads/main", "c" * 40, "push", "run", "github-hosted")
    >>> identity_refusal(who, IdentityAsked(repository="o/R", workflow="d.yml", ref="refs/heads/main")) is None
    True
    >>> identity_refusal(who, IdentityAsked(repository="o/other"))
    'the repository is O/r, not o/other: a workflow of another repository signed these bytes'
    """
    if identity.issuer != GITHUB_ISSUER:
        return not_github_actions(identity.issuer)
    checks = (
        ("identity", asked.identity, identity.signer, asked.identity == identity.signer),
        (
            "repository",
            asked.repository,
            identity.repository,
            (identity.repository or "").casefold() == (asked.repository or "").casefold(),
        ),
        ("workflow", asked.workflow, identity.workflow, _workflow_matches(asked.workflow or "", identity.workflow)),
        ("ref", asked.ref, identity.ref, asked.ref == identity.ref),
    )
    for what, wanted, found, same in checks:
        if wanted is not None and not same:
            return not_the_one_asked(what, found, wanted)
    return None


def subject_refusal(payload_type: str, statement: Any, sha256: str) -> str | None:
    """Why an attestation's in-toto statement does not attest these bytes, or ``None`` when one of its subjects
    has their sha256.

    >>> subject_refusal(IN_TOTO, {"subject": [{"name": "r.json", "digest": {"sha256": "ab"}}]}, "ab") is None
    True
    >>> subject_refusal(IN_TOTO, {"subject": [{"name": "r.json", "digest": {"sha256": "ab"}}]}, "cd")
    'the attestation is for r.json (sha256 ab), not for these bytes (sha256 cd)'
    """
    if payload_type != IN_TOTO or not isinstance(statement, dict):
        return NOT_A_STATEMENT
    subjects = statement.get("subject")
    if not isinstance(subjects, list) or not subjects:
        return NO_SUBJECT
    named = []
    for subject in subjects:
        digest = subject.get("digest") if isinstance(subject, dict) else None
        found = digest.get("sha256") if isinstance(digest, dict) else None
        if isinstance(found, str) and found.lower() == sha256:
            return None
        named.append((str(subject.get("name", "?")) if isinstance(subject, dict) else "?", str(found)))
    return subject_differs(named, sha256)
