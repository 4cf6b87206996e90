"""Episodic memory read when planning: a remembered herd changes what the bot does for a food goal."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from craftbt.autonomy.goals import GoalKind, GoalSpec
from craftbt.autonomy.loop import LiveLoop
from craftbt.executor.config import ExecutorConfig, scenario_fence
from craftbt.world.body import Position
from craftbt.world.sim.body import SimBody, new_world

#: far beyond what the bot sees from spawn (16 blocks) and beyond a short look around
COW_AT = (44.5, 0.0, 20.5)


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
