"""What Ray buys an evaluation: the same matrix on one in-process worker and on N Ray workers, in one run.

Prints wall seconds for each, the speed-up as a ratio (baseline: one worker in this process), and
whether every episode's outcome is identical (it must be: an episode is a function of its spec).
Ray start-up is inside the Ray figure: that is what a user pays.

Run: .venv/bin/python bench/bench_eval.py [--goals "obtain stick,obtain wooden_pickaxe"] [--seeds 0-19] [--workers 2]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from craftbt.cli.eval_cmds import parse_goals, parse_seeds
from craftbt.evaluation.runner import evaluate, expand
from craftbt.evaluation.store import ResultStore


def outcomes(out: Path) -> dict[str, dict[str, object]]:
    store = ResultStore(out / "results.sqlite")
    try:
        return {r.key: r.outcome() for r in store.results()}
    finally:
        store.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--goals", default="obtain stick,obtain wooden_pickaxe")
    parser.add_argument("--seeds", default="0-19")
    parser.add_argument("--workers", type=int, default=max(2, os.cpu_count() or 2))
    args = parser.parse_args()
    specs = expand(parse_goals(args.goals), parse_seeds(args.seeds), ["auto"], ["starter"], 24_000)
    with tempfile.TemporaryDirectory() as tmp:
        one, many = Path(tmp) / "one", Path(tmp) / "many"
        t0 = time.perf_counter()
        evaluate(specs, one, workers=1)
        t1 = time.perf_counter()
        evaluate(specs, many, workers=args.workers)
        t2 = time.perf_counter()
        same = outcomes(one) == outcomes(many)
        wins = sum(o["status"] == "success" for o in outcomes(one).values())
    base, ray_s = t1 - t0, t2 - t1
    print(f"{len(specs)} episodes ({args.goals}; seeds {args.seeds}), {wins} succeeded; {os.cpu_count()} cores")
    print(f"  1 worker in-process : {base:7.2f} s  ({base / len(specs) * 1000:.0f} ms per episode)  [baseline]")
    print(f"  {args.workers} Ray workers       : {ray_s:7.2f} s  ({ray_s / len(specs) * 1000:.0f} ms per episode)"
          f"  speed-up {base / ray_s:.2f}x")
    print(f"  identical outcomes per episode: {'yes' if same else 'NO'}")


if __name__ == "__main__":
    main()
