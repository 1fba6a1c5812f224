"""The stub lane: no network, no endpoint attempts, deterministic. Receipts from it read UNVERIFIED.

Without a script it answers every prompt with a fixed text and, as a judge, gives synthetic scores
(a per-case level, a lift of 0.1 for answers made with the skill, and small draw and sample noise on the
0.05 grid), so a demo shows bands. With ``--script FILE`` each draw's answer and judge scores are fixed,
or the draw is marked lost, per case and arm: any scenario is reproducible offline.

Script format (YAML or JSON)::

    default:                       # optional, for any case or arm the script does not list
      answer: "An answer."
      scores: [0.5]
    cases:
      <case id>:
        with_skill:                # draw k uses entry k modulo the list's length
          - answer: "feat: ..."
            scores: [0.8, 0.85]    # judge sample j uses scores[j % len]; null = an invalid sample
          - lost: timeout          # the draw is lost with this reason
          - answer: "..."
            judge_replies: ['{"score": 0.7, "reason": "ok"}', 'no idea']   # raw judge texts
        baseline:
          - answer: "..."
            scores: [0.5]
        pairwise:                  # --judge-mode pairwise: draw pair i uses entry i modulo the list's length
          - [A, B]                 # the positions the judge picks in the first call (with-skill as A) and the
                                   # swapped one (A, B or tie; null = an unparseable reply): [A, B] prefers the
                                   # with-skill answer twice, [A, A] follows the position
    pairwise_choice: A             # optional: a judge that always picks this position (A, B or tie), for any
                                   # pair the script does not list: full position bias
    canaries:                      # optional: judge scores of a judge-anchor canary, by canary id
      <canary id>:                 # (unscripted, the stub judge scores a canary at its expected score)
        scores: [0.4, 0.45]

Without a pairwise entry the stub judge prefers the with-skill answer in both orders.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from driftproof._version import __version__
from driftproof.bounded import INPUT, load_data, read_capped
from driftproof.core.fields import found, is_finite_number
from driftproof.core.pairwise import CHOICES, PAIRWISE_ARM
from driftproof.core.words import Provider, Surface
from driftproof.errors import InputError
from driftproof.lanes.base import Generation, GenerationRequest, Lane
from driftproof.native_suite import key_name, not_a_key
from driftproof.suite import Suite

STUB_MODEL = "stub-model"
STUB_JUDGE = "stub-judge"
CANARY_ARM = "canary"
"""The ``arm`` of a judge-anchor canary's judge request (`driftproof.canaries`)."""
SCRIPT_KEYS = ("default", "cases", "pairwise_choice", "canaries")
"""The top-level keys of a stub script (the module's docstring shows each)."""
_CASE_IN_PROMPT = re.compile(r"^- id: (\S+) \(weight", re.M)


@dataclass(frozen=True, slots=True)
class ScriptedDraw:
    """One scripted draw."""

    answer: str | None = None
    lost: str | None = None
    scores: tuple[float | None, ...] = ()
    judge_replies: tuple[str, ...] = ()


def _unit(*parts: object) -> float:
    """A deterministic number in [0, 1) from its parts."""
    digest = hashlib.sha256("\x1f".join(str(p) for p in parts).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def _grid(x: float) -> float:
    return min(1.0, max(0.0, round(x * 20) / 20))


def load_script(path: Path) -> dict[str, Any]:
    """Read and check a stub script; one ``InputError`` line naming the file and the field.

    Case ids are keys as the suite writes them: a YAML key ``1`` names the case ``"1"``.
    """
    try:
        raw = read_capped(path, INPUT, InputError, "a stub script")
    except OSError as exc:
        raise InputError(f"{path}: cannot read the stub script ({exc.strerror})") from None
    data = load_data(
        raw, str(path), as_json=path.suffix == ".json", limits=INPUT, error=InputError, what="a stub script"
    )
    if not isinstance(data, dict) or not isinstance(data.get("cases", {}), dict):
        raise InputError(f"{path}: a stub script is a mapping with a 'cases' mapping")
    for key in data:  # a typo (case:, an arm at the top) would script nothing: the run would read synthetic scores
        if key not in SCRIPT_KEYS:
            raise InputError(f"{path}: {key_name(key)}: {not_a_key(key, SCRIPT_KEYS, 'a stub script')}")
    cases: dict[str, Any] = {}
    for key, arms in data.get("cases", {}).items():
        cid = str(key).lower() if isinstance(key, bool) else str(key)
        if cid in cases:
            raise InputError(f"{path}: cases.{cid}: listed twice")
        cases[cid] = arms
        if not isinstance(arms, dict):
            raise InputError(f"{path}: cases.{cid}: a mapping of arms (with_skill, baseline, placebo)")
        for arm, entries in arms.items():
            if arm == PAIRWISE_ARM:
                _pairwise_entries(entries, f"{path}: cases.{cid}.{arm}")
                continue
            if arm not in ("with_skill", "baseline", "placebo"):
                raise InputError(f"{path}: cases.{cid}.{arm}: the arms are with_skill, baseline and placebo")
            if not isinstance(entries, list) or not entries:
                raise InputError(f"{path}: cases.{cid}.{arm}: a non-empty list of draws")
            for k, entry in enumerate(entries):
                _parse_entry(entry, f"{path}: cases.{cid}.{arm}[{k}]")
    if "default" in data:
        _parse_entry(data["default"], f"{path}: default")
    if data.get("pairwise_choice", "A") not in CHOICES:
        raise InputError(f"{path}: pairwise_choice: A, B or tie, found {found(data['pairwise_choice'])}")
    anchors = data.get("canaries", {})
    if not isinstance(anchors, dict):
        raise InputError(f"{path}: canaries: a mapping of canary ids to judge scores ({{scores: [...]}})")
    for key, entry in anchors.items():
        _parse_entry(entry, f"{path}: canaries.{key}")
    return {**data, "cases": cases, "canaries": {str(k): v for k, v in anchors.items()}}


def _pairwise_entries(entries: Any, where: str) -> None:
    """A case's scripted pairwise choices: a non-empty list of [first, second], each A, B, tie or null."""
    if not isinstance(entries, list) or not entries:
        raise InputError(f"{where}: a non-empty list of [first, second] choices")
    for k, entry in enumerate(entries):
        if not (isinstance(entry, list) and len(entry) == 2 and all(c is None or c in CHOICES for c in entry)):
            raise InputError(f"{where}[{k}]: two choices, each A, B, tie or null, found {found(entry)}")


def check_script(script: dict[str, Any], suite: Suite, path: Path) -> None:
    """Refuse a script entry for a case the suite does not have (a typo would silently script nothing)."""
    ids = [c.id for c in suite.cases]
    for cid in script.get("cases", {}):
        if cid not in ids:
            listed = ", ".join(ids[:10]) + (f", ... ({len(ids)} cases)" if len(ids) > 10 else "")
            raise InputError(f"{path}: cases.{cid}: no such case in {suite.path} (cases: {listed})")


def _scores(scores: Any, where: str) -> tuple[float | None, ...]:
    if not isinstance(scores, list):
        raise InputError(f"{where}.scores: a list of scores from 0 to 1, found {found(scores)}")
    for j, s in enumerate(scores):
        if s is not None and not (is_finite_number(s) and 0 <= s <= 1):
            raise InputError(
                f"{where}.scores[{j}]: a score from 0 to 1 (or null for an invalid sample), found {found(s)}"
            )
    return tuple(scores)


def _parse_entry(entry: Any, where: str) -> ScriptedDraw:
    if not isinstance(entry, dict):
        raise InputError(f"{where}: a draw is a mapping (answer, scores, judge_replies or lost)")
    unknown = set(entry) - {"answer", "lost", "scores", "judge_replies"}
    if unknown:
        raise InputError(f"{where}: unknown key {sorted(map(str, unknown))[0]!r}")
    scores = _scores(entry.get("scores", []), where)
    if "scores" in entry and not scores:  # an empty list would leave the draw the stub's synthetic scores
        raise InputError(f"{where}.scores: an empty list; give a score, or leave scores out for the stub's own")
    replies = entry.get("judge_replies", [])
    if not isinstance(replies, list) or not all(isinstance(r, str) for r in replies):
        raise InputError(f"{where}.judge_replies: a list of strings")
    lost, answer = entry.get("lost"), entry.get("answer")
    if lost is not None and not (isinstance(lost, str) and lost.strip()):
        raise InputError(f"{where}.lost: a reason (text)")
    for key, what in (("answer", "answer"), ("scores", "scores"), ("judge_replies", "judge replies")):
        if lost is not None and key in entry:  # a lost draw is never answered nor judged: it would be ignored
            raise InputError(f"{where}: a lost draw has no {what}: drop '{key}' or 'lost'")
    if answer is not None and not isinstance(answer, str):
        raise InputError(f"{where}.answer: text")
    return ScriptedDraw(answer, lost, scores, tuple(replies))


class StubLane(Lane):
    """Deterministic answers and judge replies; makes no endpoint attempt."""

    DEFAULT_MODEL = STUB_MODEL
    provider = Provider.STUB
    surface: Surface = Surface.NONE

    def __init__(self, model: str | None = None, *, script: dict[str, Any] | None = None) -> None:
        self._script = script or {}
        self._model = model

    def default_model(self) -> str:
        """The id the stub reports."""
        return STUB_MODEL

    def tool_version(self) -> str:
        """The stub is part of Driftproof: its version is Driftproof's."""
        return f"driftproof-stub {__version__}"

    def isolation(self) -> str:
        """The stub makes no call."""
        return "none needed: the stub lane makes no call"

    def _entry(self, case_id: str, arm: str, index: int) -> ScriptedDraw | None:
        if arm == CANARY_ARM:  # a judge-anchor canary: the script's `canaries` entry, never its default
            anchor = self._script.get("canaries", {}).get(case_id)
            return _parse_entry(anchor, "script") if anchor is not None else None
        entries = self._script.get("cases", {}).get(case_id, {}).get(arm)
        if entries:
            return _parse_entry(entries[index % len(entries)], "script")
        if "default" in self._script:
            return _parse_entry(self._script["default"], "script")
        return None

    def generate(self, request: GenerationRequest) -> Generation:
        """An answer, or a judge reply when ``request.purpose`` is ``judge``."""
        if request.purpose == "judge":
            return self._judge(request)
        entry = self._entry(request.case_id, request.arm, request.draw_index)
        model = request.model or STUB_MODEL
        if entry is not None and entry.lost:
            return Generation(text="", reported_model=model, attempts=0, lost_reason=f"{entry.lost} (scripted)")
        if entry is not None and entry.answer is not None:
            return Generation(text=entry.answer, reported_model=model, attempts=0)
        with_skill = "with the skill" if request.system else "without a skill"
        text = f"Stub answer to {request.case_id}, {with_skill}, draw {request.draw_index + 1}."
        return Generation(text=text, reported_model=model, attempts=0)

    def _judge(self, request: GenerationRequest) -> Generation:
        reply = self._pairwise_reply(request) if request.arm == PAIRWISE_ARM else self._judge_reply(request)
        return replace(reply, reported_ids=(request.model or STUB_JUDGE,))

    def _pairwise_reply(self, request: GenerationRequest) -> Generation:
        """A pairwise reply: the scripted choice of this call, else the fixed position of ``pairwise_choice``,
        else the with-skill answer's position (A in the first call, B in the swapped one)."""
        model = request.model or STUB_JUDGE
        entries = self._script.get("cases", {}).get(request.case_id, {}).get(PAIRWISE_ARM)
        if entries:
            choice = entries[request.draw_index % len(entries)][request.sample_index]
        else:
            choice = self._script.get("pairwise_choice", "AB"[request.sample_index % 2])
        if choice is None:
            return Generation(text="Both are fine, I think.", reported_model=model, attempts=0)
        return Generation(
            text=json.dumps({"better": choice, "reason": "stub choice"}), reported_model=model, attempts=0
        )

    def _judge_reply(self, request: GenerationRequest) -> Generation:
        model = request.model or STUB_JUDGE
        entry = self._entry(request.case_id, request.arm, request.draw_index)
        if entry is not None and entry.judge_replies:
            text = entry.judge_replies[request.sample_index % len(entry.judge_replies)]
            return Generation(text=text, reported_model=model, attempts=0)
        if entry is not None and entry.scores:
            score = entry.scores[request.sample_index % len(entry.scores)]
        elif request.anchor is not None:  # an unscripted canary: the stub judge scores it as pre-graded
            score = _grid(request.anchor)
        else:
            score = self._synthetic(request)
        if score is None:
            return Generation(text="I cannot grade this.", reported_model=model, attempts=0)
        criteria = _CASE_IN_PROMPT.findall(request.prompt)
        if criteria:  # criteria mode: the first round(score * n) criteria are met
            met = round(score * len(criteria))
            items = [{"id": c, "met": i < met, "reason": "stub decision"} for i, c in enumerate(criteria)]
            return Generation(text=json.dumps({"criteria": items}), reported_model=model, attempts=0)
        return Generation(text=json.dumps({"score": score, "reason": "stub score"}), reported_model=model, attempts=0)

    @staticmethod
    def _synthetic(request: GenerationRequest) -> float:
        level = 0.35 + 0.05 * int(_unit("level", request.case_id) * 8)
        lift = 0.1 if request.arm == "with_skill" else 0.0
        draw = 0.05 * (int(_unit("draw", request.case_id, request.arm, request.draw_index) * 3) - 1)
        sample = 0.05 * (
            int(_unit("sample", request.case_id, request.arm, request.draw_index, request.sample_index) * 3) - 1
        )
        return _grid(level + lift + draw + sample)
