# Set-up is two commands: `make up` (install, then run the local stack) and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
INSTALLED := $(VENV)/.installed

.PHONY: install link up test lint format lock clean

install: $(INSTALLED)

$(INSTALLED): pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[dev]'
	touch $@

# `mirage` on PATH without the venv: a link in ~/.local/bin (a failure here does not stop `up`).
link: install
	-$(BIN)/mirage link

up: link
	$(BIN)/mirage up

test: install lint
	$(BIN)/pytest

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: install
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

# Re-pin every dependency after changing pyproject.toml (resolves in a throw-away venv).
lock:
	rm -rf .lock-venv && $(PYTHON) -m venv .lock-venv
	.lock-venv/bin/python -m pip install --quiet --upgrade pip
	.lock-venv/bin/python -m pip install --quiet -e '.[dev]'
	.lock-venv/bin/python -m pip freeze --exclude-editable | grep -v '^mirage-rag' > constraints.txt
	rm -rf .lock-venv

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
