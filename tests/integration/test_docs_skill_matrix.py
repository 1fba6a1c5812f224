"""The documented monorepo matrix's summary job (docs/action.md, "Monorepos"), run as its step runs (issue 15).

The skill jobs upload each skill's report as an artifact named ``driftproof-<skill>``; the summary job downloads
them (one folder per artifact) and posts one comment through ``gh``. This runs that step's script verbatim with
bash, in a folder laid out as ``actions/download-artifact`` lays it out, with a fake ``gh`` that records what it
was asked, so the documented YAML is exercised and not only read.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]


def summary_job() -> dict[str, object]:
    """The YAML block of docs/action.md whose jobs include the matrix's ``summary``."""
    docs = (ROOT / "docs" / "action.md").read_text(encoding="utf-8")
    for block in docs.split("```yaml\n")[1:]:
        doc = yaml.safe_load(block.split("```", 1)[0])
        if isinstance(doc, dict) and "summary" in (doc.get("jobs") or {}):
            job: dict[str, object] = doc["jobs"]["summary"]
            return job
    raise AssertionError("docs/action.md shows no matrix with a summary job")


@pytest.mark.skipif(shutil.which("bash") is None, reason="the step is a bash script")
def test_the_summary_job_posts_one_comment_with_a_section_per_skill(tmp_path: Path) -> None:
    job = summary_job()
    steps = job["steps"]
    assert isinstance(steps, list)
    step = next(s for s in steps if s.get("name") == "One comment for every skill")
    script = step["run"].replace("${{ github.event.pull_request.number }}", "42")
    for skill, body in {"commit-writer": "commit report: passing", "pr-writer": "pr report: regressed"}.items():
        (tmp_path / f"driftproof-{skill}").mkdir()
        (tmp_path / f"driftproof-{skill}" / "receipt.report.md").write_text(body + "\n", encoding="utf-8")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    gh = bin_dir / "gh"
    gh.write_text('#!/bin/sh\nprintf "%s\\n" "$@" > "$GH_LOG"\n', encoding="utf-8")
    gh.chmod(gh.stat().st_mode | stat.S_IXUSR)
    env = {
        "PATH": f"{bin_dir}:{os.environ['PATH']}",
        "GH_TOKEN": "ghs-test",
        "GITHUB_REPOSITORY": "octo/skills",
        "GH_LOG": str(tmp_path / "gh.log"),
    }
    subprocess.run(["bash", "-e", "-c", script], cwd=tmp_path, env=env, check=True)
    args = (tmp_path / "gh.log").read_text(encoding="utf-8").split("\n")[:-1]
    assert args == [
        *("pr", "comment", "42", "--repo", "octo/skills"),
        *("--body-file", "comment.md", "--edit-last", "--create-if-none"),
    ]
    comment = (tmp_path / "comment.md").read_text(encoding="utf-8")
    assert comment.startswith("**Driftproof · every skill of this PR**\n")
    # one section per artifact, in the order the glob lists them, each with that skill's report under it
    assert comment.count("## Skill `") == 2
    first, second = comment.index("## Skill `commit-writer`"), comment.index("## Skill `pr-writer`")
    assert first < comment.index("commit report: passing") < second < comment.index("pr report: regressed")
