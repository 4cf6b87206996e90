"""Competence without a helping hand: a goal x seed x planner matrix on natural worlds, beside the starter world.

Every episode starts from an empty inventory on a fresh world of the given seed,
plans with one planner (no LLM), runs through the executor with replanning
(``router.run_goal``, at most 2 replans) and the CLI's default geofence, and
records success, simulated minutes (game time, 20 ticks = 1 s) and wall seconds.
Per world, goal and planner it prints the success rate, the median simulated
minutes and the median wall seconds of the successful episodes; then, per goal
and planner, the natural world against the starter world measured in the same
run (success-rate ratio natural/starter) and a human reference where one is
published. A failed episode's last escalation is printed with ``--why``.

    .venv/bin/python bench/bench_competence.py [--seeds 20] [--planners solver,htn,goap]
        [--goals wooden_pickaxe,...] [--worlds natural,starter] [--jobs 2] [--why] [--progress]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

GOALS = ("wooden_pickaxe", "stone_pickaxe", "iron_pickaxe", "diamond_pickaxe", "furnace", "bucket", "shield",
         "compass", "clock", "bread", "cooked_beef", "white_bed")
#: Human reference times in minutes, with where they come from (only published figures).
HUMAN_MINUTES: dict[str, tuple[float, str]] = {
    "diamond_pickaxe": (20.0, "VPT (Baker et al. 2022, arXiv:2206.11795): diamond tools take proficient humans "
                              "over 20 minutes (24,000 actions)"),
}
MAX_TICKS = 144_000  # two in-game hours of game time per episode


def episode(world: str, goal: str, seed: int, planner: str) -> dict[str, Any]:
    """One run of ``obtain <goal>`` from an empty inventory; the outcome as plain data."""
    from craftbt.capabilities.default import default_registry
    from craftbt.core.errors import CraftbtError
    from craftbt.executor.config import ExecutorConfig, scenario_fence
    from craftbt.executor.executor import Executor
    from craftbt.router.priors import PriorsStore
    from craftbt.router.router import run_goal
    from craftbt.world.scenarios.loader import world_body

    home = Path(tempfile.mkdtemp(prefix="competence-"))
    body = world_body(world, seed)
    executor = Executor(default_registry(), body, home=home,
                        config=ExecutorConfig(max_ticks=MAX_TICKS, geofence=scenario_fence(body)))
    start = time.perf_counter()
    why = ""
    try:
        run = run_goal(f"obtain {goal}", executor, planner=planner, priors=PriorsStore(home / "priors.sqlite"),
                       seed=seed)
        ok = run.ok
        sim_ms = sum(o.sim_ms for o in run.outcomes)
        if not ok and run.outcomes:
            last = run.outcomes[-1]
            esc = last.escalation or {}
            why = f"{esc.get('node') or last.status}: {esc.get('code') or ''} {esc.get('detail') or ''}".strip()
    except CraftbtError as err:  # no planner could plan it (a refusal)
        ok, sim_ms, why = False, 0, err.problems[0].message
    finally:
        executor.journal.close()
    return {"world": world, "goal": goal, "seed": seed, "planner": planner, "ok": ok,
            "sim_min": sim_ms / 60_000, "wall_s": time.perf_counter() - start, "why": why[:240]}


def _median(values: list[float]) -> str:
    return f"{statistics.median(values):.1f}" if values else "-"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--planners", default="solver,htn,goap")
    parser.add_argument("--goals", default=",".join(GOALS))
    parser.add_argument("--worlds", default="natural,starter")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--why", action="store_true", help="print why each failed episode failed")
    parser.add_argument("--progress", action="store_true", help="print each episode as it ends")
    args = parser.parse_args()
    worlds = args.worlds.split(",")
    goals = args.goals.split(",")
    planners = args.planners.split(",")
    jobs = [(w, g, s, p) for w in worlds for g in goals for p in planners for s in range(args.seeds)]
    t0 = time.perf_counter()
    results: list[dict[str, Any]] = []
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        for r in pool.map(episode, *zip(*jobs, strict=True)):
            results.append(r)
            if args.progress:
                print(f"  {r['world']:8} {r['goal']:16} seed {r['seed']:>2} {r['planner']:6} "
                      f"{'ok ' if r['ok'] else 'FAIL'} {r['sim_min']:6.1f} sim min {r['wall_s']:6.1f} s "
                      f"{r['why'][:100]}", flush=True)
    wall = time.perf_counter() - t0
    print(f"{len(results)} episodes, {args.seeds} seeds, {wall:.0f} s wall in all ({args.jobs} processes)\n")
    header = f"{'world':8} {'goal':16} {'planner':7} {'success':>8} {'sim min (median)':>17} {'wall s (median)':>16}"
    print(header)
    print("-" * len(header))
    rate: dict[tuple[str, str, str], float] = {}
    sim: dict[tuple[str, str, str], list[float]] = {}
    for w in worlds:
        for g in goals:
            for p in planners:
                mine = [r for r in results if (r["world"], r["goal"], r["planner"]) == (w, g, p)]
                good = [r for r in mine if r["ok"]]
                rate[(w, g, p)] = len(good) / max(1, len(mine))
                sim[(w, g, p)] = [r["sim_min"] for r in good]
                print(f"{w:8} {g:16} {p:7} {len(good):>4}/{len(mine):<3} {_median(sim[(w, g, p)]):>17} "
                      f"{_median([r['wall_s'] for r in good]):>16}")
    if "natural" in worlds and "starter" in worlds:
        print("\nnatural against starter (same run): success ratio, simulated-time ratio; human reference")
        for g in goals:
            for p in planners:
                base, nat = rate[("starter", g, p)], rate[("natural", g, p)]
                ratio = f"{nat / base:.2f}" if base else "-"
                s_base, s_nat = sim[("starter", g, p)], sim[("natural", g, p)]
                t_ratio = f"{statistics.median(s_nat) / statistics.median(s_base):.1f}x" if s_base and s_nat else "-"
                human = HUMAN_MINUTES.get(g)
                ref = f"{human[0]:.0f} min ({human[1]})" if human else "-"
                print(f"  {g:16} {p:7} success {ratio:>5}  time {t_ratio:>6}  human {ref}")
    if args.why:
        print("\nfailed episodes:")
        for r in results:
            if not r["ok"]:
                print(f"  {r['world']} {r['goal']} seed {r['seed']} {r['planner']}: {r['why']}")


if __name__ == "__main__":
    main()
