# Bench: `make run` serves the demo site, `make serve` serves it for real (gunicorn),
# `make test` runs every test.
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
LOADGEN_OPTIONS := results/schema/loadgen-options.json
# meson's ninja takes make's jobserver from MAKEFLAGS, whose descriptors make hands to no
# recipe but a make's ("Could not initialize jobserver" under make -j): it runs its own jobs.
MESON := MAKEFLAGS= meson
export PATH := $(BIN):$(PATH)

.PHONY: help install run serve dump reviewer staff password test test-python test-deps test-faults lint migrations-check \
        loadgen loadgen-test loadgen-san-test loadgen-tests loadgen-options loadgen-dist release-deps bench bench-ingest bench-loadgen bench-qos bench-web bench-api bench-load bench-load-deps bench-copies \
        bench-pair bench-charts bench-dump seed-scale plotly clean test-fresh test-fresh-loadgen

help:
	@echo "make run           serve the demo site on http://127.0.0.1:8000/ (its own PostgreSQL)"
	@echo "make serve         the same under gunicorn with the production settings (ADDR=host:port)"
	@echo "make dump          the open-data dump of the make run database into var/dumps/ (docs/open-data.md)"
	@echo "make reviewer      NAME=<user>: make a reviewer and print a new API token, once (site running or not)"
	@echo "make staff         NAME=<user>: make a staff user (superuser, no password yet: make password)"
	@echo "make password      NAME=<user>: set a user's password, asked on the terminal (for the upload form, the admin)"
	@echo "make test-faults   the site under faults (database stopped hard, worker killed, mid-upload too, disk full)"
	@echo "make test          every test: Python, lint, migrations check, loadgen (plain and ASan/UBSan)"
	@echo "make test-fresh    make test of this tree's HEAD in a fresh Debian 12 chroot (root)"
	@echo "make test-fresh-loadgen  the loadgen-dist .deb installed in a fresh Debian 12 chroot, its"
	@echo "                   run --quick --upload reaching the site on loopback (root, network; minutes)"
	@echo "make bench         ingestion cost against plain psycopg, then loadgen against fio"
	@echo "make bench-qos     loadgen's latency percentiles against fio's, paced rates, a dm-delay stall"
	@echo "make lint          ruff check and format check, clang-format check of loadgen"
	@echo "make bench-web     the pages under load (gunicorn + wrk) against 10,000 synthetic drives (CACHED=1: cache too; ROUNDS=N)"
	@echo "make bench-api     the API lists and compare against a trivial DRF view (CACHED=1: cache too)"
	@echo "make bench-load    64 connections for 60 s over pages and API (UPLOADS=1: with uploads;"
	@echo "                   SHAPE=deployed: behind nginx, Redis and a read replica; SHAPE=both;"
	@echo "                   COLD=1: from no page kept, the cold start inside the run)"
	@echo "make bench-copies  the in-process copies after a write: read whole vs from the change log (ROUNDS=N)"
	@echo "make bench-pair    this tree against BEFORE=<commit>, paired rounds (ROUNDS=N)"
	@echo "make bench-charts  chart images: the site's renderer beside kaleido (Plotly's export)"
	@echo "make bench-dump    the open-data dump of seed_scale catalogs of 1,000 and 10,000 drives: time, size, memory"
	@echo "make loadgen       build loadgen into $(LOADGEN_BUILD)/loadgen"
	@echo "make loadgen-dist  a release of loadgen (source tarball, .deb, SHA-256s) in var/loadgen-dist/<version>/"
	@echo "make loadgen-options  write loadgen's option table to $(LOADGEN_OPTIONS) (committed)"

install: $(INSTALLED)

# Debian's python3 makes no venv without its python3-venv package (ensurepip): installed here
# as make test-deps installs the tests' programs (as root with apt-get), or named.
$(INSTALLED): requirements.lock requirements-pgserver.lock
	@$(PYTHON) -c 'import ensurepip' 2>/dev/null || { \
	  pkg=python3-venv; \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "make: installing $$pkg ($(PYTHON) has no ensurepip, which venv needs)"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
	      apt-get install -y -qq --no-install-recommends $$pkg; \
	  else echo "$(PYTHON) cannot make a venv: it needs $$pkg (apt-get install $$pkg)" >&2; exit 1; fi; }
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

# The open-data dump (docs/open-data.md) of the `make run` database, whether the site runs or
# not, into BENCH_DUMP_DIR (var/dumps/), keeping the newest BENCH_DUMP_KEEP; `make run` and
# `make serve` serve it at /data/. Once a day from cron for `make serve` (docs/deploy.md).
dump: $(INSTALLED)
	$(PY) -m benchsite.embedded_pg run --data-dir var/pg -- bash -c '\
	  $(PY) manage.py migrate --noinput -v0 && $(PY) manage.py dump_data'

# A reviewer's API token (the reviewer made when there is none), on the `make run` database:
# also while the site runs, whose database it then uses. NAME reaches the command only
# through the environment, unexpanded ($(value ...)); make does not export NAME itself,
# which would expand it: no text in it is ever run by make or the shell.
unexport NAME
reviewer: export BENCH_REVIEWER_NAME := $(value NAME)
reviewer: $(INSTALLED)
	@[ -n "$$BENCH_REVIEWER_NAME" ] || { echo "make reviewer NAME=<user name>" >&2; exit 2; }
	@$(PY) -m benchsite.embedded_pg run --data-dir var/pg -- bash -c '\
	  $(PY) manage.py migrate --noinput -v0 && \
	  $(PY) manage.py reviewer_token --create $(if $(TRUSTED),--trusted) -- "$$BENCH_REVIEWER_NAME"'

# A staff user (a superuser: the admin and its review actions), without a password; and a
# user's password, asked twice on the terminal (Django's changepassword), for signing in to
# the admin or the upload form. On the `make run` database, the site running or not; NAME
# through the environment only, as for `reviewer` (and never read as an option: a name may
# begin with "-").
staff: export BENCH_USER_NAME := $(value NAME)
staff: $(INSTALLED)
	@[ -n "$$BENCH_USER_NAME" ] || { echo "make staff NAME=<user name>" >&2; exit 2; }
	@$(PY) -m benchsite.embedded_pg run --data-dir var/pg -- bash -c '\
	  $(PY) manage.py migrate --noinput -v0 && \
	  $(PY) manage.py createsuperuser --noinput --email= --username="$$BENCH_USER_NAME"'

password: export BENCH_USER_NAME := $(value NAME)
password: $(INSTALLED)
	@[ -n "$$BENCH_USER_NAME" ] || { echo "make password NAME=<user name>" >&2; exit 2; }
	@$(PY) -m benchsite.embedded_pg run --data-dir var/pg -- bash -c '\
	  $(PY) manage.py migrate --noinput -v0 && \
	  $(PY) manage.py changepassword -- "$$BENCH_USER_NAME"'

# Production serving on the `make run` database (with its demo data), or on DATABASE_URL
# (then without the demo). Needs no configuration on loopback; see docs/deploy.md.
serve: $(INSTALLED)
	$(PY) -m benchsite.embedded_pg run --data-dir var/pg -- \
	  $(PY) -m benchsite.serve $(if $(DATABASE_URL),,--demo) $(if $(ADDR),--bind $(ADDR))

# The Python tests and loadgen's two suites at once: loadgen's tests mostly wait on timed
# runs and the disk, so they take little of the cores pytest's workers use. Each one's output
# is printed whole when it ends (--output-sync), pytest's last.
test: test-deps lint migrations-check
	@$(MAKE) --no-print-directory -j2 --output-sync=target test-python loadgen-tests

# pytest's workers (pytest-xdist), each with its own test database. --dist load hands the
# tests out in batches in collection order, so each worker runs its share in the order one
# process would (pytest-django's: tests in a transaction before transactional ones, whose
# flush empties what the migrations wrote). Not by module or group: those schedulers key tests
# by node id, which schemathesis gives each of a test's operations alike (all but one would
# not run). PYTEST_JOBS=0 runs them in this process.
PYTEST_JOBS ?= 2
test-python: $(INSTALLED) test-deps
	$(PY) -m pytest $(if $(filter-out 0,$(PYTEST_JOBS)),-n $(PYTEST_JOBS) --dist load)

# loadgen's suites one after the other: plain, then under the sanitizers.
loadgen-tests: loadgen-test
	@$(MAKE) --no-print-directory loadgen-san-test

# `make loadgen-dist`: git (meson dist archives the commit), xz, dpkg-deb and dpkg-shlibdeps
# (the package and its Depends), libcurl's headers (the release uploads).
RELEASE_TOOLS := git:git xz:xz-utils dpkg-deb:dpkg dpkg-shlibdeps:dpkg-dev \
  curl-config:libcurl4-openssl-dev pkg-config:pkg-config

# Every program `make test` runs, as command:Debian package, installed where missing (and
# said so): clang-format for make lint; redis-server; nginx, with openssl for its
# certificate, runs deploy/nginx.conf; curl runs the README's upload commands; fio, whose
# JSON the importer reads; chromium for tests/browser, never a browser that Playwright
# downloads; wrk, which the load benchmarks drive and tests/site/test_loadrig.py checks;
# loop devices, device-mapper, file systems, swap and a QEMU guest for loadgen's device
# tests; libcurl's headers and pkg-config, through which meson finds them, for loadgen's
# upload; and files, by their absolute paths: zlib's header, the real compressor loadgen's
# pattern test measures compressibility with, and the DejaVu fonts chart images are drawn
# with as PNG; and what `make loadgen-dist` runs, which a test runs too (RELEASE_TOOLS).
# tests/site/test_test_deps.py holds the tests' tools to this list.
TEST_TOOLS := clang-format:clang-format redis-server:redis-server nginx:nginx openssl:openssl \
  curl:curl fio:fio chromium:chromium wrk:wrk losetup:mount mount:mount dmsetup:dmsetup \
  mkfs.ext4:e2fsprogs sfdisk:fdisk mkswap:util-linux swapon:mount swapoff:mount \
  qemu-system-x86_64:qemu-system-x86 curl-config:libcurl4-openssl-dev pkg-config:pkg-config \
  /usr/include/zlib.h:zlib1g-dev /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf:fonts-dejavu-core \
  $(RELEASE_TOOLS)

# Installs the missing ones of a list of command:package ($(1)) as root with apt-get;
# otherwise names them after $(2) ("the tests need") and fails.
define install_missing
	@need=""; for p in $(1); do \
	  command -v $${p%%:*} >/dev/null || [ -x /usr/sbin/$${p%%:*} ] || [ -x /sbin/$${p%%:*} ] || \
	    case $${p%%:*} in /*) [ -e $${p%%:*} ];; *) false;; esac || \
	    case " $$need " in *" $${p#*:} "*) ;; *) need="$$need $${p#*:}";; esac; \
	done; \
	if [ -n "$$need" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "make $@: installing$$need"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
	      apt-get install -y -qq --no-install-recommends $$need; \
	  else echo "$(2):$$need (apt-get install$$need)" >&2; exit 1; fi; \
	fi
endef

test-deps:
	$(call install_missing,$(TEST_TOOLS),the tests need)

# The README's two commands on a machine that has only what the README asks for: a fresh
# Debian bookworm chroot with python3, gcc and make (tests/fresh_machine.sh; root, network).
test-fresh:
	tests/fresh_machine.sh $(FRESH_DIR)

# Issue 47's promise to reviewers: the Debian package of `make loadgen-dist` (of HEAD) installs
# in a fresh minimal Debian 12 chroot, its Depends from Debian's mirror, and `loadgen run
# --quick ... --upload` from it reaches the site served on loopback, whose API then serves the
# run (tests/fresh_loadgen.sh; root, network, a few minutes: not part of make test).
test-fresh-loadgen: $(INSTALLED)
	ALLOW_DIRTY=$(ALLOW_DIRTY) tests/fresh_loadgen.sh $(FRESH_DIR)

test-faults: $(INSTALLED)
	$(PY) -m loadtests.faults

CLANG_FORMAT ?= clang-format
C_SOURCES = loadgen/src/*.[ch] loadgen/tests/*.[ch]

lint: $(INSTALLED)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	@command -v $(CLANG_FORMAT) >/dev/null || \
	  { echo "clang-format is missing (Debian: apt-get install clang-format)" >&2; exit 1; }
	$(CLANG_FORMAT) --dry-run --Werror --style=file:loadgen/.clang-format $(C_SOURCES)

migrations-check: $(INSTALLED)
	DJANGO_SETTINGS_MODULE=benchsite.settings.test $(EPHEMERAL) \
	  $(PY) manage.py makemigrations --check --dry-run

$(LOADGEN_BUILD)/build.ninja: | $(INSTALLED)
	meson setup $(LOADGEN_BUILD) loadgen --buildtype=release

loadgen: $(LOADGEN_BUILD)/build.ninja
	$(MESON) compile -C $(LOADGEN_BUILD)

# loadgen's option table as results/reproduce.py reads it, committed (the run pages' command is
# written from it); tests/loadgen/test_options.py fails when it is not what loadgen prints.
loadgen-options: loadgen
	$(LOADGEN_BUILD)/loadgen options --json > $(LOADGEN_OPTIONS).tmp
	mv $(LOADGEN_OPTIONS).tmp $(LOADGEN_OPTIONS)

# A release of loadgen (loadgen/release.py): the source tarball (meson dist of the committed
# tree) and a Debian package built from it, each with its SHA-256, and a manifest, in
# $(LOADGEN_DIST)/<version>/, which the site serves at /bench/loadgen/ (docs/deploy.md).
# The version is loadgen/meson.build's; a version released already is refused.
# ALLOW_DIRTY=1 builds from a tree with uncommitted changes (the tarball is the commit's).
LOADGEN_DIST ?= var/loadgen-dist
release-deps:
	$(call install_missing,$(RELEASE_TOOLS),a loadgen release needs)

loadgen-dist: release-deps $(INSTALLED)
	$(PY) loadgen/release.py --out $(LOADGEN_DIST) $(if $(ALLOW_DIRTY),--allow-dirty)

# The QEMU guests (suite vm) boot once, under the sanitizers (loadgen-san-test): the same
# binary's behaviour, with its memory checked too. LOADGEN_TEST_ARGS= runs them here as well.
LOADGEN_TEST_ARGS ?= --no-suite vm
# Tests at once: the integration tests mostly wait on timed runs and the disk (a test takes
# about a tenth of a core), so four at a time on two cores; the longest start first
# (their meson.build's priority).
LOADGEN_TEST_JOBS ?= 4
# A test's timeout guards against a hang, not a speed: beside pytest's workers on two cores,
# under the sanitizers, WSAT's interrupt test (a 1 GiB purge before its signal) ran past its
# 60 s.
LOADGEN_TIMEOUTS ?= --timeout-multiplier 3
loadgen-test: loadgen
	$(MESON) test -C $(LOADGEN_BUILD) --print-errorlogs --num-processes $(LOADGEN_TEST_JOBS) \
	  $(LOADGEN_TIMEOUTS) $(LOADGEN_TEST_ARGS)

# -O1: AddressSanitizer's advice for a usable speed; at -O0 its instrumented bookkeeping
# between one I/O and the next is 2% of a 4KB read's latency, which the latency tests see.
$(LOADGEN_SAN)/build.ninja: | $(INSTALLED)
	meson setup $(LOADGEN_SAN) loadgen --buildtype=debug -Doptimization=1 \
	  -Db_sanitize=address,undefined -Db_lundef=false -Dwerror=true

loadgen-san-test: $(LOADGEN_SAN)/build.ninja
	$(MESON) compile -C $(LOADGEN_SAN)
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	  $(MESON) test -C $(LOADGEN_SAN) --print-errorlogs --num-processes $(LOADGEN_TEST_JOBS) \
	  $(LOADGEN_TIMEOUTS)

bench: bench-ingest bench-loadgen bench-qos

bench-ingest: $(INSTALLED)
	DJANGO_SETTINGS_MODULE=benchsite.settings.test $(EPHEMERAL) $(PY) manage.py bench_ingest

bench-loadgen: loadgen
	LOADGEN=$(CURDIR)/$(LOADGEN_BUILD)/loadgen loadgen/bench/run

# Issue 46's measurements (loadgen/bench/qos): loadgen's latency percentiles against fio's,
# with fio against itself as the noise floor; paced runs' rate at each fraction of the
# maximum; a device-mapper delay target's stall in a paced run's tail, in a QEMU guest
# (loadgen/bench/stall_vm.py). fio, dmsetup and QEMU are installed as the tests' are.
QOS_TOOLS := fio:fio dmsetup:dmsetup qemu-system-x86_64:qemu-system-x86
bench-qos: loadgen
	$(call install_missing,$(QOS_TOOLS),make bench-qos needs)
	LOADGEN=$(CURDIR)/$(LOADGEN_BUILD)/loadgen $(PY) loadgen/bench/qos

# Chart images: the site's renderer (results/chart_images/) beside kaleido, Plotly's static
# export, driving Debian's chromium (BROWSER_PATH; never a browser kaleido downloads) with the
# site's own Plotly bundle. kaleido is no dependency of the site: its pinned wheels
# (loadtests/kaleido.lock) go into var/kaleido/, on PYTHONPATH for this command only.
KALEIDO := var/kaleido
bench-charts: $(INSTALLED) test-deps
	$(BIN)/pip install --quiet --disable-pip-version-check --require-hashes --only-binary=:all: \
	  --upgrade --target $(KALEIDO) -r loadtests/kaleido.lock
	DJANGO_SETTINGS_MODULE=benchsite.settings.test PYTHONPATH=$(CURDIR)/$(KALEIDO) \
	  BROWSER_PATH=$${BROWSER_PATH:-/usr/bin/chromium} $(EPHEMERAL) \
	  $(PY) manage.py bench_charts $(if $(ROUNDS),--rounds $(ROUNDS))

# The open-data dump of a seed_scale catalog: its time, size and peak memory, table by table
# (loadtests/management/commands/bench_dump.py), at two sizes: 1,000 drives in a throw-away
# database, then bench-web's 10,000 (built there once). Streamed, both hold about as much.
BENCH_DUMP_SMALL := 1000
bench-dump: $(INSTALLED)
	DJANGO_SETTINGS_MODULE=benchsite.settings.test $(EPHEMERAL) bash -c '\
	  $(PY) manage.py migrate --noinput -v0 && $(PY) manage.py bench_dump --drives $(BENCH_DUMP_SMALL)'
	DJANGO_SETTINGS_MODULE=benchsite.settings.test $(PY) -m benchsite.embedded_pg run --data-dir $(BENCH_WEB_DATA) -- bash -c '\
	  $(PY) manage.py migrate --noinput -v0 && $(PY) manage.py bench_dump'

# Rebuild static/vendor/plotly.min.js from the plotly.js npm package (the result is committed).
plotly:
	static/build/plotly.sh

# The synthetic catalog for benchmarks, in the `make run` database (never loaded by `make run`).
seed-scale: $(INSTALLED)
	$(PY) -m benchsite.embedded_pg run --data-dir var/pg -- bash -c '\
	  $(PY) manage.py migrate --noinput -v0 && $(PY) manage.py seed_scale'

clean:
	rm -rf $(LOADGEN_BUILD) $(LOADGEN_SAN) .pytest_cache .ruff_cache

# Pages under load: gunicorn on loopback against the seed_scale catalog (built once in
# var/bench-web/, reused by later runs), loaded with wrk beside a trivial view.
BENCH_WEB_DATA := var/bench-web/pg
bench-web: $(INSTALLED)
	@command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk; }
	$(PY) -m benchsite.embedded_pg run --data-dir $(BENCH_WEB_DATA) -- bash -c '\
	  $(PY) manage.py migrate --noinput -v0 && $(PY) manage.py bench_web $(if $(CACHED),--cached) $(if $(ROUNDS),--rounds $(ROUNDS))'

# The API beside a trivial DRF endpoint on the same catalog; CACHED=1 adds the cached mode.
bench-api: $(INSTALLED)
	@command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk; }
	$(PY) -m benchsite.embedded_pg run --data-dir $(BENCH_WEB_DATA) -- bash -c '\
	  $(PY) manage.py migrate --noinput -v0 && \
	  $(PY) manage.py bench_api $(if $(CACHED),--cached) $(BENCH_API_ARGS)'

# The production server (response cache on) under 64 connections for 60 s, on the same
# seed_scale catalog; UPLOADS=1 adds reviewers uploading through the API meanwhile.
# SHAPE=serve (the default) measures `make serve`'s shape, gunicorn alone; SHAPE=deployed
# the one docs/deploy.md recommends beyond one machine: nginx with deploy/nginx.conf (TLS,
# a certificate from openssl) in front, Redis for the cache, a streaming replica of the
# catalog's cluster (pg_basebackup, beside initdb) for the reads; SHAPE=both, one then the
# other. The programs each needs, as command:Debian package, installed where missing.
BENCH_LOAD_TOOLS = wrk:wrk $(if $(filter deployed both,$(SHAPE)),nginx:nginx openssl:openssl \
  redis-server:redis-server)
bench-load-deps:
	$(call install_missing,$(BENCH_LOAD_TOOLS),make bench-load needs)

bench-load: $(INSTALLED) bench-load-deps
	$(PY) -m benchsite.embedded_pg run --data-dir $(BENCH_WEB_DATA) -- bash -c '\
	  $(PY) manage.py migrate --noinput -v0 && \
	  $(PY) manage.py bench_load $(if $(UPLOADS),--uploads) $(if $(SHAPE),--shape $(SHAPE)) $(if $(COLD),--cold) \
	    $(BENCH_LOAD_ARGS)'

# How long the in-process copies take to follow a write, read whole and from the change log,
# on the same seed_scale catalog (writes to it, as bench-load's uploads do; ROUNDS=N).
bench-copies: $(INSTALLED)
	$(PY) -m benchsite.embedded_pg run --data-dir $(BENCH_WEB_DATA) -- bash -c '\
	  $(PY) manage.py migrate --noinput -v0 && \
	  $(PY) manage.py bench_copies $(if $(ROUNDS),--rounds $(ROUNDS))'

# This tree against an earlier commit (BEFORE=<commit>), paired: both served at once, each on
# its own copy of the seed_scale catalog in one PostgreSQL, rounds alternating.
bench-pair: $(INSTALLED)
	@[ -n "$(BEFORE)" ] || { echo "make bench-pair BEFORE=<commit>" >&2; exit 2; }
	@command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk; }
	rev=$$(git rev-parse --verify "$(BEFORE)^{commit}") && tree=var/bench-pair/$$rev && \
	  { [ -d $$tree ] || { git worktree add --detach $$tree $$rev >/dev/null && ln -s $(CURDIR)/$(VENV) $$tree/$(VENV); }; } && \
	  $(PY) -m benchsite.embedded_pg run --data-dir $(BENCH_WEB_DATA) -- bash -c "\
	    $(PY) manage.py migrate --noinput -v0 && \
	    $(PY) manage.py bench_pair --before $$tree $(if $(ROUNDS),--rounds $(ROUNDS))"
