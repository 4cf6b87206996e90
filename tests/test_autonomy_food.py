"""Food goals that can succeed come first: raw meat carried is cooked, an animal in view or remembered is hunted
before one never seen, and a food no planner can plan waits a game day instead of failing all day."""

from __future__ import annotations

from pathlib import Path

from craftbt.autonomy.goals import (
    OPPORTUNE,
    UNPLANNABLE_BACKOFF_MS,
    GoalKind,
    GoalManager,
    GoalSpec,
    goals_for,
)
from craftbt.autonomy.memory import EpisodicMemory
from craftbt.autonomy.needs import NeedKind, generate
from craftbt.executor.backoff import DETERMINISTIC_BLOCK_BACKOFF_MS
from tests.test_autonomy_parts import state


def _food(**kw: object) -> list[GoalSpec]:
    """The food goals proposed for this state, most urgent first."""
    remembered = kw.pop("remembered", None)
    s = state(**kw)
    goals = goals_for(generate(s), s, remembered)  # type: ignore[arg-type]
    return sorted((g for g in goals if g.task_id.startswith("food:")), key=lambda g: -g.urgency)


def test_raw_meat_carried_is_food_to_cook_not_a_stock_to_rest_on() -> None:
    s = state(food=20, inventory={"beef": 2})
    food = next(n for n in generate(s) if n.kind is NeedKind.FOOD)
    assert any("cook" in r for r in food.reasons)
    goals = _food(food=20, inventory={"beef": 2}, tool_tier=1)
    assert goals[0].goal == "obtain cooked_beef" and goals[0].urgency >= OPPORTUNE
    # and it comes before the next pickaxe (tier 1 -> stone: 0.4)
    tier1 = state(food=20, inventory={"beef": 2}, tool_tier=1)
    tools = next(g for g in goals_for(generate(tier1), tier1) if g.task_id.startswith("tools:"))
    assert goals[0].urgency > tools.urgency
    # raw meat is eaten as it is only once hungry; cooked food from 17 down
    assert not any(g.goal == "eat" for g in goals_for(generate(state(food=16, inventory={"beef": 2})),
                                                      state(food=16, inventory={"beef": 2})))
    assert any(g.goal == "eat" for g in goals_for(generate(state(food=14, inventory={"beef": 2})),
                                                  state(food=14, inventory={"beef": 2})))
    assert not any(g.task_id.startswith("food:") for g in goals_for(
        generate(state(food=20, inventory={"cooked_beef": 1})), state(food=20, inventory={"cooked_beef": 1})))


def test_an_animal_in_view_then_one_remembered_comes_before_an_animal_never_seen() -> None:
    blind = _food(food=20)
    assert blind[0].goal == "obtain cooked_beef" and blind[0].urgency < OPPORTUNE
    seen = _food(food=20, animals={"pig": 9.0})
    assert seen[0].goal == "obtain cooked_porkchop" and seen[0].urgency >= OPPORTUNE
    assert any("pig in view" in w for w in seen[0].why)
    remembered = _food(food=20, remembered={"chicken": 30.0, "sheep": 200.0})
    assert remembered[0].goal == "obtain cooked_chicken"
    assert remembered[1].goal == "obtain cooked_beef"  # a sheep seen 200 blocks away moves nothing up
    assert remembered[0].urgency < OPPORTUNE  # remembered is not in view: it does not jump the tool work


def test_a_goal_no_planner_can_plan_waits_a_day_even_when_its_need_comes_back(tmp_path: Path) -> None:
    manager = GoalManager(EpisodicMemory(tmp_path / "m.sqlite"))
    apple = GoalSpec(task_id="food:apple", goal="obtain apple", kind=GoalKind.ROUTED, urgency=0.3)
    manager.refresh([apple])
    reason = ("<input>: invalid_argument: no planner could plan obtain apple: solver: unobtainable: "
              "no way to obtain apple from here")
    until = manager.block("food:apple", reason, 1_000)
    assert until == 1_000 + UNPLANNABLE_BACKOFF_MS
    manager.refresh([])  # food was carried a while: the need passed and its goals left the board
    manager.refresh([apple])  # no food again
    assert manager.select(2_000) is None and manager.select(until) is not None
    # any other failure still backs off for seconds, not a day
    manager.refresh([apple, GoalSpec(task_id="food:bread", goal="obtain bread", kind=GoalKind.ROUTED)])
    assert manager.block("food:bread", "escalated", 1_000) < 1_000 + UNPLANNABLE_BACKOFF_MS // 10


def test_a_goal_that_used_up_a_whole_task_budget_waits_minutes_not_seconds(tmp_path: Path) -> None:
    manager = GoalManager(EpisodicMemory(tmp_path / "m.sqlite"))
    hunt = GoalSpec(task_id="food:cooked_beef", goal="obtain cooked_beef", kind=GoalKind.ROUTED, urgency=0.3)
    manager.refresh([hunt])
    first = manager.block("food:cooked_beef", "budget_exhausted:", 0)
    assert first >= DETERMINISTIC_BLOCK_BACKOFF_MS  # a quarter day spent in vain is not retried 30 s later
    assert manager.block("food:cooked_beef", "budget_exhausted:", first) - first > first  # and waits longer
    manager.refresh([hunt, GoalSpec(task_id="food:bread", goal="obtain bread", kind=GoalKind.ROUTED)])
    assert manager.block("food:bread", "local_repair_exhausted: no_path", 0) < DETERMINISTIC_BLOCK_BACKOFF_MS
