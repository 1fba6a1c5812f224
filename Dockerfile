# Driftproof GitHub Action image. GitHub builds it from this directory on every job
# (`runs.image: Dockerfile`) and runs it as root with the checkout mounted at
# /github/workspace (no USER, no WORKDIR: see GitHub's Dockerfile support notes).
#
# Three stages. `base` holds everything slow to install (git, the pinned dependencies); the release
# workflow publishes it to GHCR (`--target base`) and a release pins it here by digest in BASE_IMAGE.
# BASE_IMAGE's default is that same stage, built here: a build with no arguments (GitHub's build of an
# untagged ref, a fork, `docker build .`) needs no registry, and BuildKit builds the `base` stage only
# when it is the one chosen. `build` installs the package alone; the last stage is the base plus the
# package. docs/action.md, "The image".
ARG PYTHON_IMAGE=python:3.11.14-slim-bookworm
ARG BASE_IMAGE=base

# Stage 1, `base`: Python, git and the pinned runtime dependencies, nothing of driftproof itself.
# Trimmed: wheels only (--only-binary, so no compiler or headers are needed or installed), no pip
# cache, and .pyc files only for the modules the Action imports (below); pip, setuptools and wheel
# are removed, because nothing runs them once the image is built.
FROM ${PYTHON_IMAGE} AS base

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

# Stage 2: install the package from the build context into a plain directory, without its
# dependencies (the base holds them) and with its own bytecode compiled.
FROM ${PYTHON_IMAGE} AS build
ENV PIP_DISABLE_PIP_VERSION_CHECK=1
COPY . /src
RUN pip install --no-cache-dir --no-deps --target /site /src \
 && mv /site/bin /scripts

# Stage 3: the runtime image, the base plus that directory.
FROM ${BASE_IMAGE}
COPY --from=build /site/ /usr/local/lib/python3.11/site-packages/
COPY --from=build /scripts/ /usr/local/bin/

# Only the entrypoint lives in /app, so `import driftproof` finds the installed package
# (with its templates and schemas), never a source tree.
COPY entrypoint.py /app/entrypoint.py
ENTRYPOINT ["python", "/app/entrypoint.py"]
