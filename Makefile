# Diamino — the two commands a newcomer needs are `make run` and `make test`.
# Python 3.11 (pyproject.toml), found under its own name first: python3 may be another version.
PYTHON ?= $(shell command -v python3.11 2>/dev/null || echo python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
HOST ?= 127.0.0.1
PORT ?= 8000
# The address emails link to: the one `make run` serves, unless SITE_URL is set.
SITE_URL ?= http://$(HOST):$(PORT)

.PHONY: setup run test lint format migrate worker beat bench screenshots messages clean

setup: $(STAMP)

# Reinstall only when the pinned dependencies change.
$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	@touch $(STAMP)

migrate: setup
	@mkdir -p data
	$(BIN)/python manage.py migrate --no-input

run: migrate
	SITE_URL='$(SITE_URL)' $(BIN)/python manage.py runserver $(HOST):$(PORT)

test: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports --no-cache
	$(BIN)/python -m pytest

lint: setup
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

worker: setup
	SITE_URL='$(SITE_URL)' $(BIN)/celery -A diamino_site worker --loglevel=INFO

# Exactly one beat per site. Its schedule file goes with the data, not in the checkout.
beat: setup
	@mkdir -p "$${DIAMINO_DATA_DIR:-data}"
	SITE_URL='$(SITE_URL)' $(BIN)/celery -A diamino_site beat --loglevel=INFO --schedule "$${DIAMINO_DATA_DIR:-data}/celerybeat-schedule"

bench: setup
	$(BIN)/python -m benchmarks

# Photographs of the main pages from a live game (needs Debian's Chromium): docs/screenshots/.
screenshots: setup
	DIAMINO_SCREENSHOTS=1 $(BIN)/python -m pytest tests/browser/test_screenshots.py -q

messages: setup
	$(BIN)/python manage.py makemessages -l fr --ignore=.venv --ignore=data
	$(BIN)/python manage.py compilemessages --ignore=.venv

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
