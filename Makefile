# The two commands of the README: `make demo` (main job) and `make test`.
# Both create the virtual environment .venv and install what they need.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PIP := $(BIN)/python -m pip --disable-pip-version-check -q

.PHONY: demo test setup setup-dev setup-bench bench lint typecheck clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.core: pyproject.toml | $(BIN)/python
	$(PIP) install -e ".[eval]"
	touch $@

# torch is pinned to 2.13.0 in the train extra: pip takes the CPU wheel on disk,
# and stable-baselines3 then finds its torch already there (no CUDA download)
$(VENV)/.dev: pyproject.toml $(VENV)/.core
	$(PIP) install torch==2.13.0
	$(PIP) install -e ".[dev,eval,train,bots,web,ray,openspiel]"
	touch $@

$(VENV)/.bench: pyproject.toml $(VENV)/.core
	$(PIP) install -e ".[bench,eval,bots]"
	touch $@

setup: $(VENV)/.core
setup-dev: $(VENV)/.dev
setup-bench: $(VENV)/.bench

## main job: train a Spades killer bot for a few minutes, export it to ONNX, and play it
## against the shipped bot and the rule bots (train.demo; the rule-bot tournament is eval.demo)
demo: setup-dev
	$(BIN)/cardrl demo

## Debian's chromium for the web browser test (playwright drives it; no browser download)
chromium:
	command -v chromium || (apt-get update && apt-get install -y chromium)

## the test suite (what CI runs)
test: setup-dev chromium
	$(BIN)/python -m ruff check .
	$(MAKE) typecheck
# the web storage and restart tests start a throwaway PostgreSQL cluster (loopback only, as
# the postgres user, in a temporary folder) and stop it; they need Debian's server package
	ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || (apt-get update && apt-get install -y postgresql)
# the kernels compile once ahead, as envs/warm.py advises for CI (a fresh clone's first
# compile is a build step, about a minute of both cores; the tests of compiling itself use
# caches of their own)
	$(BIN)/python -m cardrl.envs.warm
# two processes, each test file on one of them (its module fixtures, e.g. the Ray cluster and
# the browser, stay shared by its tests)
	$(BIN)/python -m pytest -n 2 --dist loadfile

## speed of the engines and envs, beside OpenSpiel when it installs
bench: setup-bench
	for b in benchmarks/bench_*.py; do $(BIN)/python -m benchmarks.$$(basename $$b .py) || exit 1; done

lint: setup-dev
	$(BIN)/python -m ruff check .

## the engines, envs and bots (and the package's own modules) against envs/contracts.py; mypy
## reads cardrl through a folder of links, each layer folder as cardrl.<layer>
TYPED := -p cardrl.envs -p cardrl.agents -m cardrl -m cardrl.cli -m cardrl.runtime_env
typecheck: setup-dev
	rm -rf build/typecheck && mkdir -p build/typecheck/cardrl
	for f in cardrl/*.py; do ln -s ../../../$$f build/typecheck/$$f; done
	for d in envs agents train eval web checkpoints; do ln -s ../../../$$d build/typecheck/cardrl/$$d; done
	cd build/typecheck && ../../$(BIN)/python -m mypy --config-file ../../pyproject.toml $(TYPED)

clean:
	rm -rf $(VENV) runs .pytest_cache .hypothesis
