"""Issue 14, reading large receipts: a receipt of many cases is read as strictly as a small one (its seal
over the canonical form, every schema rule), and ``view`` and ``diff`` keep the cyclic collector paused."""

from __future__ import annotations

import gc
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

import driftproof.core.breakdown
import driftproof.core.diff
from driftproof.cli import main
from driftproof.core.seal import canonical_json, sealed
from driftproof.errors import ReceiptError
from driftproof.receipts import load_receipt, load_receipt_bytes, receipt_json
from tests.support.builders import arm, receipt

CASES, DRAWS, SAMPLES = 200, 10, 5


@pytest.fixture(scope="module")
def large_text() -> str:
    """200 cases x 10 draws x 5 judge samples a side (about 14 MB as written): one arm shape, each case its id."""
    with_skill = arm([0.6, 0.65, 0.7, 0.6, 0.65, 0.7, 0.6, 0.65, 0.7, 0.65], samples=SAMPLES)
    baseline = arm([0.4, 0.45, 0.5, 0.4, 0.45, 0.5, 0.4, 0.45, 0.5, 0.45], samples=SAMPLES)
    return receipt_json(receipt({f"case-{i:04d}": (with_skill, baseline) for i in range(CASES)}))


def test_a_large_receipt_reads_and_its_seal_is_the_canonical_one(large_text: str) -> None:
    doc = json.loads(large_text)
    body = {k: v for k, v in doc.items() if k != "seal"}
    r = load_receipt_bytes(large_text.encode("utf-8"), "large.json")
    assert len(r.cases) == CASES and r.seal.sha256 == hashlib.sha256(canonical_json(body)).hexdigest()


def _edit_last_sample(doc: dict[str, Any], score: float) -> None:
    doc["cases"][-1]["baseline"]["draws"][-1]["judge_samples"][-1]["score"] = score


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        # one judge sample of the last case, 0.45 -> 0.5: still a valid score, so only the seal catches it
        (lambda doc: _edit_last_sample(doc, 0.5), "seal mismatch: recorded"),
        # a key order the canonical form does not have, same content: the seal still holds
        (None, None),
    ],
)
def test_a_tampered_large_receipt_is_refused(
    large_text: str, tmp_path: Path, edit: Any, message: str | None, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = json.loads(large_text)
    if edit is not None:
        edit(doc)
    else:
        doc = dict(reversed(list(doc.items())))  # written in another order: the canonical form sorts it back
    path = tmp_path / "large.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    if message is None:
        assert len(load_receipt(path).cases) == CASES
        return
    with pytest.raises(ReceiptError, match=message):
        load_receipt(path)
    assert main(["diff", str(path), str(path)]) == 2
    assert main(["view", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 2 and err.count("seal mismatch") == 2


def test_a_large_receipt_resealed_but_breaking_a_cross_field_rule_is_refused(large_text: str) -> None:
    doc = json.loads(large_text)
    # the last draw lost yet still scored: the schema's draw rule (a lost draw has no score) refuses it
    last = doc["cases"][-1]["with_skill"]["draws"][-1]
    last.update(status="lost", lost_reason="timeout")
    text = json.dumps(sealed({k: v for k, v in doc.items() if k != "seal"}))
    with pytest.raises(ReceiptError, match=r"schema 0\.17: at cases/199/with_skill/draws/9"):
        load_receipt_bytes(text.encode("utf-8"), "large.json")


def test_view_and_diff_keep_the_collector_paused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "r.json"
    path.write_text(receipt_json(receipt({"a": ([0.5, 0.6, 0.7], [0.2, 0.3, 0.4])})), encoding="utf-8")
    seen: list[tuple[str, bool]] = []
    real_diff, real_breakdown = driftproof.core.diff.diff, driftproof.core.breakdown.lift_breakdown

    def diff_spy(*args: Any, **kwargs: Any) -> Any:
        seen.append(("diff", gc.isenabled()))
        return real_diff(*args, **kwargs)

    def breakdown_spy(*args: Any, **kwargs: Any) -> Any:
        seen.append(("breakdown", gc.isenabled()))
        return real_breakdown(*args, **kwargs)

    monkeypatch.setattr(driftproof.core.diff, "diff", diff_spy)
    monkeypatch.setattr(driftproof.core.breakdown, "lift_breakdown", breakdown_spy)
    assert gc.isenabled()
    assert main(["diff", str(path), str(path)]) == 0
    assert main(["view", str(path)]) == 0
    # paused while comparing and while the view reads the receipt; running again after each command
    assert seen == [("diff", False), ("breakdown", False)] and gc.isenabled()
