"""Issue 14: a loaded receipt's draws and judge samples share their field-name sets, and nothing a reader
sees changes."""

from __future__ import annotations

import json

from driftproof.core.models import Receipt
from driftproof.receipt_memory import share_field_sets
from driftproof.receipts import load_receipt_bytes, receipt_json
from tests.support.builders import arm, receipt


def _loaded() -> tuple[str, Receipt]:
    text = receipt_json(receipt({"a": (arm([0.5, 0.6, None], samples=3), [0.2, 0.3]), "b": ([0.4], [0.5])}))
    return text, load_receipt_bytes(text.encode("utf-8"), "r.json")


def test_draws_and_samples_share_one_set_per_class() -> None:
    _, r = _loaded()
    draws = [d for c in r.cases for a in (c.with_skill, c.baseline) for d in a.draws]
    samples = [s for d in draws for s in d.judge_samples]
    # 3 + 2 + 1 + 1 = 7 draws; judge samples: 2 measured draws x 3 + 4 draws x 1 = 10
    assert len(draws) == 7 and len(samples) == 10
    assert len({id(d.model_fields_set) for d in draws}) == 1
    assert len({id(s.model_fields_set) for s in samples}) == 1
    assert "judge_samples" in draws[0].model_fields_set and "score" in samples[0].model_fields_set


def test_what_a_reader_sees_is_unchanged() -> None:
    text, r = _loaded()
    unshared = Receipt.model_validate(json.loads(text))  # the same document, each instance its own set
    assert r == unshared
    assert json.loads(receipt_json(r)) == json.loads(text)
    assert r.model_dump(exclude_unset=True) == unshared.model_dump(exclude_unset=True)


def test_a_copy_with_an_update_leaves_the_shared_set_alone() -> None:
    _, r = _loaded()
    first, second = r.cases[0].with_skill.draws[0], r.cases[0].with_skill.draws[1]
    before = set(second.model_fields_set)
    copied = first.model_copy(update={"flagged": True})
    assert copied.flagged is True and second.model_fields_set == before
    assert copied.model_fields_set is not first.model_fields_set


def test_a_receipt_without_draws_is_returned_as_it_is() -> None:
    r = receipt({"a": ([], [])})
    assert share_field_sets(r) is r
