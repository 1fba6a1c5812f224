"""`bounded.load_json_bytes` parses with jiter (pydantic-core) and falls back to ``json.loads``: the value it
returns is the one ``json.loads`` returns, for every document either reads — the same types (an integer stays an
integer, ``1.0`` a float), floats to the bit (``-0.0``, subnormals, their ``repr``), the last of duplicate keys,
key order — and what jiter refuses is read or refused by ``json.loads`` with its own words."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from driftproof import bounded
from driftproof.errors import InputError


def load(raw: bytes) -> Any:
    return bounded.load_json_bytes(raw, "x.json", limits=bounded.INPUT, error=InputError, what="a suite")


def same(a: Any, b: Any) -> bool:
    """Equal in type and value all the way down: ``1 == 1.0 == True`` and ``0.0 == -0.0`` are not enough."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):  # to the bit: -0.0 is not 0.0 (NaN never parses: it is refused)
        return a.hex() == b.hex()
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**40), max_value=10**40)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
)
documents = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
)


@settings(max_examples=400, deadline=None)
@given(documents, st.booleans(), st.sampled_from([None, 2]))
def test_jiter_reads_every_document_as_json_loads_does(doc: Any, ascii_only: bool, indent: int | None) -> None:
    raw = json.dumps(doc, ensure_ascii=ascii_only, indent=indent).encode()
    assert same(load(raw), json.loads(raw))


@pytest.mark.parametrize(
    "text",
    [
        "-0.0",
        "[0.0, -0.0, 5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 0.30000000000000004]",
        "[1, 1.0, 1e2, 1E2, -1e-7, 12345678901234567890123456789, -18446744073709551617]",
        '{"a": 1, "b": 2, "a": 3}',  # duplicate keys: the last one wins, in the first one's place
        '{"z": 1, "a": 2, "m": {"y": [], "b": {}}}',  # key order as written
        '"\\u00e9\\ud83d\\ude00 \\" \\\\ \\/ \\b\\f\\n\\r\\t"',  # escapes, a surrogate pair
        ' \n\t[ 1 , "x" ]\r\n',
        '"\\ud800"',  # a lone surrogate's escape: jiter refuses it, json.loads reads it
        "9" * 4000,  # within Python's digit limit for int()
    ],
)
def test_named_documents_read_as_json_loads_reads_them(text: str) -> None:
    assert same(load(text.encode()), json.loads(text))


@pytest.mark.parametrize(
    ("raw", "words"),
    [
        (b"[1, 2", "x.json: not valid JSON at line 1, column 6: Expecting ',' delimiter"),
        (b'{"a": NaN}', "x.json: NaN is not a number: a suite holds finite numbers only"),
        (b"[Infinity]", "x.json: Infinity is not a number: a suite holds finite numbers only"),
        (b"9" * 5000, "x.json: not valid JSON: Exceeds the limit (4300 digits) for integer string conversion"),
    ],
)
def test_what_neither_reads_is_refused_in_json_loads_words(raw: bytes, words: str) -> None:
    with pytest.raises(InputError) as refused:
        load(raw)
    assert str(refused.value).startswith(words)
