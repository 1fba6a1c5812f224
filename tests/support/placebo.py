"""Receipts with a placebo arm, for the placebo tests: a receipt of `tests.support.builders` given a third arm."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from driftproof.core.models import Receipt
from driftproof.core.placebo import placebo_record, placebo_text
from tests.support.builders import DrawSpec, arm, reseal


def with_placebo(r: Receipt, placebos: Mapping[str, Sequence[DrawSpec]]) -> Receipt:
    """``r`` with each case's placebo arm scoring ``placebos[case id]`` and the top-level placebo record of a
    text as long as ``r``'s skill, sealed again."""
    tokens = r.skill.tokens if r.skill is not None else 1
    record = placebo_record(placebo_text(tokens))
    assert record is not None

    def edit(body: dict[str, Any]) -> None:
        body["placebo"] = record.model_dump(mode="json")
        for case in body["cases"]:
            case["placebo"] = arm(placebos[case["id"]]).model_dump(mode="json")

    return reseal(r, edit)
