# Base image of the Driftproof Action: Python, git and the pinned runtime dependencies, nothing of
# driftproof itself. The release workflow (.github/workflows/release-image.yml) builds it for
# linux/amd64 and linux/arm64 and publishes it as ghcr.io/<owner>/driftproof-base, pinned by digest;
# the Action's Dockerfile starts FROM it and only adds the package. `make action-image` builds it
# locally as driftproof-base:local, with no registry. Build context: the repository root.
#
# Trimmed: wheels only (--only-binary, so no compiler or headers are needed or installed), no pip
# cache, and .pyc files only for the modules the Action imports (below); pip, setuptools and wheel
# are removed, because nothing runs them once the image is built (docs/action.md, "The image").

ARG PYTHON_IMAGE=python:3.11.14-slim-bookworm
FROM ${PYTHON_IMAGE}

# git reads the default branch's receipt. The checkout belongs to the runner's user while
# the container runs as root, and HOME is /github/home at run time, so the safe.directory
# entry goes in the system config (the Action also adds it to the global one at run time).
# hadolint ignore=DL3008
RUN apt-get update \
 && apt-get install -y --no-install-recommends git \
 && rm -rf /var/lib/apt/lists/* /usr/share/doc/* /usr/share/man/* \
 && git config --system --add safe.directory /github/workspace

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1

# The pinned dependencies, installed without bytecode; then one import of every package the Action
# loads writes .pyc files for exactly the modules that import touches (PYTHONDONTWRITEBYTECODE is
# lifted for that one command), so a job start reads bytecode instead of compiling, and the modules
# nothing imports (pip's vendored tree, pygments' lexers, most of openai's types) stay source only.
# The import list names every package in pyproject's [project.dependencies] (a test checks it) and
# the transports httpx loads on its first request.
COPY docker/requirements.txt /tmp/requirements.txt
RUN pip install --no-cache-dir --no-compile --only-binary=:all: -r /tmp/requirements.txt \
 && env -u PYTHONDONTWRITEBYTECODE python -c "import anthropic, certifi, h11, httpcore, httpx, jinja2, jsonschema, jsonschema_rs, openai, pydantic, rich.console, rich.markdown, truststore, yaml" \
 && pip uninstall -y --no-cache-dir setuptools wheel \
 && python -m pip uninstall -y --no-cache-dir pip \
 && rm -f /tmp/requirements.txt
