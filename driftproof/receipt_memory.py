"""A receipt's models made smaller: its draws and judge samples share one set of field names.

Pydantic gives every model instance its own ``model_fields_set``, a ``set`` of the field names the input
held. A receipt of 1,000 cases x 10 draws x 5 judge samples holds 20,000 draws and 100,000 judge samples,
nearly all with every key present, so the same set is held 120,000 times: 728 bytes for a judge sample's
12 names, 2,264 for a draw's 19, some 118 MB of the 184 MB its models take (issue 14). Instances whose
set is equal to the first one seen of their class are given that one set instead.

Sharing is safe because the receipt models are frozen: pydantic adds to an instance's set only on
assignment, which a frozen model refuses, and ``model_copy`` copies the set before it adds the updated
names. What ``model_fields_set`` returns is unchanged, value for value.

A run shares them as its draws finish (`FieldSets`, from the runner): its draws are the receipt's, held until
the run's receipt is written. A current receipt being read shares them a case at a time, as each case is made
(`FieldSets`, from ``driftproof.read_once``), so its unshared sets never pile up; an older one is shared after
it is built (`share_field_sets`).
"""

from __future__ import annotations

from collections.abc import Iterator

from pydantic import BaseModel

from driftproof.core.models import Draw, Receipt


class FieldSets:
    """The first set of field names seen of each model class, given to later instances whose set is equal."""

    def __init__(self) -> None:
        self._shared: dict[type[BaseModel], set[str]] = {}

    def share(self, model: BaseModel) -> None:
        """Give ``model`` the shared set of its class, if equal to its own."""
        names = model.__pydantic_fields_set__
        first = self._shared.setdefault(type(model), names)
        if first is not names and first == names:
            object.__setattr__(model, "__pydantic_fields_set__", first)

    def share_draw(self, draw: Draw) -> None:
        """A draw, its judge samples and their usage, sharing sets (a run's draw as it finishes)."""
        self.share(draw)
        if draw.usage is not None:
            self.share(draw.usage)
        for sample in draw.judge_samples:
            self.share(sample)
            if sample.usage is not None:
                self.share(sample.usage)


def share_field_sets(receipt: Receipt) -> Receipt:
    """``receipt`` itself, its draws and judge samples holding one shared set of field names per class."""
    shared = FieldSets()
    for draw in _draws(receipt):
        shared.share(draw)
        for sample in draw.judge_samples:
            shared.share(sample)
    return receipt


def _draws(receipt: Receipt) -> Iterator[Draw]:
    """Every draw of every arm (a placebo arm's too), case by case."""
    for case in receipt.cases:
        for arm in (case.with_skill, case.baseline, case.placebo):
            if arm is not None:
                yield from arm.draws
