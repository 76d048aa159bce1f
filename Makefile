# Two commands do all the set-up: `make run` (the scenario library, offline) and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: run demo test clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/harness run scenarios/ --jobs auto

demo: $(STAMP)
	$(BIN)/harness play scenarios/ch03_demo.yaml

test: $(STAMP)
	$(BIN)/python -m pytest -n auto -q

.PHONY: bench
bench: $(STAMP)
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) .hypothesis *.egg-info

.PHONY: mutants
mutants: $(STAMP)
	$(BIN)/python -m mutants
