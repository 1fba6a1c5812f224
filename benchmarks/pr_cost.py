"""Cost per PR check (issue 14): tokens (input, cached, output) and dollars at the bundled prices for a 10-case PR
that edits only the skill, today's behaviour against carrying the standing baseline, on the loopback server.

The server answers every call in the Anthropic and the OpenAI wire formats with usage sized from the request:
input tokens ceil(chars / 4) of the system and user text (a ~6,000-character skill, ~1,200-character prompts:
realistic sizes), counted once per request, 120 output tokens per answer and 60 per judge reply (per choice: a
Chat Completions request for ``n`` choices bills n × 120 or n × 60). The OpenAI rows show what asking a draw's
judge samples in one request (``n``) saves: the judge prompt is sent, and billed, once for the draw instead of
once per sample; then what asking an arm's draws of a round in one request saves: the skill and the prompt once
for the round instead of once per draw. "Today" there is one request per sample and per draw, as before issue 14
(the server ignores ``n``); the judge-samples row has the server ignore ``n`` on answer requests only. Each
scenario is one row: the stored receipt is drawn ``--as-reference`` first (the store job), then the PR run is
measured, as the Action makes it. Every figure is
read from the PR receipt's own economics (generation per arm and the judge overhead: this run's calls only, a
carried draw's usage is not counted again), priced with ``core.economics.cost`` at the bundled table's entry for
the answering and judge model (cache reads and writes at their own prices). The caching row turns on the fake
server's prompt cache (`tests.support.fake_prompt_cache`), which caches any marked prefix; the real API caches
only a prefix above the model's minimum (1,024 tokens or more, by model), so that row is the most caching can
save at these sizes. Run: ``.venv/bin/python benchmarks/pr_cost.py``. Prints a table; asserts nothing.
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

from driftproof.core.economics import cost, sum_usage  # noqa: E402
from driftproof.core.models import Receipt, Usage  # noqa: E402
from driftproof.core.words import Provider  # noqa: E402
from driftproof.prices import price_for  # noqa: E402
from driftproof.run import RunRequest, run_suite  # noqa: E402
from tests.support.fake_llm_script import FakeReply, FakeUsage, json_text_reply  # noqa: E402
from tests.support.fake_llm_server import FakeLLMServer  # noqa: E402
from tests.support.fake_prompt_cache import FakePromptCache  # noqa: E402

MODEL = "claude-haiku-4-5"
OPENAI_MODEL = "gpt-5-mini"
CASES = 10
SKILL = "# Commit messages\n\n" + "Write Conventional Commits; explain why, not what. " * 120  # ~6,100 chars
PROMPT = "Write a commit message for this change:\n" + "diff --git a/x b/x\n+ a changed line\n" * 32  # ~1,200


@dataclass
class Responder:
    """The server's replies; ``honours_n`` mirrors the server's, so a request whose ``n`` is ignored bills one;
    ``answers_honour_n=False`` ignores ``n`` on answer requests only (one choice back, the rest asked again)."""

    honours_n: bool = True
    answers_honour_n: bool = True

    def __call__(self, request: object) -> FakeReply:
        judge = "<<<ANSWER" in request.prompt_text  # type: ignore[attr-defined]
        honoured = self.honours_n and (judge or self.answers_honour_n)
        return reply_to(request, max(1, request.n) if honoured else 1)  # type: ignore[attr-defined]


def reply_to(request: object, choices: int) -> FakeReply:
    """A reply sized from the request: ``choices`` answers' or judge replies' output billed (Chat Completions ``n``),
    the reply holding that many choices."""
    # the system text and the user turn, once each (``all_text`` holds a Chat Completions system message twice:
    # as the system text and as a message, which billed an OpenAI with-skill answer the skill twice)
    text = "\n".join(t for t in (request.system_text, request.prompt_text) if t)  # type: ignore[attr-defined]
    judge = "<<<ANSWER" in request.prompt_text  # type: ignore[attr-defined]
    openai = "/chat/completions" in request.path  # type: ignore[attr-defined]
    model = f"{OPENAI_MODEL}-2025-08-07" if openai else f"{MODEL}-20251001"
    usage = FakeUsage(input_tokens=math.ceil(len(text) / 4), output_tokens=(60 if judge else 120) * choices)
    if judge:
        return json_text_reply({"score": 0.8, "reason": "fine"}, model=model, usage=usage)
    answer = "feat: an answer\n\nBecause."
    return FakeReply(text=answer, model=model, usage=usage, choices=(answer,) * choices if openai else None)


RESPONDER = Responder()


@dataclass(frozen=True)
class Scenario:
    """One row: how the PR run is made, given the stored receipt."""

    name: str
    pr_flags: dict[str, object]
    prompt_cache: bool = False
    """Whether the server caches marked prefixes for this row (the Anthropic lanes always mark them)."""
    honours_n: bool = True
    """Whether the server answers Chat Completions ``n`` with n choices (OpenAI rows; off: one request per judge
    sample and per draw, as before issue 14)."""
    answers_honour_n: bool = True
    """Whether it does for answer requests too (off: one request per draw, the judge's samples still grouped)."""


SCENARIOS = [
    Scenario("today (both arms drawn)", {"carry_baseline": False}),
    Scenario("carry the standing baseline", {"carry_baseline": True}),
    Scenario("carry + prompt caching", {"carry_baseline": True}, prompt_cache=True),
]

OPENAI_SCENARIOS = [
    Scenario("today (both arms, 1 sample/request)", {"carry_baseline": False}, honours_n=False),
    Scenario("carry the standing baseline", {"carry_baseline": True}, honours_n=False),
    Scenario("carry + judge samples in one request", {"carry_baseline": True}, answers_honour_n=False),
    Scenario("carry + judge samples + draws in one request", {"carry_baseline": True}),
]


def _usage(receipt: Receipt) -> Usage:
    """Every token this run's calls used: both arms' generation and the judge's overhead."""
    economics = receipt.economics
    return sum_usage([economics.generation.with_skill, economics.generation.baseline, economics.judge_overhead.usage])


def _total(usage: Usage) -> int:
    return sum(
        n or 0 for n in (usage.input_tokens, usage.cache_read_tokens, usage.cache_write_tokens, usage.output_tokens)
    )


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp, FakeLLMServer(RESPONDER) as server:
        env = {
            **os.environ,
            "ANTHROPIC_API_KEY": "sk-ant-bench",
            "ANTHROPIC_BASE_URL": server.base_url,
            "OPENAI_API_KEY": "sk-openai-bench",
            "OPENAI_BASE_URL": server.openai_base_url,
        }
        table(Path(tmp) / "anthropic", server, env, Provider("anthropic"), MODEL, SCENARIOS)
        print()
        table(Path(tmp) / "openai", server, env, Provider("openai"), OPENAI_MODEL, OPENAI_SCENARIOS)


def table(
    root: Path, server: FakeLLMServer, env: dict[str, str], provider: Provider, model: str, scenarios: list[Scenario]
) -> None:
    """One lane's rows: the store job's reference receipt, then each scenario's PR run read from its receipt."""
    price = price_for(model)
    assert price is not None
    root.mkdir()
    (root / "SKILL.md").write_text(SKILL, encoding="utf-8")
    cases = [{"id": f"c{i}", "prompt": f"{PROMPT}(case {i})", "rubric": "Why, not what."} for i in range(CASES)]
    suite = root / "suite.yaml"
    suite.write_text(yaml.safe_dump({"skill": "SKILL.md", "cases": cases}), encoding="utf-8")
    base: Callable[..., RunRequest] = lambda **kw: RunRequest(  # noqa: E731
        suite=suite,
        provider=provider,
        model=model,
        judge_provider=provider,
        judge_model=model,
        environ=env,
        concurrency=16,
        **kw,
    )
    devnull = open(os.devnull, "w")  # noqa: SIM115
    server.prompt_cache, server.honours_n, RESPONDER.honours_n, RESPONDER.answers_honour_n = None, True, True, True
    stored = run_suite(base(out=root / "main.json", as_reference=True), progress_stream=devnull).receipt
    (root / "SKILL.md").write_text(SKILL + "\nAlso name the issue.\n", encoding="utf-8")  # the PR: skill only
    print(f"{CASES}-case PR that edits only the skill · {model} answering and judging ({provider}) · bundled prices")
    heads = ("calls", 6), ("input", 9), ("cache rd", 9), ("cache wr", 9), ("output", 8), ("tokens", 9), ("×", 5)
    print(f"{'scenario':<45} " + " ".join(f"{h:>{w}}" for h, w in heads) + f" {'USD':>7}")
    first = None
    for scenario in scenarios:
        server.prompt_cache = FakePromptCache() if scenario.prompt_cache else None
        server.honours_n = RESPONDER.honours_n = scenario.honours_n
        RESPONDER.answers_honour_n = scenario.answers_honour_n
        pr = run_suite(base(out=root / "pr.json", reference=stored, **scenario.pr_flags), progress_stream=devnull)
        usage, calls = _usage(pr.receipt), pr.receipt.run.logical_calls or 0
        total = _total(usage)
        first = first or total
        usd = cost(usage, price) or 0.0
        print(
            f"{scenario.name:<45} {calls:>6} {usage.input_tokens or 0:>9,} {usage.cache_read_tokens or 0:>9,} "
            f"{usage.cache_write_tokens or 0:>9,} {usage.output_tokens or 0:>8,} {total:>9,} {total / first:>5.2f} "
            f"{usd:>7.3f}"
        )


if __name__ == "__main__":
    main()
