"""``driftproof run --shard INDEX/COUNT``: the part of a suite one job of a matrix runs (rules in core/shards)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from driftproof.core.defaults import LIMITS
from driftproof.core.models import Shard
from driftproof.core.shard_sentences import shard_plan
from driftproof.core.shards import parse_shard, shard_record
from driftproof.errors import InputError
from driftproof.suite import Suite


def shard_suite(text: str | None, suite: Suite, *, quick: bool) -> tuple[Suite, Shard | None]:
    """The suite cut to the cases of shard ``text`` (``INDEX/COUNT``) with its ``run.shard``; unchanged without one.

    Refused, before any call: a malformed ``--shard``, ``--quick`` beside it, a shard no case falls in.
    """
    if text is None:
        return suite, None
    try:
        spec = parse_shard(text, LIMITS.count)
        if quick:
            raise ValueError("--quick runs the first case only, so it cannot run a shard: drop --quick or --shard")
        record = shard_record([c.id for c in suite.cases], spec)
    except ValueError as exc:
        raise InputError(f"--shard: {exc}") from None
    chosen = set(record.case_ids)
    return replace(suite, cases=tuple(c for c in suite.cases if c.id in chosen)), record


def shard_line(shard: Shard) -> str:
    """The line a shard run prints before its plan line."""
    return shard_plan(shard.index, shard.count, len(shard.case_ids), len(shard.suite_case_ids))


def default_shard_out(out: Path, shard: Shard) -> Path:
    """``receipt.json`` becomes ``receipt.shard-2-of-3.json``: a shard never overwrites a whole-suite receipt."""
    suffix = out.suffix or ".json"
    return out.with_name(f"{out.stem}.shard-{shard.index}-of-{shard.count}{suffix}")
