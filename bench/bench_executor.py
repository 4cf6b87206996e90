"""Executor overhead per dispatch vs ticking the same capability without the executor, and memory flatness.

Baseline: a py_trees tree of the same capability leaves ticked with the default
hooks (no pipeline, no journal, no supervisor), advancing the body one tick per
tree tick — "calling the runner directly" through its behaviour. Executor: the
same tree through ``Executor.run`` (pipeline, supervisor, detectors, journal on
disk in WAL mode, golden-run report). Both on the same deterministic body in the
same process; the ratio is printed (target <= 1.5x).

Memory: 100,000 dispatches through one executor in 200 runs of 500 leaves;
tracemalloc's current size is sampled after every run. Flat means the last
samples are not growing beyond the bounded buffers.

    .venv/bin/python bench/bench_executor.py [--dispatches N] [--runs-for-memory N]
"""

from __future__ import annotations

import argparse
import gc
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import py_trees

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from capabilities.context import CapabilityContext
from executor.config import Bounds, ExecutorConfig, RateLimit
from executor.executor import Executor
from tests.executor_fakes import FakeBody, make_registry
from trees import model as m
from trees.build import build

FENCE = Bounds(min_x=-50, min_y=0, min_z=-50, max_x=50, max_y=255, max_z=50)


def definition(n: int) -> m.TreeDefinition:
    # each leaf issues one body command that completes on the next tick (a realistic short action)
    return m.TreeDefinition(tree="bench", root=m.SequenceNode(children=[
        m.LeafNode(capability="tap", args={"n": i}) for i in range(n)]))


def baseline(n: int) -> float:
    body = FakeBody()
    registry = make_registry(body)
    ctx = CapabilityContext(body=body, registry=registry)
    start = time.perf_counter()
    built = build(definition(n), ctx)  # the executor's run validates and builds too
    root = built.root
    while True:
        root.tick_once()
        if root.status in (py_trees.common.Status.SUCCESS, py_trees.common.Status.FAILURE):
            break
        body.advance(1)
    elapsed = time.perf_counter() - start
    assert root.status == py_trees.common.Status.SUCCESS
    return elapsed


def with_executor(n: int, home: Path) -> float:
    body = FakeBody()
    registry = make_registry(body)
    config = ExecutorConfig(geofence=FENCE, rate_limit=RateLimit(max_dispatches=10_000, window_ms=1000),
                            max_ticks=10 * n + 100, preemption=True)
    ex = Executor(registry, body, config=config, home=home)
    start = time.perf_counter()
    out = ex.run(definition(n))
    elapsed = time.perf_counter() - start
    assert out.status == "success" and out.dispatches == n, out.status
    ex.journal.close()
    return elapsed


def memory(total: int, per_run: int, home: Path) -> list[float]:
    body = FakeBody()
    registry = make_registry(body)
    config = ExecutorConfig(geofence=FENCE, rate_limit=RateLimit(max_dispatches=10_000, window_ms=1000),
                            max_ticks=10 * per_run + 100)
    ex = Executor(registry, body, config=config, home=home)
    defn = definition(per_run)
    samples: list[float] = []
    tracemalloc.start()
    done = 0
    while done < total:
        py_trees.blackboard.Blackboard.clear()
        body.handles.clear()  # the fake body's own test log, not executor state
        out = ex.run(defn)
        done += out.dispatches
        gc.collect()
        samples.append(tracemalloc.get_traced_memory()[0] / 1e6)
    tracemalloc.stop()
    ex.journal.close()
    return samples


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--dispatches", type=int, default=2000)
    parser.add_argument("--memory-dispatches", type=int, default=100_000)
    args = parser.parse_args()
    n = args.dispatches
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        baseline(200)
        with_executor(200, home / "warm")  # warm both paths
        base = min(baseline(n) for _ in range(3))
        execd = min(with_executor(n, home / f"run{i}") for i in range(3))
        print(f"baseline (behaviour + body, no executor): {base / n * 1e6:8.1f} us/dispatch")
        print(f"executor (pipeline + journal + report):   {execd / n * 1e6:8.1f} us/dispatch")
        print(f"overhead ratio: {execd / base:.2f}x (target <= 1.5x)")
        samples = memory(args.memory_dispatches, 500, home / "mem")
        tenth = max(1, len(samples) // 10)
        early = sum(samples[tenth:2 * tenth]) / tenth
        late = sum(samples[-tenth:]) / tenth
        print(f"memory after {args.memory_dispatches} dispatches: {samples[-1]:.2f} MB traced "
              f"(runs 10-20%: {early:.2f} MB, last 10%: {late:.2f} MB, growth {late - early:+.2f} MB, "
              f"ratio {late / early:.2f}x)")


if __name__ == "__main__":
    main()
