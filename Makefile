# The two commands of the README: `make demo` runs the main job on the bundled corpus,
# `make test` installs what the tests need and runs them.
#
# Python environment: inside an active virtual environment (or conda env) that one is used;
# otherwise the project's own `.venv` is created on first use and used from then on, because the
# system python3 of Debian/Ubuntu refuses `pip install` outside a venv (PEP 668). Give
# PYTHON=/path/to/python to choose an interpreter yourself.
SYSTEM_PYTHON ?= python3
VENV ?= .venv
IN_ENV := $(shell $(SYSTEM_PYTHON) -c 'import os, sys; print(int(sys.prefix != sys.base_prefix or bool(os.environ.get("CONDA_PREFIX"))))' 2>/dev/null)
ifeq ($(IN_ENV),1)
PYTHON ?= $(SYSTEM_PYTHON)
ENV_STEP :=
else
PYTHON ?= $(VENV)/bin/python
ENV_STEP := $(VENV)/bin/python
endif
PIP ?= $(PYTHON) -m pip
OUT ?= out/demo

.PHONY: install install-all system-deps demo test test-fast lint mutation

$(VENV)/bin/python:
	@echo "no virtual environment active: creating the project's own $(VENV) (make PYTHON=... to choose one)"
	$(SYSTEM_PYTHON) -m venv $(VENV) || { echo "error: '$(SYSTEM_PYTHON) -m venv' failed; on Debian/Ubuntu: apt-get install python3-venv" >&2; exit 1; }

install: $(ENV_STEP)
	$(PIP) install -q -e ".[dev]"

install-all: $(ENV_STEP)
	$(PIP) install -q -e ".[dev,train,ray,benchmarks]"

# The training sandbox needs bubblewrap; installed where we can (root with apt), else a note.
system-deps:
	@if ! command -v bwrap >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null) \
	      || echo "warning: bubblewrap could not be installed: training runs are not sandboxed" >&2; \
	  else echo "note: bubblewrap (bwrap) is not installed: training runs fall back to weaker isolation (see README)" >&2; fi; \
	fi

demo: install
	$(PYTHON) -m mutreal classify --manifest benchmarks/corpus/manifest.csv --out $(OUT)/results.jsonl
	$(PYTHON) -m mutreal agree $(OUT)/results.jsonl benchmarks/corpus/labels.csv
	$(PYTHON) -m mutreal report $(OUT)/results.jsonl --out $(OUT)/report
	@echo "report: $(OUT)/report/report.html"

# The suite runs on up to TEST_WORKERS cores (pytest-xdist): most slow tests wait on training
# workers, sandboxes and Ray, so two workers halve its wall time on a 2-core machine; more than 4
# would each load TensorFlow for little gain. `--dist loadgroup` keeps the Ray tests on one worker.
TEST_WORKERS ?= $(shell $(SYSTEM_PYTHON) -c 'import os; print(min(4, len(os.sched_getaffinity(0))))' 2>/dev/null || echo 2)

test: system-deps install-all
	$(PYTHON) -m pytest -q --durations=25 -n $(TEST_WORKERS) --dist loadgroup

test-fast: install
	$(PYTHON) -m pytest -q -m "not slow" -n $(TEST_WORKERS) --dist loadgroup

lint:
	$(PYTHON) -m ruff check src tests benchmarks

# Mutation testing of the decisive logic (slow; not part of `make test`): scope in tools/mutation/scope.toml,
# equivalent mutants in tools/mutation/equivalent.toml, report in out/mutation/report.md.
mutation: install
	$(PYTHON) tools/mutation/run.py
