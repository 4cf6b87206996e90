# The two commands the README opens with. Both set up a fresh machine first.
.PHONY: setup demo test lint bench

setup:
	./scripts/setup.sh

demo: setup
	.venv/bin/craftbt run trees/library/obtain_wooden_pickaxe.yaml

test: setup
	.venv/bin/python -m pytest

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
