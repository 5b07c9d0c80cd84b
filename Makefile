# Set-up is two commands: `make up` (install, then run the local stack) and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
INSTALLED := $(VENV)/.installed

.PHONY: install link up test lint format lock clean dictionary

install: $(INSTALLED) dictionary

$(INSTALLED): pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[dev]'
	touch $@

# The English-Russian dictionary search translates questions with (mirage_query/translation.py):
# Debian's mueller7-dict, unpacked into the user's cache. Without apt, search works untranslated.
DICTIONARY := $(HOME)/.cache/mirage/dictd/mueller7.dict.dz
dictionary:
	@test -f /usr/share/dictd/mueller7.dict.dz || test -f $(DICTIONARY) || { \
	  tmp=$$(mktemp -d) && cd $$tmp \
	  && { apt-get download mueller7-dict >/dev/null 2>&1 \
	       || { apt-get update -qq >/dev/null 2>&1 && apt-get download mueller7-dict >/dev/null 2>&1; }; } \
	  && dpkg-deb -x mueller7-dict_*.deb x && mkdir -p $(dir $(DICTIONARY)) \
	  && cp x/usr/share/dictd/mueller7.dict.dz $(DICTIONARY) \
	  && echo "dictionary: $(DICTIONARY)" \
	  || echo "no English-Russian dictionary (apt-get download mueller7-dict failed): search across languages untranslated"; \
	  rm -rf $$tmp; }

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
