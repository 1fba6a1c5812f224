"""Reading input files within bounds: size first, then nesting depth, then the parse; one line on any failure.

Every file a user hands Driftproof goes through here: suites, stub scripts and price tables (``INPUT``:
at most 8 MiB, 64 levels of nesting) and receipts (``RECEIPT``: at most 512 MiB, 64 levels). The size is
checked before the file is read (``read_capped``) and the depth before the text is parsed, by a scan that
never recurses, so no input, however large or deep, reaches a parser that could take minutes or raise
``RecursionError``. Errors are the caller's one-line class (``InputError`` or ``ReceiptError``) naming the file.

The bounds: the native suites Driftproof ships are a few KB and nest 5 levels (suite > cases > case >
criteria > criterion); a receipt of 1,000 cases x 10 draws x 5 judge samples is 74 MB and nests 8 levels
(``benchmarks/diff_scale.py``), the deepest receipt fixture 10. 8 MiB holds a suite of hundreds of long
prompts; 512 MiB holds a receipt of some 7,000 such cases (issue 14 reads 5,000: 368 MB); 64 levels is six
times the deepest real document and far below the interpreter's recursion limit.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pydantic_core
import yaml

from driftproof.errors import DriftproofError
from driftproof.safe_text import shorten

MiB = 1024 * 1024


@dataclass(frozen=True, slots=True)
class Limits:
    """How large a file may be and how deep its values may nest."""

    max_bytes: int
    max_depth: int


INPUT = Limits(max_bytes=8 * MiB, max_depth=64)
"""Suites, stub scripts, price tables and SKILL.md files."""
RECEIPT = Limits(max_bytes=512 * MiB, max_depth=64)
"""Receipts."""

# The JSON scan keeps quotes and brackets only; a string's brackets are then dropped by quote parity.
_NOT_STRUCTURE = bytes(b for b in range(256) if b not in b'[]{}"')
_PAIR = re.compile(rb"\[\]|\{\}")
_OPENERS = (yaml.SequenceStartEvent, yaml.MappingStartEvent)
_CLOSERS = (yaml.SequenceEndEvent, yaml.MappingEndEvent)
_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when the wheel has it
_MERGE = "tag:yaml.org,2002:merge"


class _DuplicateKey(ValueError):
    """A mapping or object that writes one key twice (a parser keeps the last and says nothing)."""

    def __init__(self, key: Any, where: str) -> None:
        super().__init__(f"the key {shorten(repr(key))} appears twice in one {where}; write each key once")


def _unique_keys(loader: Any, node: Any, deep: bool = False) -> Any:
    """``construct_mapping`` refusing a scalar key written twice; a merge (``<<: *a``) may still be overridden."""
    if isinstance(node, yaml.MappingNode):
        seen: set[Any] = set()
        for key_node, _ in node.value:
            if not isinstance(key_node, yaml.ScalarNode) or key_node.tag == _MERGE:
                continue
            key = loader.construct_object(key_node)
            if key in seen:
                raise _DuplicateKey(key, f"mapping ({_at(key_node.start_mark).removeprefix(' at ')})")
            seen.add(key)
    return _LOADER.construct_mapping(loader, node, deep=deep)


_UNIQUE_LOADER: Any = type("UniqueKeyLoader", (_LOADER,), {"construct_mapping": _unique_keys})
"""The safe loader of a file a user wrote (`load_data`): a key written twice is refused, not overwritten."""


def _size(n: int) -> str:
    return f"{n // MiB} MiB" if n % MiB == 0 else f"{n:,} bytes"


def too_large(source: str, size: int, limits: Limits, error: type[DriftproofError], what: str) -> DriftproofError:
    """The refusal of a file over ``limits.max_bytes``."""
    return error(f"{source}: too large: {size:,} bytes; {what} file holds at most {_size(limits.max_bytes)}")


def read_capped(path: Path, limits: Limits, error: type[DriftproofError], what: str) -> bytes:
    """The bytes of ``path``, refused from its size before it is read; ``OSError`` is left to the caller."""
    with path.open("rb") as f:
        size = path.stat().st_size
        if size > limits.max_bytes:
            raise too_large(str(path), size, limits, error, what)
        raw = f.read(limits.max_bytes + 1)  # a pipe or a growing file has no size to trust
    if len(raw) > limits.max_bytes:
        raise too_large(str(path), len(raw), limits, error, what)
    return raw


def read_file(
    path: Path, limits: Limits, error: type[DriftproofError], what: str, kind: str, missing: str = "no such file"
) -> bytes:
    """`read_capped`, with each way a path can fail to be read said in one line naming it: missing (``missing``),
    a directory (``is a directory, not a {kind}``), or unreadable (its reason)."""
    try:
        return read_capped(path, limits, error, what)
    except FileNotFoundError:
        raise error(f"{path}: {missing}") from None
    except IsADirectoryError:
        raise error(f"{path}: is a directory, not {kind}") from None
    except OSError as exc:
        raise error(f"{path}: cannot be read ({exc.strerror})") from None


def decode(raw: bytes, source: str, error: type[DriftproofError]) -> str:
    """UTF-8 text, or one line saying it is not."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise error(f"{source}: not UTF-8 text") from None


def json_depth_bound(raw: bytes, cap: int) -> int:
    """An upper bound on how deep a JSON parser nests reading ``raw``: exact for valid JSON up to ``cap``,
    and some number above ``cap`` for anything deeper. Never recurses; at most ``cap + 1`` passes.

    Strings are dropped (escapes first, then whatever lies between unescaped quotes), leaving the brackets;
    each pass removes every innermost ``[]`` or ``{}`` pair, so valid JSON empties in exactly its depth of
    passes. Whatever cannot be paired is malformed; each opener left may still nest one more level.

    >>> json_depth_bound(b'{"a": [1, {"b": "]]"}], "c": []}', 64), json_depth_bound(b"[[[", 64)
    (3, 3)
    >>> json_depth_bound(b"[" * 100 + b"]" * 100, 64) > 64
    True
    """
    if b"\\" in raw:
        raw = raw.replace(b"\\\\", b"").replace(b'\\"', b"")
    marks = raw.translate(None, _NOT_STRUCTURE).replace(b'""', b"")
    if b'"' in marks:
        marks = b"".join(marks.split(b'"')[::2])
    run = re.compile(rb"[\[{]{%d}" % (cap + 1))  # that many openers in a row nest that deep
    passes = 0
    while marks and passes <= cap:
        if run.search(marks):
            return passes + cap + 1
        fewer = _PAIR.sub(b"", marks)
        if len(fewer) == len(marks):
            break
        marks, passes = fewer, passes + 1
    return passes + marks.count(b"[") + marks.count(b"{")


def _deep(source: str, limits: Limits, error: type[DriftproofError], what: str, at: str = "") -> DriftproofError:
    depth = limits.max_depth
    return error(f"{source}: nested deeper than {depth} levels{at}; {what} nests at most {depth}")


class _NonFinite(ValueError):
    pass


def _refuse_constant(name: str) -> Any:
    raise _NonFinite(name)


def check_json_depth(raw: bytes, source: str, *, limits: Limits, error: type[DriftproofError], what: str) -> None:
    """Refuse JSON bytes nested deeper than ``limits.max_depth``: the check `load_json_bytes` makes before it parses
    (a receipt parsed without it, `driftproof.read_once.parse`, is held to it here when the read once does not
    take it)."""
    if json_depth_bound(raw, limits.max_depth) > limits.max_depth:
        raise _deep(source, limits, error, what)


def load_json_bytes(raw: bytes, source: str, *, limits: Limits, error: type[DriftproofError], what: str) -> Any:
    """Parse JSON within ``limits``: size, depth, UTF-8, then the parse; NaN and Infinity are refused."""
    if len(raw) > limits.max_bytes:
        raise too_large(source, len(raw), limits, error, what)
    check_json_depth(raw, source, limits=limits, error=error, what=what)
    try:  # jiter (pydantic-core): about half the time of json.loads, and the same value (tests/unit/test_fast_parse.py)
        return pydantic_core.from_json(raw, allow_inf_nan=False)
    except ValueError:
        pass  # json.loads below words the refusal, or reads what jiter does not (a lone surrogate's escape)
    text = decode(raw, source, error)
    try:
        return json.loads(text, parse_constant=_refuse_constant)
    except _NonFinite as exc:
        raise error(f"{source}: {exc} is not a number: {what} holds finite numbers only") from None
    except json.JSONDecodeError as exc:
        raise error(f"{source}: not valid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}") from None
    except (ValueError, RecursionError) as exc:  # an integer of more digits than Python converts
        raise error(f"{source}: not valid JSON: {_first_line(exc)}") from None


def _first_line(exc: BaseException) -> str:
    return (str(exc).splitlines() or [type(exc).__name__])[0]


def _at(mark: Any) -> str:
    return f" at line {mark.line + 1}, column {mark.column + 1}"


def _yaml_error(exc: yaml.YAMLError, text: str) -> str:
    if isinstance(exc, yaml.MarkedYAMLError) and exc.problem_mark is not None:
        problem = exc.problem or exc.context or "not YAML"
        if exc.context and problem.startswith("but "):  # "expected a single document ..., but found another"
            problem = f"{exc.context}, {problem}"
        return f"not valid YAML{_at(exc.problem_mark)}: {problem}"
    position = getattr(exc, "position", None)  # a ReaderError: a character YAML does not allow
    if isinstance(position, int):
        line = text.count("\n", 0, position)
        column = position - (text.rfind("\n", 0, position) + 1)
        return f"not valid YAML at line {line + 1}, column {column + 1}: {getattr(exc, 'reason', 'unreadable')}"
    return f"not valid YAML: {_first_line(exc)}"


def _scan_yaml_depth(
    loader_class: Any, text: str, source: str, limits: Limits, error: type[DriftproofError], what: str
) -> None:
    """Walk the event stream (the parser keeps its own stack, it does not recurse) and stop one level too deep."""
    loader = loader_class(text)
    try:
        depth = 0
        while loader.check_event():
            event = loader.get_event()
            if isinstance(event, _OPENERS):
                depth += 1
                if depth > limits.max_depth:
                    raise _deep(source, limits, error, what, f" ({_at(event.start_mark).strip()})")
            elif isinstance(event, _CLOSERS):
                depth -= 1
    finally:
        loader.dispose()


def _check_yaml_depth(text: str, source: str, limits: Limits, error: type[DriftproofError], what: str) -> None:
    """The depth check before composing: libyaml's events, or PyYAML's where libyaml stops at its own limit."""
    try:
        _scan_yaml_depth(_LOADER, text, source, limits, error, what)
    except yaml.YAMLError as exc:
        if _LOADER is yaml.SafeLoader or "maximum nesting depth" not in str(exc):
            raise
        # libyaml looks ahead (up to 1,024 characters) and refuses past 1,000 levels: find where it got too deep
        _scan_yaml_depth(yaml.SafeLoader, text, source, limits, error, what)
        raise


def load_yaml_text(
    text: str, source: str, *, limits: Limits, error: type[DriftproofError], what: str, unique_keys: bool = False
) -> Any:
    """Parse one YAML document within ``limits`` (safe tags only); errors give the line and column. With
    ``unique_keys`` a key written twice in one mapping is refused (line and column of the second)."""
    if len(text) > limits.max_bytes:
        raise too_large(source, len(text.encode("utf-8")), limits, error, what)
    try:
        _check_yaml_depth(text, source, limits, error, what)
        return yaml.load(text, Loader=_UNIQUE_LOADER if unique_keys else _LOADER)  # CSafeLoader or SafeLoader
    except _DuplicateKey as exc:
        raise error(f"{source}: {exc}") from None
    except yaml.YAMLError as exc:
        raise error(f"{source}: {_yaml_error(exc, text)}") from None
    except (ValueError, TypeError, OverflowError, RecursionError) as exc:  # a timestamp like 2001-02-30
        raise error(f"{source}: not valid YAML: {_first_line(exc)}") from None


def load_data(
    raw: bytes, source: str, *, as_json: bool, limits: Limits, error: type[DriftproofError], what: str
) -> Any:
    """JSON or YAML bytes a user wrote, within ``limits``; a key written twice in one mapping is refused naming it
    (a parser would keep the last one without a word)."""
    if as_json:
        data = load_json_bytes(raw, source, limits=limits, error=error, what=what)
        _refuse_duplicate_json_keys(raw, source, error)
        return data
    if len(raw) > limits.max_bytes:
        raise too_large(source, len(raw), limits, error, what)
    return load_yaml_text(decode(raw, source, error), source, limits=limits, error=error, what=what, unique_keys=True)


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise _DuplicateKey(key, "object")
        seen[key] = value
    return seen


def _refuse_duplicate_json_keys(raw: bytes, source: str, error: type[DriftproofError]) -> None:
    """Parse JSON that already parsed (and was bounded) once more, refusing an object that writes a key twice."""
    try:
        json.loads(raw.decode("utf-8-sig"), object_pairs_hook=_pairs)
    except _DuplicateKey as exc:
        raise error(f"{source}: {exc}") from None
    except ValueError:  # what the first parse read and this one does not (a lone surrogate's escape): no pair seen
        pass
