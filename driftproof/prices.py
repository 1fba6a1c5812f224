"""The bundled judge price table (USD per million tokens), frozen into each receipt.

The figures are list prices as of the table's date; override them with ``--price-table FILE``
(JSON: ``{"<model>": {"input_per_mtok": ..., "output_per_mtok": ..., "cache_read_per_mtok": ...,
"cache_write_per_mtok": ...}}``). Grading cost is a floor: it counts the usage the judge's answered
samples reported, not retried attempts.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ValidationError

from driftproof.bounded import INPUT, load_json_bytes, read_capped
from driftproof.core.fields import found
from driftproof.core.models import Price
from driftproof.errors import InputError

TABLE_DATE = "2026-11-01"

PRICE_KEYS = ("input_per_mtok", "output_per_mtok", "cache_read_per_mtok", "cache_write_per_mtok")

BUNDLED: dict[str, Any] = {
    "claude-haiku-4-5": {
        "input_per_mtok": 1.0,
        "output_per_mtok": 5.0,
        "cache_read_per_mtok": 0.1,
        "cache_write_per_mtok": 1.25,
    },
    "claude-sonnet-4-6": {
        "input_per_mtok": 3.0,
        "output_per_mtok": 15.0,
        "cache_read_per_mtok": 0.3,
        "cache_write_per_mtok": 3.75,
    },
    "gpt-5-mini": {"input_per_mtok": 0.25, "output_per_mtok": 2.0, "cache_read_per_mtok": 0.025},
    "stub-judge": {"input_per_mtok": 0.0, "output_per_mtok": 0.0},
    "stub-model": {"input_per_mtok": 0.0, "output_per_mtok": 0.0},
}


def price_for(model: str | None, table_file: Path | None = None) -> Price | None:
    """The frozen price of a judge model: the override file first, then the bundled table (longest prefix). An
    error in the file is one line naming ``--price-table``, the file and the field (the Action names its input)."""
    if model is None:
        return None
    if table_file is None:
        return _price_in(model, BUNDLED, f"bundled price table {TABLE_DATE}", None)
    try:
        return _price_in(model, _read_table(table_file), str(table_file), table_file)
    except InputError as exc:
        raise InputError(f"--price-table: {exc}") from None


def _price_in(model: str, table: dict[str, Any], source: str, table_file: Path | None) -> Price | None:
    """``model``'s entry of ``table`` (longest prefix) as a `Price`, checked field by field; None if none."""
    match = max((k for k in table if model == k or model.startswith(k + "-")), key=len, default=None)
    if match is None:
        return None
    entry = table[match]
    where = f"{table_file or 'price table'}: {match}"
    if not isinstance(entry, dict):
        raise InputError(f"{where}: a price is a mapping (input_per_mtok, output_per_mtok, ...), found {found(entry)}")
    for key, value in entry.items():
        if key in PRICE_KEYS and not _is_number(value):  # pydantic would read true as 1.0 and "3" as 3.0
            raise InputError(f"{where}.{key}: a number of USD, at least 0, found {found(value)}")
    try:
        return Price.model_validate({**entry, "source": f"{source}: {match}"})
    except ValidationError as exc:
        err = exc.errors()[0]
        key = ".".join(str(p) for p in err["loc"])
        if err["type"] == "missing":
            raise InputError(f"{where}.{key}: missing; a price needs '{key}'") from None
        if err["type"] == "extra_forbidden":
            raise InputError(f"{where}.{key}: not a key of a price (its keys: {', '.join(PRICE_KEYS)})") from None
        raise InputError(f"{where}.{key}: a number of USD, at least 0, found {found(err.get('input'))}") from None


def _is_number(value: object) -> bool:
    """A JSON number (or null, for an optional price), not a boolean nor a string of digits."""
    return value is None or (isinstance(value, (int, float)) and not isinstance(value, bool))


def _read_table(path: Path) -> dict[str, Any]:
    try:
        raw = read_capped(path, INPUT, InputError, "a price table")
    except OSError as exc:
        raise InputError(f"{path}: cannot read the price table ({exc.strerror})") from None
    loaded = load_json_bytes(raw, str(path), limits=INPUT, error=InputError, what="a price table")
    if not isinstance(loaded, dict):
        raise InputError(f"{path}: a price table maps model ids to prices, found {found(loaded)}")
    return loaded
