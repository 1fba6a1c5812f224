"""A loaded receipt's models made smaller: its draws and judge samples share one set of field names.

Pydantic gives every model instance its own ``model_fields_set``, a ``set`` of the field names the input
held. A receipt of 1,000 cases x 10 draws x 5 judge samples holds 20,000 draws and 100,000 judge samples,
nearly all with every key present, so the same set is held 120,000 times: 728 bytes for a judge sample's
12 names, 2,264 for a draw's 19, some 118 MB of the 184 MB its models take (issue 14). Instances whose
set is equal to the first one seen of their class are given that one set instead.

Sharing is safe because the receipt models are frozen: pydantic adds to an instance's set only on
assignment, which a frozen model refuses, and ``model_copy`` copies the set before it adds the updated
names. What ``model_fields_set`` returns is unchanged, value for value.
"""

from __future__ import annotations

from pydantic import BaseModel

from driftproof.core.models import Receipt


def share_field_sets(receipt: Receipt) -> Receipt:
    """``receipt`` itself, its draws and judge samples holding one shared set of field names per class."""
    shared: dict[type[BaseModel], set[str]] = {}

    def share(model: BaseModel) -> None:
        names = model.__pydantic_fields_set__
        first = shared.setdefault(type(model), names)
        if first is not names and first == names:
            object.__setattr__(model, "__pydantic_fields_set__", first)

    for case in receipt.cases:
        for arm in (case.with_skill, case.baseline):
            for draw in arm.draws:
                share(draw)
                for sample in draw.judge_samples:
                    share(sample)
    return receipt
