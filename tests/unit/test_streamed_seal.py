"""Issue 14: the seal hashed as its canonical form is made equals the seal of the canonical form built whole."""

from __future__ import annotations

import hashlib
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from driftproof.core.seal import canonical_chunks, canonical_json, check_seal, compute_seal, content_hash, sealed
from tests.support.builders import arm, receipt

# Every JSON value a parse can give (and a few it cannot: tuples, which json.dumps writes as lists),
# with the spellings that are easy to get wrong: non-ASCII and control characters, escapes, exponents,
# negative zero, integers past 64 bits.
leaves = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(alphabet=st.characters(exclude_categories=["Cs"]), max_size=8),
)
keys = st.text(alphabet=st.characters(exclude_categories=["Cs"]), max_size=6)
values = st.recursive(
    leaves,
    lambda inner: st.one_of(
        st.lists(inner, max_size=5),
        st.lists(inner, max_size=3).map(tuple),
        st.dictionaries(keys, inner, max_size=5),
    ),
    max_leaves=40,
)


def reference_hash(value: Any) -> str:
    """The seal's definition, unchanged: SHA-256 of the whole canonical JSON bytes."""
    return hashlib.sha256(canonical_json(value)).hexdigest()


@settings(max_examples=300, deadline=None)
@given(values, st.integers(min_value=0, max_value=4))
def test_chunks_join_to_the_canonical_form_at_any_depth(value: Any, levels: int) -> None:
    assert "".join(canonical_chunks(value, levels)).encode("utf-8") == canonical_json(value)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(keys, values, max_size=6))
def test_streamed_seal_equals_the_reference_seal(doc: dict[str, Any]) -> None:
    body = {k: v for k, v in doc.items() if k != "seal"}
    assert content_hash(doc) == reference_hash(doc)
    assert compute_seal({**doc, "seal": {"sha256": "x"}}) == reference_hash(body)


case_ids = st.text(alphabet=st.characters(exclude_categories=["Cs"]), min_size=1, max_size=8)
grid = st.integers(min_value=0, max_value=20).map(lambda k: k / 20)  # judge scores on a 0.05 grid
draw_scores = st.lists(st.one_of(grid, st.none()), min_size=1, max_size=4)


@settings(max_examples=40, deadline=None)
@given(st.dictionaries(case_ids, st.tuples(draw_scores, draw_scores), min_size=1, max_size=4))
def test_streamed_seal_equals_the_reference_seal_of_random_receipts(
    cases: dict[str, tuple[list[float | None], list[float | None]]],
) -> None:
    r = receipt({cid: (arm(w, samples=2), arm(b, samples=2)) for cid, (w, b) in cases.items()})
    doc = r.model_dump(mode="json")
    body = {k: v for k, v in doc.items() if k != "seal"}
    assert r.seal.sha256 == compute_seal(doc) == reference_hash(body)
    assert check_seal(doc).ok


def test_a_non_string_key_is_encoded_as_json_dumps_encodes_it() -> None:
    # json.dumps sorts {2: .., 10: ..} as integers (2 before 10) and then writes them as strings;
    # sorted as the strings "10" < "2" they would come the other way round
    doc = {"cases": [{"by_draw": {10: "b", 2: "a"}}]}
    assert canonical_json(doc) == b'{"cases":[{"by_draw":{"2":"a","10":"b"}}]}'
    assert content_hash(doc) == reference_hash(doc)
    assert "".join(canonical_chunks({10: "b", 2: "a"})) == '{"2":"a","10":"b"}'


def test_what_the_canonical_form_refuses_the_stream_refuses() -> None:
    for bad, error in [({"cases": [{"score": math.nan}]}, ValueError), ({"cases": ["\ud800"]}, UnicodeEncodeError)]:
        with pytest.raises(error):
            canonical_json(bad)
        with pytest.raises(error):
            content_hash(bad)


def test_seal_of_sealed_document_checks() -> None:
    doc = sealed({"cases": [{"id": "é", "score": 0.85}, {"id": "b", "score": 1.0}], "run": {}})
    # canonical: {"cases":[{"id":"é","score":0.85},{"id":"b","score":1.0}],"run":{}}
    assert doc["seal"]["sha256"] == reference_hash({k: v for k, v in doc.items() if k != "seal"})
    assert check_seal(doc).ok
