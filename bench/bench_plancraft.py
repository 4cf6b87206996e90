"""Plancraft's test split (COLM 2025) planned craft-only by the solver, HTN, GOAP and the auto router,
beside Plancraft's own optimal planner run in the same process.

Each example is an inventory and a target; 100 of the 580 are impossible. A planner succeeds on a
solvable example when it plans from what is held (plus a crafting table and a furnace in reach,
``PlanningState.gathering=False``) and the plan, replayed step by step on the inventory with the same
rules the embedded world crafts by (``Recipe.shortfall``/``fill``: a slot mixes its options; one smelt
makes one item and burns its fuel), ends holding the target. An impossible example succeeds when every
planner refuses it with ``missing_ingredient`` (the proof names the item), not a timeout or a crash.
Plancraft's furnace burns nothing; ours needs fuel, so each example also holds ``FUEL_BUCKETS`` lava buckets
(a smelt step burns one; no recipe takes one; a burnt one leaves a bucket, so examples whose target is a
bucket get none): ``--no-fuel``
plans from the bare inventory. Plancraft writes 1.16 item names; ``world.legacy_names`` renames the three that changed, and the bench
prints each rename. Its examples were solved with 1.16 recipes; where 1.21.4 changed a recipe the example
can be unsolvable here, and the bench lists those failures.

Prints success by complexity bin and planner, impossible precision/recall, plan length against
Plancraft's optimum, median planning time per example, and the ratio of our median craft-only time to
the reference planner's (target <= 1.0).

    .venv/bin/python bench/bench_plancraft.py [--limit N] [--planners solver,htn,goap,auto]

Needs the bench-only extra: ``pip install 'craftbt[suites]'`` (plancraft==0.4.9).
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _targets import Direction, report

from craftbt.capabilities.default import default_registry
from craftbt.planners.base import PlanningFailure, PlanningState
from craftbt.planners.goap.planner import GoapPlanner
from craftbt.planners.htn.planner import HtnPlanner
from craftbt.planners.intent import Intent
from craftbt.planners.ppa import PlanStep
from craftbt.planners.solver import CraftingSolver
from craftbt.router.priors import PriorsStore
from craftbt.router.router import Router
from craftbt.world.legacy_names import modern_inventory, modern_name
from craftbt.world.mcdata import load

STATIONS = frozenset({"crafting_table", "furnace"})
FUEL = "lava_bucket"
FUEL_BUCKETS = 8
FUEL_BUCKET_TARGETS = frozenset({"bucket", "lava_bucket"})
REFUSAL = "missing_ingredient"


def replay(steps: list[PlanStep], inventory: dict[str, int], target: str) -> bool:
    """Run the plan's craft and smelt steps on ``inventory`` by the embedded world's rules."""
    md = load()
    held: dict[str, int] = defaultdict(int, inventory)
    for step in steps:
        if step.capability == "craft_recipe":
            item, qty = str(step.args["recipe"]), int(step.args["qty"])
            for recipe in md.recipes_for(item):
                crafts = math.ceil(qty / recipe.count)
                if not recipe.shortfall(crafts, held):
                    for i, n in recipe.fill(crafts, held).items():
                        held[i] -= n
                    held[item] += crafts * recipe.count
                    break
            else:
                return False
        elif step.capability == "smelt":
            inp, qty, fuel = str(step.args["input"]), int(step.args["qty"]), str(step.args["fuel"])
            burns = step.consumes.get(fuel, 0)
            out = md.smelting_result(inp)
            if out is None or held[inp] < qty or held[fuel] < burns:
                return False
            held[inp] -= qty
            held[fuel] -= burns
            held[out.output] += qty * out.count
            if fuel == "lava_bucket":
                held["bucket"] += burns
        elif step.capability != "place_workstation":
            return False  # a craft-only plan gathers nothing
    return held[target] > 0


def leaf_steps(result: Any) -> list[PlanStep]:
    """The plan's steps in order, read back from the tree's action leaves (a smelt's fuel count from the
    has_item check on its fuel just before it)."""
    steps: list[PlanStep] = []
    checked: dict[str, int] = {}

    def walk(node: Any) -> None:
        kind = getattr(node, "kind", None)
        if kind == "condition" and "item" in (node.args or {}) and "count" in node.args:
            checked[str(node.args["item"])] = int(node.args["count"])
        if kind == "leaf":
            args = dict(node.args)
            consumes: dict[str, int] = {}
            if node.capability == "smelt":
                consumes = {str(args["fuel"]): checked.get(str(args["fuel"]), 1)}
            steps.append(PlanStep(name=node.name, capability=node.capability, args=args, consumes=consumes))
        for child in getattr(node, "children", []) or []:
            walk(child)
        child = getattr(node, "child", None)
        if child is not None:
            walk(child)

    walk(result.tree.root)
    return steps


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--limit", type=int, default=0, help="only the first N examples")
    parser.add_argument("--planners", default="solver,htn,goap,auto")
    parser.add_argument("--no-fuel", action="store_true", help="no lava bucket for the furnace")
    args = parser.parse_args()
    try:
        from plancraft.environment.planner import optimal_planner
        from plancraft.simple import get_plancraft_examples
    except ImportError:
        print("bench_plancraft: needs plancraft (pip install 'craftbt[suites]')", file=sys.stderr)
        return 2
    examples = get_plancraft_examples(split="test")
    if args.limit:
        examples = examples[: args.limit]
    registry = default_registry()
    names = args.planners.split(",")
    planners: dict[str, Any] = {"solver": CraftingSolver(), "htn": HtnPlanner(), "goap": GoapPlanner()}
    router = Router(registry, PriorsStore(":memory:"), seed=0)
    renames: Counter[str] = Counter()
    ok: dict[str, dict[str, list[bool]]] = {n: defaultdict(list) for n in names}
    refused: dict[str, list[tuple[bool, bool]]] = {n: [] for n in names}  # (impossible, refused right)
    times: dict[str, list[float]] = {n: [] for n in names}
    lengths: dict[str, list[tuple[int, int]]] = {n: [] for n in names}
    ref_times: list[float] = []
    failures: dict[str, list[str]] = {n: [] for n in names}
    for ex in examples:
        inventory, notes = modern_inventory(dict(ex.inventory))
        renames.update(notes)
        target, note = modern_name(ex.target)
        if note:
            renames[note] += 1
        if not args.no_fuel and target not in FUEL_BUCKET_TARGETS:
            inventory[FUEL] = inventory.get(FUEL, 0) + FUEL_BUCKETS
        started = time.perf_counter()
        optimal_planner(target=ex.target, inventory=dict(ex.inventory), timeout=5)
        ref_times.append((time.perf_counter() - started) * 1000)
        bin_ = "impossible" if ex.impossible else str(ex.complexity_split)
        for name in names:
            state = PlanningState(inventory=dict(inventory), available_blocks=frozenset(), stations=STATIONS,
                                  gathering=False)
            intent = Intent.from_text(f"obtain {target}")
            started = time.perf_counter()
            reason = ""
            steps: list[PlanStep] | None = None
            try:
                if name == "auto":
                    decision = router.route(intent, state, None, planner="auto")
                    steps = leaf_steps(decision.plan)
                else:
                    steps = leaf_steps(planners[name].plan(intent, state, registry))
            except PlanningFailure as err:
                reason = err.reason
            except Exception as err:  # the router reports every planner's refusal as one error
                reason = REFUSAL if REFUSAL in str(err) else f"error:{type(err).__name__}:{str(err)[:80]}"
            times[name].append((time.perf_counter() - started) * 1000)
            if ex.impossible:
                right = steps is None and reason == REFUSAL
                refused[name].append((True, right))
                if not right:
                    failures[name].append(f"{ex.id} {target} (impossible): "
                                          + (reason or "planned: " + ", ".join(s.name for s in steps or [])))
                continue
            good = steps is not None and replay(steps, inventory, target)
            ok[name][bin_].append(good)
            refused[name].append((False, steps is None and reason == REFUSAL))
            if good and steps is not None and ex.optimal_path_length:
                crafts = sum(_operations(s) for s in steps)
                lengths[name].append((crafts, int(ex.optimal_path_length)))
            if not good:
                failures[name].append(f"{ex.id} {target}: {reason or 'plan does not reach the target'}")
    for note, n in sorted(renames.items()):
        print(f"renamed ({n}x): {note}")
    solvable = sum(1 for ex in examples if not ex.impossible)
    impossible = len(examples) - solvable
    ref_median = statistics.median(ref_times)
    print(f"Plancraft test split: {solvable} solvable, {impossible} impossible; reference planner median "
          f"{ref_median:.2f} ms")
    for name in names:
        per_bin = ", ".join(f"{b} {sum(v)}/{len(v)}" for b, v in sorted(ok[name].items()))
        total = sum(sum(v) for v in ok[name].values())
        tp = sum(1 for imp, right in refused[name] if imp and right)
        fp = sum(1 for imp, right in refused[name] if not imp and right)
        precision = tp / (tp + fp) if tp + fp else 0.0
        recall = tp / impossible if impossible else 0.0
        equal = sum(1 for a, b in lengths[name] if a == b)
        shorter = sum(1 for a, b in lengths[name] if a < b)
        median = statistics.median(times[name])
        print(f"{name}: solved {total}/{solvable} ({per_bin}); impossible refused {tp}/{impossible} "
              f"(precision {precision:.2f}, recall {recall:.2f}); plan length = optimum in {equal}/"
              f"{len(lengths[name])} (shorter {shorter}); median {median:.2f} ms, p90 "
              f"{sorted(times[name])[int(len(times[name]) * 0.9)]:.2f} ms per example")
        for line in failures[name][:8]:
            print(f"  fails: {line}")
        report(f"plancraft {name} craft-only median time vs reference", median / ref_median, "x", 1.0,
               absolute=f"{median:.2f} ms vs {ref_median:.2f} ms")
    best = max(names, key=lambda n: sum(sum(v) for v in ok[n].values()))
    any_ok = sum(1 for i in range(solvable) if any(_nth(ok[n], i) for n in names))
    report("plancraft solvable in at least one planner", any_ok, "examples", 479 * solvable / 480,
           Direction.AT_LEAST, absolute=f"{any_ok}/{solvable}; best single planner {best}")
    if "auto" in names:
        auto_total = sum(sum(v) for v in ok["auto"].values())
        report("plancraft solvable via the auto router", auto_total, "examples", 470 * solvable / 480,
               Direction.AT_LEAST, absolute=f"{auto_total}/{solvable}")
    return 0


def _operations(step: PlanStep) -> int:
    """Plancraft counts one grid craft or one furnace load as a step."""
    if step.capability == "craft_recipe":
        per = max(r.count for r in load().recipes_for(str(step.args["recipe"])))
        return math.ceil(int(step.args["qty"]) / per)
    return 1 if step.capability == "smelt" else 0


def _nth(per_bin: dict[str, list[bool]], index: int) -> bool:
    """The ``index``-th solvable example's outcome (bins keep the examples' order within each bin)."""
    flat = [v for b in sorted(per_bin) for v in per_bin[b]]
    return index < len(flat) and flat[index]


if __name__ == "__main__":
    raise SystemExit(main())
