"""The release workflow publishes the base and the Action image to GHCR, multi-arch, and prints their digests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]


def _workflow() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((ROOT / ".github" / "workflows" / "release-image.yml").read_text())
    return data


def _build_step(job: dict[str, Any]) -> dict[str, Any]:
    (step,) = [s for s in job["steps"] if str(s.get("uses", "")).startswith("docker/build-push-action@")]
    return step


def test_the_base_is_pushed_for_both_architectures_and_its_digest_is_an_output() -> None:
    job = _workflow()["jobs"]["base"]
    step = _build_step(job)
    assert (step["with"]["file"], step["with"]["target"]) == ("Dockerfile", "base")
    assert step["with"]["platforms"] == "linux/amd64,linux/arm64"
    assert step["with"]["push"] is True
    assert job["outputs"]["digest"] == "${{ steps.build.outputs.digest }}"
    assert job["permissions"] == {"contents": "read", "packages": "write"}


def test_the_action_image_starts_from_the_base_by_digest() -> None:
    job = _workflow()["jobs"]["action"]
    step = _build_step(job)
    assert job["needs"] == "base"
    assert step["with"]["file"] == "Dockerfile"
    assert step["with"]["build-args"].strip() == (
        "BASE_IMAGE=${{ needs.base.outputs.image }}@${{ needs.base.outputs.digest }}"
    )
    assert step["with"]["platforms"] == "linux/amd64,linux/arm64"


def test_every_action_the_workflow_uses_is_pinned_to_a_commit() -> None:
    for job in _workflow()["jobs"].values():
        for step in job["steps"]:
            if "uses" in step:
                ref = step["uses"].split("@", 1)[1]
                assert len(ref) == 40 and all(c in "0123456789abcdef" for c in ref), step["uses"]
