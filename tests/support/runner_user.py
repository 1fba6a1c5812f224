"""The documented workflow's steps after the Action, run as GitHub's runner user (not root): a uid of its own,
its own home and git config, the documented step's script taken verbatim from docs/action.md.

Root runs the Action (as the container does); ``setpriv`` runs the next step as `NOBODY`, so a file the Action
left unreadable to that user, or a git repository it would refuse to touch, fails the test as it fails a job.
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path

import httpx
import pytest

from driftproof import action
from tests.support.action_sim import KEY, action_env, read_outputs
from tests.support.fake_github import FakeGitHub
from tests.support.fake_llm_server import FakeLLMServer

NOBODY = 65534
"""The runner user's uid and gid here."""
ROOT = Path(__file__).resolve().parents[2]

needs_setpriv = pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("setpriv") is None, reason="needs root and setpriv to act as another uid"
)

TRUST = "[safe]\n\tdirectory = *\n"
"""The upstream is a local bare repository here (``file://``), owned by the runner's user; a real remote is
reached over https, where git checks no ownership. Each user trusts it in its global git config (git reads
``safe.directory`` only there), as it would trust the remote."""


def documented_step(name: str) -> str:
    """The ``run:`` script of the step called ``name`` in docs/action.md, verbatim (its indentation removed)."""
    docs = (ROOT / "docs" / "action.md").read_text(encoding="utf-8")
    block = docs.split(f"- name: {name}", 1)[1]
    run = block.split("run: |\n", 1)[1].split("```", 1)[0]
    return "\n".join(line.removeprefix(" " * 10) for line in run.splitlines() if line.strip())


def as_nobody(cwd: Path, script: str, env: Mapping[str, str]) -> subprocess.CompletedProcess[str]:
    """``script`` under ``bash -euo pipefail`` as the runner user, as a workflow's ``run:`` step runs."""
    argv = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "bash", "-euo", "pipefail", "-c"]
    return subprocess.run([*argv, script], cwd=cwd, env=dict(env), capture_output=True, text=True, timeout=60)


def trusting(path: Path, owner: int | None = None) -> Path:
    """A git config at ``path`` that trusts every repository (`TRUST`), owned by ``owner`` when given."""
    path.write_text(TRUST, encoding="utf-8")
    if owner is not None:
        os.chown(path, owner, owner)
    return path


def git(cwd: Path, *args: str) -> str:
    """git as root, with root's trusting config (``DRIFTPROOF_TEST_GITCONFIG``)."""
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.environ["DRIFTPROOF_TEST_GITCONFIG"]}
    return subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True).stdout


def run_action(
    shared: Path,
    workspace: Path,
    github: FakeGitHub,
    llm: FakeLLMServer,
    *,
    event: str,
    payload: object,
    inputs: Mapping[str, str],
) -> tuple[int, dict[str, str], str]:
    """One Action step as root in ``workspace``: its exit code, outputs and log (no traceback, the key masked)."""
    step = shared / f"step-{event}-{len(list(shared.glob('step-*')))}"
    step.mkdir()
    env = action_env(
        step,
        workspace,
        github.base_url,
        event_name=event,
        payload=payload,  # type: ignore[arg-type]
        inputs=dict(inputs),
        extra={"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": llm.base_url, "HOME": str(step)},
    )
    env["GIT_CONFIG_GLOBAL"] = str(trusting(step / "gitconfig"))
    out = io.StringIO()
    with httpx.Client(trust_env=False) as http:
        code = action.run(env, http=http, stdout=out)
    log = out.getvalue()
    assert "Traceback" not in log and KEY not in log.replace(f"::add-mask::{KEY}", "")
    return code, read_outputs(step / "output"), log
