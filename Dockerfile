# Driftproof GitHub Action image. GitHub builds it from this directory on every job
# (`runs.image: Dockerfile`) and runs it as root with the checkout mounted at
# /github/workspace (no USER, no WORKDIR: see GitHub's Dockerfile support notes).
#
# It is thin: everything slow to install (git, the pinned dependencies) lives in the base image,
# docker/base.Dockerfile, which the release workflow publishes to GHCR and pins here by digest.
# This file only adds the driftproof package. BASE_IMAGE's default is the locally built base
# (`make action-image` builds docker/base.Dockerfile first, no registry needed); a release sets
# it to ghcr.io/<owner>/driftproof-base@sha256:<digest> (docs/action.md, "Releasing the image").
ARG BASE_IMAGE=driftproof-base:local
ARG PYTHON_IMAGE=python:3.11.14-slim-bookworm

# Stage 1: install the package from the build context into a plain directory, without its
# dependencies (the base holds them) and with its own bytecode compiled.
FROM ${PYTHON_IMAGE} AS build
ENV PIP_DISABLE_PIP_VERSION_CHECK=1
COPY . /src
RUN pip install --no-cache-dir --no-deps --target /site /src \
 && mv /site/bin /scripts

# Stage 2: the runtime image, the base plus that directory.
FROM ${BASE_IMAGE}
COPY --from=build /site/ /usr/local/lib/python3.11/site-packages/
COPY --from=build /scripts/ /usr/local/bin/

# Only the entrypoint lives in /app, so `import driftproof` finds the installed package
# (with its templates and schemas), never a source tree.
COPY entrypoint.py /app/entrypoint.py
ENTRYPOINT ["python", "/app/entrypoint.py"]
