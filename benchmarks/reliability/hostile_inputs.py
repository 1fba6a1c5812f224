"""Where part 4 puts hostile content: receipts built with it in every shown field, a suite, and a fake model
whose answers, model ids, judge replies and error messages carry it.

Every field has a two-letter tag (see `hostile_scan.payload`); `FIELDS` maps tags to what the field is, so
a finding names it. ``..b`` tags carry the 1 MB payload.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import yaml

from benchmarks.reliability.hostile_scan import big, payload
from tests.support.fake_llm_script import FakeReply, RecordedRequest, json_text_reply

FIELDS = {
    "ci": "receipt case id",
    "cb": "receipt case id (1 MB)",
    "sn": "receipt suite name",
    "mr": "receipt lane model_requested",
    "mp": "receipt lane models_reported",
    "mb": "receipt lane models_reported (1 MB)",
    "jm": "receipt judge model_requested",
    "jr": "receipt judge models_reported",
    "lr": "receipt lost_reason",
    "lb": "receipt lost_reason (1 MB)",
    "vr": "receipt verification_reason",
    "tv": "receipt tool version",
    "no": "receipt suite notice",
    "cn": "receipt case notice",
    "ck": "receipt check name",
    "an": "suite name",
    "pr": "suite prompt",
    "ru": "suite rubric",
    "aw": "model answer",
    "ab": "model answer (1 MB)",
    "am": "answering model id reported",
    "jx": "judge model id reported",
    "jy": "judge reply",
    "le": "endpoint error message (lost reason)",
    "lm": "endpoint error message (1 MB)",
}
NUMBERS = {f"{10 + i}": name for i, name in enumerate(FIELDS.values())}
"""``#9<n>7``: n (two digits) to the field it was put in."""


def hostile(tag: str) -> str:
    """The payload of field ``tag``; the 1 MB one for the ``..b`` and ``lm`` tags."""
    if tag.endswith("b") or tag == "lm":
        return big(tag)
    return payload(tag, 10 + list(FIELDS).index(tag))


# -- receipts (view and diff) ----------------------------------------------------------------------------


def _hostile_arm(with_lost: bool) -> dict[str, Any]:
    from tests.support.builders import arm

    scores: list[float | None] = [0.8, 0.85, 0.8, 0.82] if not with_lost else [0.4, None, 0.42, None, 0.41]
    doc = arm(scores).model_dump(mode="json")
    lost = [d for d in doc["draws"] if d["status"] == "lost"]
    for d, tag in zip(lost, ("lr", "lb"), strict=False):
        d["lost_reason"] = hostile(tag)
    for d in doc["draws"]:
        if d["status"] == "measured":
            d["checks"] = [{"name": hostile("ck"), "kind": "contains", "pass": True}]
            d["reported_model"] = hostile("mp")
    return doc


def hostile_receipt(*, tested: bool, shift: float = 0.0) -> str:
    """A sealed receipt (file text) with hostile content in every string field a report shows."""
    from driftproof.core.seal import seal_receipt
    from driftproof.receipts import receipt_json

    cases = []
    for cid in (hostile("ci"), hostile("cb"), "plain-case"):
        with_arm = _hostile_arm(with_lost=False)
        for d in with_arm["draws"]:
            d["score"] = round(min(1.0, d["score"] - shift), 4)
            for s in d["judge_samples"]:
                s["score"] = d["score"]
        cases.append(
            {"id": cid, "notices": [hostile("cn")], "with_skill": with_arm, "baseline": _hostile_arm(with_lost=True)}
        )
    body: dict[str, Any] = {
        "tool": {"name": "driftproof", "version": hostile("tv")},
        "verification": "TESTED" if tested else "UNVERIFIED",
        "verification_reason": None if tested else hostile("vr"),
        "run": {
            "lane": {
                "provider": "anthropic",
                "surface": "api",
                "model_requested": hostile("mr"),
                "models_reported": sorted([hostile("mp"), hostile("mb")]),
            },
            "capture": "text",
        },
        "suite": {"name": hostile("sn"), "format": "native", "notices": [hostile("no")]},
        "judge": {
            "provider": "anthropic",
            "surface": "api",
            "model_requested": hostile("jm"),
            "models_reported": [hostile("jr")],
        },
        "skill": {"path": "SKILL.md", "sha256": "0" * 64, "chars": 1600, "tokens": 400},
        "cases": cases,
    }
    return receipt_json(seal_receipt(body))


# -- the suite and the fake model (the Action) ------------------------------------------------------------


def hostile_suite(case_ids: tuple[str, ...]) -> str:
    """A native suite whose name, prompts and rubrics are hostile (case ids must match ``[A-Za-z0-9._-]``)."""
    cases = [
        {"id": cid, "prompt": f"Write a commit message for change {cid}. {hostile('pr')}", "rubric": hostile("ru")}
        for cid in case_ids
    ]
    name = hostile("an")[:200]
    return yaml.safe_dump({"name": name, "skill": "../SKILL.md", "threshold": 0.7, "cases": cases}, width=10_000)


_ANSWER = re.compile(r"<<<ANSWER\n(.*?)\nANSWER>>>", re.S)
_TAG = re.compile(r"\[case=(\S+) arm=(\S+) draw=(\d+)\]")
_CASE = re.compile(r"change (\S+)\. ")


@dataclass
class HostileModel:
    """Answers and judge replies for the Action jobs; thread-safe (the Action runs calls concurrently).

    Baseline draw 1 of each case ends in a 500 whose message is hostile, draw 2 in a 503 with the 1 MB
    message (neither retried); the with-skill answer of draw 1 of the first case carries the 1 MB payload;
    the first judge sample of each with-skill draw 0 is a hostile reply with no usable score.
    """

    hostile_judge_model: bool = False
    answers: list[str] = field(default_factory=list)
    _counts: dict[tuple[str, str], int] = field(default_factory=dict)
    _judged: set[tuple[str, str, int]] = field(default_factory=set)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, request: RecordedRequest) -> FakeReply:
        block = _ANSWER.search(request.prompt_text)
        if block is not None:
            return self._judge(block.group(1))
        found = _CASE.search(request.prompt_text)
        case = found.group(1) if found else "?"
        arm = "with_skill" if request.system_text else "baseline"
        with self._lock:
            draw = self._counts.get((case, arm), 0)
            self._counts[(case, arm)] = draw + 1
        if arm == "baseline" and draw == 1:
            return FakeReply.error(500, message=hostile("le"), should_retry=False)
        if arm == "baseline" and draw == 2:
            return FakeReply.error(503, message=hostile("lm"), should_retry=False)
        text = f"{hostile('aw')}\n[case={case} arm={arm} draw={draw}]"
        if arm == "with_skill" and draw == 1 and case.endswith("0"):
            text += "\n" + hostile("ab")
        with self._lock:
            self.answers.append(text)
        return FakeReply(text=text, model=f"claude-sonnet-5-5 {hostile('am')}")

    def _judge(self, answer: str) -> FakeReply:
        tag = _TAG.search(answer)
        case, arm, draw = (tag.group(1), tag.group(2), int(tag.group(3))) if tag else ("?", "baseline", 0)
        model = f"claude-haiku-4-5 {hostile('jx')}" if self.hostile_judge_model else None
        with self._lock:
            first = (case, arm, draw) not in self._judged
            self._judged.add((case, arm, draw))
        if arm == "with_skill" and draw == 0 and first:
            return FakeReply(text=json.dumps({"score": hostile("jy")}), model=model)
        score = 0.85 if arm == "with_skill" else 0.3 + 0.05 * (draw % 3)
        return json_text_reply({"score": score, "reason": hostile("jy")}, model=model)


def stored_receipt(case_ids: tuple[str, ...], judge: Mapping[str, Any]) -> bytes:
    """The default branch's receipt for the Action jobs: 12 draws per arm, hostile lost reasons and model ids."""
    from driftproof.receipts import receipt_json
    from tests.support.builders import arm, receipt

    with_scores: list[float | None] = [0.85] * 12
    base_scores: list[float | None] = [0.2, 0.25, 0.3, 0.2, 0.25, 0.3, 0.2, 0.25, 0.3, None, None, 0.25]
    built = receipt(
        {cid: (with_scores, arm(base_scores, reason=hostile("lr"))) for cid in case_ids},
        extra={
            "judge": dict(judge),
            "tool": {"name": "driftproof", "version": hostile("tv")},
        },
    )
    doc = built.model_dump(mode="json")
    doc["run"]["lane"]["models_reported"] = [hostile("mp")]
    doc["suite"]["name"] = hostile("sn")
    from driftproof.core.seal import seal_receipt

    return receipt_json(seal_receipt({k: v for k, v in doc.items() if k not in ("seal", "schema_version")})).encode()
