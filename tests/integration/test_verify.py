"""``driftproof verify RECEIPT [--bundle FILE]`` (issue 15, signed receipts).

The seal path runs everywhere. The signature path runs real Sigstore bundles offline against the ``sigstore``
library's bundled production trust root (the ``verify`` extra); tests/fixtures/signing/README.md says where each
bundle comes from. Without the library those tests are skipped, and the missing-extra test still runs.
"""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path

import pytest

from driftproof.cli import main
from driftproof.core.signing import IdentityAsked
from driftproof.errors import InputError

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
SIGNING = FIXTURES / "signing"
ATTESTED = SIGNING / "reusable-workflow-artifact"  # actions/attest-build-provenance, DSSE + in-toto, production
ATTESTATION = SIGNING / "reusable-workflow-artifact.sigstore.json"
SIGNED = SIGNING / "bundle_v3_github.whl"  # sigstore sign from a GitHub release workflow, production
SIGNATURE = SIGNING / "bundle_v3_github.whl.sigstore.json"
DEMO = IdentityAsked(repository="malancas/attest-demo")

needs_sigstore = pytest.mark.skipif(
    not __import__("importlib").util.find_spec("sigstore"), reason="the verify extra (sigstore) is not installed"
)


def test_seal_ok_prints_one_line_and_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    path = FIXTURES / "receipt-0.16.json"
    assert main(["verify", str(path)]) == 0
    out = capsys.readouterr().out
    # sha256 of the file's bytes, as `sha256sum` gives it; the seal is the recorded one
    assert out == (
        f"{path}: seal ok (schema 0.16, UNVERIFIED, seal 4a24f62a39a0); file sha256 "
        "b913f90c9325d1bfbedab04c050878e41aea213dd4b49c6f9c57736efd73b82b\n"
    )


def test_tampered_receipt_exits_1_with_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    path = FIXTURES / "tampered-seal.json"
    assert main(["verify", str(path)]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        f"{path}: NOT VERIFIED: seal mismatch: recorded "
        "f6aa63036b7213708f537407be5186f08fc77eb6109c5228c6c1fe1b1e6d9d14, content gives "
        "373dde39653132c9e8f7fe7521e05d3c200e025fb4eb9d20b124ccc15cd52bee "
        "(the receipt was edited after it was sealed)\n"
    )


@pytest.mark.parametrize(
    ("name", "text", "reason"),
    [
        ("notes.txt", "hello", "not valid JSON"),
        ("future.json", None, "schema_version: '9.0' is not one this Driftproof reads"),
        ("off.json", '{"schema_version": "0.17"}', "schema 0.17: at (top level)"),
    ],
)
def test_not_a_receipt_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, text: str | None, reason: str
) -> None:
    path = tmp_path / name
    path.write_text(text if text is not None else (FIXTURES / "future-version.json").read_text(), encoding="utf-8")
    assert main(["verify", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"driftproof: error: {path}: ")
    assert reason in err


@needs_sigstore
def test_a_bundle_without_a_named_signer_verifies_shows_who_signed_and_says_it_was_not_pinned() -> None:
    """``verify RECEIPT --bundle FILE`` as issue 15 spells it: the signature and the identity that produced it are
    checked and shown; with no signer named, a last line says the signer was not pinned (exit 0)."""
    from driftproof.verify import check_signature

    outcome = check_signature(ATTESTED.read_bytes(), ATTESTATION, IdentityAsked(), "artifact")
    assert outcome.failure is None and outcome.exit_code == 0
    assert outcome.lines[1] == "  repository: malancas/attest-demo"
    assert outcome.lines[-1].startswith("  signer not pinned: any GitHub workflow can sign any bytes")
    assert "--repository OWNER/NAME" in outcome.lines[-1]
    pinned = check_signature(ATTESTED.read_bytes(), ATTESTATION, DEMO, "artifact")
    assert not any("not pinned" in line for line in pinned.lines)  # a named signer: no such line


def test_missing_verify_extra_names_it(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "sigstore", None)  # import sigstore raises ImportError
    monkeypatch.setitem(sys.modules, "sigstore.verify", None)
    args = ["verify", str(FIXTURES / "receipt-0.16.json"), "--bundle", str(ATTESTATION), "--repository", "o/r"]
    assert main(args) == 2
    assert capsys.readouterr().err == (
        "driftproof: error: --bundle: the sigstore library is not installed; "
        "install the verify extra: pip install 'driftproof[verify]'\n"
    )


@needs_sigstore
def test_attestation_verifies_its_file_and_names_the_run() -> None:
    from driftproof.verify import check_signature

    outcome = check_signature(ATTESTED.read_bytes(), ATTESTATION, DEMO, "artifact")
    assert outcome.failure is None
    assert outcome.lines == (
        "artifact: signature ok (attestation; Fulcio certificate, Rekor log entry 96764485 at 2024-05-24T19:14:24Z)",
        "  repository: malancas/attest-demo",
        "  workflow: .github/workflows/shared.yml at refs/heads/main",
        "  ref: refs/heads/main",
        "  commit: 95baf27389e83e6a5c48f42e190d48d7abcea19e",
        "  trigger: workflow_dispatch",
        "  run: https://github.com/malancas/attest-demo/actions/runs/9228858953/attempts/1",
        "  signer: https://github.com/github/artifact-attestations-workflows/.github/workflows/attest.yml"
        "@09b495c3f12c7881b3cc17209a327792065c1a1d",
    )
    asked = IdentityAsked(repository="MALANCAS/attest-demo", workflow="shared.yml", ref="refs/heads/main")
    assert check_signature(ATTESTED.read_bytes(), ATTESTATION, asked, "artifact").failure is None


@needs_sigstore
def test_attestation_refuses_altered_bytes() -> None:
    from driftproof.verify import check_signature

    altered = ATTESTED.read_bytes() + b"\n"
    outcome = check_signature(altered, ATTESTATION, DEMO, "artifact")
    assert outcome.failure is not None
    assert outcome.failure.startswith(
        "artifact: NOT VERIFIED: the attestation is for github_provenance_demo-0.0.0-py3-none-any.whl "
        "(sha256 49a3aa6075e0f49f82843e74b5baa614ad2a588e6675612bf108a0a008c5ac25), not for these bytes"
    )


@needs_sigstore
@pytest.mark.parametrize(
    ("asked", "why"),
    [
        (IdentityAsked(repository="someone/else"), "the repository is malancas/attest-demo, not someone/else"),
        (IdentityAsked(repository="malancas/attest-demo", workflow="driftproof.yml"), "the workflow is"),
        (IdentityAsked(repository="malancas/attest-demo", ref="refs/heads/dev"), "the ref is refs/heads/main, not"),
        (
            IdentityAsked(
                identity="https://github.com/malancas/attest-demo/.github/workflows/shared.yml@refs/heads/main"
            ),
            "the identity is https://github.com/github/artifact-attestations-workflows/",
        ),
    ],
)
def test_attestation_refuses_a_wrong_identity(asked: IdentityAsked, why: str) -> None:
    from driftproof.verify import check_signature

    outcome = check_signature(ATTESTED.read_bytes(), ATTESTATION, asked, "artifact")
    assert outcome.failure is not None and outcome.failure.startswith(f"artifact: NOT VERIFIED: {why}")


@needs_sigstore
def test_attestation_with_an_edited_statement_does_not_verify(tmp_path: Path) -> None:
    from driftproof.verify import check_signature

    bundle = json.loads(ATTESTATION.read_text(encoding="utf-8"))
    statement = json.loads(base64.b64decode(bundle["dsseEnvelope"]["payload"]))
    statement["subject"][0]["digest"]["sha256"] = "0" * 64  # claim other bytes under the same signature
    bundle["dsseEnvelope"]["payload"] = base64.b64encode(json.dumps(statement).encode()).decode()
    edited = tmp_path / "edited.sigstore.json"
    edited.write_text(json.dumps(bundle), encoding="utf-8")
    outcome = check_signature(b"x", edited, DEMO, "x")
    assert outcome.failure is not None and outcome.failure.startswith("x: NOT VERIFIED: the signature does not verify")


@needs_sigstore
def test_message_signature_verifies_and_refuses_altered_bytes() -> None:
    from driftproof.verify import check_signature

    asked = IdentityAsked(repository="trailofbits/rfc8785.py", workflow="release.yml", ref="refs/tags/v0.1.2")
    assert check_signature(SIGNED.read_bytes(), SIGNATURE, asked, "whl").failure is None
    outcome = check_signature(SIGNED.read_bytes()[:-1] + b"?", SIGNATURE, asked, "whl")
    assert outcome.failure == "whl: NOT VERIFIED: the signature does not verify: Bundle message digest mismatch"


@needs_sigstore
def test_receipt_with_another_files_bundle_exits_1(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    receipt = FIXTURES / "receipt-0.16.json"
    jsonl = tmp_path / "sha256-x.jsonl"  # `gh attestation download` writes one bundle per line
    jsonl.write_text(json.dumps(json.loads(ATTESTATION.read_text(encoding="utf-8"))) + "\n", encoding="utf-8")
    args = ["verify", str(receipt), "--bundle", str(jsonl), "--repository", "malancas/attest-demo"]
    assert main(args) == 1
    captured = capsys.readouterr()
    assert captured.out.startswith(f"{receipt}: seal ok (schema 0.16")  # the seal still holds
    assert captured.err.startswith(f"{receipt}: NOT VERIFIED: the attestation is for github_provenance_demo")
    assert captured.err.endswith(
        "not for these bytes (sha256 b913f90c9325d1bfbedab04c050878e41aea213dd4b49c6f9c57736efd73b82b)\n"
    )


@needs_sigstore
def test_not_a_bundle_exits_2(tmp_path: Path) -> None:
    from driftproof.verify import check_signature

    path = tmp_path / "b.json"
    path.write_text('{"hello": 1}', encoding="utf-8")
    with pytest.raises(InputError, match="not a Sigstore bundle"):
        check_signature(b"x", path, DEMO, "x")
