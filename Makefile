# The README's commands. torch==2.13.0 is installed first, on its own: a bare
# "torch" requirement (pulled in by sentence-transformers) would fetch a CUDA build.
VENV := .venv
PY := $(VENV)/bin/python
export HF_HUB_OFFLINE := 1
export GRADIO_ANALYTICS_ENABLED := False

.PHONY: setup check test index run lint clean

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet torch==2.13.0
	$(PY) -m pip install --quiet -e '.[all,test]'  # every README command: ui, llm, eval, milvus, ray, mcp
	touch $@

# The everyday loop (52 CPU-seconds, 5 min 19 s wall at load 13-17; docs/figures.md): lint,
# then the tests that start no process or server, drive no browser, need neither Milvus nor
# Ray, and feed no `heavy` input (seconds of CPU each). `make test` runs those too.
check: lint
	$(PY) -m pytest -q -p no:cacheprovider -m "not browser and not process and not milvus and not ray and not slow and not heavy"

# Everything but the `slow` tests that need the full benchmark data (see pyproject.toml),
# on two workers (one per core), each module on one worker (module fixtures stay shared):
# most of the suite waits on `qa` processes, servers and the browser, one core at a time
test: setup
	$(PY) -m pytest -n 2 --dist loadfile

index: setup
	$(VENV)/bin/qa index seeds/

run: index
	$(VENV)/bin/qa serve

lint: setup
	$(VENV)/bin/ruff check qa ui tests benchmarks
	$(VENV)/bin/mypy  # qa/ and ui/, configured in pyproject.toml

clean:
	rm -rf $(VENV) .qa-index
