"""The Action over a set of skills (issue 15, monorepos): its inputs, each skill's paths, the set's outputs."""

from __future__ import annotations

import pytest

from driftproof.action.config import ActionConfig
from driftproof.core.decision import Decision, NeededDraws
from driftproof.core.skill_set import set_folder, set_outputs, skill_path, worst
from driftproof.core.words import Status
from driftproof.errors import InputError


@pytest.mark.parametrize(
    ("inputs", "said"),
    [
        ({"INPUT_SKILLS": "s/*/SKILL.md", "INPUT_SUITE": "evals/suite.yaml"}, "input 'suite': not with 'skills'"),
        ({"INPUT_SKILLS": "s/*/SKILL.md", "INPUT_SKILL": "SKILL.md"}, "input 'skill': not with 'skills'"),
        (  # shard's own reason, not the one of suite and skill (each skill's suite is found beside its SKILL.md)
            {"INPUT_SKILLS": "s/*/SKILL.md", "INPUT_SHARD": "1/2"},
            "input 'shard': not with 'skills' (each skill's suite runs whole; shard a run of one suite, input 'suite')",
        ),
        ({"INPUT_SKILLS": "../*/SKILL.md"}, "input 'skills': a glob relative to the repository root"),
        ({"INPUT_SKILLS": "/abs/*/SKILL.md"}, "input 'skills': a glob relative to the repository root"),
        ({}, "input 'suite' is required"),
    ],
)
def test_skills_input_refusals(inputs: dict[str, str], said: str) -> None:
    with pytest.raises(InputError) as caught:
        ActionConfig.from_environ(inputs)
    assert str(caught.value).startswith(said)
    assert ("beside its SKILL.md" in str(caught.value)) == (said.split(":")[0] in ("input 'suite'", "input 'skill'"))


def test_skills_input_needs_no_suite() -> None:
    config = ActionConfig.from_environ({"INPUT_SKILLS": "skills/*/SKILL.md"})
    assert (config.skills, config.suite, config.skill) == ("skills/*/SKILL.md", "", None)


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        (".driftproof/receipt.json", ".driftproof/alpha/receipt.json"),  # the default: the skill's folder
        (".driftproof/badge.json", ".driftproof/alpha/badge.json"),
        ("receipts/{skill}.json", "receipts/alpha.json"),
        ("{skill}/r.json", "alpha/r.json"),
        ("receipt.json", "alpha/receipt.json"),
    ],
)
def test_each_skill_has_its_own_path(pattern: str, expected: str) -> None:
    assert skill_path(pattern, "alpha") == expected


def test_the_set_report_sits_where_the_receipts_do() -> None:
    assert set_folder("receipts/{skill}.json") == "receipts"


def decision(status: Status, regressed: int, improved: int, lift: float | None, stands: bool | None) -> Decision:
    return Decision(status, True, regressed, improved, lift, None, NeededDraws(None, None), baseline_stands=stands)


def test_set_outputs_add_up_and_take_the_worst_status() -> None:
    # alpha: 1 regressed, 0 improved; beta: 0 regressed, 2 improved -> 1 and 2; status: regressed beats passing
    outputs = set_outputs(
        {
            "alpha": decision(Status.REGRESSED, 1, 0, 0.10, True),
            "beta": decision(Status.PASSING, 0, 2, 0.30, False),
        }
    )
    assert outputs == {
        "status": "regressed",
        "regressed": "1",
        "improved": "2",
        "lift": "n/a",  # two lifts: no one figure
        "lift-per-1k": "n/a",
        "draws-needed": "",
        "baseline-stands": "false",  # beta's baseline does not stand
    }


def test_a_push_that_runs_no_skill_takes_the_kept_receipts_status() -> None:
    # nothing ran: 0 regressed, 0 improved; status: underpowered (kept) beats passing (kept)
    outputs = set_outputs({}, [Status.PASSING, Status.UNDERPOWERED])
    assert (outputs["status"], outputs["regressed"], outputs["improved"], outputs["lift"]) == (
        "underpowered",
        "0",
        "0",
        "n/a",
    )
    # a skill that ran decides alone: a kept receipt's status does not count
    assert set_outputs({"alpha": decision(Status.PASSING, 0, 1, 0.2, None)}, [Status.REGRESSED])["status"] == "passing"
    assert (
        set_outputs(
            {"a": decision(Status.PASSING, 0, 0, 0.2, None), "b": decision(Status.PASSING, 0, 0, 0.1, None)},
            [Status.REGRESSED],
        )["status"]
        == "passing"
    )


def test_one_skill_is_its_own_outputs() -> None:
    one = decision(Status.PASSING, 0, 1, 0.142, None)
    assert set_outputs({"alpha": one}) == one.outputs()


@pytest.mark.parametrize(
    ("statuses", "expected"),
    [
        ([Status.PASSING, Status.NO_SEPARATION], Status.NO_SEPARATION),
        ([Status.NO_VERDICT, Status.UNDERPOWERED], Status.UNDERPOWERED),
        ([Status.UNDERPOWERED, Status.REGRESSED, Status.PASSING], Status.REGRESSED),
        ([], Status.PASSING),
    ],
)
def test_worst_status(statuses: list[Status], expected: Status) -> None:
    assert worst(statuses) == expected


def test_a_set_that_runs_no_skill_and_keeps_none_reads_skipped() -> None:
    """A pull request touching no skill: nothing measured, nothing kept, so ``skipped`` (never ``passing``)."""
    assert set_outputs({})["status"] == "skipped"
