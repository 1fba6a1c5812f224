"""The sentences of ``--batch`` (`driftproof.batch_runner`)."""

from __future__ import annotations


def batch_refusal(role: str, provider: str, surface: str) -> str:
    """Why ``--batch`` is refused: the lane named has no batch API here.

    >>> batch_refusal("judge", "stub", "none")
    '--batch: the judge goes through stub/none, which has no batch API; --batch needs the anthropic or openai API lane'
    """
    return (
        f"--batch: the {role} goes through {provider}/{surface}, which has no batch API; "
        "--batch needs the anthropic or openai API lane"
    )
