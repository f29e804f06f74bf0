# The two commands of the README: `make demo` runs the main job on the bundled corpus,
# `make test` installs what the tests need and runs them.
PYTHON ?= python3
PIP ?= $(PYTHON) -m pip
OUT ?= out/demo

.PHONY: install install-all demo test test-fast lint mutation

install:
	$(PIP) install -q -e ".[dev]"

install-all:
	$(PIP) install -q -e ".[dev,train,ray]"

demo: install
	$(PYTHON) -m mutreal classify --manifest benchmarks/corpus/manifest.csv --out $(OUT)/results.jsonl
	$(PYTHON) -m mutreal agree $(OUT)/results.jsonl benchmarks/corpus/labels.csv
	$(PYTHON) -m mutreal report $(OUT)/results.jsonl --out $(OUT)/report
	@echo "report: $(OUT)/report/report.html"

test: install-all
	$(PYTHON) -m pytest -q

test-fast: install
	$(PYTHON) -m pytest -q -m "not slow"

lint:
	$(PYTHON) -m ruff check src tests benchmarks

# Mutation testing of the decisive logic (slow; not part of `make test`): scope in tools/mutation/scope.toml,
# equivalent mutants in tools/mutation/equivalent.toml, report in out/mutation/report.md.
mutation: install
	$(PYTHON) tools/mutation/run.py
