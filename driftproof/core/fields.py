"""Reading fields out of an already-parsed document, refusing in one line what is not there. Pure.

An importer reads another tool's JSON through `Fields`: each accessor names the field as the file writes it
(``task_results[2].attempts[0].outcome``) and says what it expected and what it found (`found`), so a refusal is
``FILE: field: reason``. Nothing here reads a file; the shell reads the bytes and bounds them first.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


def is_finite_number(value: Any) -> bool:
    """A real number (not a bool) that is neither NaN nor infinite.

    >>> is_finite_number(1), is_finite_number(0.5), is_finite_number(True), is_finite_number(float("nan"))
    (True, True, False, False)
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return isinstance(value, int) or math.isfinite(value)


def found(value: Any) -> str:
    """What the file holds, in the file's words: ``null``, ``true``, ``1.5``, ``'text'``, ``a list``.

    >>> found(None), found(True), found(1.5), found("hi"), found([1]), found({"a": 1}), found(10**40)
    ('null', 'true', '1.5', "'hi'", 'a list', 'a mapping', 'a number too large to use')
    """
    if value is None:
        return "null"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int):
        return str(value) if abs(value) < 10**18 else "a number too large to use"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        return repr(value) if len(value) <= 60 else f"text of {len(value):,} characters"
    if isinstance(value, list):
        return "a list"
    return "a mapping" if isinstance(value, dict) else f"a {type(value).__name__}"


class Refusal(ValueError):
    """A document an import cannot convert: which document, which field as written, and why.

    >>> str(Refusal("full.json", "run.k", "expected a whole number ≥ 1, found 'three'"))
    "full.json: run.k: expected a whole number ≥ 1, found 'three'"
    """

    def __init__(self, document: str, field: str, reason: str) -> None:
        super().__init__(f"{document}: {field}: {reason}")
        self.document = document
        self.field = field
        self.reason = reason


_ABSENT = object()
TOP = "(top level)"


@dataclass(frozen=True, slots=True)
class Fields:
    """One JSON object of a document, with the path that leads to it, read field by field."""

    document: str
    """The document's name as the user gave it; every refusal starts with it."""
    where: str
    """The path of this object in the document (``""`` at the top level)."""
    data: Mapping[str, Any]

    @classmethod
    def top(cls, document: str, data: Any, what: str) -> Fields:
        """The top level of ``document``, which must be a JSON object."""
        if not isinstance(data, dict):
            raise Refusal(document, TOP, f"{what} is a JSON object, found {found(data)}")
        return cls(document, "", data)

    def at(self, key: str | int) -> str:
        """The path of ``key`` under this object: ``run.k``, ``cases[0]``."""
        if isinstance(key, int):
            return f"{self.where}[{key}]"
        return f"{self.where}.{key}" if self.where else key

    def refuse(self, key: str, reason: str) -> Refusal:
        """A refusal naming ``key`` under this object."""
        return Refusal(self.document, self.at(key) if key else (self.where or TOP), reason)

    def has(self, key: str) -> bool:
        """Whether the object holds ``key`` with a value other than null."""
        return self.data.get(key) is not None

    def _get(self, key: str, expected: str, optional: bool) -> Any:
        value = self.data.get(key, _ABSENT)
        if value is _ABSENT or (value is None and optional):
            if optional:
                return None
            raise self.refuse(key, f"missing; expected {expected}")
        return value

    def _wrong(self, key: str, expected: str, value: Any) -> Refusal:
        return self.refuse(key, f"expected {expected}, found {found(value)}")

    def text(self, key: str) -> str:
        """A string the object must hold."""
        value = self._get(key, "text", False)
        if not isinstance(value, str):
            raise self._wrong(key, "text", value)
        return value

    def opt_text(self, key: str) -> str | None:
        """A string, or ``None`` when absent or null."""
        value = self._get(key, "text", True)
        if value is not None and not isinstance(value, str):
            raise self._wrong(key, "text or null", value)
        return value

    def count(self, key: str, minimum: int = 0) -> int:
        """A whole number of at least ``minimum``."""
        value = self._count(key, minimum, False)
        if value is None:  # _get refuses a missing or null value when not optional
            raise self.refuse(key, f"missing; expected a whole number ≥ {minimum}")
        return value

    def opt_count(self, key: str, minimum: int = 0) -> int | None:
        """A whole number of at least ``minimum``, or ``None`` when absent or null."""
        return self._count(key, minimum, True)

    def _count(self, key: str, minimum: int, optional: bool) -> int | None:
        expected = f"a whole number ≥ {minimum}"
        value = self._get(key, expected, optional)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or not minimum <= value < 10**18:
            raise self._wrong(key, expected, value)
        return value

    def number(self, key: str) -> float:
        """A finite number."""
        value = self._get(key, "a number", False)
        if not is_finite_number(value):
            raise self._wrong(key, "a number", value)
        return float(value)

    def opt_number(self, key: str) -> float | None:
        """A finite number, or ``None`` when absent or null."""
        value = self._get(key, "a number", True)
        if value is not None and not is_finite_number(value):
            raise self._wrong(key, "a number or null", value)
        return None if value is None else float(value)

    def opt_flag(self, key: str) -> bool | None:
        """``true`` or ``false``, or ``None`` when absent or null."""
        value = self._get(key, "true or false", True)
        if value is not None and not isinstance(value, bool):
            raise self._wrong(key, "true, false or null", value)
        return value

    def opt_texts(self, key: str) -> list[str] | None:
        """A list of strings, or ``None`` when absent or null (``[]`` stays ``[]``)."""
        value = self._get(key, "a list of text", True)
        if value is None:
            return None
        if not isinstance(value, list):
            raise self._wrong(key, "a list of text", value)
        for i, item in enumerate(value):
            if not isinstance(item, str):
                raise Refusal(self.document, f"{self.at(key)}[{i}]", f"expected text, found {found(item)}")
        return list(value)

    def obj(self, key: str) -> Fields:
        """A JSON object the object must hold."""
        value = self._get(key, "an object", False)
        if not isinstance(value, dict):
            raise self._wrong(key, "an object", value)
        return Fields(self.document, self.at(key), value)

    def opt_obj(self, key: str) -> Fields | None:
        """A JSON object, or ``None`` when absent or null."""
        value = self._get(key, "an object", True)
        if value is None:
            return None
        if not isinstance(value, dict):
            raise self._wrong(key, "an object or null", value)
        return Fields(self.document, self.at(key), value)

    def objs(self, key: str, *, optional: bool = False) -> list[Fields]:
        """A list of JSON objects (``[]`` when ``optional`` and absent or null)."""
        value = self._get(key, "a list of objects", optional)
        if value is None:
            return []
        if not isinstance(value, list):
            raise self._wrong(key, "a list of objects", value)
        out = []
        for i, item in enumerate(value):
            where = f"{self.at(key)}[{i}]"
            if not isinstance(item, dict):
                raise Refusal(self.document, where, f"expected an object, found {found(item)}")
            out.append(Fields(self.document, where, item))
        return out
