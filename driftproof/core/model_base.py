"""What every receipt model shares: the frozen, strict base and the constrained types. Pure.

Split from ``driftproof.core.models`` so the provenance models (``driftproof.core.provenance``) can share it;
every reader imports the models from ``driftproof.core.models``.
"""

from __future__ import annotations

from typing import Annotated, Protocol

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo

Sha256 = Annotated[str, Field(pattern=r"^[0-9a-f]{64}$", description="Lower-case hex SHA-256.")]
Score = Annotated[float, Field(ge=0.0, le=1.0)]
Count = Annotated[int, Field(ge=0)]


class ReceiptPart(BaseModel):
    """A part of the receipt: frozen, refusing unknown keys, each field described by its docstring."""

    model_config = ConfigDict(
        extra="forbid",
        frozen=True,
        populate_by_name=True,
        serialize_by_alias=True,
        use_enum_values=True,
        use_attribute_docstrings=True,
    )


READ_ONCE = "read_once"
"""Validation-context key: a `ReadOnce` (``driftproof.receipts`` validating a current receipt without the schema).
With it, each draw and judge sample is held to the schema's rules for it as it is validated (a break is a
validation error, so the reader reads that receipt the reference way, where the schema words it) and handed
over as it is made, to share its set of field names (``driftproof.receipt_memory``)."""


class ReadOnce(Protocol):
    """What a reader validating a receipt once passes in the context under `READ_ONCE`."""

    def share(self, model: BaseModel) -> None:
        """Take the model as it is made (to share its field-name set)."""


def read_once(model: BaseModel, info: ValidationInfo, holds: bool) -> None:
    """A model validator's step under `READ_ONCE`: refuse a model that breaks its schema rule (``holds`` false),
    else hand it to the reader; nothing without that context."""
    reading = info.context.get(READ_ONCE) if info.context else None
    if reading is None:
        return
    if not holds:
        raise ValueError("breaks one of the schema's rules for it (read without the fast path, the schema words it)")
    reading.share(model)
