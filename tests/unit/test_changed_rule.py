"""Which skills a change touches (issue 15, monorepos): the pure rule of ``core/changed.py``."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from driftproof.core.changed import SkillFiles, normal, select_touched, touches

ALPHA = SkillFiles("alpha", "skills/alpha/SKILL.md", "skills/alpha/suite.yaml", ())
BETA = SkillFiles("beta", "skills/beta/SKILL.md", "suites/beta.yaml", ("shared/tone.md",))
ROOT = SkillFiles("root", "SKILL.md", "suite.yaml", ())


@pytest.mark.parametrize(
    ("changed", "expected"),
    [
        (["skills/alpha/SKILL.md"], ["alpha"]),  # its SKILL.md
        (["skills/alpha/references/style.md"], ["alpha"]),  # any file in its folder
        (["suites/beta.yaml"], ["beta"]),  # its suite, kept elsewhere
        (["shared/tone.md"], ["beta"]),  # a file its suite references
        (["skills/alphabet/SKILL.md"], []),  # a sibling folder whose name starts the same: not inside
        (["README.md", "docs/x.md"], []),  # nothing of any skill
        (["./skills//beta/SKILL.md"], ["beta"]),  # spelled loosely, compared normalised
        (["skills/alpha/suite.yaml", "shared/tone.md"], ["alpha", "beta"]),
        ([], []),
        (["skills/alpha/.driftproof/receipt.json"], []),  # a run's own receipt beside the suite: output, not input
    ],
)
def test_selection_by_table(changed: list[str], expected: list[str]) -> None:
    picked = [s.skill.name for s in select_touched((ALPHA, BETA), changed) if s.touched]
    assert picked == expected


def test_because_is_the_first_changed_path_that_touches_it() -> None:
    # README.md touches neither; skills/beta/x.md is inside beta's folder; shared/tone.md comes after it
    chosen = select_touched((ALPHA, BETA), ["README.md", "skills/beta/x.md", "shared/tone.md"])
    assert [(s.skill.name, s.touched, s.because) for s in chosen] == [
        ("alpha", False, None),
        ("beta", True, "skills/beta/x.md"),
    ]


def test_a_skill_at_the_repository_root_is_touched_by_any_change() -> None:
    # its folder is the whole repository: every file lies in it
    assert touches(ROOT, "docs/anything.md")


def test_normal_drops_dot_segments_and_slashes() -> None:
    assert normal(".//a/./b/") == "a/b"


# the skills' own names are drawn often, so that paths land in, beside and near their folders
named = st.sampled_from(
    ["skills", "alpha", "beta", "alphabet", "suites", "beta.yaml", "shared", "tone.md", "SKILL.md", ".driftproof"]
)
segment = named | st.text(alphabet="abcdefgh-_.", min_size=1, max_size=6).filter(lambda s: s not in (".", ".."))
path = st.lists(segment, min_size=1, max_size=4).map("/".join)


@settings(max_examples=200, deadline=None)
@given(changed=st.lists(path, max_size=8))
def test_property_a_skill_none_of_whose_files_changed_is_never_selected(changed: list[str]) -> None:
    # checked against the definition written out again: none of its exact files, nothing under its folder
    skills = (ALPHA, BETA)
    for selection in select_touched(skills, changed):
        mine = [p for p in changed if touches(selection.skill, p)]
        assert selection.touched == bool(mine)
        if not selection.touched:
            folder = selection.skill.skill.rpartition("/")[0]
            files = {selection.skill.skill, selection.skill.suite, *selection.skill.references}
            inputs = [normal(p) for p in changed if ".driftproof" not in normal(p).split("/")]
            assert not any(p in files or p.startswith(folder + "/") for p in inputs)


@settings(max_examples=200, deadline=None)
@given(changed=st.lists(path, max_size=8), extra=st.lists(path, max_size=4))
def test_property_more_changes_never_unselect_a_skill(changed: list[str], extra: list[str]) -> None:
    before = [s.touched for s in select_touched((ALPHA, BETA), changed)]
    after = [s.touched for s in select_touched((ALPHA, BETA), changed + extra)]
    assert all(a or not b for a, b in zip(after, before, strict=True))
