"""Seed 003 rows of docs/conformance.md that no other test proved on its own.

S003-38: the whole flow, suggestion -> filter -> goal board -> router -> planner -> executor -> episodic memory
-> the router's priors, and the seed's example (low health at nightfall makes the shelter urgent enough to stop
routine work). S003-59: every step of a goal run links intent -> plan -> step -> capability@version -> actions
-> effects in the journal.
"""

from __future__ import annotations

import queue
from pathlib import Path
from typing import Any

from craftbt.autonomy.goals import GoalKind, GoalManager, GoalSpec, goals_for
from craftbt.autonomy.homeostasis import HomeostasisState
from craftbt.autonomy.memory import EpisodicMemory
from craftbt.autonomy.needs import NeedKind, generate
from craftbt.autonomy.signals import Percept
from craftbt.capabilities.default import default_registry
from craftbt.executor.config import ExecutorConfig, scenario_fence
from craftbt.executor.executor import Executor
from craftbt.router.priors import PriorsStore
from craftbt.router.router import run_goal
from craftbt.world.body import Position
from craftbt.world.scenarios.loader import starter_world


def _percept(**kw: Any) -> Percept:
    base: dict[str, Any] = {"tick": 0, "position": Position(0.5, 65.0, 0.5), "health": 20.0, "food": 20,
                            "time_of_day": 1000, "inventory": {"bread": 2}, "free_slots": 36, "hostiles": 0,
                            "nearest_hostile": None, "players": 0, "light": 15, "weather": "clear"}
    return Percept(**{**base, **kw})


def test_a_suggestion_goes_through_routing_and_execution_into_memory_and_the_priors(tmp_path: Path) -> None:
    """S003-38: suggestions -> (filter) -> goals -> routing -> planning -> execution -> memory -> learning."""
    from craftbt.autonomy.loop import LiveLoop

    body = starter_world(1)
    lines: queue.Queue[Any] = queue.Queue()
    lines.put("obtain 4 stick")
    loop = LiveLoop(body, tmp_path, seed=1, days=0.05, config=ExecutorConfig(geofence=scenario_fence(body)),
                    thoughts=lines, planner="solver")
    report = loop.run()
    assert [(s["text"], s["reason"]) for s in report.suggestions] == [("obtain 4 stick", "accepted")]
    done = [g for g in report.goals_completed if g.source == "user"]
    assert [g.goal for g in done] == ["obtain 4 stick"]  # routed, planned and executed
    # memory: the task journal and an episode
    assert any(t["goal"] == "obtain 4 stick" for t in loop.memory.tasks("done"))
    assert loop.memory.success_rate("obtain 4 stick") > 0.5
    # learning: the routed outcome reached the router's priors
    successes = loop.priors.db.execute("SELECT COALESCE(SUM(successes), 0) FROM outcomes").fetchone()[0]
    assert successes >= 1
    runs = loop.executor.journal.list_runs(50)
    assert any(r["status"] == "success" for r in runs)


def test_low_health_at_nightfall_makes_the_shelter_urgent_enough_to_stop_routine_work(tmp_path: Path) -> None:
    """S003-38's example: low health at nightfall -> the shelter wins and preempts a routine task. The evening alone
    makes the shelter urgent; by day it is the low health with a hostile near that does (hurt: hide)."""
    zombie: dict[str, Any] = {"hostiles": 1, "nearest_hostile": 6.0, "nearest_threat": "zombie"}
    hurt = HomeostasisState(percept=_percept(time_of_day=12_500, health=8.0, light=4, **zombie))
    needs = generate(hurt)
    assert {n.kind for n in needs} >= {NeedKind.HEALTH, NeedKind.SAFETY, NeedKind.SHELTER}
    shelter = max((g for g in goals_for(needs, hurt) if g.goal == "shelter"), key=lambda g: g.urgency)
    assert shelter.urgent
    manager = GoalManager(EpisodicMemory(tmp_path / "m.sqlite"))
    routine = manager.offer(GoalSpec(task_id="tools:stone_pickaxe", goal="obtain stone_pickaxe",
                                     kind=GoalKind.ROUTED, urgency=0.4))
    manager.offer(shelter)
    stopper = manager.preempting(routine, 0)
    assert stopper is not None and stopper.goal == "shelter"

    def day_shelter(health: float) -> GoalSpec:
        s = HomeostasisState(percept=_percept(time_of_day=6000, health=health, **zombie))
        return next(g for g in goals_for(generate(s), s) if g.goal == "shelter")

    assert day_shelter(8.0).urgent and not day_shelter(20.0).urgent


def test_every_step_links_intent_plan_step_capability_actions_and_effects(tmp_path: Path) -> None:
    """S003-59: intentId -> planId -> stepId -> capability(ver) -> action trace -> effects, all in the journal."""
    body = starter_world(0)
    registry = default_registry()
    ex = Executor(registry, body, config=ExecutorConfig(geofence=scenario_fence(body)), home=tmp_path)
    run = run_goal("obtain 4 oak_planks", ex, priors=PriorsStore(str(tmp_path / "p.sqlite")))
    assert run.ok
    decision, out = run.decisions[-1], run.outcomes[-1]
    detail = ex.journal.run_detail(out.run_id)
    ex.journal.close()
    assert detail["intent_id"] == decision.intent_id
    assert detail["intent_resolution_digest"] == decision.digests["intent_resolution_digest"] is not None
    assert detail["plan_id"] and detail["executor_plan_digest"][7:23] == detail["plan_id"]
    assert detail["steps"]
    for step in detail["steps"]:
        assert registry.has(f"{step['capability']}@{step['version']}")
        assert any(a["step_id"] == step["step_id"] for a in detail["actions"]), step["capability"]
        assert step["verdict"] == "verified" and step["effects"], step
