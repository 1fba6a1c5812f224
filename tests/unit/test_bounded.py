"""Every input file is bounded before it is parsed: size first, then nesting depth; one line, never a traceback.

Suites, stub scripts and price tables hold at most 8 MiB and nest at most 64 levels; receipts hold at most
512 MiB and nest at most 64 levels (a real receipt nests 8 to 10).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import partial
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from driftproof import bounded
from driftproof.errors import InputError, ReceiptError
from driftproof.lanes.stub import load_script
from driftproof.prices import price_for
from driftproof.receipts import load_receipt, parse_document
from driftproof.suite import load_suite

MiB = 1024 * 1024
DEEP_YAML = "cases: " + "[" * 2000 + "]" * 2000 + "\n"  # 4 KB, 2,001 levels
DEEP_BLOCK_YAML = "".join("  " * i + "- \n" for i in range(2000))  # block sequences 2,000 deep
DEEP_JSON = '{"cases": ' + "[" * 100_000 + "]" * 100_000 + "}"


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("name", "text"),
    [("suite.yaml", DEEP_YAML), ("suite.yaml", DEEP_BLOCK_YAML), ("suite.json", DEEP_JSON)],
)
def test_a_deeply_nested_suite_is_one_line(tmp_path: Path, name: str, text: str) -> None:
    path = write(tmp_path / name, text)
    with pytest.raises(InputError) as info:
        load_suite(path)
    assert str(info.value).startswith(f"{path}: nested deeper than 64 levels")
    assert str(info.value).endswith("; a suite nests at most 64")


def test_the_depth_refusal_says_where_in_yaml(tmp_path: Path) -> None:
    path = write(tmp_path / "suite.yaml", DEEP_YAML)
    with pytest.raises(InputError) as info:
        load_suite(path)
    # the mapping is level 1, so the 64th '[' (offset 7 + 63 = 70) opens level 65: line 1, column 71
    assert str(info.value) == f"{path}: nested deeper than 64 levels (at line 1, column 71); a suite nests at most 64"


def test_sixty_four_levels_are_read(tmp_path: Path) -> None:
    # suite (1) > cases (2) > case (3) > checks (4) > check (5) > ... : a value 64 levels down is parsed
    assert bounded.load_yaml_text("[" * 64 + "]" * 64, "x", limits=bounded.INPUT, error=InputError, what="a suite")
    assert bounded.load_json_bytes(b"[" * 64 + b"]" * 64, "x", limits=bounded.INPUT, error=InputError, what="a suite")
    for loader in (bounded.load_yaml_text, bounded.load_json_bytes):
        text = "[" * 65 + "]" * 65
        with pytest.raises(InputError, match="nested deeper than 64 levels"):
            loader(
                text if loader is bounded.load_yaml_text else text.encode(),
                "x",
                limits=bounded.INPUT,
                error=InputError,
                what="a suite",
            )  # type: ignore[operator]


def test_brackets_inside_json_strings_do_not_count(tmp_path: Path) -> None:
    doc = {"a": "[" * 500, "b": "]]]" * 100, "c": '\\"[[[[' * 50, "d": [["x"]]}
    raw = json.dumps(doc).encode()
    assert bounded.load_json_bytes(raw, "x", limits=bounded.INPUT, error=InputError, what="a suite") == doc


def test_closers_hidden_in_strings_do_not_hide_depth() -> None:
    # each level's string holds a ']' that must not close the level's '[' in the count
    raw = ('["]", ' * 3000 + "1" + "]" * 3000).encode()
    with pytest.raises(InputError, match="nested deeper than 64 levels"):
        bounded.load_json_bytes(raw, "x", limits=bounded.INPUT, error=InputError, what="a suite")


def test_an_unterminated_deep_json_is_refused_not_a_recursion_error() -> None:
    with pytest.raises(InputError, match="nested deeper than 64 levels"):
        bounded.load_json_bytes(b"[" * 100_000, "x", limits=bounded.INPUT, error=InputError, what="a suite")


@pytest.mark.parametrize("name", ["suite.yaml", "script.yaml", "prices.json", "receipt.json"])
def test_size_is_refused_before_reading(tmp_path: Path, name: str) -> None:
    """A sparse 600 MiB file: refused from its size, without reading or parsing it."""
    path = tmp_path / name
    with path.open("wb") as f:
        f.truncate(600 * MiB)
    loaders = {
        "suite.yaml": (lambda: load_suite(path), InputError, "a suite file holds at most 8 MiB"),
        "script.yaml": (lambda: load_script(path), InputError, "a stub script file holds at most 8 MiB"),
        "prices.json": (lambda: price_for("m", path), InputError, "a price table file holds at most 8 MiB"),
        "receipt.json": (lambda: load_receipt(path), ReceiptError, "a receipt file holds at most 512 MiB"),
    }
    call, error, limit = loaders[name]
    with pytest.raises(error) as info:
        call()
    flag = "--price-table: " if name == "prices.json" else ""  # a price table's error names its flag
    assert str(info.value) == f"{flag}{path}: too large: 629,145,600 bytes; {limit}"


def test_receipt_bytes_are_bounded_too() -> None:
    with pytest.raises(
        ReceiptError, match=r"^main: too large: 536,870,913 bytes; a receipt file holds at most 512 MiB$"
    ):
        parse_document(b" " * (512 * MiB + 1), "main")


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("suite.yaml", "cases:\n  - id: a\n    prompt: [\n", "not valid YAML at line 4, column 1: "),
        ("suite.yaml", "cases:\n  - id: a\n   prompt: p\n", "not valid YAML at line 3, column 4: "),
        ("suite.yaml", "a: 1\na: {b\n", "not valid YAML at line 3, column 1: "),
        ("suite.yaml", "a: \x07\n", "not valid YAML at line 1, column 4: "),
        ("suite.yaml", "a: 2001-02-30\n", "not valid YAML: day is out of range for month"),
        ("suite.yaml", "a: " + "1" * 5000 + "\n", "not valid YAML: Exceeds the limit"),
        ("suite.json", '{"cases": [1,]}', "not valid JSON at line 1, column 14: Expecting value"),
        ("suite.json", "[" + "1" * 5000 + "]", "not valid JSON: Exceeds the limit"),
        ("suite.json", '{"threshold": NaN}', "NaN is not a number: a suite holds finite numbers only"),
        ("suite.json", '{"threshold": -Infinity}', "-Infinity is not a number: a suite holds finite numbers only"),
    ],
)
def test_parse_errors_give_line_and_column(tmp_path: Path, name: str, text: str, message: str) -> None:
    path = write(tmp_path / name, text)
    with pytest.raises(InputError) as info:
        load_suite(path)
    assert str(info.value).startswith(f"{path}: {message}") and "\n" not in str(info.value)


def test_script_and_price_table_parse_errors_are_one_line(tmp_path: Path) -> None:
    script = write(tmp_path / "stub.yaml", "cases: " + "[" * 3000 + "\n")
    with pytest.raises(InputError) as info:
        load_script(script)
    assert str(info.value).startswith(f"{script}: nested deeper than 64 levels")
    script.write_bytes(b"cases: {a: \xff}\n")
    with pytest.raises(InputError) as info:
        load_script(script)
    assert str(info.value) == f"{script}: not UTF-8 text"
    prices = write(tmp_path / "prices.json", '{"m": ' + "[" * 3000 + "]" * 3000 + "}")
    with pytest.raises(InputError) as info:
        price_for("m", prices)
    assert str(info.value) == f"--price-table: {prices}: nested deeper than 64 levels; a price table nests at most 64"
    prices.write_text('{"m": {"input_per_mtok": 1,\n "output_per_mtok": }}', encoding="utf-8")
    with pytest.raises(InputError) as info:
        price_for("m", prices)
    assert str(info.value) == f"--price-table: {prices}: not valid JSON at line 2, column 21: Expecting value"


def test_a_deep_receipt_is_one_line(tmp_path: Path) -> None:
    path = write(tmp_path / "r.json", '{"cases": ' + "[" * 100_000 + "]" * 100_000 + "}")
    with pytest.raises(ReceiptError) as info:
        load_receipt(path)
    assert str(info.value) == f"{path}: nested deeper than 64 levels; a receipt nests at most 64"


# Nested structures written as text by hand (json.dumps itself recurses): a cycle of container shapes repeated
# to any depth up to 5,000 (far past the interpreter's recursion limit of 1,000), around one leaf.
SHAPES = ("[{}]", '{{"k": {}}}', "[1, {}]", '{{"a": "]", "b": {}}}', '["[", {}]')


def _nest(cycle: list[int], depth: int, leaf: str) -> str:
    text = leaf
    for level in range(depth):
        text = SHAPES[cycle[level % len(cycle)]].format(text)
    return text


nests = st.tuples(
    st.lists(st.integers(min_value=0, max_value=len(SHAPES) - 1), min_size=1, max_size=4),
    st.one_of(st.integers(min_value=0, max_value=70), st.integers(min_value=0, max_value=5000)),
    st.sampled_from(["1", '"x"', "null", "[]", "{}", '"[[["', "NaN", "[", "]", "}", "tru", '"\\"', '"\\\\"']),
)
noise = st.text(alphabet='[]{}":,0123456789.-e \n\\abtrufnlsNIa', max_size=300)


def _depth(value: object) -> int:
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, (list, dict)):
            deepest = max(deepest, level)
            stack.extend((v, level + 1) for v in (item.values() if isinstance(item, dict) else item))
    return deepest


REFUSED = object()
#: Leaves that parse as JSON and as YAML, with the levels they add (an empty list or mapping is one).
VALID_LEAVES = {"1": 0, '"x"': 0, "null": 0, "[]": 1, "{}": 1, '"[[["': 0, '"\\\\"': 0}


def _only_one_line_errors(call: Callable[[], object]) -> object:
    """The value, or REFUSED after a one-line InputError/ReceiptError; anything else (RecursionError) fails."""
    try:
        return call()
    except (InputError, ReceiptError) as exc:
        assert "\n" not in str(exc)
        return REFUSED


def _holds(value: object, cycle: list[int], depth: int, leaf: str, *, yaml: bool) -> None:
    """Refused exactly when deeper than 64 (a valid leaf), and nothing read is deeper than 64."""
    if value is not REFUSED:
        assert _depth(value) <= 64
    if leaf in VALID_LEAVES or (yaml and leaf in ("NaN", "tru")):
        assert (value is REFUSED) == (depth + VALID_LEAVES.get(leaf, 0) > 64)


@settings(max_examples=150, deadline=None)
@given(nests)
def test_bounded_json_never_raises_anything_else_and_never_goes_deeper(nest: tuple[list[int], int, str]) -> None:
    text = _nest(*nest)
    for error, limits in ((InputError, bounded.INPUT), (ReceiptError, bounded.RECEIPT)):
        value = _only_one_line_errors(
            partial(bounded.load_json_bytes, text.encode(), "x", limits=limits, error=error, what="a suite")
        )
        _holds(value, *nest, yaml=False)


@settings(max_examples=150, deadline=None)
@given(nests)
def test_bounded_yaml_never_raises_anything_else_and_never_goes_deeper(nest: tuple[list[int], int, str]) -> None:
    text = _nest(*nest)
    value = _only_one_line_errors(
        lambda: bounded.load_yaml_text(text, "x", limits=bounded.INPUT, error=InputError, what="a suite")
    )
    _holds(value, *nest, yaml=True)


@settings(max_examples=200, deadline=None)
@given(noise)
def test_any_text_is_parsed_or_refused_in_one_line(text: str) -> None:
    _only_one_line_errors(
        lambda: bounded.load_json_bytes(text.encode(), "x", limits=bounded.INPUT, error=InputError, what="a suite")
    )
    _only_one_line_errors(
        lambda: bounded.load_yaml_text(text, "x", limits=bounded.INPUT, error=InputError, what="a suite")
    )
