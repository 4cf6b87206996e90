"""Plancraft's test split (COLM 2025) planned craft-only by the solver, HTN, GOAP and the auto router,
beside Plancraft's own optimal planner run in the same process.

Each example is an inventory and a target; 100 of the 580 are impossible. A planner succeeds on a
solvable example when it plans from what is held (plus a crafting table and a furnace in reach,
``PlanningState.gathering=False``) and the plan's tree, run on the inventory by the rules the embedded
world's leaves craft and smelt by (see :func:`run_tree`), ends holding the target. It succeeds on an
impossible example when it refuses with ``missing_ingredient`` (the proof names the item), not with a
timeout or a crash.

Plancraft's furnace burns nothing; ours needs fuel, so each example also holds ``FUEL_BUCKETS`` lava
buckets (a smelt step burns one; no recipe takes one; a burnt one leaves a bucket, so an example whose
target is a bucket gets none); ``--no-fuel`` plans from the bare inventory. Plancraft writes 1.16 item
names: ``world.legacy_names`` renames the three that changed and the bench prints each rename. Its
examples were judged with 1.16 recipes; where 1.21.4 changed one (a single carpet can be dyed since
1.20), an example Plancraft calls impossible can be made here, and the bench lists it.

Prints success by complexity bin and planner, impossible precision/recall, plan length against
Plancraft's optimum, median planning time per example, and the ratio of our median craft-only time to
the reference planner's (target <= 1.0): wall-clock, and beside it this process's CPU time (on a machine
other processes load, the wall-clock medians of both sides grow with the load).

    .venv/bin/python bench/bench_plancraft.py [--limit N] [--planners solver,htn,goap,auto]

Needs the bench-only extra: ``pip install 'craftbt[suites]'`` (plancraft==0.4.9).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _targets import Direction, report

from craftbt.capabilities.default import default_registry
from craftbt.capabilities.leaves.crafting import SmeltArgs, fuel_plan, plan_craft
from craftbt.planners.base import PlanningFailure, PlanningState
from craftbt.planners.goap.planner import GoapPlanner
from craftbt.planners.htn.knowledge import forget_shared
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


def run_tree(node: Any, held: dict[str, int], done: list[Any]) -> bool:
    """Tick the plan's tree once through on ``held`` as the executor would: a selector tries its children in
    order, a sequence stops at the first failure, a has_item check reads the inventory (a station check
    holds: the table and furnace stand in reach), and a leaf crafts or smelts by the leaf's own rules
    (``plan_craft``: the recipe the inventory pays for, a slot's options mixed; ``fuel_plan``: the named
    fuel first). A leaf that cannot run fails and changes nothing; one that ran is appended to ``done``."""
    kind = node.kind
    if kind == "selector":
        return any(run_tree(child, held, done) for child in node.children)
    if kind == "sequence":
        return all(run_tree(child, held, done) for child in node.children)
    if kind == "decorator":
        return run_tree(node.child, held, done)
    if kind == "condition":
        if "item" in node.args:
            return held.get(str(node.args["item"]), 0) >= int(node.args.get("count", 1))
        return True
    if kind != "leaf":
        return False
    md = load()
    if node.capability == "craft_recipe":
        plan = plan_craft(md, str(node.args["recipe"]), int(node.args.get("qty", 1)), held)
        if plan.recipe is None or plan.missing:
            return False
        for item, n in plan.uses.items():
            held[item] -= n
        held[plan.recipe.result] = held.get(plan.recipe.result, 0) + plan.crafts * plan.recipe.count
        done.append(plan.crafts)  # Plancraft counts one grid craft a step
        return True
    if node.capability == "smelt":
        args = SmeltArgs(**node.args)
        out = md.smelting_result(args.input)
        fuels = fuel_plan(md, args, held) if out is not None and held.get(args.input, 0) >= args.qty else None
        if out is None or fuels is None:
            return False
        held[args.input] -= args.qty
        for fuel, n in fuels.items():
            held[fuel] -= n
            if fuel == "lava_bucket":
                held["bucket"] = held.get("bucket", 0) + n
        held[out.output] = held.get(out.output, 0) + args.qty * out.count
        done.append(args.qty)  # ... and one smelted item a step
        return True
    return node.capability == "place_workstation"


def replay(tree_root: Any, inventory: dict[str, int], target: str) -> tuple[bool, int]:
    """Run the plan on a copy of ``inventory``: whether the target is held afterwards, and the steps run as
    Plancraft counts them."""
    held = dict(inventory)
    done: list[int] = []
    run_tree(tree_root, held, done)
    return held.get(target, 0) > 0, sum(done)


def leaf_steps(result: Any) -> list[PlanStep]:
    """The plan's leaves in order (every branch: for counting and naming, not for running)."""
    steps: list[PlanStep] = []

    def walk(node: Any) -> None:
        if node.kind == "leaf":
            steps.append(PlanStep(name=node.name or node.capability, capability=node.capability,
                                  args=dict(node.args)))
        for child in getattr(node, "children", None) or []:
            walk(child)
        if node.kind == "decorator":
            walk(node.child)

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
    cpu: dict[str, list[float]] = {n: [] for n in names}  # this process's CPU time: what a loaded machine's
    # other processes do not add (both sides' wall-clock medians grew with the load average)
    lengths: dict[str, list[tuple[int, int]]] = {n: [] for n in names}
    ref_times: list[float] = []
    ref_cpu: list[float] = []
    failures: dict[str, list[str]] = {n: [] for n in names}
    for ex in examples:
        inventory, notes = modern_inventory(dict(ex.inventory))
        renames.update(notes)
        target, note = modern_name(ex.target)
        if note:
            renames[note] += 1
        if not args.no_fuel and target not in FUEL_BUCKET_TARGETS:
            inventory[FUEL] = inventory.get(FUEL, 0) + FUEL_BUCKETS
        started, started_cpu = time.perf_counter(), time.process_time()
        optimal_planner(target=ex.target, inventory=dict(ex.inventory), timeout=5)
        ref_times.append((time.perf_counter() - started) * 1000)
        ref_cpu.append((time.process_time() - started_cpu) * 1000)
        bin_ = "impossible" if ex.impossible else str(ex.complexity_split)
        for name in names:
            state = PlanningState(inventory=dict(inventory), available_blocks=frozenset(), stations=STATIONS,
                                  gathering=False)
            intent = Intent.from_text(f"obtain {target}")
            forget_shared()  # each planner (and the router's route) pays for its own knowledge of this inventory
            started, started_cpu = time.perf_counter(), time.process_time()
            reason = ""
            steps: list[PlanStep] | None = None
            result: Any = None
            try:
                if name == "auto":
                    result = router.route(intent, state, None, planner="auto").plan
                else:
                    result = planners[name].plan(intent, state, registry)
                steps = leaf_steps(result)
            except PlanningFailure as err:
                reason = err.reason
            except Exception as err:  # the router reports every planner's refusal as one error
                reason = REFUSAL if REFUSAL in str(err) else f"error:{type(err).__name__}:{str(err)[:80]}"
            times[name].append((time.perf_counter() - started) * 1000)
            cpu[name].append((time.process_time() - started_cpu) * 1000)
            if ex.impossible:
                right = steps is None and reason == REFUSAL
                refused[name].append((True, right))
                if not right:
                    failures[name].append(f"{ex.id} {target} (impossible): "
                                          + (reason or "planned: " + ", ".join(s.name for s in steps or [])))
                continue
            good, operations = replay(result.tree.root, inventory, target) if result is not None else (False, 0)
            ok[name][bin_].append(good)
            refused[name].append((False, steps is None and reason == REFUSAL))
            if good and ex.optimal_path_length:
                lengths[name].append((operations, int(ex.optimal_path_length)))
            if not good:
                failures[name].append(f"{ex.id} {target}: {reason or 'plan does not reach the target'}")
    for note, n in sorted(renames.items()):
        print(f"renamed ({n}x): {note}")
    solvable = sum(1 for ex in examples if not ex.impossible)
    impossible = len(examples) - solvable
    ref_median = statistics.median(ref_times)
    ref_cpu_median = statistics.median(ref_cpu)
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
        cpu_median = statistics.median(cpu[name])
        report(f"plancraft {name} craft-only median time vs reference", median / ref_median, "x", 1.0,
               absolute=f"{median:.2f} ms vs {ref_median:.2f} ms; CPU time {cpu_median / ref_cpu_median:.2f}x, "
                        f"{cpu_median:.2f} ms vs {ref_cpu_median:.2f} ms")
    best = max(names, key=lambda n: sum(sum(v) for v in ok[n].values()))
    any_ok = sum(1 for i in range(solvable) if any(_nth(ok[n], i) for n in names))
    report("plancraft solvable in at least one planner", any_ok, "examples", 479 * solvable / 480,
           Direction.AT_LEAST, absolute=f"{any_ok}/{solvable}; best single planner {best}")
    if "auto" in names:
        auto_total = sum(sum(v) for v in ok["auto"].values())
        report("plancraft solvable via the auto router", auto_total, "examples", 470 * solvable / 480,
               Direction.AT_LEAST, absolute=f"{auto_total}/{solvable}")
    return 0


def _nth(per_bin: dict[str, list[bool]], index: int) -> bool:
    """The ``index``-th solvable example's outcome (bins keep the examples' order within each bin)."""
    flat = [v for b in sorted(per_bin) for v in per_bin[b]]
    return index < len(flat) and flat[index]


if __name__ == "__main__":
    raise SystemExit(main())
