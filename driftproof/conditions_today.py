"""What a run would install, judge and draw beside its two arms today: the facts `driftproof.core.stale_conditions`
compares (neighbour skills, pairwise judging, the placebo text, the judge-anchor canaries). No model is called.

The neighbours are read exactly as a run reads them (`driftproof.suite.neighbour_texts`) and recorded by the
name a lane installs them under (`driftproof.core.fired.skill_name`); a run records the same list in
``skill.neighbours`` (`neighbour_records`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from driftproof.canaries import canary_set
from driftproof.core.canaries import set_hash
from driftproof.core.economics import estimate_tokens
from driftproof.core.fired import skill_name
from driftproof.core.models import NeighbourSkill
from driftproof.core.placebo import placebo_record, placebo_text
from driftproof.core.seal import sha256_text
from driftproof.core.stale_conditions import CanariesToday, ConditionsToday
from driftproof.core.words import Delivery, JudgeMode
from driftproof.judge_pairwise import PAIRWISE_SETTINGS
from driftproof.suite import Suite, neighbour_texts


def neighbour_records(suite: Suite, texts: Sequence[str]) -> tuple[NeighbourSkill, ...]:
    """The receipt's ``skill.neighbours``: each declared neighbour with the text a run installs for it."""
    return tuple(
        NeighbourSkill(name=skill_name(text), path=str(path), sha256=sha256_text(text), chars=len(text))
        for path, text in zip(suite.neighbours, texts, strict=True)
    )


def installed_neighbours_today(suite: Suite, delivery: str) -> tuple[NeighbourSkill, ...] | None:
    """With ``discover`` delivery, the neighbours a run would install in both arms (empty: none); else ``None``."""
    if delivery != Delivery.DISCOVER:
        return None
    return neighbour_records(suite, neighbour_texts(suite)) if suite.neighbours else ()


class RunChoices(Protocol):
    """The run's choices the conditions depend on: a `driftproof.run.RunRequest` or a `driftproof.carry.RunFacts`."""

    @property
    def delivery(self) -> str: ...
    @property
    def judge_mode(self) -> str: ...
    @property
    def placebo(self) -> bool: ...
    @property
    def canaries(self) -> bool: ...
    @property
    def default_canaries(self) -> bool: ...


def conditions_today(suite: Suite, skill_text: str, run: RunChoices) -> ConditionsToday:
    """The conditions a run of these choices would record (``run.canaries``: whether it judges its canaries)."""
    anchors = canary_set(suite, run.canaries, default=run.default_canaries)
    return ConditionsToday(
        neighbours=installed_neighbours_today(suite, run.delivery),
        pairwise=PAIRWISE_SETTINGS if run.judge_mode == JudgeMode.PAIRWISE else None,
        placebo=placebo_record(placebo_text(estimate_tokens(skill_text))) if run.placebo else None,
        canaries=CanariesToday(anchors.source, set_hash(anchors.specs())) if anchors is not None else None,
    )
