"""Which lanes ``--batch`` takes: ``driftproof plan`` (no lane built) refuses exactly what ``run`` refuses."""

from __future__ import annotations

import importlib

import pytest

from driftproof.batch_runner import BATCH_LANES, check_batch_choice
from driftproof.core.words import Provider, Surface
from driftproof.errors import InputError
from driftproof.lanes.registry import LANES


@pytest.mark.parametrize("lane", sorted(LANES))
def test_plan_refuses_a_lane_for_batch_exactly_when_its_class_has_no_batch_api(lane: tuple[Provider, Surface]) -> None:
    provider, surface = lane
    module, name = LANES[lane]
    kind = getattr(importlib.import_module(module), name)
    has_batch_api = issubclass(kind, BATCH_LANES)  # what run's check (batch_api_for) reads of the built lane
    assert has_batch_api == ((provider, surface) in {("anthropic", "api"), ("openai", "api")})
    if has_batch_api:
        check_batch_choice([("judge", provider, surface)])
    else:
        with pytest.raises(InputError, match=f"^--batch: the judge goes through {provider}/{surface}, which has no"):
            check_batch_choice([("judge", provider, surface)])
