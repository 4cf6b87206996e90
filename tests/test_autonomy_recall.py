"""The live loop acting on what it knows: a remembered herd changes a food goal; a walled-in bot digs out."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from craftbt.autonomy.goals import GoalKind, GoalSpec
from craftbt.autonomy.loop import LiveLoop
from craftbt.executor.config import ExecutorConfig, scenario_fence
from craftbt.world.body import Position
from craftbt.world.sim.body import SimBody, new_world

#: far beyond what the bot sees from spawn (16 blocks) and beyond a short look around (at (44.5, 20.5) the blind
#: search, which now stops walking as soon as the cow is in view, took 99 ticks: no measure of the memory's worth)
COW_AT = (-60.5, 0.0, 50.5)


def _hunt(tmp_path: Path, *, remembered: bool) -> tuple[LiveLoop, list[dict[str, Any]], str]:
    body = SimBody(new_world(seed=5))
    body.world.rules.do_mob_spawning = False
    here = body.position()
    cow = body.world.spawn_mob("cow", here.x + COW_AT[0], here.y, here.z + COW_AT[2], no_ai=True)
    loop = LiveLoop(body, tmp_path, seed=5, days=1.0, config=ExecutorConfig(geofence=scenario_fence(body)))
    if remembered:  # a past walk saw it there
        loop.memory.record("resource_seen", "cow", 0, Position(cow.x, cow.y, cow.z))
    status, _ = loop._routed(GoalSpec(task_id="food:beef", goal="obtain beef", kind=GoalKind.ROUTED, urgency=0.5))
    return loop, loop.executor.journal.step_rows(capability="explore"), status


def explored(steps: list[dict[str, Any]]) -> int:
    """Game ticks the bot spent in explore leaves looking for the cow."""
    return sum(int(s["ended_tick"]) - int(s["started_tick"]) for s in steps)


def test_a_remembered_cow_is_walked_to_and_found_without_a_search(tmp_path: Path) -> None:
    loop, steps, status = _hunt(tmp_path / "a", remembered=True)
    assert status == "success" and loop.body.observe().inventory.get("beef", 0) >= 1
    assert any(e.get("recall") == "obtain beef" for e in loop.events)  # memory chose the first walk
    with_memory = explored(steps)

    blind, blind_steps, _ = _hunt(tmp_path / "b", remembered=False)
    assert not any("recall" in e for e in blind.events)
    # without the memory the bot searched for it: the explore leaves ran far longer (or never found it)
    assert explored(blind_steps) > with_memory + 100


def test_a_bot_walled_in_by_day_digs_a_stair_out(tmp_path: Path) -> None:
    """A walk with no path out (a hole a planner dug for stone) queues the stair routine, which gets the bot out."""
    from craftbt.autonomy.goals import GoalSource
    from craftbt.autonomy.loop import UNSTUCK
    from craftbt.world.sim.storage import AIR

    body = SimBody(new_world(seed=6))
    body.world.rules.do_mob_spawning = False
    feet = body.position().block()
    for dy in range(1, 4):  # a 3-deep shaft under the bot: it falls in and cannot climb out
        body.world.set_block((feet.x, feet.y - dy, feet.z), AIR)
    body.advance(20)
    ground = feet.y
    assert body.position().y == ground - 3
    loop = LiveLoop(body, tmp_path, seed=6, days=0.1, config=ExecutorConfig(geofence=scenario_fence(body)))
    walk = GoalSpec(task_id="explore:20,0", goal=f"explore {feet.x + 20},{ground},{feet.z}", kind=GoalKind.ROUTINE,
                    source=GoalSource.BOOTSTRAP, urgency=0.25)
    loop._run_task(walk)
    assert any("unstuck" in e for e in loop.events)
    chosen = loop.goals.select(loop.now_ms())
    assert chosen is not None and chosen.task_id == UNSTUCK
    loop._run_task(chosen)
    assert body.position().y >= ground  # out of the hole, on the ground again


def test_a_herd_passed_on_a_walk_is_remembered_and_an_empty_place_is_forgotten(tmp_path: Path) -> None:
    from craftbt.autonomy.goals import GoalSource
    from craftbt.router import routines

    body = SimBody(new_world(seed=5))
    body.world.rules.do_mob_spawning = False
    loop = LiveLoop(body, tmp_path, seed=5, days=0.1, config=ExecutorConfig(geofence=scenario_fence(body)))
    here = body.position().block()
    end = routines.surface(body, here.x + 40, here.z, here.y)
    assert end is not None
    # beside the middle of the walk: more than 16 blocks from either end, 10 from the path
    body.world.spawn_mob("pig", here.x + 20.5, end.y + 2, here.z + 10.5, no_ai=True)
    loop._run_task(GoalSpec(task_id="w", goal=f"explore {end.x},{end.y},{end.z}", kind=GoalKind.ROUTINE,
                            source=GoalSource.BOOTSTRAP))
    assert loop.memory.recall_resource(("pig",), body.position()) is not None  # seen on the way
    # a cow memory places where there is none: the bot walks there, finds nothing, and forgets the place
    loop.memory.record("resource_seen", "cow", 0, Position(here.x + 0.5, here.y, here.z + 0.5))
    spec = GoalSpec(task_id="food:beef", goal="obtain beef", kind=GoalKind.ROUTED, urgency=0.5)
    loop._walk_to_remembered(spec)
    assert any(e.get("recall_gone") == "obtain beef" for e in loop.events)
    assert loop.memory.recall_resource(("cow",), body.position()) is None
