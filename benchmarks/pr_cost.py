"""Cost per PR check (issue 14): tokens (input, cached, output) and dollars at the bundled prices for a 10-case PR
that edits only the skill, today's behaviour against carrying the standing baseline, on the loopback server.

The server answers every call in the Anthropic wire format with usage sized from the request: input tokens
ceil(chars / 4) of the system and user text (a ~6,000-character skill, ~1,200-character prompts: realistic
sizes), 120 output tokens per answer and 60 per judge reply. Each scenario is one row: the stored receipt is drawn
``--as-reference`` first (the store job), then the PR run is measured, as the Action makes it. Rows are a list of
``Scenario``; the prompt-caching and judge ``n`` sampling work add theirs (cached tokens come from that work: this
script's rows report what the server counted as cache reads, 0 today). Prices: the bundled table's entry for the
answering and judge model. Run: ``.venv/bin/python benchmarks/pr_cost.py``. Prints a table; asserts nothing.
"""

from __future__ import annotations

import math
import os
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from driftproof.prices import price_for  # noqa: E402
from driftproof.run import RunRequest, run_suite  # noqa: E402
from tests.support.fake_llm_script import FakeReply, FakeUsage, json_text_reply  # noqa: E402
from tests.support.fake_llm_server import FakeLLMServer  # noqa: E402

MODEL = "claude-haiku-4-5"
CASES = 10
SKILL = "# Commit messages\n\n" + "Write Conventional Commits; explain why, not what. " * 120  # ~6,100 chars
PROMPT = "Write a commit message for this change:\n" + "diff --git a/x b/x\n+ a changed line\n" * 32  # ~1,200


def responder(request: object) -> FakeReply:
    text = request.all_text  # type: ignore[attr-defined]
    judge = "<<<ANSWER" in request.prompt_text  # type: ignore[attr-defined]
    usage = FakeUsage(input_tokens=math.ceil(len(text) / 4), output_tokens=60 if judge else 120)
    if judge:
        return json_text_reply({"score": 0.8, "reason": "fine"}, model=f"{MODEL}-20251001", usage=usage)
    return FakeReply(text="feat: an answer\n\nBecause.", model=f"{MODEL}-20251001", usage=usage)


@dataclass(frozen=True)
class Scenario:
    """One row: how the PR run is made, given the stored receipt."""

    name: str
    pr_flags: dict[str, object]


SCENARIOS = [
    Scenario("today (both arms drawn)", {"carry_baseline": False}),
    Scenario("carry the standing baseline", {"carry_baseline": True}),
]


def _tally(server: FakeLLMServer, since: int) -> tuple[int, int, int, int]:
    """Calls, input, cached and output tokens the server answered since request number ``since``."""
    calls = input_tokens = cached = output = 0
    for req in server.requests[since:]:
        reply = responder(req)
        calls += 1
        input_tokens += reply.usage.input_tokens or 0
        cached += reply.usage.cache_read_tokens or 0
        output += reply.usage.output_tokens or 0
    return calls, input_tokens, cached, output


def main() -> None:
    price = price_for(MODEL)
    assert price is not None
    with tempfile.TemporaryDirectory() as tmp, FakeLLMServer(responder) as server:
        root = Path(tmp)
        (root / "SKILL.md").write_text(SKILL, encoding="utf-8")
        cases = [{"id": f"c{i}", "prompt": f"{PROMPT}(case {i})", "rubric": "Why, not what."} for i in range(CASES)]
        suite = root / "suite.yaml"
        suite.write_text(yaml.safe_dump({"skill": "SKILL.md", "cases": cases}), encoding="utf-8")
        env = {**os.environ, "ANTHROPIC_API_KEY": "sk-ant-bench", "ANTHROPIC_BASE_URL": server.base_url}
        base: Callable[..., RunRequest] = lambda **kw: RunRequest(  # noqa: E731
            suite=suite, provider="anthropic", model=MODEL, environ=env, concurrency=16, **kw
        )
        devnull = open(os.devnull, "w")  # noqa: SIM115
        stored = run_suite(base(out=root / "main.json", as_reference=True), progress_stream=devnull).receipt
        (root / "SKILL.md").write_text(SKILL + "\nAlso name the issue.\n", encoding="utf-8")  # the PR: skill only
        print(f"{CASES}-case PR that edits only the skill · {MODEL} answering and judging · bundled prices")
        print(f"{'scenario':<30} {'calls':>6} {'input':>10} {'cached':>8} {'output':>8} {'USD':>8}")
        for scenario in SCENARIOS:
            since = len(server.requests)
            run_suite(base(out=root / "pr.json", reference=stored, **scenario.pr_flags), progress_stream=devnull)
            calls, inp, cached, out = _tally(server, since)
            usd = (inp * price.input_per_mtok + out * price.output_per_mtok) / 1e6
            print(f"{scenario.name:<30} {calls:>6} {inp:>10,} {cached:>8,} {out:>8,} {usd:>8.3f}")


if __name__ == "__main__":
    main()
