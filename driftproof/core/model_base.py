"""What every receipt model shares: the frozen, strict base and the constrained types. Pure.

Split from ``driftproof.core.models`` so the provenance models (``driftproof.core.provenance``) can share it;
every reader imports the models from ``driftproof.core.models``.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

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
