"""What ``driftproof stale`` compares of the conditions main's newer features add: the neighbour skills a
``discover`` run installs in both arms, pairwise judging, the placebo arm and the judge-anchor canaries. Pure.

`driftproof.core.stale.stale` asks `conditions` and folds its answer into its own findings:

- **Neighbour skills** are installed beside the skill under test in every draw of both arms, so they are part of
  what the baseline arm measured: a neighbour added, removed or edited draws *both* arms again (the reason names
  each neighbour, by install name and text sha256). A ``discover`` receipt of schema 0.17 that does not record
  them is unknown, never current; a receipt older than 0.17 (when no run installed neighbours) or one delivered
  any other way installed none.
- **Pairwise judging** and the **canaries** are beside the verdict: a difference leaves every arm standing and is
  an advisory saying the receipt's pairwise (or canary) figures do not stand for this run.
- **The placebo arm** is not one of stale's two arms: its text follows from the skill's token length, so a
  difference (another length, another generator, a placebo asked on one side only) is an advisory saying whether
  the placebo arm stands. Each is an advisory, so a promotion (which stands only with none) is refused.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from driftproof.core import stale_condition_sentences as say
from driftproof.core.models import NeighbourSkill, PairwiseSettings, PlaceboText, Receipt
from driftproof.core.stale_sentences import stale_unknown
from driftproof.core.words import Delivery

NEIGHBOURS_SINCE = (0, 17)
"""The schema version whose runs first installed neighbour skills (and record them in ``skill.neighbours``)."""


class CanariesToday(NamedTuple):
    """The judge-anchor canaries a run would judge: where the set comes from and its ``set_sha256``."""

    source: str
    set_sha256: str


@dataclass(frozen=True, slots=True)
class ConditionsToday:
    """What a run with these flags would install, judge and draw beside the two arms, gathered without a call."""

    neighbours: tuple[NeighbourSkill, ...] | None
    """With ``discover`` delivery, the neighbour skills installed in both arms (empty: none); ``None`` otherwise."""
    pairwise: PairwiseSettings | None
    """With ``--judge-mode pairwise``, its template; ``None`` for absolute judging alone."""
    placebo: PlaceboText | None
    """With ``--placebo``, the placebo text's record; ``None`` without."""
    canaries: CanariesToday | None
    """The canaries the run would judge; ``None`` when it judges none."""


class ConditionReport(NamedTuple):
    """What the conditions add to a stale report."""

    rerun_both: tuple[str, ...]
    """Reasons that draw both arms of every case again."""
    advisories: tuple[str, ...]
    unknown: tuple[str, ...]
    """Receipt fields not recorded, as dotted paths."""


def _version(receipt: Receipt) -> tuple[int, ...]:
    return tuple(int(part) for part in receipt.schema_version.split("."))


def neighbour_parts(recorded: Sequence[NeighbourSkill], today: Sequence[NeighbourSkill]) -> list[str]:
    """What differs between two sets of neighbours, by install name in name order (texts by 12 digits).

    >>> beta = NeighbourSkill(name="beta", path="b/SKILL.md", sha256="1a2b3c4d5e6f" + "0" * 52, chars=9)
    >>> edited = beta.model_copy(update={"sha256": "9f8e7d6c5b4a" + "0" * 52})
    >>> gamma = beta.model_copy(update={"name": "gamma"})
    >>> neighbour_parts([beta], [edited, gamma])
    ['beta 1a2b3c4d5e6f → 9f8e7d6c5b4a', 'gamma added (1a2b3c4d5e6f)']
    >>> neighbour_parts([beta], []), neighbour_parts([beta], [beta.model_copy(update={"path": "moved"})])
    (['beta removed (1a2b3c4d5e6f)'], [])
    """

    def texts(skills: Sequence[NeighbourSkill]) -> dict[str, str]:
        named: dict[str, list[str]] = {}
        for skill in skills:
            named.setdefault(skill.name, []).append(skill.sha256[:12])
        return {name: "+".join(sorted(shas)) for name, shas in named.items()}

    before, after = texts(recorded), texts(today)
    parts = []
    for name in sorted(before.keys() | after.keys()):
        was, now = before.get(name), after.get(name)
        if was is None and now is not None:
            parts.append(say.neighbour_added(name, now))
        elif now is None and was is not None:
            parts.append(say.neighbour_removed(name, was))
        elif was != now:
            parts.append(f"{name} {was} → {now}")
    return parts


def _neighbours(receipt: Receipt, today: ConditionsToday, out: list[str], unknown: list[str]) -> None:
    recorded = receipt.skill.neighbours if receipt.skill is not None else None
    now = today.neighbours or ()
    if recorded is None:
        delivery = receipt.run.settings.delivery
        if (delivery == Delivery.DISCOVER and _version(receipt) >= NEIGHBOURS_SINCE) or (delivery is None and now):
            unknown.append("skill.neighbours")
            out.append(stale_unknown("neighbour skills"))
            return
        recorded = []  # delivered another way, or written before any run installed neighbours: none
    parts = neighbour_parts(recorded, now)
    if parts:
        out.append(say.neighbours_changed(parts))


def _pairwise(setting: PairwiseSettings | None) -> str:
    return "none" if setting is None else f"{setting.template_version} ({setting.template_sha256[:12]})"


def _placebo(text: PlaceboText) -> str:
    return f"{text.sha256[:12]}, {text.tokens} tokens, {text.generator}"


def _side_notes(receipt: Receipt, today: ConditionsToday) -> list[str]:
    """The advisories: pairwise judging, the placebo arm, the canaries."""
    notes = []
    recorded_pairwise = receipt.judge.pairwise if receipt.judge is not None else None
    if recorded_pairwise != today.pairwise:
        notes.append(say.pairwise_changed(_pairwise(recorded_pairwise), _pairwise(today.pairwise)))
    placebo, now = receipt.placebo, today.placebo
    if placebo is not None and now is None:
        notes.append(say.placebo_dropped(placebo.sha256[:12]))
    elif placebo is None and now is not None:
        notes.append(say.PLACEBO_NEW)
    elif placebo is not None and now is not None and placebo != now:
        notes.append(say.placebo_changed(_placebo(placebo), _placebo(now)))
    anchors = receipt.canaries
    was = CanariesToday(anchors.source, anchors.set_sha256) if anchors is not None else None
    if was != today.canaries:
        shown = [f"{c.source} set {c.set_sha256[:12]}" if c else "none" for c in (was, today.canaries)]
        notes.append(say.canaries_changed(*shown))
    return notes


def conditions(receipt: Receipt, today: ConditionsToday) -> ConditionReport:
    """The neighbours' reasons (both arms drawn again), the side conditions' advisories, the unknown fields."""
    rerun: list[str] = []
    unknown: list[str] = []
    _neighbours(receipt, today, rerun, unknown)
    return ConditionReport(tuple(rerun), tuple(_side_notes(receipt, today)), tuple(unknown))
