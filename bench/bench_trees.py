"""Benchmark tree definitions: (a) load+validate+build of a 1,000-node file, (b) capability-leaf tick overhead.

Run: ``.venv/bin/python bench/bench_trees.py``. Prints absolute figures and ratios against
baselines measured in the same run:

(a) a generated 1,000-node YAML file through ``validate_path`` (parse, positions, shape, registry,
    jsonschema + pydantic args, blackboard) and ``build``; baseline ``yaml.safe_load`` of the same
    file. Target: under 200 ms.
(b) the same tree shape ticked with capability leaves, with bare py_trees behaviours and with a
    hand-written behaviour doing the same body work: steady state (every leaf RUNNING on a long
    body action, polled each tick) and full lifecycle (every leaf starts, runs, is verified and
    finishes within each tick). Target: the capability leaf at most 1.3x the hand-written one
    (issue 21), both ways.
"""

from __future__ import annotations

import gc
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import py_trees
import yaml
from pydantic import BaseModel, ConfigDict

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from craftbt.capabilities.behaviour import CapabilityBehaviour  # noqa: E402
from craftbt.capabilities.context import CapabilityContext  # noqa: E402
from craftbt.capabilities.default import default_registry  # noqa: E402
from craftbt.capabilities.registry import Registry  # noqa: E402
from craftbt.capabilities.spec import ActionResult, CapabilitySpec, Family, RunnerGen, VerificationResult  # noqa: E402
from craftbt.trees.build import build  # noqa: E402
from craftbt.trees.validate import validate_path, walk  # noqa: E402
from tests.fakes import FakeBody  # noqa: E402

sys.path.insert(0, str(ROOT / "bench"))
from _targets import Direction, report  # noqa: E402

TARGET_BUILD_MS = 200.0
TARGET_TICK_RATIO = 1.3


def best_of(fn: Callable[[], Any], repeat: int) -> float:
    """Best wall time of ``repeat`` runs, in seconds (GC off while timing)."""
    times = []
    for _ in range(repeat):
        gc.collect()
        gc.disable()
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
        gc.enable()
    return min(times)


# -- (a) load + validate + build ---------------------------------------------------------------
def generate_tree(nodes: int) -> str:
    """A realistic mix: selectors of (condition, retried leaf), crafting leaves, decorators."""
    lines = ["tree: generated", "blackboard:", "  tool: wooden_pickaxe", "root:", "  sequence:",
             "    name: Generated", "    children:"]
    count = 2  # root sequence + the tree
    i = 0
    while count < nodes:
        kind = i % 4
        if kind == 0:
            lines += ["      - selector:", "          children:",
                      f"            - condition: {{check: has_item, args: {{item: oak_log, count: {i % 8 + 1}}}}}",
                      "            - leaf: acquire_material",
                      f"              args: {{item: oak_log, count: {i % 8 + 1}}}",
                      "              retry: 2", "              timeout_ms: 30000"]
            count += 3
        elif kind == 1:
            lines += ["      - leaf: craft_recipe", f"        args: {{recipe: oak_planks, qty: {i % 64 + 1}}}"]
            count += 1
        elif kind == 2:
            lines += ["      - timeout:", "          duration_ms: 5000", "          child:",
                      "            leaf: craft_recipe@1", "            args: {recipe: \"{tool}\", qty: 1}"]
            count += 2
        else:
            lines += ["      - leaf: wait", f"        name: pause_{i}", "        args: {ms: 50}"]
            count += 1
        i += 1
    return "\n".join(lines) + "\n"


def bench_build(registry: Registry) -> tuple[float, float, float, int]:
    text = generate_tree(1000)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "generated.yaml"
        path.write_text(text)
        ctx = CapabilityContext(body=FakeBody(), registry=registry)
        checked = validate_path(path, registry)
        assert checked.ok and checked.definition is not None, checked.problems[:3]
        build(checked.definition, ctx, checked=checked)
        size = sum(1 for _ in walk(checked.definition.root))  # definition nodes (built adds Retry wrappers)

        def pipeline() -> None:
            c = validate_path(path, registry)
            assert c.definition is not None
            build(c.definition, ctx, checked=c)

        ours = best_of(pipeline, 7)
        baseline = best_of(lambda: yaml.safe_load(path.read_text()), 7)
        c_baseline = best_of(lambda: yaml.load(path.read_text(), Loader=yaml.CSafeLoader), 7)
    return ours, baseline, c_baseline, size


# -- (b) tick overhead ---------------------------------------------------------------------------
class HoldArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    ticks: int = 0


def run_hold(ctx: CapabilityContext, args: HoldArgs) -> RunnerGen:
    body = ctx.body
    assert isinstance(body, FakeBody)
    if args.ticks:
        yield body.start("hold", args.ticks)
    return ActionResult.success()


def accept(pre: Any, post: Any, args: Any, result: ActionResult) -> VerificationResult:
    return VerificationResult.verified()


HOLD = CapabilitySpec(name="hold", version="1.0.0", family=Family.WORLD, args_model=HoldArgs, runner=run_hold,
                      acceptance=accept, timeout_ms=10**9)


class HandWritten(py_trees.behaviour.Behaviour):  # type: ignore[misc]
    """The same body work as the ``hold`` capability, written directly as a py_trees behaviour:
    observe before, start the action, poll it, observe after. No schema, guard, hooks or records."""

    def __init__(self, name: str, body: FakeBody, hold_ticks: int) -> None:
        super().__init__(name=name)
        self.body = body
        self.hold_ticks = hold_ticks
        self.handle: Any = None

    def initialise(self) -> None:
        self.pre = self.body.observe()
        self.handle = self.body.start("hold", self.hold_ticks) if self.hold_ticks else None

    def update(self) -> py_trees.common.Status:
        if self.handle is not None and self.handle.status().value == "running":
            return py_trees.common.Status.RUNNING
        self.post = self.body.observe()
        return py_trees.common.Status.SUCCESS


def shape(leaf: Callable[[int], py_trees.behaviour.Behaviour], leaves: int, steady: bool) -> Any:
    """A parallel of sequences of leaves: every leaf is ticked on every tick."""
    groups = [py_trees.composites.Sequence(name=f"g{g}", memory=True, children=[leaf(g * 10 + k) for k in range(10)])
              for g in range(leaves // 10)] if not steady else [leaf(i) for i in range(leaves)]
    policy = py_trees.common.ParallelPolicy.SuccessOnAll(synchronise=False)
    return py_trees.composites.Parallel(name="root", policy=policy, children=groups)


def bench_ticks(steady: bool, leaves: int = 100, ticks: int = 300) -> tuple[float, float, float]:
    body = FakeBody()
    registry = Registry()
    registry.register(HOLD)
    ctx = CapabilityContext(body=body, registry=registry)
    spec = registry.get("hold")
    hold_ticks = 10**8 if steady else 0

    def cap_leaf(i: int) -> py_trees.behaviour.Behaviour:
        return CapabilityBehaviour(f"hold#{i}", spec, {"ticks": hold_ticks}, ctx)

    def bare_leaf(i: int) -> py_trees.behaviour.Behaviour:
        return py_trees.behaviours.Running(name=f"run#{i}") if steady else py_trees.behaviours.Success(name=f"ok#{i}")

    def make_runner(leaf: Callable[[int], py_trees.behaviour.Behaviour]) -> Callable[[], None]:
        root = shape(leaf, leaves, steady)
        root.tick_once()  # start every leaf (steady: they stay RUNNING from here on)

        def run() -> None:
            for _ in range(ticks):
                root.tick_once()
                body.tick += 1

        return run

    def hand_leaf(i: int) -> py_trees.behaviour.Behaviour:
        return HandWritten(f"hand#{i}", body, hold_ticks)

    cap = best_of(make_runner(cap_leaf), 5)
    bare = best_of(make_runner(bare_leaf), 5)
    hand = best_of(make_runner(hand_leaf), 5)
    return cap / (ticks * leaves), bare / (ticks * leaves), hand / (ticks * leaves)


def main() -> None:
    registry = default_registry()
    ours, baseline, c_baseline, size = bench_build(registry)
    print(f"(a) load+validate+build of a {size}-node tree: {ours * 1000:.1f} ms")
    report(f"load+validate+build of a {size}-node tree", ours * 1000, "ms", TARGET_BUILD_MS, Direction.AT_MOST,
           absolute=f"{ours / c_baseline:.2f}x libyaml's CSafeLoader parse alone ({c_baseline * 1000:.1f} ms)")
    print(f"    baseline yaml.safe_load of the same file: {baseline * 1000:.1f} ms -> ratio {ours / baseline:.2f}x; "
          f"libyaml CSafeLoader: {c_baseline * 1000:.1f} ms -> ratio {ours / c_baseline:.2f}x")
    for steady, label in ((True, "steady state (leaf RUNNING, handle polled)"),
                          (False, "full lifecycle (start, run, verify, finish each tick)")):
        cap, bare, hand = bench_ticks(steady)
        print(f"(b) {label}: capability leaf {cap * 1e6:.2f} us/leaf-tick, bare py_trees {bare * 1e6:.2f} us "
              f"-> {cap / bare:.2f}x; hand-written behaviour doing the same body work {hand * 1e6:.2f} us "
              f"-> {cap / hand:.2f}x")
        report(f"capability leaf vs hand-written behaviour, {'steady state' if steady else 'full lifecycle'}",
               cap / hand, "x", TARGET_TICK_RATIO, Direction.AT_MOST,
               absolute=f"{cap * 1e6:.2f} vs {hand * 1e6:.2f} us per leaf-tick")


if __name__ == "__main__":
    main()
