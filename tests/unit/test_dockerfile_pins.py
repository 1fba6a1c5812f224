"""The Action's images: the base pins every runtime dependency, the thin image adds only the package.

Docker cannot build here; docs/action.md ("The image") gives the figures of a real build.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / "Dockerfile"
REQUIREMENTS = ROOT / "docker" / "requirements.txt"

# A dependency's distribution name and the module its import is spelled with, where they differ.
IMPORT_NAMES = {"pyyaml": "yaml", "jsonschema-rs": "jsonschema_rs"}


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~;\[ ]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def _pins() -> dict[str, str]:
    lines = [line.strip() for line in REQUIREMENTS.read_text(encoding="utf-8").splitlines()]
    pairs = [line.split("==") for line in lines if line and not line.startswith("#")]
    assert all(len(pair) == 2 for pair in pairs), f"every line of {REQUIREMENTS.name} is name==version"
    return {_name(name): version for name, version in pairs}


def _dependencies() -> list[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return [_name(r) for r in project["dependencies"]]


def _stages(text: str) -> list[str]:
    """The Dockerfile's stages, each from its FROM line to the next (continuation lines joined)."""
    joined = re.sub(r"\\\n", " ", text)
    return re.split(r"^(?=FROM )", joined, flags=re.M)[1:]


def _stage(name: str) -> str:
    """The text of one named stage of the Dockerfile (``FROM … AS name`` to the next ``FROM``)."""
    stages = _stages(DOCKERFILE.read_text(encoding="utf-8"))
    found = [s for s in stages if re.match(rf"FROM \S+ AS {name}\b", s)]
    assert len(found) == 1, f"no single stage {name!r}"
    return found[0]


def test_every_runtime_dependency_is_pinned_in_the_base_requirements() -> None:
    pins = _pins()
    missing = [name for name in _dependencies() if name not in pins]
    assert not missing, f"{REQUIREMENTS.name} does not pin: {missing}"
    # The 9 direct dependencies and their closure (24 more): the count the issue measured.
    assert len(pins) == 33


def test_the_base_installs_the_pins_as_wheels_without_cache_or_compiler() -> None:
    assert re.search(r"^ARG PYTHON_IMAGE=python:\d+\.\d+\.\d+-slim-bookworm$", DOCKERFILE.read_text(), re.M)
    text = _stage("base")
    assert "COPY docker/requirements.txt /tmp/requirements.txt" in text
    install = re.search(r"pip install ([^&\n]*)-r /tmp/requirements.txt", text)
    assert install is not None
    for flag in ("--no-cache-dir", "--no-compile", "--only-binary=:all:"):
        assert flag in install.group(1)
    for tool in ("build-essential", "gcc", "python3-dev", "libffi-dev"):
        assert tool not in text
    assert "--no-install-recommends git" in text


def test_the_base_compiles_bytecode_for_every_dependency_it_imports() -> None:
    # The one import that writes .pyc names each direct dependency, so a new one is not left to compile at
    # every job start.
    text = _stage("base")
    warm = re.search(r'python -c "import ([^"]+)"', text)
    assert warm is not None
    modules = {m.strip().split(".")[0] for m in warm.group(1).split(",")}
    missing = [d for d in _dependencies() if IMPORT_NAMES.get(d, d.replace("-", "_")) not in modules]
    assert not missing, f"the base's import line does not load: {missing}"


def test_the_thin_image_installs_nothing_but_the_package() -> None:
    stages = _stages(DOCKERFILE.read_text(encoding="utf-8"))
    assert [" ".join(s.split()[1:4]) if " AS " in s.split("\n")[0] else s.split()[1] for s in stages] == [
        "${PYTHON_IMAGE} AS base",
        "${PYTHON_IMAGE} AS build",
        "${BASE_IMAGE}",
    ]
    _, build, runtime = stages
    # The build stage installs the build context alone, without its dependencies.
    installs = [i.strip() for i in re.findall(r"pip install ([^&\n]*)", build)]
    assert installs == ["--no-cache-dir --no-deps --target /site /src"]
    # The runtime stage runs nothing: no pip, no apt, only copies onto the base.
    assert not re.search(r"^RUN ", runtime, re.M)
    assert "pip" not in runtime and "apt-get" not in runtime
    assert 'ENTRYPOINT ["python", "/app/entrypoint.py"]' in runtime


def test_a_build_with_no_arguments_builds_its_own_base() -> None:
    # GitHub builds `runs.image: Dockerfile` with no build arguments: the default base is the file's own stage
    text = DOCKERFILE.read_text(encoding="utf-8")
    assert re.search(r"^ARG BASE_IMAGE=base$", text, re.M)
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "--target base --build-arg BASE_IMAGE=driftproof-base:local -t driftproof-base:local ." in makefile
    assert "--build-arg BASE_IMAGE=driftproof-base:local" in makefile
