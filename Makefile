# Diamino — the two commands a newcomer needs are `make run` and `make test`.
# Python 3.11 (pyproject.toml), found under its own name first: python3 may be another version.
PYTHON ?= $(shell command -v python3.11 2>/dev/null || echo python3)
# Another Python gets its own venv: make test-fast PYTHON=python3.13 VENV=.venv313
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
HOST ?= 127.0.0.1
PORT ?= 8000
# The address emails link to: the one `make run` serves, unless SITE_URL is set.
SITE_URL ?= http://$(HOST):$(PORT)

.PHONY: setup dawg common-words axe run mail-in test test-fast typecheck lint format migrate worker beat bench soak screenshots messages clean lock

# Test workers (pytest-xdist): one per core and one more by default, as a browser test
# spends part of its time waiting on Chromium and the live server (on 2 cores, 3 workers
# took 8 min 2 s where 2 took 8 min 30 s); WORKERS=0 runs the suite in one process.
WORKERS ?= $(shell echo $$(( $$(nproc 2>/dev/null || echo 1) + 1 )))

setup: $(STAMP) dawg

# --- The locked install (requirements/py3XX.txt, one per Python) ------------
# The lock of the venv's Python (of PYTHON before the venv exists): every
# package pinned with its hashes, the dev extra included.
LOCK_PYTHON := $(if $(wildcard $(BIN)/python),$(BIN)/python,$(PYTHON))
LOCK := requirements/py$(shell $(LOCK_PYTHON) -c 'import sys; print("%d%d" % sys.version_info[:2])').txt
LOCKED_PYTHONS := 3.11 3.12 3.13

# Reinstall only when the lock changes. pip refuses any file whose hash is not
# in the lock; the project itself adds no package (--no-deps) and is built by
# the locked setuptools (--no-build-isolation), so nothing comes unchecked.
$(STAMP): $(LOCK)
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --require-hashes -r $(LOCK)
	$(BIN)/python -m pip install --quiet --no-deps --no-build-isolation -e .
	@touch $(STAMP)

$(LOCK):
	@echo "No lock for this Python: $(LOCK). Diamino runs on Python $(LOCKED_PYTHONS)." >&2
	@exit 1

# After editing the dependencies in pyproject.toml: the locks again, for every
# Python, from whichever Python runs it. Versions already locked are kept where
# they still fit; `make lock UPGRADE=1` takes the newest of everything. A lock
# whose content is unchanged is not touched (no reinstall follows).
lock: setup
	@for version in $(LOCKED_PYTHONS); do \
	  lock=requirements/py$$(echo $$version | tr -d .).txt; \
	  cp $$lock $$lock.new 2>/dev/null || true; \
	  $(BIN)/uv pip compile pyproject.toml --extra dev --generate-hashes --universal \
	    --quiet --python-version $$version $(if $(UPGRADE),--upgrade) \
	    --custom-compile-command "make lock" -o $$lock.new || { rm -f $$lock.new; exit 1; }; \
	  if cmp -s $$lock.new $$lock; then rm $$lock.new; \
	  else mv $$lock.new $$lock; echo "make lock: $$lock written"; fi; \
	done
# --- end of the locked install ------------------------------------------------

# The move generator's DAWG (rules/dawg_file.py): built from the committed word list,
# not committed; rebuilt only when missing or stale (another list, format or checksum).
dawg: $(STAMP)
	@$(BIN)/python -m rules.dawg_file check 2>/dev/null || $(BIN)/python -m rules.dawg_file build

# The débutant's common words (rules/common_words.py), committed: rebuilt by hand when the
# list or the threshold changes. Needs wordfreq, a build-time tool only:
# $(BIN)/pip install wordfreq
common-words: $(STAMP)
	$(BIN)/python -m rules.common_words build
	$(BIN)/python -m rules.common_words check

# The accessibility tests load npm's axe-core (the version package-lock.json pins) into
# the pages: installed where npm is, so a contributor's `make test` runs them too;
# without npm they skip and say so.
axe: node_modules/axe-core/axe.min.js
node_modules/axe-core/axe.min.js: package-lock.json
	@if command -v npm >/dev/null; then npm ci --no-audit --no-fund --loglevel=error && touch $@; \
	else echo "npm not found: the accessibility tests will skip (apt-get install npm, then make setup)"; fi

migrate: setup
	@mkdir -p data
	$(BIN)/python manage.py migrate --no-input

run: migrate
	SITE_URL='$(SITE_URL)' $(BIN)/python manage.py runserver $(HOST):$(PORT)

# The 30 slowest tests are listed at the end: where the next minute of the suite is.
test: setup axe
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports --no-cache
	$(BIN)/mypy
	$(BIN)/python -m pytest -n $(WORKERS) --dist worksteal --durations=30

# mypy over the whole checkout, strict on rules/ ([tool.mypy] in pyproject.toml);
# incremental: .mypy_cache keeps what did not change.
typecheck: setup
	$(BIN)/mypy

# The suite without the browser tests (FAST_MARKERS: CI's second Python also leaves out
# those marked slow, .ci/run).
FAST_MARKERS ?= not browser
test-fast: setup
	$(BIN)/python -m pytest -n $(WORKERS) --dist worksteal -m "$(FAST_MARKERS)"

lint: setup
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

# The replies to the turn emails, over SMTP on MAIL_IN_HOST:MAIL_IN_PORT (README, bymail/).
mail-in: migrate
	SITE_URL='$(SITE_URL)' $(BIN)/python manage.py mail_in

worker: setup
	SITE_URL='$(SITE_URL)' $(BIN)/celery -A diamino_site worker --loglevel=INFO

# Exactly one beat per site. Its schedule file goes with the data, not in the checkout.
beat: setup
	@mkdir -p "$${DIAMINO_DATA_DIR:-data}"
	SITE_URL='$(SITE_URL)' $(BIN)/celery -A diamino_site beat --loglevel=INFO --schedule "$${DIAMINO_DATA_DIR:-data}/celerybeat-schedule"

bench: setup
	$(BIN)/python -m benchmarks

# The production stack on this machine (its own PostgreSQL, Redis, SMTP sink, push service,
# gunicorn, worker, beat, mail-in), 200 players for SOAK_MINUTES (60) while faults arrive;
# exits non-zero on any lost or doubled move, email or push (benchmarks/soak, docs/PERFORMANCE.md).
soak: setup dawg
	$(BIN)/python -m benchmarks.soak

# Photographs of the main pages from a live game (needs Debian's Chromium): docs/screenshots/.
screenshots: setup
	DIAMINO_SCREENSHOTS=1 $(BIN)/python -m pytest tests/browser/test_screenshots.py -q

messages: setup
	$(BIN)/python manage.py makemessages -l fr --ignore=.venv --ignore=data
	$(BIN)/python manage.py compilemessages --ignore=.venv

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .mypy_cache
