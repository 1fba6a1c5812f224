"""The deterministic model behind the fake server: an answer per case and arm, a score per arm.

Every answer to a case's arm is the same text and every judge call on it gives the same score, so a run's
receipt does not depend on the order of its calls: an interrupted and resumed run must end with the
receipt of an uninterrupted one. With the skill (the request has a system prompt) an answer scores 0.8,
without it 0.4, plus 0.05 per case index modulo 3.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from tests.support.fake_llm_script import FakeReply, FakeUsage, RecordedRequest, json_text_reply

CASE_IN_PROMPT = re.compile(r"change (c\d+)\.")
ANSWER_BLOCK = re.compile(r"<<<ANSWER\n(.*?)\nANSWER>>>", re.S)
TAG = re.compile(r"\[(c\d+) (with|base)\]")


def case_of(text: str) -> str:
    found = CASE_IN_PROMPT.search(text)
    return found.group(1) if found else "c0"


def score_for(case: str, arm: str) -> float:
    """0.8 with the skill, 0.4 without, plus 0.05 · (case index mod 3)."""
    bump = 0.05 * (int(case[1:]) % 3) if case[1:].isdigit() else 0.0
    return round((0.8 if arm == "with" else 0.4) + bump, 2)


@dataclass
class ScoredModel:
    """A responder for `FakeLLMServer`: ``pad`` characters of filler make answers as long as a part needs."""

    pad: int = 0

    def __call__(self, request: RecordedRequest) -> FakeReply:
        prompt = request.prompt_text
        block = ANSWER_BLOCK.search(prompt)
        if block is not None:
            tag = TAG.search(block.group(1))
            case, arm = (tag.group(1), tag.group(2)) if tag else ("c0", "base")
            usage = FakeUsage(input_tokens=200, output_tokens=20)
            return json_text_reply({"score": score_for(case, arm), "reason": "as scripted"}, usage=usage)
        case = case_of(prompt)
        arm = "with" if request.system_text else "base"
        subject = f"feat({case}): handle the change" if arm == "with" else f"Handle the change in {case}"
        text = f"{subject}\n\nWhy: it was broken. [{case} {arm}]" + ("\n" + "x" * self.pad if self.pad else "")
        return FakeReply(text=text, usage=FakeUsage(input_tokens=50 if arm == "with" else 30, output_tokens=10))


def request_model(body: bytes) -> str:
    """The ``model`` a request body asks for (the fake echoes it), or a placeholder."""
    try:
        model = json.loads(body).get("model")
    except (ValueError, AttributeError):
        model = None
    return model if isinstance(model, str) else "fake-model"
