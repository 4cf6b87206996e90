"""The live loop on the embedded world: urgent needs preempt routine work at a safe point, and it resumes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from craftbt.autonomy.loop import LiveLoop
from craftbt.autonomy.signals import Percept
from craftbt.executor.config import ExecutorConfig, scenario_fence
from craftbt.world.scenarios.loader import starter_world


def _loop(tmp_path: Path, seed: int, days: float, **kw: Any) -> LiveLoop:
    body = starter_world(seed)
    return LiveLoop(body, tmp_path, seed=seed, days=days, config=ExecutorConfig(geofence=scenario_fence(body)), **kw)


def test_dusk_preempts_a_tool_task_at_a_safe_point_and_the_task_resumes_in_the_morning(tmp_path: Path) -> None:
    fired: list[int] = []

    def nightfall_mid_task(loop: LiveLoop, p: Percept) -> None:
        # once the bot is busy with its first tool goal, the evening comes early: the shelter becomes urgent
        if not fired and loop.current is not None and loop.current.task_id.startswith("tools:"):
            fired.append(p.tick)
            loop.body.world.clock.set_time_of_day(10_990)  # type: ignore[attr-defined]

    loop = _loop(tmp_path, 2, 0.7, hooks=[nightfall_mid_task])
    report = loop.run()
    tasks = [e for e in loop.events if "task" in e]
    preempt = next(e for e in loop.events if "preempt" in e)
    routine = preempt["preempt"]
    assert routine.startswith("tools:") and preempt["by"] == "shelter"
    statuses = [(e["task"], e["status"]) for e in tasks]
    cut = statuses.index((routine, "preempted"))
    # the urgent task ran right after the cut, and the routine task came back later and finished
    assert statuses[cut + 1] == ("shelter", "started") and ("shelter", "success") in statuses[cut + 1:]
    back = statuses.index((routine, "started"), cut)
    assert (routine, "success") in statuses[back:]
    assert ("leave_shelter", "success") in statuses[cut:back]  # it waited for the morning, then left the pit
    assert report.preemptions >= 1
    # the executor stopped at a safe point: no atomic action was abandoned, and the journal says why
    run = loop.executor.journal.list_runs(200)
    assert any(r["status"] == "preempted" for r in run)
    assert loop.memory.tasks("done") and {t["task_id"] for t in loop.memory.tasks("done")} >= {routine, "shelter"}


def test_a_hungry_bot_carrying_food_eats_first(tmp_path: Path) -> None:
    loop = _loop(tmp_path, 3, 0.02)
    player = loop.body.world.player  # type: ignore[attr-defined]
    player.food, player.saturation = 8, 0.0
    player.inventory.add("bread", 3)
    report = loop.run()
    first = next(e for e in loop.events if e.get("status") == "started")
    assert first["goal"] == "eat"
    assert report.meals >= 1 and loop.body.food() > 8
