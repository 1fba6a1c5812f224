"""Job start of the Action's image: entrypoint start to its first line of output, as GitHub runs it.

Where no container engine runs, the image's filesystem stands in for the container: the script enters it
with ``unshare --mount --fork`` and ``chroot``, binds a workspace (a git checkout of the example skill) at
/github/workspace and /proc, sets the GITHUB_* and INPUT_* variables GitHub sets for a ``workflow_dispatch``
run on the stub lane, and starts ``python /app/entrypoint.py`` (the image's ENTRYPOINT) N times. It prints
the median and range of the time to the first line on stdout and to the end of the run. Needs root.

    podman image mount driftproof-action:local      # prints the image's root filesystem
    python -m benchmarks.action_job_start ROOTFS [--runs 5]

The image build or pull that comes before this is timed apart (docs/action.md, "The image").
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[1]

ENV = {
    "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    "HOME": "/github/home",
    "LANG": "C.UTF-8",
    "GITHUB_ACTIONS": "true",
    "CI": "true",
    "GITHUB_EVENT_NAME": "workflow_dispatch",
    "GITHUB_EVENT_PATH": "/github/workflow/event.json",
    "GITHUB_WORKSPACE": "/github/workspace",
    "GITHUB_OUTPUT": "/github/file_commands/output",
    "GITHUB_STEP_SUMMARY": "/github/file_commands/summary",
    "GITHUB_REPOSITORY": "octo/skills",
    "GITHUB_REF": "refs/heads/feature",
    "GITHUB_SHA": "0" * 40,
    "GITHUB_API_URL": "http://127.0.0.1:9",
    "INPUT_SUITE": "examples/commit-writer/suite.yaml",
    "INPUT_SKILL": "examples/commit-writer/SKILL.md",
    "INPUT_PROVIDER": "stub",
    "INPUT_JUDGE-PROVIDER": "stub",
    "INPUT_DRAWS": "3",
    "INPUT_JUDGE-SAMPLES": "2",
    "INPUT_COMMENT": "false",
    "INPUT_FAIL-ON": "never",
}


class Start(NamedTuple):
    first_line: float
    total: float
    code: int
    line: str


def _workspace(base: Path) -> Path:
    """A checkout of the example skill with one commit, as actions/checkout leaves it."""
    workspace = base / "workspace"
    shutil.copytree(ROOT / "examples", workspace / "examples")
    git = ["git", "-C", str(workspace), "-c", "user.name=b", "-c", "user.email=b@example.test"]
    subprocess.run([*git[:3], "init", "-q", "-b", "feature"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "example"], check=True)
    for folder in ("home", "workflow", "file_commands"):
        (base / folder).mkdir()
    (base / "workflow" / "event.json").write_text("{}\n")
    return workspace


def _script(rootfs: Path, base: Path) -> str:
    """Mounts inside the new mount namespace, then the entrypoint, the way GitHub's `docker run` lays it out."""
    mounts = [f"mkdir -p {rootfs}/github && mount --bind {base} {rootfs}/github", f"mount -t proc proc {rootfs}/proc"]
    env = " ".join(f"'{k}={v}'" for k, v in ENV.items())
    return " && ".join([*mounts, f"exec chroot {rootfs} /usr/bin/env -i {env} python /app/entrypoint.py"])


def one_start(rootfs: Path) -> Start:
    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder)
        _workspace(base)
        command = ["unshare", "--mount", "--fork", "sh", "-c", _script(rootfs, base)]
        began = time.perf_counter()
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        assert process.stdout is not None
        line = process.stdout.readline()
        first = time.perf_counter() - began
        process.stdout.read()
        code = process.wait()
        return Start(first, time.perf_counter() - began, code, line.rstrip())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rootfs", type=Path, help="the image's root filesystem (podman image mount IMAGE)")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    starts = [one_start(args.rootfs) for _ in range(args.runs)]
    firsts = [s.first_line for s in starts]
    totals = [s.total for s in starts]
    print(f"rootfs {args.rootfs}: {args.runs} runs, exit codes {sorted({s.code for s in starts})}")
    print(f"first line: {starts[0].line!r}")
    print(
        f"entrypoint start to first output line: median {statistics.median(firsts):.2f} s "
        f"(min {min(firsts):.2f}, max {max(firsts):.2f})"
    )
    print(f"whole stub run (3 draws, 2 judge samples): median {statistics.median(totals):.2f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
