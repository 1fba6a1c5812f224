"""The wheel carries what an installed Driftproof needs: templates, schemas, and the demo's example (issue 8).

Built offline (``--no-build-isolation``: hatchling comes with the dev install), installed into a folder of its
own and run from outside the source tree, so nothing is read from the checkout.
"""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("wheel")
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--no-input", "-q"]
    build = subprocess.run(
        [*pip, "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-w", str(tmp / "dist"), str(ROOT)],
        capture_output=True,
        text=True,
    )
    assert build.returncode == 0, build.stderr
    [wheel] = (tmp / "dist").glob("driftproof-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    for needed in (
        "templates/diff.md.j2",
        "templates/lift_breakdown.md.j2",
        "schemas/receipt-0.14.schema.json",
        "schemas/summary-1.schema.json",
        "examples/commit-writer/suite.yaml",
    ):
        assert f"driftproof/_data/{needed}" in names, needed
    site = tmp / "site"
    done = subprocess.run(
        [*pip, "install", "--no-deps", "--no-index", "--target", str(site), str(wheel)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return site


def test_demo_runs_from_an_installed_wheel(installed: Path, tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(installed)}
    where = subprocess.run(
        [sys.executable, "-c", "import driftproof; print(driftproof.__file__)"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert where.stdout.strip().startswith(str(installed))  # the installed copy, not the checkout
    demo = subprocess.run(
        [sys.executable, "-m", "driftproof", "demo", "--out", str(tmp_path / "out")],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert demo.returncode == 0, demo.stderr
    assert "**Driftproof · " in demo.stdout and (tmp_path / "out" / "pr.json").is_file()
    # the view's lift by case and the summary's schema come from the wheel's own data
    for argv, expected in ((["view"], "**Lift by case** · "), (["export"], '"summary_version": "1"')):
        done = subprocess.run(
            [sys.executable, "-m", "driftproof", *argv, str(tmp_path / "out" / "pr.json")],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0 and expected in done.stdout, done.stderr
