# Tabula. `make run` serves web + worker + beat on 127.0.0.1:$(PORT); `make test` runs the suite.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8000
export PORT

.PHONY: help install run migrate test check test-fast lint format golden bench bench-bots clean screenshots
.PHONY: help install install-runtime run migrate messages test test-pg check web-check web-lint test-fast lint format golden openapi clients bench bench-boards bench-bots clean lock

help:
	@echo "make run      start the front (python -m front), Celery workers and beat on 127.0.0.1:$(PORT)"
	@echo "make test     install what is needed and run the whole suite"
	@echo "make test-pg  the whole suite against the local PostgreSQL and Redis (as .ci/run points it)"
	@echo "make check    ruff (lint and format), mypy, the import-linter contracts, and the web client's tsc --checkJs, ESLint and Prettier"
	@echo "make golden   rewrite the golden transcripts (tests/golden) after an intended change"
	@echo "make openapi  rewrite docs/openapi.yaml (the committed API document) after an intended API change"
	@echo "make clients  generate a Python and a TypeScript client and play every game with each (docs/clients.md)"
	@echo "make bench    engine costs, GET state and leaderboards vs GET games latency"
	@echo "make lock     rewrite requirements/*.txt (every pin, with hashes) from pyproject.toml"

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

# Installs come from the lock files (requirements/, every pin with its hashes; `make lock` rewrites
# them from pyproject.toml): `make run` the runtime set only, `make test` the development set too.
$(VENV)/.runtime: requirements/runtime.txt | $(BIN)/python
	$(BIN)/pip install --quiet --require-hashes -r requirements/runtime.txt
	$(BIN)/pip install --quiet --no-deps -e .
	touch $@

$(VENV)/.installed: requirements/dev.txt | $(BIN)/python
	$(BIN)/pip install --quiet --require-hashes -r requirements/dev.txt
	$(BIN)/pip install --quiet --no-deps -e .
	touch $@ $(VENV)/.runtime

install: $(VENV)/.installed

install-runtime: $(VENV)/.runtime

migrate: install-runtime
	$(BIN)/python manage.py migrate --noinput

run: install-runtime
	bin/run

# The development set first; the runtime set within it, so `make test` adds to `make run`'s packages
# and never changes one.
lock: install
	$(BIN)/uv pip compile pyproject.toml --extra dev --python-version 3.11 --generate-hashes --quiet -o requirements/dev.txt
	$(BIN)/uv pip compile pyproject.toml --python-version 3.11 --generate-hashes --quiet -c requirements/dev.txt \
	  -o requirements/runtime.txt

test: install check
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || [ -n "$$TABULA_CHROMIUM" ] || \
	  echo "NOTE: no Chromium found, so the browser tests (tests/web) are SKIPPED (apt-get install chromium runs them)"
	$(BIN)/pytest -n 2 --dist loadgroup $(PYTEST_ARGS)

# The suite on PostgreSQL and Redis, as .ci/run sets them: the PostgreSQL-only tests run too.
test-pg: install check
	DATABASE_URL="$${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test}" \
	CELERY_BROKER_URL="$${CELERY_BROKER_URL:-redis://127.0.0.1:6379/15}" \
	  $(BIN)/pytest -n 2 --dist loadgroup $(PYTEST_ARGS)

# The static checks `make test` runs first (and .pre-commit-config.yaml runs on commit).
check: install web-check
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports
	$(BIN)/python -m languages.coverage

# The platform's sentences in Polish and Spanish (docs/languages.md): gather new msgids into
# languages/locale/*/LC_MESSAGES/django.po (translate them there), then compile the .mo files Django reads.
messages: install
	$(BIN)/python manage.py makemessages -l pl -l es --no-location --ignore=.venv --ignore=web \
	  --ignore=var --ignore=tests --ignore=bench --ignore=node_modules
	$(BIN)/python manage.py compilemessages --ignore=.venv

# The web client (web/static/web, plain ES modules): its tools are pinned in web/package-lock.json;
# its API types are generated from docs/openapi.yaml (web/generated/, not committed) for
# `tsc --checkJs` (web/tsconfig.json), then ESLint (web/eslint.config.js) and Prettier.
web/node_modules/.installed: web/package-lock.json
	cd web && npm ci --no-audit --no-fund --loglevel=error
	touch $@

web/generated/api.d.ts: docs/openapi.yaml web/node_modules/.installed
	web/node_modules/.bin/openapi-typescript docs/openapi.yaml -o $@ --silent

web-check:
	@if command -v npm >/dev/null 2>&1; then $(MAKE) --no-print-directory web-lint; \
	else echo "NOTE: no npm, so the web client's checks (tsc, ESLint, Prettier) are SKIPPED (apt-get install npm runs them)"; fi

web-lint: web/generated/api.d.ts
	cd web && node_modules/.bin/tsc -p . && node_modules/.bin/eslint . && node_modules/.bin/prettier --check --log-level warn .

test-fast: install
	$(BIN)/pytest -x -q $(PYTEST_ARGS)

lint: check

format: install web/node_modules/.installed
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .
	cd web && node_modules/.bin/prettier --write --log-level warn .

golden: install
	$(BIN)/python -m tests.golden.generate

# Rewrite docs/screenshots/ (each game at 1280×800 and 390×844, and one game page in each language,
# i18n-<language>.png) from the browser tests.
screenshots: install
	TABULA_SCREENSHOTS=1 $(BIN)/pytest -p no:xdist -q tests/web/test_games.py tests/web/test_players.py \
		tests/web/test_i18n_pseudo.py::test_a_game_page_in_each_language
openapi: install
	DJANGO_SETTINGS_MODULE=config.settings.test $(BIN)/python manage.py spectacular --validate --fail-on-warn --file docs/openapi.yaml

clients: install
	.ci/clients
	$(BIN)/pytest -q tests/clients

bench: install
	$(BIN)/python bench/run.py

bench-boards: install
	$(BIN)/python bench/run.py --only boards

bench-bots: install
	$(BIN)/python bench/bots.py

clean:
	rm -rf var/broker var/celerybeat-schedule* .pytest_cache
