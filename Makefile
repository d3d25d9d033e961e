# Bench: `make run` serves the demo site, `make test` runs every test.
# Everything is installed into .venv from the lock files; no server needs to be running.

SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(CURDIR)/$(VENV)/bin
PY := $(BIN)/python
INSTALLED := $(VENV)/.installed
EPHEMERAL := $(PY) -m benchsite.embedded_pg run --ephemeral --
LOADGEN_BUILD := loadgen/build
LOADGEN_SAN := loadgen/build-san
export PATH := $(BIN):$(PATH)

.PHONY: help install run test test-python lint migrations-check loadgen loadgen-test \
        loadgen-san-test bench bench-ingest bench-loadgen seed-scale clean

help:
	@echo "make run           serve the demo site on http://127.0.0.1:8000/ (its own PostgreSQL)"
	@echo "make test          every test: Python, lint, migrations check, loadgen (plain and ASan/UBSan)"
	@echo "make bench         ingestion cost against plain psycopg, then loadgen against fio"
	@echo "make lint          ruff check and format check"
	@echo "make loadgen       build loadgen into $(LOADGEN_BUILD)/loadgen"

install: $(INSTALLED)

$(INSTALLED): requirements.lock requirements-pgserver.lock
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check --require-hashes -r requirements.lock
	@# PostgreSQL server binaries from PyPI, only where the machine has none of its own.
	@$(PY) -m benchsite.embedded_pg bin-dir >/dev/null || \
	  $(BIN)/pip install --quiet --disable-pip-version-check --require-hashes -r requirements-pgserver.lock
	touch $@

run: $(INSTALLED)
	$(PY) -m benchsite.embedded_pg run --data-dir var/pg -- bash -c '\
	  $(PY) manage.py migrate --noinput -v0 && $(PY) manage.py load_demo && \
	  exec $(PY) manage.py runserver 127.0.0.1:8000'

test: lint migrations-check test-python loadgen-test loadgen-san-test

test-python: $(INSTALLED)
	@command -v fio >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends fio  # tests/results/test_importers_fio.py runs fio
	$(PY) -m pytest

lint: $(INSTALLED)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

migrations-check: $(INSTALLED)
	DJANGO_SETTINGS_MODULE=benchsite.settings.test $(EPHEMERAL) \
	  $(PY) manage.py makemigrations --check --dry-run

$(LOADGEN_BUILD)/build.ninja: | $(INSTALLED)
	meson setup $(LOADGEN_BUILD) loadgen --buildtype=release

loadgen: $(LOADGEN_BUILD)/build.ninja
	meson compile -C $(LOADGEN_BUILD)

loadgen-test: loadgen
	meson test -C $(LOADGEN_BUILD) --print-errorlogs

$(LOADGEN_SAN)/build.ninja: | $(INSTALLED)
	meson setup $(LOADGEN_SAN) loadgen --buildtype=debug \
	  -Db_sanitize=address,undefined -Db_lundef=false -Dwerror=true

loadgen-san-test: $(LOADGEN_SAN)/build.ninja
	meson compile -C $(LOADGEN_SAN)
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	  meson test -C $(LOADGEN_SAN) --print-errorlogs

bench: bench-ingest bench-loadgen

bench-ingest: $(INSTALLED)
	DJANGO_SETTINGS_MODULE=benchsite.settings.test $(EPHEMERAL) $(PY) manage.py bench_ingest

bench-loadgen: loadgen
	LOADGEN=$(CURDIR)/$(LOADGEN_BUILD)/loadgen loadgen/bench/run

# The synthetic catalog for benchmarks, in the `make run` database (never loaded by `make run`).
seed-scale: $(INSTALLED)
	$(PY) -m benchsite.embedded_pg run --data-dir var/pg -- bash -c '\
	  $(PY) manage.py migrate --noinput -v0 && $(PY) manage.py seed_scale'

clean:
	rm -rf $(LOADGEN_BUILD) $(LOADGEN_SAN) .pytest_cache .ruff_cache
