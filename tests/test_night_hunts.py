"""Hunting a mob of the night: the safety fast path does not retreat from the hunted mob (it still does from any
other hostile), and the night watch lets a hunt with its mob in view run in the dark, stopping after it."""

from __future__ import annotations

from pathlib import Path

import pytest

from craftbt.capabilities.default import default_registry
from craftbt.executor.config import ExecutorConfig, scenario_fence
from craftbt.executor.executor import Executor
from craftbt.executor.preemption import SafetyMonitor, Signal, set_quarry
from craftbt.planners.intent import Intent
from craftbt.planners.solver import CraftingSolver
from craftbt.router.hunts import watching_hunts
from craftbt.router.night import NightWatch, dark_hours
from craftbt.router.router import survey
from craftbt.world.scenarios.loader import world_body
from craftbt.world.sim.body import SimBody

NIGHT = 14_000


def _night_body() -> SimBody:
    body = world_body("flat", 0)
    body.world.rules.do_mob_spawning = False
    body.world.clock.set_time_of_day(NIGHT)
    return body


def test_the_monitor_does_not_retreat_from_the_hunted_mob_but_from_any_other() -> None:
    body = _night_body()
    p = body.position()
    spider = body.world.spawn_mob("spider", p.x + 5, p.y, p.z, no_ai=True)
    registry = default_registry()

    def near(quarry: str | None) -> bool:
        set_quarry(body, quarry)
        try:
            return Signal.HOSTILE_NEAR in SafetyMonitor(registry).current(body, body.observe())
        finally:
            set_quarry(body, None)

    assert near(None)  # no hunt: a spider in the dark is a threat
    assert not near("spider")  # the hunted one is not
    assert near("zombie")  # a hunt for another mob leaves the spider a threat
    second = body.world.spawn_mob("spider", p.x - 5, p.y, p.z, no_ai=True)
    assert near("spider")  # one mob is hunted at a time: a second spider is a threat
    del body.world.entities[second.id]
    body.world.spawn_mob("zombie", p.x, p.y, p.z + 6, no_ai=True)
    assert near("spider")  # and so is any other hostile
    assert spider.id in body.world.entities


def test_a_night_hunt_for_string_runs_in_the_dark_without_retreating_from_its_spider(tmp_path: Path) -> None:
    body = _night_body()
    body.give("stone_sword", 1)
    p = body.position()
    body.world.spawn_mob("spider", p.x + 14, p.y, p.z)
    registry = default_registry()
    tree = CraftingSolver().plan(Intent.from_text("obtain string"), survey(body), registry).tree
    config = ExecutorConfig(max_ticks=4_000, geofence=scenario_fence(body))
    executor = Executor(registry, body, home=tmp_path, config=config)
    watch = NightWatch(body)
    with watching_hunts(executor), executor.listening(watch):
        outcome = executor.run(tree)
    # the spider was found, fought and its string picked up in the dark (the watch stopped the tree after the hunt
    # when it looked for a second spider with none in view)
    assert body.observe().inventory.get("string", 0) >= 1, outcome.failures
    assert dark_hours(body.observe().time_of_day)
    steps = [row["node"] for row in executor.journal.step_rows() if row["run_id"] == outcome.run_id]
    assert steps[:3] == ["find a spider", "equip a sword", "kill a spider"], steps
    signals = [(row["detail"] or {}).get("signal") for row in executor.journal.decision_rows()
               if row["run_id"] == outcome.run_id]
    assert Signal.HOSTILE_NEAR.value not in signals, signals  # no retreat from (or deferred for) its spider


@pytest.mark.parametrize(("time_of_day", "away"), [(NIGHT, 20), (1_000, 45)])
def test_a_creeper_is_fought_out_of_its_fuse_without_a_pathfinding_flap(tmp_path: Path, time_of_day: int,
                                                                          away: int) -> None:
    """A fight with a creeper backs off out of its fuse after every swing and closes in again: by design, not a
    flap (the detector aborted every such fight after four reversals). Natural seed 0's firework rocket: a fight
    that stood and swung let the fuse burn down, and the blast left no gunpowder. A creeper out of view at first
    (45 blocks, a morning) was chased a block too near and blew up while the bot backed off: it is let come."""
    body = _night_body()
    body.world.clock.set_time_of_day(time_of_day)
    body.give("wooden_sword", 1)
    p = body.position()
    body.world.spawn_mob("creeper", p.x + away, p.y, p.z)
    body.world.rng.seed(0)  # the drop is 0-2 gunpowder: this seed's is not 0
    registry = default_registry()
    tree = CraftingSolver().plan(Intent.from_text("obtain gunpowder"), survey(body), registry).tree
    executor = Executor(registry, body, home=tmp_path,
                        config=ExecutorConfig(max_ticks=4_000, geofence=scenario_fence(body)))
    with watching_hunts(executor), executor.listening(NightWatch(body)):
        outcome = executor.run(tree)
    steps = [(row["node"], row["error_code"]) for row in executor.journal.step_rows()
             if row["run_id"] == outcome.run_id]
    assert steps[2] == ("kill a creeper", None), steps
    assert body.observe().inventory.get("gunpowder", 0) >= 1, steps
    assert not [e for e in body.world.events if e.get("event") == "explosion"] and body.world.player.deaths == 0


def test_a_kill_that_drops_no_string_is_followed_by_another_kill_in_the_same_plan(tmp_path: Path) -> None:
    """Natural seed 0's fishing rod: two dawn spiders dropped no string (0-2 a kill), each failed pick-up cost a
    replan and the goal run ended; a player kills the next spider."""
    body = _night_body()
    body.give("stone_sword", 1)
    p = body.position()
    body.world.spawn_mob("spider", p.x + 5, p.y, p.z, no_ai=True)
    body.world.spawn_mob("spider", p.x - 20, p.y, p.z, no_ai=True)  # out of the retreat's range, in view
    roll = body.world.rng.randint
    rolls: list[int] = []

    def dice(lo: int, hi: int) -> int:  # the first spider's string roll comes up 0, the next 1
        if (lo, hi) == (0, 2):
            rolls.append(0 if not rolls else 1)
            return rolls[-1]
        return roll(lo, hi)

    body.world.rng.randint = dice  # type: ignore[method-assign]
    registry = default_registry()
    plan = CraftingSolver().plan(Intent.from_text("obtain string"), survey(body), registry)
    executor = Executor(registry, body, home=tmp_path,
                        config=ExecutorConfig(max_ticks=4_000, geofence=scenario_fence(body)))
    with watching_hunts(executor), executor.listening(NightWatch(body)):
        outcome = executor.run(plan.tree)
    steps = [(row["node"], row["error_code"]) for row in executor.journal.step_rows()
             if row["run_id"] == outcome.run_id]
    assert rolls == [0, 1], steps
    assert outcome.ok and body.observe().inventory.get("string", 0) == 1, steps
    kills = [s for s in steps if s[0].startswith("kill a spider") and s[1] is None]
    assert len(kills) == 2, steps


@pytest.mark.parametrize("hunted", [frozenset(), frozenset({"spider"})])
def test_the_morning_does_not_wait_in_the_pit_for_the_mob_the_goal_hunts_to_leave(
        hunted: frozenset[str], tmp_path: Path) -> None:
    """Natural seed 1's crossbow: at dawn the spider it wanted stood 7 blocks from the pit, and the morning waited
    in the pit for it to go (till time 4,000); the bot climbed out to the creepers when it had wandered off. A
    hostile the goal hunts is no reason to wait; any other still is."""
    from craftbt.router.hunts import hunted_in
    from craftbt.router.night import LATEST_OUT, MORNING, sit_out_the_night

    body = world_body("flat", 0)
    body.world.rules.do_mob_spawning = False
    body.give("cobblestone", 8)
    body.world.clock.set_time_of_day(23_000)
    p = body.position()
    body.world.spawn_mob("spider", p.x + 7, p.y, p.z, no_ai=True)
    executor = Executor(default_registry(), body, home=tmp_path,
                        config=ExecutorConfig(max_ticks=30_000, geofence=scenario_fence(body)))
    night = sit_out_the_night(executor, [], hunted)
    waits = [row for row in executor.journal.step_rows() if row["node"] == "wait"]
    executor.journal.close()
    assert night.sheltered, night.why
    out_at = body.observe().time_of_day
    if hunted:
        assert MORNING <= out_at < MORNING + 600, out_at
    else:
        assert out_at >= LATEST_OUT, out_at
    assert waits
    plan = CraftingSolver().plan(Intent.from_text("obtain string"), survey(body), default_registry())
    assert hunted_in(plan.tree) == {"spider"}
