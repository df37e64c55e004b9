# Diamino — the two commands a newcomer needs are `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: setup dawg run test lint format migrate worker beat bench screenshots messages clean

setup: $(STAMP) dawg

# Reinstall only when the pinned dependencies change.
$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	@touch $(STAMP)

# The move generator's DAWG (rules/dawg_file.py): built from the committed word list,
# not committed; rebuilt only when missing or stale (another list, format or checksum).
dawg: $(STAMP)
	@$(BIN)/python -m rules.dawg_file check 2>/dev/null || $(BIN)/python -m rules.dawg_file build

migrate: setup
	@mkdir -p data
	$(BIN)/python manage.py migrate --no-input

run: migrate
	$(BIN)/python manage.py runserver $(HOST):$(PORT)

test: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python -m pytest

lint: setup
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

worker: setup
	$(BIN)/celery -A diamino_site worker --loglevel=INFO

# Exactly one beat per site. Its schedule file goes with the data, not in the checkout.
beat: setup
	@mkdir -p "$${DIAMINO_DATA_DIR:-data}"
	$(BIN)/celery -A diamino_site beat --loglevel=INFO --schedule "$${DIAMINO_DATA_DIR:-data}/celerybeat-schedule"

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
