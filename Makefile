# Two commands set everything up on a fresh machine:
#   make run   -> creates .venv, installs what the app needs (requirements.txt), indexes the sample book, starts the app
#   make test  -> creates .venv, installs that and the test tools and optional backends (requirements-dev.txt),
#                 runs lint, type check and every test tier
# make test-fast runs the unit tier only (no models, seconds).
VENV ?= .venv
PY := $(VENV)/bin/python
RUN_STAMP := $(VENV)/.installed-run-$(shell cat requirements.txt | sha256sum | cut -c1-12)
DEV_STAMP := $(VENV)/.installed-dev-$(shell cat requirements*.txt | sha256sum | cut -c1-12)
PORT ?= 8501
export KGCORE_STORE ?= data
# Nothing may be fetched from a model hub at run time.
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export ANONYMIZED_TELEMETRY := False

.PHONY: install install-dev run test test-fast lint bench sample clean

$(RUN_STAMP): requirements.txt
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -r requirements.txt
	rm -f $(VENV)/.installed-run-*
	touch $(RUN_STAMP)

$(DEV_STAMP): $(wildcard requirements*.txt)
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -r requirements-dev.txt
	rm -f $(VENV)/.installed-run-* $(VENV)/.installed-dev-*
	touch $(RUN_STAMP) $(DEV_STAMP)

install: $(RUN_STAMP)

install-dev: $(DEV_STAMP)

sample: install
	$(PY) -m kgcore index assets/peter_rabbit.txt --name peter-rabbit

run: sample
	$(VENV)/bin/streamlit run app.py --server.headless true --server.address 127.0.0.1 --server.port $(PORT) \
		--browser.gatherUsageStats false

lint: install-dev
	$(VENV)/bin/ruff check kgcore ui pages tests bench app.py
	$(VENV)/bin/mypy

test: lint
	$(PY) -m pytest

test-fast: install-dev
	$(PY) -m pytest tests/unit kgcore

bench: install
	$(PY) bench/index_bench.py
	$(PY) bench/query_bench.py
	$(PY) bench/retrieval_quality.py

clean:
	rm -rf $(VENV) .pytest_cache tests/artifacts
