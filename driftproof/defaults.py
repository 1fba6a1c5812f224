"""Defaults shared by the CLI and the Action: one fixed, cheap judge for every run."""

from __future__ import annotations

DEFAULT_JUDGE_PROVIDER = "anthropic"
DEFAULT_JUDGE_MODEL = "claude-haiku-4-5"


def judge_provider_for(provider: str, judge_provider: str | None) -> str:
    """The judge's provider: as given, else the stub for a stub run, else the one fixed judge's.

    >>> judge_provider_for("openai", None), judge_provider_for("stub", None), judge_provider_for("stub", "openai")
    ('anthropic', 'stub', 'openai')
    """
    if judge_provider:
        return judge_provider
    return "stub" if provider == "stub" else DEFAULT_JUDGE_PROVIDER
