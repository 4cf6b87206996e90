"""The autonomy loop's parts: signals (edges, rate limits), needs (gates, trends), goals on the TaskBoard,
episodic memory (WAL, recall, metrics), the bootstrapper (journal -> LLM -> exploration)."""

from __future__ import annotations

import queue
from pathlib import Path
from typing import Any

import pytest

from craftbt.autonomy.bootstrap import TaskBootstrapper
from craftbt.autonomy.goals import GoalKind, GoalManager, GoalSpec, goals_for
from craftbt.autonomy.homeostasis import HomeostasisMonitor, HomeostasisState, slope
from craftbt.autonomy.memory import EpisodicMemory, connect
from craftbt.autonomy.needs import NeedKind, generate
from craftbt.autonomy.signals import Category, Percept, SignalMonitor, sense
from craftbt.executor.config import Bounds
from craftbt.planners.llm.client import LlmConfig
from craftbt.world.body import Position
from tests.openai_stub import StubServer, dead_url

HERE = Position(0.5, 65.0, 0.5)


def percept(tick: int = 0, **kw: Any) -> Percept:
    base: dict[str, Any] = {"tick": tick, "position": HERE, "health": 20.0, "food": 20, "time_of_day": 1000,
                            "inventory": {}, "free_slots": 36, "hostiles": 0, "nearest_hostile": None, "players": 0,
                            "light": 15, "weather": "clear"}
    return Percept(**{**base, **kw})


def state(**kw: Any) -> HomeostasisState:
    extra = {k: kw.pop(k) for k in ("sheltered", "remembered_danger", "tool_tier", "food_trend") if k in kw}
    return HomeostasisState(percept=percept(**kw), **extra)


# -- signals ------------------------------------------------------------------------------------------------
def test_signals_fire_on_edges_only() -> None:
    mon = SignalMonitor()
    first = {e.name for e in mon.poll(percept(0, inventory={"bread": 1}))}
    assert first == set()  # nothing is true on a full, fed, fed-and-carrying morning
    fell = mon.poll(percept(100, health=11.0, inventory={"bread": 1}))
    assert [(e.name, e.on, e.category) for e in fell] == [("health_below_6_hearts", True, Category.SAFETY)]
    assert mon.poll(percept(200, health=10.0, inventory={"bread": 1})) == []  # still below: no new event
    healed = mon.poll(percept(300, health=14.0, inventory={"bread": 1}))
    assert [(e.name, e.on) for e in healed] == [("health_below_6_hearts", False)]


def test_signals_are_rate_limited_and_a_held_change_comes_later() -> None:
    mon = SignalMonitor()
    mon.poll(percept(0, inventory={"bread": 1}))
    assert [e.name for e in mon.poll(percept(100, hostiles=1, inventory={"bread": 1}))] == ["hostile_near"]
    assert mon.poll(percept(110, hostiles=0, inventory={"bread": 1})) == []  # flapping within 40 ticks: held
    assert mon.held == 1
    late = mon.poll(percept(150, hostiles=0, inventory={"bread": 1}))
    assert [(e.name, e.on) for e in late] == [("hostile_near", False)]


def test_the_taxonomy_covers_the_six_categories_and_reads_either_body() -> None:
    from craftbt.autonomy.signals import SIGNALS
    from craftbt.world.scenarios.loader import starter_world

    assert {s.category for s in SIGNALS} == set(Category)
    p = sense(starter_world(0))  # any Body: the protocol's reads plus optional extras (weather here)
    assert p.weather == "clear" and p.free_slots == 36 and p.food_carried == 0


class _ServerLike:
    """A body like MineflayerBody: no embedded ``world``; the weather is a method (what the server last said)."""

    def __init__(self, inner: Any, weather: str) -> None:
        self._inner, self._weather = inner, weather

    def weather(self) -> str:
        return self._weather

    def __getattr__(self, name: str) -> Any:
        if name == "world":
            raise AttributeError(name)
        return getattr(self._inner, name)


def test_a_body_that_reports_weather_as_a_method_is_read_and_raises_the_weather_signals() -> None:
    """Seed 003's raw sensory data includes weather: the mineflayer body answers ``weather()``, not an attribute."""
    from craftbt.world.scenarios.loader import starter_world

    body = _ServerLike(starter_world(0), "thunder")
    p = sense(body)
    assert p.weather == "thunder"
    mon = SignalMonitor()
    names = {e.name for e in mon.poll(p)}
    assert {"raining", "thunder"} <= names


# -- homeostasis and needs ------------------------------------------------------------------------------------
def test_trends_are_least_squares_per_thousand_ticks() -> None:
    assert slope([(0, 20.0), (1000, 18.0), (2000, 16.0)]) == pytest.approx(-2.0)
    mon = HomeostasisMonitor()
    for t, food in ((0, 20), (500, 18), (1000, 16)):
        s = mon.update(percept(t, food=food), sheltered=False)
    assert s.food_trend == pytest.approx(-4.0)


def test_context_gates_shelter_by_the_hour_and_memory_opens_the_gate_earlier() -> None:
    kinds = {n.kind for n in generate(state(time_of_day=3000))}
    assert NeedKind.SHELTER not in kinds and NeedKind.TOOLS in kinds
    dusk = generate(state(time_of_day=11_500))
    assert dusk[0].kind is NeedKind.SHELTER and NeedKind.TOOLS not in {n.kind for n in dusk}  # work stops
    assert NeedKind.SHELTER not in {n.kind for n in generate(state(time_of_day=10_500))}
    wary = generate(state(time_of_day=10_500, remembered_danger=True))
    assert wary[0].kind is NeedKind.SHELTER and any("memory" in r for r in wary[0].reasons)
    assert NeedKind.SHELTER not in {n.kind for n in generate(state(time_of_day=14_000, sheltered=True))}


def test_a_falling_food_trend_makes_hunger_more_urgent() -> None:
    steady = next(n for n in generate(state(food=12)) if n.kind is NeedKind.FOOD)
    falling = next(n for n in generate(state(food=12, food_trend=-3.0)) if n.kind is NeedKind.FOOD)
    assert falling.urgency > steady.urgency
    starving = next(n for n in generate(state(food=5)) if n.kind is NeedKind.FOOD)
    assert starving.urgency >= 0.9


def test_hostiles_at_night_are_a_safety_need() -> None:
    night = generate(state(time_of_day=15_000, hostiles=2, light=0))
    safety = next(n for n in night if n.kind is NeedKind.SAFETY)
    assert safety.urgency >= 0.8


# -- goals on the task board ------------------------------------------------------------------------------------
def test_needs_become_goals_and_food_carried_means_eat(tmp_path: Path) -> None:
    s = state(food=10, inventory={"bread": 2})
    goals = {g.goal for g in goals_for(generate(s), s)}
    assert "eat" in goals and "obtain wooden_pickaxe" in goals
    s = state(food=10)
    assert any(g.goal == "obtain bread" for g in goals_for(generate(s), s))


def test_task_board_backoff_keeps_a_failed_goal_out_until_next_eligible_at(tmp_path: Path) -> None:
    manager = GoalManager(EpisodicMemory(tmp_path / "m.sqlite"))
    manager.offer(GoalSpec(task_id="a", goal="obtain stone_pickaxe", kind=GoalKind.ROUTED, urgency=0.6))
    manager.offer(GoalSpec(task_id="b", goal="explore 1,2,3", kind=GoalKind.ROUTINE, urgency=0.2))
    assert manager.select(0).task_id == "a"  # type: ignore[union-attr]
    until = manager.block("a", "guard_failed:no_target", 0)  # a deterministic block: 5 minutes
    assert until == 300_000
    assert manager.select(299_999).task_id == "b"  # type: ignore[union-attr]
    assert manager.select(300_000).task_id == "a"  # type: ignore[union-attr]
    # a failure without a block code still backs off (doubling), never a hot loop
    assert manager.block("b", "escalated", 1000) > 1000


def test_memory_lowers_the_priority_of_a_goal_that_keeps_failing(tmp_path: Path) -> None:
    memory = EpisodicMemory(tmp_path / "m.sqlite")
    manager = GoalManager(memory)
    spec = GoalSpec(task_id="t", goal="obtain iron_pickaxe", kind=GoalKind.ROUTED, urgency=0.5)
    before = manager.score(spec)
    for _ in range(4):
        memory.record("goal_failed", "obtain iron_pickaxe", 0)
    assert manager.score(spec) < before


def test_an_urgent_goal_preempts_a_routine_one_and_memory_does_not_make_a_goal_urgent(tmp_path: Path) -> None:
    manager = GoalManager(EpisodicMemory(tmp_path / "m.sqlite"))
    routine = manager.offer(GoalSpec(task_id="tools", goal="obtain stone_pickaxe", kind=GoalKind.ROUTED,
                                     urgency=0.4))
    assert manager.preempting(routine, 0) is None
    manager.offer(GoalSpec(task_id="eat", goal="eat", kind=GoalKind.ROUTINE, urgency=0.7))
    assert manager.preempting(routine, 0) is None  # more important, not urgent: it waits for the task's end
    manager.offer(GoalSpec(task_id="shelter", goal="shelter", kind=GoalKind.ROUTINE, urgency=0.9))
    assert manager.preempting(routine, 0).task_id == "shelter"  # type: ignore[union-attr]


# -- episodic memory -----------------------------------------------------------------------------------------------
def test_memory_connections_use_wal_and_a_busy_timeout(tmp_path: Path) -> None:
    conn = connect(tmp_path / "m.sqlite")
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA busy_timeout").fetchone()[0] == 5000


def test_recall_where_a_resource_was_seen_and_dangers_near(tmp_path: Path) -> None:
    memory = EpisodicMemory(tmp_path / "m.sqlite")
    memory.record("resource_seen", "iron_ore", 10, Position(40.5, 60.0, 3.5))
    memory.record("resource_seen", "iron_ore", 20, Position(-10.5, 58.0, 2.5))
    assert memory.recall_resource(["iron_ore"], HERE) == Position(-10.5, 58.0, 2.5)
    memory.record("resource_gone", "iron_ore", 30, Position(-10.5, 58.0, 2.5))
    assert memory.recall_resource(["iron_ore"], HERE) == Position(40.5, 60.0, 3.5)
    hazard = memory.record("damage", "4", 50, Position(100.0, 65.0, 100.0), time_of_day=14_000)
    assert memory.dangers_near(HERE, 14_500) == [hazard]  # the same hour of the night
    assert memory.dangers_near(HERE, 3_000) == []
    memory.note_recalled([hazard])
    metrics = memory.metrics()
    assert metrics["hazards"] == 1 and metrics["hazard_recall"] == 1.0


def test_method_uplift_is_later_success_minus_earlier(tmp_path: Path) -> None:
    memory = EpisodicMemory(tmp_path / "m.sqlite")
    for kind in ("goal_failed", "goal_failed", "goal_done", "goal_done"):
        memory.record(kind, "obtain iron_pickaxe", 0)
    assert memory.metrics()["method_uplift"] == 1.0


# -- the bootstrapper --------------------------------------------------------------------------------------------------
def test_bootstrap_recovers_unfinished_tasks_first(tmp_path: Path) -> None:
    memory = EpisodicMemory(tmp_path / "m.sqlite")
    memory.upsert_task("done", "obtain stick", "routed", "need", 0.5, "done", tick=0)
    memory.upsert_task("cut", "obtain stone_pickaxe", "routed", "need", 0.4, "running", tick=5)
    memory.upsert_task("paused", "obtain torch", "routed", "need", 0.3, "preempted", tick=6)
    boot = TaskBootstrapper(memory)
    assert [g.task_id for g in boot.recover()] == ["cut", "paused"]
    assert boot.diagnostics[-1]["event"] == "planning.bootstrap.tasks"


def test_bootstrap_asks_the_llm_when_configured_and_explores_otherwise(tmp_path: Path) -> None:
    memory = EpisodicMemory(tmp_path / "m.sqlite")
    fence = Bounds.parse("-30,0,-30:30,200,30")
    server = StubServer().start()
    try:
        server.replies.append({"content": "obtain 4 torch"})
        asked = TaskBootstrapper(memory, llm=LlmConfig(url=server.url, model="stub"), bounds=fence)
        goal = asked.next_goal(HERE, {"food": 20})
        assert goal.goal == "obtain 4 torch" and goal.kind is GoalKind.ROUTED
        server.replies.append({"content": "dance a little"})  # not in the goal grammar: falls through
        assert asked.next_goal(HERE, {}).goal.startswith("explore ")
    finally:
        server.stop()
    down = TaskBootstrapper(memory, llm=LlmConfig(url=dead_url(), model="stub", timeout_s=2), bounds=fence)
    explore = down.next_goal(HERE, {})
    x, y, z = (int(v) for v in explore.goal.split()[1].split(","))
    assert fence.contains(Position(x, y, z)) and 8 <= Position(x, y, z).distance_to(Position(0, y, 0)) <= 25
    assert [d["stage"] for d in down.diagnostics] == ["llm", "exploration"]


def test_suggestions_pass_the_filter_and_a_place_outside_the_fence_is_refused(tmp_path: Path) -> None:
    from craftbt.autonomy.loop import LiveLoop
    from craftbt.executor.config import ExecutorConfig, scenario_fence
    from craftbt.world.scenarios.loader import starter_world

    body = starter_world(0)
    lines: queue.Queue[str] = queue.Queue()
    for text in ("go to 9000 64 9000", "obtain 4 stick", "blow up the village with tnt"):
        lines.put(text)
    loop = LiveLoop(body, tmp_path, days=0.01, config=ExecutorConfig(geofence=scenario_fence(body)), thoughts=lines)
    loop.observe(force=True)
    reasons = {s["text"]: s["reason"] for s in loop.report.suggestions}
    assert reasons == {"go to 9000 64 9000": "leave_geofence", "obtain 4 stick": "accepted",
                       "blow up the village with tnt": "griefing"}
    assert any(s.goal == "obtain 4 stick" and s.source.value == "user" for s in loop.goals.specs.values())


# -- daylight threats and food stock ------------------------------------------------------------------------
def test_a_creeper_by_day_is_fled_from_urgently_and_another_hostile_is_hidden_from() -> None:
    creeper = state(hostiles=1, nearest_hostile=6.0, nearest_threat="creeper")
    flee = next(g for g in goals_for(generate(creeper), creeper) if g.goal == "flee")
    assert flee.urgent and flee.kind is GoalKind.ROUTINE
    zombie = state(hostiles=1, nearest_hostile=6.0, nearest_threat="zombie")
    goals = {g.goal for g in goals_for(generate(zombie), zombie)}
    assert "flee" not in goals and "shelter" in goals


def test_a_spider_in_daylight_is_no_threat_but_one_in_the_dark_is() -> None:
    from craftbt.world.sim.body import SimBody, new_world

    for time_of_day, threat in ((6000, None), (18000, "spider")):
        body = SimBody(new_world(seed=3))
        body.world.rules.do_mob_spawning = False
        body.world.clock.set_time_of_day(time_of_day)
        here = body.position()
        body.world.spawn_mob("spider", here.x + 5, here.y, here.z, no_ai=True)
        p = sense(body)
        assert p.nearest_threat == threat and p.hostiles == (0 if threat is None else 1)


def test_carrying_no_food_is_a_need_before_hunger_and_meat_comes_first() -> None:
    fed = state(food=20)
    food = next(n for n in generate(fed) if n.kind is NeedKind.FOOD)
    assert food.urgency > 0 and any("stock up" in r for r in food.reasons)
    goals = sorted((g for g in goals_for([food], fed) if g.goal.startswith("obtain")), key=lambda g: -g.urgency)
    assert goals[0].goal == "obtain cooked_beef"
    carrying = state(food=20, inventory={"cooked_beef": 4})
    assert not any(n.kind is NeedKind.FOOD for n in generate(carrying))
