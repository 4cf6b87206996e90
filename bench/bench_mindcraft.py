"""Mindcraft's 17 single-agent crafting tasks on the embedded natural world, within their game-time budget.

Each task (``/work/shared/suites/mindcraft_1_agent.json``, or ``--tasks FILE``: Mindcraft's
``tasks/crafting_tasks/test_tasks/1_agent.json`` reduced to the first agent's inventory, the target and
its count, the timeout in seconds of game time) starts a fresh natural world of the seed holding the
task's inventory, no workstation placed, and runs ``obtain <target>`` through ``router.run_goal`` with
gathering allowed (sheep for wool, trees for planks). A task succeeds when the run reaches the target
within ``timeout`` seconds of game time (20 ticks a second). Old item names (``rose_red``) go through
``world.legacy_names`` and are printed. Per task: success, game seconds, wall seconds and why a failure
failed; then the count against the issue's target (15 of 17) and Mindcraft's published figure.

The suite's own budget is 300 s for every task: the tasks come from a multi-agent suite in which another agent
holds what is missing. ``--proposed`` also counts each task against a budget **we propose** for one agent alone
(:data:`PROPOSED_BUDGET_S`, by what the task must fetch: 300 s from the surface, 1,200 s for iron, gold or
redstone dug deep, 3,600 s for a mob found only at night (its second dawn and the hunt after it) and for eight
gold ore (golden apple), 8,700 s for cake: iron for three buckets, three cows milked, then a wheat farm's harvest).
The suite's own count is always printed.

    .venv/bin/python bench/bench_mindcraft.py [--seed 0] [--planner auto] [--only pink_wool,cake] [--budget 3600]
        [--proposed]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _targets import Direction, report
from bench_competence import _last_failed_step

TASKS = Path("/work/shared/suites/mindcraft_1_agent.json")
TICKS_PER_SECOND = 20
#: Our proposal (not Mindcraft's): game seconds one agent gets per task, by what it must fetch; None: out of one
#: agent's reach. Golden apple: the nuggets held are 67 short of eight ingots, so eight gold ore are dug after an
#: iron pickaxe (natural seeds 0-2, auto: 2,496 s, 2,801 s, 2,857 s; gold veins are fewer than iron's and the
#: tunnel sees only what is in reach of it), the night-mob budget's 3,600 s. Cake (its egg is held) needs nine iron
#: for three buckets (the deep-ore class), three cows milked, and one wheat more than held: a farm, whose harvest
#: waits up to ``planners.living.RIPEN_WAIT_TICKS`` (7,500 s) for a crop to ripen. Natural seed 0, solver: the
#: milk in hand at 1,440 s, the cake at 5,492 s (the first of five dry crops ripe 66 min after sowing); auto 8,498 s.
#: A night mob spawns from 600 s and is hunted at a dawn (1,200 s, else 2,400 s): a task whose first dawn had the
#: wrong mob hunts at the second and needs the hunt itself past it (seed 0: crossbow 2,428 s, firework 2,440 s).
SURFACE_S, DEEP_S, NIGHT_MOB_S, EIGHT_GOLD_S = 300, 1_200, 3_600, 3_600
PROPOSED_BUDGET_S: dict[str, int | None] = {
    "pink_wool": SURFACE_S, "lime_wool": SURFACE_S, "purple_banner": SURFACE_S, "bookshelf": SURFACE_S,
    "blue_wool": SURFACE_S, "magenta_wool": SURFACE_S, "lectern": SURFACE_S, "light_gray_wool": SURFACE_S,
    "compass": DEEP_S, "clock": DEEP_S, "activator_rail": DEEP_S,
    "fishing_rod": NIGHT_MOB_S, "crossbow": NIGHT_MOB_S, "firework_rocket": NIGHT_MOB_S,
    "golden_apple": EIGHT_GOLD_S, "cake": DEEP_S + 7_500,
}


def run_task(task: dict[str, Any], seed: int, planner: str, budget_s: int | None = None) -> dict[str, Any]:
    from craftbt.capabilities.default import default_registry
    from craftbt.core.errors import CraftbtError
    from craftbt.executor.config import ExecutorConfig, scenario_fence
    from craftbt.executor.executor import Executor
    from craftbt.router.priors import PriorsStore
    from craftbt.router.router import run_goal
    from craftbt.world.legacy_names import modern_inventory, modern_name
    from craftbt.world.scenarios.loader import inventory_world

    inventory, notes = modern_inventory(dict(task["inv"]))
    target, note = modern_name(task["target"])
    notes += [note] if note else []
    budget = int(budget_s or task["timeout"]) * TICKS_PER_SECOND
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="mindcraft-") as tmp:
        home = Path(tmp)
        body = inventory_world(inventory, "natural", seed, stations=())
        executor = Executor(default_registry(), body, home=home,
                            config=ExecutorConfig(max_ticks=budget, geofence=scenario_fence(body)))
        why = ""
        ticks = 0
        try:
            run = run_goal(f"obtain {task['n']} {target}" if task["n"] > 1 else f"obtain {target}", executor,
                           planner=planner, priors=PriorsStore(home / "priors.sqlite"), seed=seed)
            ticks = run.sim_ticks()
            ok = run.ok and ticks <= budget
            if not run.ok and run.outcomes:
                last = run.outcomes[-1]
                esc = last.escalation.as_dict() if last.escalation else _last_failed_step(executor, last.run_id)
                if not esc.get("code") and last.failure is not None:  # no step failed: the run's own failure
                    esc = {"node": last.failure.node, "code": last.failure.code, "detail": last.failure.detail}
                why = f"{esc.get('node') or last.status}: {esc.get('code') or ''} {esc.get('detail') or ''}".strip()
                if run.stopped:
                    why = f"{why}; {run.stopped}"
            elif run.ok and not ok:
                why = f"over budget: {ticks / TICKS_PER_SECOND:.0f} s"
        except CraftbtError as err:
            ok, why = False, err.problems[0].message
        finally:
            executor.journal.close()
    return {"target": target, "ok": ok, "game_s": ticks / TICKS_PER_SECOND, "budget_s": budget_s or task["timeout"],
            "wall_s": time.perf_counter() - started, "why": why[:200], "renamed": notes}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--tasks", type=Path, default=TASKS)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--planner", default="auto")
    parser.add_argument("--only", default="", help="comma-separated targets")
    parser.add_argument("--budget", type=int, default=None,
                        help="game seconds per task instead of the task's timeout (to measure what a task takes)")
    parser.add_argument("--proposed", action="store_true",
                        help="run each task up to our proposed single-agent budget too, and count against both")
    args = parser.parse_args()
    tasks = list(json.loads(args.tasks.read_text())["tasks"].values())
    if args.only:
        tasks = [t for t in tasks if t["target"] in args.only.split(",")]
    results = []
    proposed_ok: list[bool] = []
    for task in tasks:
        suite_s = int(task["timeout"])
        ours = PROPOSED_BUDGET_S.get(task["target"], suite_s) if args.proposed else None
        r = run_task(task, args.seed, args.planner, args.budget or max(suite_s, ours or 0))
        # the run may go on past the suite's budget (up to ours): it is counted against the suite's own figure
        r["ok_suite"] = r["ok"] and r["game_s"] <= suite_s
        results.append(r)
        for note in r["renamed"]:
            print(f"  renamed: {note}")
        mine = ""
        if args.proposed:
            within = ours is not None and r["ok"] and r["game_s"] <= ours
            mine = f"  proposed {ours} s: {'ok' if within else 'FAIL'}" if ours else "  proposed: out of reach"
            if ours is not None:
                proposed_ok.append(within)
        print(f"{r['target']:<18} {'ok ' if r['ok_suite'] else 'FAIL'} game {r['game_s']:6.0f}/{suite_s} s{mine}  "
              f"wall {r['wall_s']:5.1f} s  {r['why']}", flush=True)
    solved = sum(r["ok_suite"] if args.budget is None else r["ok"] for r in results)
    report("mindcraft crafting tasks within budget", solved, "tasks", 15 * len(results) / 17, Direction.AT_LEAST,
           absolute=f"{solved}/{len(results)} within the suite's own budget on the natural world, seed {args.seed}, "
                    f"planner {args.planner}")
    if args.proposed:
        print(f"our proposal (not Mindcraft's): {sum(proposed_ok)}/{len(proposed_ok)} within the proposed single-agent "
              f"budgets, {len(results) - len(proposed_ok)} left out as out of one agent's reach")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
