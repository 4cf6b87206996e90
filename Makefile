# The two commands the README opens with. Both set up a fresh machine first: `make demo` only what the
# demo needs (the venv and the core package), `make test` everything (extras, dev tools, npm, Graphviz).
.PHONY: setup setup-demo demo test lint bench lock wheel

setup:
	./scripts/setup.sh

setup-demo:
	./scripts/setup.sh demo

demo: setup-demo
	@s=$$(date +%s.%N); echo "demo: craftbt run obtain_wooden_pickaxe (a library tree on the embedded world) ..."; \
	  .venv/bin/craftbt run obtain_wooden_pickaxe && \
	  awk -v a=$$s -v b=$$(date +%s.%N) 'BEGIN { printf "demo: done in %.1f s\n", b - a }'

test: setup
	.venv/bin/python -m pytest

# requirements/lock.txt: the exact versions setup and CI install; uv keeps the current ones unless
# pyproject.toml's ranges exclude them (UPGRADE=1 takes the newest that fit)
lock: setup
	.venv/bin/uv pip compile pyproject.toml --extra dev --extra suites --python-version 3.11 --annotation-style line \
	  $(if $(UPGRADE),--upgrade,) -o requirements/lock.txt

# the sdist and the wheel in dist/, checked by twine
wheel: setup
	rm -rf dist && .venv/bin/python -m build --outdir dist . && .venv/bin/twine check --strict dist/*

lint: setup
	.venv/bin/ruff check .
	.venv/bin/mypy
	.venv/bin/lint-imports --no-cache
	.venv/bin/lint-imports --no-cache importlinter-cycles.ini

# Every bench script prints its targets as `TARGET name: value (target ...): OK|NOT met` (bench/_targets.py);
# the summary at the end repeats those lines from all of them.
bench: setup
	@mkdir -p build && : > build/bench.log
	@for b in bench/bench_*.py; do .venv/bin/python $$b > build/bench.out 2>&1; rc=$$?; \
	  cat build/bench.out; cat build/bench.out >> build/bench.log; [ $$rc -eq 0 ] || exit $$rc; done
	@echo "== targets (make bench) =="; grep '^TARGET' build/bench.log || echo "no targets printed"
