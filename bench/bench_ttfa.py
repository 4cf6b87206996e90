"""Time to first action per leaf on the embedded world: dispatch -> first body command.

Run: ``.venv/bin/python bench/bench_ttfa.py [--reps N]``.

For each leaf, a fresh copy of its seed situation (``world/scenarios/leaves/``
or a shipped scenario) is loaded outside the timing; the clock starts when the
capability behaviour is first ticked (args validation, guard, pre-observation,
runner start) and stops at the runner's first body command (the
``first_action`` dispatch hook). The baseline, measured in the same run, is a
bare body command issued directly (``body.chat``): the floor any leaf pays.
Target (issue 4): p95 <= 50 ms on the embedded world; the seed's budget is 2 s.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import py_trees  # noqa: E402
from _targets import Direction, report  # noqa: E402

from craftbt.capabilities.behaviour import CapabilityBehaviour  # noqa: E402
from craftbt.capabilities.context import AdmitAll, CapabilityContext  # noqa: E402
from craftbt.capabilities.default import default_registry  # noqa: E402
from craftbt.capabilities.spec import CapabilitySpec  # noqa: E402
from craftbt.world.scenarios import load_scenario  # noqa: E402

TARGET_P95_MS = 50.0
MAX_TICKS = 400
LEAVES = "world/scenarios/leaves/"

#: leaf -> (scenario, args): one representative dispatch per leaf, in its seed situation.
CASES: dict[str, tuple[str, dict[str, Any]]] = {
    "move_to": (LEAVES + "move_to.yaml", {"pos": {"x": 6, "y": 64, "z": 0}}),
    "step_forward_safely": (LEAVES + "step_forward_safely.yaml", {}),
    "acquire_material": (LEAVES + "acquire_material.yaml", {"item": "stone", "count": 1}),
    "place_block": (LEAVES + "place_block.yaml", {"item": "cobblestone"}),
    "place_torch": (LEAVES + "place_torch.yaml", {}),
    "consume_food": (LEAVES + "consume_food.yaml", {}),
    "collect_items": (LEAVES + "collect_items.yaml", {}),
    "chat": ("flat_empty", {"message": "hello"}),
    "wait": ("flat_empty", {"ms": 100}),
    "craft_recipe": ("crafting_table_nearby", {"recipe": "stick", "qty": 4}),
    "place_workstation": ("crafting_table_in_inventory", {"workstation": "crafting_table"}),
    "smelt": ("furnace_with_fuel", {"input": "raw_iron", "qty": 1}),
    "equip_tool": ("tools", {"block": "stone"}),
    "till_soil": (LEAVES + "till_soil.yaml", {"radius": 4}),
    "interact_with_block": (LEAVES + "interact_with_block.yaml", {}),
    "dig_block_at": (LEAVES + "dig_block_at.yaml", {}),
}


class FirstActionClock(AdmitAll):
    def __init__(self) -> None:
        self.first: float | None = None

    def first_action(self, spec: CapabilitySpec, node: str) -> None:
        if self.first is None:
            self.first = time.perf_counter()


def measure(leaf: str, scenario: str, args: dict[str, Any], reps: int) -> tuple[list[float], str | None]:
    registry = default_registry()
    spec = registry.get(leaf)
    samples: list[float] = []
    refusal: str | None = None
    for _ in range(reps):
        py_trees.blackboard.Blackboard.clear()
        body = load_scenario(scenario)
        clock = FirstActionClock()
        ctx = CapabilityContext(body=body, registry=registry, hooks=clock)
        node = CapabilityBehaviour(leaf, spec, _fill(leaf, args, body), ctx)
        start = time.perf_counter()
        for _ in range(MAX_TICKS):
            node.tick_once()
            if clock.first is not None or node.status != py_trees.common.Status.RUNNING:
                break
            body.advance(1)
        if clock.first is None:
            if node.result is not None and node.result.error is not None:
                refusal = f"refused: {node.result.error.code}"
            else:
                refusal = "finished without a body command"
            continue
        samples.append((clock.first - start) * 1000)
        node.stop(py_trees.common.Status.INVALID)
    return samples, refusal


def _fill(leaf: str, args: dict[str, Any], body: Any) -> dict[str, Any]:
    """Scenario-relative targets: dig the block the scenario put beside the player."""
    if leaf == "dig_block_at" and not args:
        here = body.position().block()
        for dx, dy, dz in ((1, 0, 0), (2, 0, 0), (3, 0, 0), (1, -1, 0), (0, -1, 1), (2, -1, 0)):
            pos = here.offset(dx, dy, dz)
            if not body.block_at(pos).is_air:
                return {"position": {"x": pos.x, "y": pos.y, "z": pos.z}}
    return args


def baseline(reps: int) -> list[float]:
    samples = []
    for _ in range(reps):
        body = load_scenario("flat_empty")
        start = time.perf_counter()
        body.observe()
        body.chat("hello")
        samples.append((time.perf_counter() - start) * 1000)
    return samples


def pct(values: list[float], q: float) -> float:
    """The value at rank ``q`` (0..1) of the sorted samples, rounded to the nearest index."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def p95(values: list[float]) -> float:
    return pct(values, 0.95)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=20)
    reps = parser.parse_args().reps
    base = baseline(reps)
    base_median = statistics.median(base)
    print(f"baseline (direct body.observe + body.chat): median {base_median:.3f} ms, p95 {p95(base):.3f} ms")
    print(f"{'leaf':<22}{'median ms':>11}{'p95 ms':>9}{'x baseline':>12}  target p95 <= {TARGET_P95_MS:.0f} ms")
    worst, worst_leaf, worst_median = 0.0, "", 0.0
    for leaf, (scenario, args) in CASES.items():
        samples, refusal = measure(leaf, scenario, args, reps)
        if not samples:
            print(f"{leaf:<22}{'-':>11}{'-':>9}{'-':>12}  {refusal}")
            continue
        median, tail = statistics.median(samples), p95(samples)
        if tail >= worst:
            worst, worst_leaf, worst_median = tail, leaf, median
        flag = "OK" if tail <= TARGET_P95_MS else "ABOVE TARGET"
        print(f"{leaf:<22}{median:>11.3f}{tail:>9.3f}{median / base_median:>12.1f}  {flag}")
    report("TTFA p95, worst leaf (embedded world)", worst, "ms", TARGET_P95_MS, Direction.AT_MOST,
           absolute=f"{worst_leaf}: median {worst_median:.3f} ms = {worst_median / base_median:.1f}x the direct"
                    f" body calls ({base_median:.3f} ms)")


if __name__ == "__main__":
    main()
