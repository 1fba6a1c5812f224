"""The Action's image pins every runtime dependency of the package (docker cannot build here)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~;\[ ]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def test_every_runtime_dependency_is_pinned_in_the_image() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    pins = dict(
        (m.group(1).lower().replace("_", "-"), m.group(2))
        for m in re.finditer(r"^\s+([A-Za-z0-9_.-]+)==([^\s\\]+)", (ROOT / "Dockerfile").read_text(), re.M)
    )
    missing = [_name(r) for r in project["dependencies"] if _name(r) not in pins]
    assert not missing, f"Dockerfile does not pin: {missing}"


def test_the_image_base_is_pinned_and_runs_the_entrypoint() -> None:
    text = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    assert re.search(r"^FROM python:\d+\.\d+\.\d+-slim-bookworm", text, re.M)
    assert 'ENTRYPOINT ["python", "/app/entrypoint.py"]' in text
