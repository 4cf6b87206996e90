"""The autonomy loop over many seeds: does the bot live through N game days on its own?

Run: ``.venv/bin/python bench/bench_live.py [--seeds 10] [--days 3] [--jobs 2]``.

Each seed starts a fresh world (``--world natural``, the default: the vanilla-like
generator, passive animals placed with their chunks, nothing guaranteed; or
``--world starter``) from an *empty inventory*, with mob spawning on (hostiles
spawn in the dark and chase; by day undead burn and spiders are neutral), and
runs :class:`craftbt.autonomy.loop.LiveLoop` for the given days in its own
temporary ``CRAFTBT_HOME``. Per seed it prints: survived and deaths (with
causes), nights survived, the share of night samples in which the bot was
sheltered or stood in light >= 8, hostile encounters at night (times a hostile
came within 12 blocks / the most alive within 32 blocks), lowest food, meals
eaten (ate y/n), the tool tier reached and on which day, structures built,
goals completed / failed / preempted, and wall time.

The baseline, measured in the same run on the same seeds: an *idle* bot (the
same world run for the same days with no loop). Its deaths put the loop's in
proportion. The targets (through ``bench/_targets.py``): every seed survives, and
on every seed the bot eats before it starves (it obtained food, ate, and its
food never fell to 6, where sprinting stops and starving begins).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._targets import Direction, report  # noqa: E402

#: what `craftbt live` routes with by default (see docs/autonomy.md: HTN's blow-up on natural worlds)
PLANNER = "solver"
#: food at or below this is starving territory (vanilla: no sprinting at 6, damage at 0)
STARVING = 6


def idle(seed: int, days: float, world: str) -> int:
    """The baseline: deaths of a bot that does nothing in the same world for the same days."""
    from craftbt.world.body import TICKS_PER_DAY
    from craftbt.world.scenarios.loader import world_body

    body = world_body(world, seed)
    body.advance(int(days * TICKS_PER_DAY))
    return int(body.world.player.deaths)


def one(seed: int, days: float, world: str) -> dict[str, Any]:
    from craftbt.autonomy.loop import LiveLoop, live_fence
    from craftbt.executor.config import ExecutorConfig
    from craftbt.world.scenarios.loader import world_body

    t0 = time.perf_counter()
    body = world_body(world, seed)
    assert body.world.rules.do_mob_spawning  # hostile mobs at night
    with tempfile.TemporaryDirectory(prefix=f"bench_live_{seed}_") as home:
        loop = LiveLoop(body, Path(home), seed=seed, days=days, world=world, planner=PLANNER,
                        config=ExecutorConfig(geofence=live_fence(body)))
        report = loop.run()
        loop.memory.close()
    out = report.as_json()
    out["wall_s"] = round(time.perf_counter() - t0, 1)
    out["idle_deaths"] = idle(seed, days, world)
    return out


def ate_in_time(r: dict[str, Any]) -> bool:
    """Its food never fell into starving territory, and once food fell to the eating level it ate."""
    from craftbt.autonomy.goals import EAT_AT

    return r["lowest_food"] > STARVING and (bool(r["meals"]) or r["lowest_food"] > EAT_AT)


def food_obtained(r: dict[str, Any]) -> bool:
    """It obtained food itself: one of the loop's food goals completed."""
    from craftbt.autonomy.goals import FOOD_GOALS

    return any(g["goal"] in {f"obtain {food}" for food in FOOD_GOALS} for g in r["goals_completed"])


def row(r: dict[str, Any]) -> str:
    tools = r["tools_reached"]
    top = f"{tools[-1]['tool']} d{tools[-1]['day']}" if tools else "none"
    deaths = ", ".join(d["cause"] for d in r["deaths"]) or "-"
    ate = ("y" if r["meals"] else "n") + ("+" if food_obtained(r) else "-")
    safe = "n/a" if r["safe_at_night"] is None else f"{r['safe_at_night']:.0%}"
    done = sum(1 for g in r["goals_completed"] if not g["goal"].startswith("explore"))
    explored = len(r["goals_completed"]) - done
    hostiles = f"{r['hostile_encounters']}/{r['most_hostiles_at_night']}"
    return (f"{r['seed']:>4}  {'yes' if r['survived'] else 'NO':>8}  {deaths:<16}  "
            f"{r['nights_survived']}/{r['nights_seen']:<5}  {safe:>10}  {hostiles:>11}  "
            f"{r['lowest_food']:>6}  {ate:>3} {r['meals']:>5}  {top:<18}  {len(r['structures_built']):>6}  "
            f"{done:>3}+{explored:<3} {r['goals_failed']:>4} {r['preemptions']:>4}  {r['wall_s']:>6}  "
            f"{r['idle_deaths']:>10}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--first-seed", type=int, default=1)
    ap.add_argument("--days", type=float, default=3.0)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--world", choices=("natural", "starter"), default="natural")
    ap.add_argument("--json", type=Path, default=None, help="also write every report here")
    ap.add_argument("--from-json", type=Path, default=None, help="print the table and targets of a saved --json run")
    args = ap.parse_args()
    seeds = list(range(args.first_seed, args.first_seed + args.seeds))
    print(f"craftbt live: {len(seeds)} seeds x {args.days:g} game days, {args.world} world, empty inventory, "
          f"hostile mobs spawning in the dark, planner {PLANNER}")
    print(HEADER)
    results: list[dict[str, Any]] = []
    if args.from_json is not None:
        results = json.loads(args.from_json.read_text())
        for r in results:
            print(row(r))
    else:
        with ProcessPoolExecutor(max_workers=args.jobs) as pool:
            for r in pool.map(one, seeds, [args.days] * len(seeds), [args.world] * len(seeds)):
                results.append(r)
                print(row(r), flush=True)
    summary(results, args.days)
    if args.json is not None:
        args.json.write_text(json.dumps(results, indent=2))


HEADER = ("seed  survived  deaths            nights  safe@night  hostl n/max  lowest ate meals  tool tier (day)     "
          "shelters  goals+expl fail  pre  wall s  idle dths")


def summary(results: list[dict[str, Any]], days: float) -> None:
    """Totals, then one TARGET line per target (bench/_targets.py)."""
    n = len(results)
    survived = sum(r["survived"] for r in results)
    nights = sum(r["nights_seen"] for r in results)
    nights_ok = sum(r["nights_survived"] for r in results)
    safe = [r["safe_at_night"] for r in results if r["safe_at_night"] is not None]
    iron = sum(r["tool_tier"] >= 3 for r in results)
    deaths = sum(len(r["deaths"]) for r in results)
    print(f"\n'ate': y = ate at least once, + = obtained food itself (a food goal completed)\n"
          f"survived {survived}/{n} seeds; nights survived {nights_ok}/{nights}; sheltered or lit at night "
          f"{sum(safe) / max(1, len(safe)):.1%} of samples (mean over seeds); iron pickaxe reached {iron}/{n}; "
          f"lowest food over all seeds {min(r['lowest_food'] for r in results)}; "
          f"meals {sum(r['meals'] for r in results)}; deaths {deaths}")
    idle_deaths = sum(r["idle_deaths"] for r in results)
    idle_ok = sum(r["idle_deaths"] == 0 for r in results)
    baseline = f"baseline, an idle bot on the same seeds: {idle_deaths} deaths, {idle_ok}/{n} survive"
    ratio = deaths / idle_deaths if idle_deaths else float(deaths)
    report("live survival", survived, "seeds", n, Direction.AT_LEAST,
           absolute=f"{survived}/{n} survived {days:g} days; deaths {deaths} = {ratio:.3f}x the {baseline}")
    report("live eats before starving", sum(ate_in_time(r) for r in results), "seeds", n, Direction.AT_LEAST,
           absolute=f"ate on {sum(bool(r['meals']) for r in results)}/{n} seeds, meals "
                    f"{sum(r['meals'] for r in results)}, lowest food {min(r['lowest_food'] for r in results)} "
                    f"(starving at <= {STARVING})")
    report("live obtains food itself", sum(food_obtained(r) for r in results), "seeds", n, Direction.AT_LEAST,
           absolute=f"a food goal completed on {sum(food_obtained(r) for r in results)}/{n} seeds")


if __name__ == "__main__":
    main()
