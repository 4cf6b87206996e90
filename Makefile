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

bench: setup
	for b in bench/bench_*.py; do .venv/bin/python $$b || exit 1; done
