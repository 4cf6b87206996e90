"""Executor overhead per dispatch, three ways, and memory flatness after 100,000 dispatches.

The same leaves run on the same kind of body three ways, in one process run:

* ``runner``   — each capability's runner called directly: args validated with the
  capability's model, the generator driven by hand, the world advanced one tick
  while a yielded handle runs. No py_trees, no guard, no acceptance check.
* ``tree``     — the leaves as a tree from ``trees.build`` ticked with the default
  hooks: what a capability costs without the executor (validation at build,
  guard, pre/post observation, acceptance), advancing the world one tick per tick.
* ``executor`` — ``Executor.run``: feasibility gate, plan digests, the pipeline,
  a supervisor per leaf, detectors, the safety poll, the journal (SQLite WAL on
  disk) and the golden-run report.

Two workloads:

* ``real``  — ``place_block_at`` / ``get_block_at`` / ``dig_block_at`` cycles on the
  embedded world (real guards, real acceptance, real world ticks);
* ``no-op`` — one capability that equips a stick on a fake body: nothing but fixed
  cost, so the ratios are the worst case any tree can see;
* ``nav``   — ``move_to`` back and forth over 20 blocks on an empty embedded world
  (path planning and ~100 ticks of walking per dispatch);
* ``wait``  — 5-second ``wait`` leaves on an empty embedded world: 100 ticks each, so
  the figure is what the executor adds to every tick of a long-running leaf.

Printed per workload: microseconds per dispatch for each way, ``executor/runner``,
``executor/tree`` (what the executor alone adds to a capability; target on real leaves
<= 1.2x, issue 21) and the absolute difference. Each
figure is the best of ``--reps`` runs. Memory: 100,000 no-op dispatches through one
executor in runs of 500 leaves, tracemalloc's current size sampled after every run; target: growth
from the 10-20 % mark to the last 10 % <= 1 MB, not counting up to two one-off steps (a jump of more
than 0.25 MB between two runs, listed in the output). A leak grows with every run and is counted
whole; more than two steps count as growth too. The step seen here is CPython's interned-string
table: every result key written through py_trees' ``setattr`` is interned and freed again when the
blackboard is cleared, and that churn makes the table resize once, about 1.9 MB, at a point in the
run that depends on what ran before. The whole run's growth is printed beside it.

    .venv/bin/python bench/bench_executor.py [--reps N] [--cycles N] [--dispatches N] [--memory-dispatches N]
"""

from __future__ import annotations

import argparse
import gc
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import py_trees

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from craftbt.capabilities.context import CapabilityContext
from craftbt.capabilities.default import default_registry
from craftbt.capabilities.registry import Registry
from craftbt.capabilities.spec import ActionResult
from craftbt.executor.config import Bounds, ExecutorConfig, RateLimit
from craftbt.executor.executor import Executor
from craftbt.trees import model as m
from craftbt.trees.build import build
from craftbt.world.body import ActionStatus, Body
from craftbt.world.scenarios import load_scenario
from tests.executor_fakes import make_registry
from tests.fakes import FlatFakeBody

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _targets import Direction, report

#: executor over the capability tree on real leaves (issue 21)
TARGET_OVER_TREE = 1.2
#: traced memory growth over 100,000 dispatches, MB
TARGET_GROWTH_MB = 1.0
#: a jump between two samples larger than this is listed as a one-off step
STEP_MB = 0.25

FENCE = Bounds(min_x=-50, min_y=0, min_z=-50, max_x=50, max_y=255, max_z=50)
#: cells around the player's feet on the flat world, all within reach (no walking)
RING = [(2, 64, 0), (0, 64, 2), (-2, 64, 0), (0, 64, -2), (2, 64, 2), (-2, 64, -2)]

Step = tuple[str, dict[str, Any]]
Setup = Callable[[int], tuple[Body, Registry]]


# -- workloads ------------------------------------------------------------------------------
def real_steps(cycles: int) -> list[Step]:
    steps: list[Step] = []
    for i in range(cycles):
        x, y, z = RING[i % len(RING)]
        pos = {"x": x, "y": y, "z": z}
        steps += [("place_block_at", {"position": pos, "block": "cobblestone"}),
                  ("get_block_at", {"position": pos}),
                  ("dig_block_at", {"position": pos, "expect": "cobblestone"})]
    return steps


def real_setup(dispatches: int) -> tuple[Body, Registry]:
    body = load_scenario("building_materials")
    body.give("cobblestone", dispatches)  # dug blocks stay on the ground
    body.give("stone_pickaxe", 1)
    return body, default_registry()


def noop_steps(n: int) -> list[Step]:
    return [("tap", {"n": i}) for i in range(n)]


def noop_setup(dispatches: int) -> tuple[Body, Registry]:
    body = FlatFakeBody()
    return body, make_registry(body)


def nav_steps(n: int) -> list[Step]:
    ends = [{"x": 20, "y": 64, "z": 0}, {"x": 0, "y": 64, "z": 0}]
    return [("move_to", {"pos": ends[i % 2]}) for i in range(n)]


def wait_steps(n: int) -> list[Step]:
    return [("wait", {"ms": 5000}) for _ in range(n)]


def empty_setup(dispatches: int) -> tuple[Body, Registry]:
    return load_scenario("flat_empty"), default_registry()


def definition(steps: list[Step]) -> m.TreeDefinition:
    return m.TreeDefinition(tree="bench", root=m.SequenceNode(
        children=[m.LeafNode(capability=name, args=args) for name, args in steps]))


# -- the three ways -------------------------------------------------------------------------
def by_runner(steps: list[Step], setup: Setup) -> float:
    body, registry = setup(len(steps))
    ctx = CapabilityContext(body=body, registry=registry)
    start = time.perf_counter()
    for name, raw in steps:
        spec = registry.get(name)
        gen = spec.runner(ctx, spec.args_model.model_validate(raw))
        try:
            handle = next(gen)
            while True:
                if handle is None:
                    body.advance(1)  # the runner asked to wait one tick
                while handle is not None and handle.status() is ActionStatus.RUNNING:
                    body.advance(1)
                handle = gen.send(handle)
        except StopIteration as stop:
            result = stop.value
            assert isinstance(result, ActionResult) and result.ok, (name, result)
    return time.perf_counter() - start


def by_tree(steps: list[Step], setup: Setup) -> float:
    body, registry = setup(len(steps))
    ctx = CapabilityContext(body=body, registry=registry)
    start = time.perf_counter()
    root = build(definition(steps), ctx).root  # the executor's run validates and builds too
    while True:
        root.tick_once()
        if root.status != py_trees.common.Status.RUNNING:
            break
        body.advance(1)
    elapsed = time.perf_counter() - start
    assert root.status == py_trees.common.Status.SUCCESS
    return elapsed


def by_executor(steps: list[Step], setup: Setup, home: Path) -> float:
    body, registry = setup(len(steps))
    config = ExecutorConfig(geofence=FENCE, rate_limit=RateLimit(max_dispatches=10_000, window_ms=1000),
                            max_ticks=100 * len(steps) + 100, preemption=True)
    ex = Executor(registry, body, config=config, home=home)
    start = time.perf_counter()
    out = ex.run(definition(steps))
    elapsed = time.perf_counter() - start
    assert out.status == "success" and out.dispatches == len(steps), (out.status, out.failures[:3])
    ex.journal.close()
    return elapsed


def compare(label: str, steps: list[Step], setup: Setup, reps: int, home: Path, ticks_each: int = 0
            ) -> tuple[float, float, float]:
    """Best seconds per dispatch of (runner, tree, executor)."""
    n = len(steps)
    by_runner(steps[:30], setup)  # warm every path (imports, caches) outside the timing
    by_tree(steps[:30], setup)
    by_executor(steps[:30], setup, home / f"{label}-warm")
    runner = tree = execd = float("inf")
    for i in range(reps):  # interleaved, so drift on a shared machine hits all three alike
        py_trees.blackboard.Blackboard.clear()
        runner = min(runner, by_runner(steps, setup) / n)
        py_trees.blackboard.Blackboard.clear()
        tree = min(tree, by_tree(steps, setup) / n)
        py_trees.blackboard.Blackboard.clear()
        execd = min(execd, by_executor(steps, setup, home / f"{label}-{i}") / n)
    us = 1e6
    print(f"[{label}] {n} dispatches, best of {reps}")
    print(f"  runner called directly:           {runner * us:8.1f} us/dispatch")
    print(f"  capability tree, no executor:     {tree * us:8.1f} us/dispatch")
    print(f"  executor (pipeline+journal+...):  {execd * us:8.1f} us/dispatch")
    print(f"  executor/runner {execd / runner:5.2f}x   "
          f"executor/tree {execd / tree:5.2f}x   executor - tree {(execd - tree) * us:+.1f} us/dispatch")
    if ticks_each:
        print(f"  per tick: runner {runner / ticks_each * us:.1f} us, tree {tree / ticks_each * us:.1f} us, "
              f"executor {execd / ticks_each * us:.1f} us (executor/tree {execd / tree:.2f}x)")
    return runner, tree, execd


def memory(total: int, per_run: int, home: Path) -> list[float]:
    body, registry = noop_setup(per_run)
    assert isinstance(body, FlatFakeBody)
    config = ExecutorConfig(geofence=FENCE, rate_limit=RateLimit(max_dispatches=10_000, window_ms=1000),
                            max_ticks=10 * per_run + 100)
    ex = Executor(registry, body, config=config, home=home)
    defn = definition(noop_steps(per_run))
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
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--cycles", type=int, default=100, help="place/read/dig cycles in the real workload")
    parser.add_argument("--dispatches", type=int, default=2000, help="leaves in the no-op workload")
    parser.add_argument("--memory-dispatches", type=int, default=100_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        _, tree, execd = compare("real", real_steps(args.cycles), real_setup, args.reps, home)
        report("executor over the capability tree, real leaves", execd / tree, "x", TARGET_OVER_TREE,
               Direction.AT_MOST, absolute=f"{execd * 1e6:.0f} vs {tree * 1e6:.0f} us per dispatch")
        compare("no-op", noop_steps(args.dispatches), noop_setup, args.reps, home)
        compare("nav", nav_steps(20), empty_setup, args.reps, home)
        compare("wait", wait_steps(20), empty_setup, args.reps, home, ticks_each=100)
        if args.memory_dispatches <= 0:
            return
        samples = memory(args.memory_dispatches, 500, home / "mem")
        tenth = max(1, len(samples) // 10)
        first = sum(samples[tenth:2 * tenth]) / tenth
        late = sum(samples[-tenth:]) / tenth
        # steps between the two windows' samples (a step inside a window moves its mean only partly, so the
        # windows' own samples are compared one by one: steps from the first window's start to the end)
        steps = [(i, samples[i] - samples[i - 1]) for i in range(tenth + 1, len(samples))
                 if abs(samples[i] - samples[i - 1]) > STEP_MB]
        one_off = steps if len(steps) <= 2 else []
        net = samples[-1] - samples[tenth] - sum(d for _, d in one_off)
        print(f"memory after {args.memory_dispatches} dispatches: {samples[-1]:.2f} MB traced "
              f"(runs 10-20%: {first:.2f} MB, last 10%: {late:.2f} MB, whole run {late - first:+.2f} MB; "
              f"one-off steps: {', '.join(f'{d:+.2f} MB at run {i}' for i, d in steps) or 'none'}; "
              f"growth without them {net:+.2f} MB)")
        report(f"executor memory growth over {args.memory_dispatches} dispatches, one-off steps apart", net, "MB",
               TARGET_GROWTH_MB, Direction.AT_MOST,
               absolute=f"{samples[tenth]:.2f} -> {samples[-1]:.2f} MB traced, {len(steps)} step(s)")


if __name__ == "__main__":
    main()
