"""Judge samples, and draws, in one request: the samples of one draw (or the draws of one arm's round) grouped
into the requests a lane allows, and one request's reply split back into one `Generation` per sample (or draw).

A lane whose API answers one prompt several times in one request (`Lane.samples_per_request`, Chat Completions
``n``) is asked for the missing samples of a draw in as few requests as it allows. Each sample is still its own
logical judge call, with its own reply text and the identity evidence the reply carried (the request id is the
request's, the same on each); the request's endpoint attempts and its usage are the first sample's, the other
samples carry ``attempts=0`` and no usage, so neither is counted more than once (the run's ``endpoint_attempts``
is the requests made; judge overhead counts the request's tokens once). A reply with fewer choices than asked
for (a server that ignores ``n``) gives the samples it holds; the runner asks again for the rest.

The answers of one arm of one case that a round asks for share one request too (the same prompt, system, model
and output limit), so the runner groups and splits them the same way (``Runner.draws_per_request``): each draw is
its own logical call with its own answer, its first carrying the request's attempts and usage, and
``REQUEST_SAMPLES`` becomes its ``request_draws``. The choices of one request are independent samples of the same
prompt, as separate requests are.
"""

from __future__ import annotations

from dataclasses import replace

from driftproof.lanes.base import Generation

REQUEST_SAMPLES = "request_samples"
"""The `Generation.extra` key of how many samples (or draws) the one request that returned one returned."""


def sample_groups(missing: list[int], per_request: int) -> list[tuple[int, ...]]:
    """The sample indices to ask for, in groups of at most ``per_request`` (one request each).

    >>> sample_groups([0, 1, 2, 3, 4], 2), sample_groups([3], 128), sample_groups([0, 1], 1)
    ([(0, 1), (2, 3), (4,)], [(3,)], [(0,), (1,)])
    """
    size = max(1, per_request)
    return [tuple(missing[i : i + size]) for i in range(0, len(missing), size)]


def split_samples(gen: Generation, count: int) -> list[Generation]:
    """One request's reply as the generations of the samples it holds, at most ``count``, in choice order.

    A failed request fails every sample it was asked for. The first sample keeps the request's attempts and
    usage; the others have ``attempts=0`` and ``usage=None``.

    >>> got = split_samples(Generation(text="a", choices=("a", "b"), attempts=2, request_id="r"), 3)
    >>> [(g.text, g.attempts, g.request_id, g.extra[REQUEST_SAMPLES]) for g in got]
    [('a', 2, 'r', 2), ('b', 0, 'r', 2)]
    >>> [(g.error, g.attempts) for g in split_samples(Generation(text="", error="429", attempts=3), 2)]
    [('429', 3), ('429', 0)]
    """
    if gen.error is not None:
        texts: tuple[str, ...] = (gen.text,) * count
    else:
        texts = (gen.choices if gen.choices is not None else (gen.text,))[:count]
    shared = len(texts)
    return [
        replace(
            gen,
            text=text,
            choices=None,
            attempts=gen.attempts if k == 0 else 0,
            usage=gen.usage if k == 0 else None,
            extra={**gen.extra, REQUEST_SAMPLES: shared} if shared > 1 else gen.extra,
        )
        for k, text in enumerate(texts)
    ]
