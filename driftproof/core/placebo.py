"""The placebo arm (``--placebo``): neutral text as long as the skill, and what the third arm says.

A run with ``--placebo`` draws a third arm, ``placebo``, delivered exactly as the skill is (system prompt, or
installed as a SKILL.md for ``discover``) but holding `placebo_text`: task-irrelevant prose of the same token
estimate as the skill (ceil(chars / 4), `driftproof.core.economics.estimate_tokens`). The text depends on that
token count alone, so two runs of skills of equal size are given the same placebo, and the receipt records it by
hash (``placebo``: sha256, tokens, chars, generator).

Readers then say two lifts per case and overall, each under the one verdict rule (R-1 … R-4, R-6, through
`driftproof.core.compare.compare`): **lift vs no skill** (with_skill − baseline, the receipt's headline and gate
as before) and **lift vs more context** (with_skill − placebo). Drawing: the stopping rule settles with_skill
against baseline as before; the placebo arm is drawn level with the with-skill arm (`placebo_draws`).
"""

from __future__ import annotations

import hashlib
import math

from driftproof.core.economics import CHARS_PER_TOKEN, estimate_tokens
from driftproof.core.placebo_model import PlaceboText
from driftproof.core.rounds import ArmDraws
from driftproof.core.seal import sha256_text

PLACEBO_ARM = "placebo"
"""The third arm's name: its key in a case, in the journal, in a request's ``arm``."""

GENERATOR = "placebo-v1"
"""The generator's id, recorded in the receipt: change it whenever `placebo_text` would give another text."""

_SUBJECTS = (
    "the old river",
    "a quiet meadow",
    "the morning light",
    "a row of poplars",
    "the harbour wall",
    "a grey heron",
    "the village square",
    "an autumn wind",
    "the stone bridge",
    "a field of barley",
    "the evening tide",
    "a wooden fence",
    "the distant hill",
    "a small garden",
    "the winter sky",
    "a narrow lane",
)
_VERBS = (
    "drifts past",
    "rests beside",
    "leans toward",
    "settles over",
    "runs along",
    "glows above",
    "waits near",
    "turns around",
)
_PLACES = (
    "the orchard",
    "a painted door",
    "the low clouds",
    "the mill pond",
    "a sleeping cat",
    "the chapel roof",
    "a field of clover",
    "the far shore",
)
_CODAS = ("in spring", "at dusk", "after the rain", "in the fog", "at noon", "by the sea", "all day", "at dawn")
_FILL = ("", "a", "an", "sky", "rain", "stone", "meadow", "harbour", "lanterns")
"""Words by length (index = length), which make the text end exactly at its length."""

_LENGTHS = (8, 6, 7, 5)
"""The lengths the closing words take in turn while more than one word is needed."""

_ROOM = 12
"""Characters kept free for the closing words: a sentence is added only while this much is left after it."""


def _stream(tokens: int) -> bytes:
    """Bytes to choose from, a function of ``tokens`` alone (sha256 in counter mode): enough for every sentence."""
    sentences = tokens * CHARS_PER_TOKEN // 20 + 1
    seed = f"driftproof:{GENERATOR}:{tokens}"
    blocks = (hashlib.sha256(f"{seed}:{i}".encode()).digest() for i in range(math.ceil(sentences * 4 / 32) + 1))
    return b"".join(blocks)


def _sentence(choice: bytes) -> str:
    """One sentence from four choice bytes: a subject, a verb, a place and a coda, none of them an instruction."""
    subject, verb, place, coda = (
        _SUBJECTS[choice[0] % len(_SUBJECTS)],
        _VERBS[choice[1] % len(_VERBS)],
        _PLACES[choice[2] % len(_PLACES)],
        _CODAS[choice[3] % len(_CODAS)],
    )
    return f"{subject[0].upper()}{subject[1:]} {verb} {place} {coda}."


def _closing(length: int) -> str:
    """Words ending in a full stop, exactly ``length`` characters long (``length`` ≥ 1).

    >>> [_closing(n) for n in (1, 2, 5, 12)]
    ['.', 'A.', 'Rain.', 'Harbour sky.']
    """
    words: list[str] = []
    left = length - 1  # the full stop
    while left > len(_FILL) - 1:
        take = min(_LENGTHS[len(words) % len(_LENGTHS)], left - 4)  # leave a space and a word of three letters
        words.append(_FILL[take])
        left -= take + 1
    if left:
        words.append(_FILL[left])
    text = " ".join(words) + "."
    return text[0].upper() + text[1:]


def placebo_text(tokens: int) -> str:
    """Neutral prose of exactly ``tokens × 4`` characters, so ``estimate_tokens`` reads ``tokens``; the same
    text for the same ``tokens``. Sentences of a river, a meadow, a village: no task, no instruction.

    >>> placebo_text(1)
    'Sky.'
    >>> placebo_text(20)
    'A field of barley glows above the mill pond by the sea. Lanterns meadow harbour.'
    >>> len(placebo_text(401)), placebo_text(401) == placebo_text(401)
    (1604, True)
    """
    if tokens < 1:
        raise ValueError("a placebo needs a skill of at least one token")
    target = tokens * CHARS_PER_TOKEN
    stream = _stream(tokens)
    parts: list[str] = []
    used = 0
    for at in range(0, len(stream) - 3, 4):
        sentence = _sentence(stream[at : at + 4])
        cost = len(sentence) + (1 if parts else 0)
        if used + cost + _ROOM > target:
            break
        parts.append(sentence)
        used += cost
    closing = target - used - (1 if parts else 0)
    return " ".join([*parts, _closing(closing)])


def placebo_draws(rule_max: int, with_made: int, placebo: ArmDraws) -> int:
    """Draws the placebo arm gets this round: as many as bring it level with the with-skill arm (``with_made``:
    every with-skill draw made once this round's are), plus one for each placebo draw lost to a failed call that
    still waits to be replaced, never past ``rule_max`` draws.

    >>> placebo_draws(10, 3, ArmDraws()), placebo_draws(10, 4, ArmDraws((0.5, 0.6, 0.7)))
    (3, 1)
    >>> placebo_draws(10, 3, ArmDraws((0.5, 0.6), lost=1, pending=1)), placebo_draws(3, 3, ArmDraws((0.5,), 2, 2))
    (1, 0)
    """
    wanted = max(0, with_made - placebo.made) + placebo.pending
    return min(wanted, max(0, rule_max - placebo.made))


def placebo_record(text: str | None) -> PlaceboText | None:
    """The receipt's ``placebo``: the text by hash, its token estimate, its length, its generator; ``None``
    for a run without a placebo.

    >>> placebo_record(placebo_text(3)).model_dump(exclude={"sha256"})
    {'tokens': 3, 'chars': 12, 'generator': 'placebo-v1'}
    """
    if text is None:
        return None
    return PlaceboText(sha256=sha256_text(text), tokens=estimate_tokens(text), chars=len(text), generator=GENERATOR)
