# Driftproof GitHub Action image. GitHub builds it from this directory on every job
# (`runs.image: Dockerfile`) and runs it as root with the checkout mounted at
# /github/workspace (no USER, no WORKDIR: see GitHub's Dockerfile support notes).

# Stage 1: build the driftproof wheel from the build context.
FROM python:3.11.14-slim-bookworm AS build
ENV PIP_DISABLE_PIP_VERSION_CHECK=1
COPY . /src
RUN pip wheel --no-cache-dir --no-deps --wheel-dir /dist /src

# Stage 2: the runtime image.
FROM python:3.11.14-slim-bookworm

# git reads the default branch's receipt. The checkout belongs to the runner's user while
# the container runs as root, and HOME is /github/home at run time, so the safe.directory
# entry goes in the system config (the Action also adds it to the global one at run time).
# hadolint ignore=DL3008
RUN apt-get update \
 && apt-get install -y --no-install-recommends git \
 && rm -rf /var/lib/apt/lists/* \
 && git config --system --add safe.directory /github/workspace

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1

# Runtime dependencies, pinned (the closure of pyproject's [project.dependencies]).
RUN pip install --no-cache-dir \
    annotated-types==0.8.0 \
    anthropic==2.14.0 \
    anyio==4.16.0 \
    attrs==26.1.0 \
    certifi==2026.10.19.post1 \
    docstring-parser==0.18.0 \
    h11==0.16.0 \
    httpcore==1.0.9 \
    httpcore2==2.16.2 \
    httpx==0.28.1 \
    httpx2==2.16.2 \
    idna==3.20 \
    jinja2==3.1.6 \
    jiter==0.19.0 \
    jsonschema==4.26.0 \
    jsonschema-rs==0.61.2 \
    jsonschema-specifications==2025.9.1 \
    markdown-it-py==4.3.0 \
    markupsafe==3.0.4 \
    mdurl==0.1.2 \
    openai==3.57.0 \
    opentelemetry-api==1.45.2 \
    pydantic==2.14.4 \
    pydantic-core==2.50.5 \
    pygments==2.21.0 \
    pyyaml==6.0.4 \
    referencing==0.37.0 \
    rich==15.0.0 \
    rpds-py==2026.9.1 \
    sniffio==1.3.1 \
    truststore==0.10.5 \
    typing-extensions==4.16.0 \
    typing-inspection==0.4.5

# The package itself; its dependencies are already satisfied by the pins above.
COPY --from=build /dist /dist
RUN pip install --no-cache-dir /dist/*.whl \
 && rm -rf /dist

# Only the entrypoint lives in /app, so `import driftproof` finds the installed wheel
# (with its templates and schemas), never a source tree.
COPY entrypoint.py /app/entrypoint.py
ENTRYPOINT ["python", "/app/entrypoint.py"]
