"""GOAP: grounded from declared facts, informed A*, precondition-guarded leaves, local repair."""

from __future__ import annotations

from typing import Any

import pytest

from craftbt.capabilities.default import default_registry
from craftbt.planners.base import PlanningFailure, PlanningState
from craftbt.planners.goap.actions import ground, interpret
from craftbt.planners.goap.costs import ActionCosts
from craftbt.planners.goap.planner import GoapPlanner
from craftbt.planners.htn.knowledge import Knowledge
from craftbt.planners.intent import Intent
from craftbt.trees import model as m
from craftbt.trees.validate import validate_definition
from craftbt.world.body import Observation, Position

WORLD = frozenset({"oak_log", "stone", "coal_ore", "iron_ore", "dirt"})


def leaves(node: Any) -> list[m.LeafNode]:
    if isinstance(node, m.LeafNode):
        return [node]
    return [leaf for c in getattr(node, "children", []) for leaf in leaves(c)]


def plan(goal: str, planner: GoapPlanner | None = None, **state: Any) -> Any:
    state.setdefault("available_blocks", WORLD)
    return (planner or GoapPlanner()).plan(Intent.from_text(goal), PlanningState(**state), default_registry())


@pytest.mark.parametrize("goal", ["obtain wooden_pickaxe", "obtain stone_pickaxe", "obtain furnace",
                                  "obtain iron_pickaxe"])
def test_plans_validate(goal: str) -> None:
    assert validate_definition(plan(goal).tree, default_registry()).ok


def test_iron_pickaxe_is_found_with_few_expansions() -> None:
    planner = GoapPlanner()
    result = plan("obtain iron_pickaxe", planner)
    assert planner.last_expanded < 200  # goal-count A* needs thousands here
    caps = [leaf.capability for leaf in leaves(result.tree.root)]
    assert caps[-1] == "craft_recipe" and "smelt" in caps
    mined = [leaf for leaf in leaves(result.tree.root) if leaf.capability == "acquire_material"]
    assert all(int(leaf.args["count"]) <= 8 for leaf in mined)


def test_leaves_are_guarded_by_their_preconditions() -> None:
    result = plan("obtain stone_pickaxe")

    def guarded(node: Any) -> bool:
        if isinstance(node, m.SequenceNode) and node.children and isinstance(node.children[-1], m.LeafNode):
            leaf = node.children[-1]
            if leaf.capability == "craft_recipe" and leaf.args["recipe"] == "stone_pickaxe":
                checks = {(c.check, c.args.get("item") or c.args.get("block")) for c in node.children[:-1]
                          if isinstance(c, m.ConditionNode)}
                wanted = {("has_item", "cobblestone"), ("has_item", "stick"), ("block_nearby", "crafting_table")}
                return wanted <= checks
        return any(guarded(c) for c in getattr(node, "children", []))

    assert guarded(result.tree.root)


def test_actions_come_from_declared_facts() -> None:
    registry = default_registry()
    knowledge = Knowledge(PlanningState(available_blocks=WORLD))
    actions = ground("furnace", knowledge, registry, ActionCosts.from_registry(registry))
    craft = next(a for a in actions if a.capability == "craft_recipe" and a.args["recipe"] == "furnace")
    assert "has:furnace" in craft.facts_eff  # craft_recipe declares has:{recipe}
    assert interpret("window_open", Knowledge(PlanningState())) is None


def test_costs_follow_the_journal_when_there_is_history() -> None:
    class J:
        def step_rows(self) -> list[dict[str, Any]]:
            return [{"capability": "smelt", "ok": 1, "duration_ms": 1000.0, "args": {"qty": 2}}] * 3

    registry = default_registry()
    assert ActionCosts.from_registry(registry, J()).per_unit_ms["smelt"] == 500.0
    assert ActionCosts.from_registry(registry).per_unit_ms["smelt"] == registry.get("smelt").timeout_ms * 0.1


def test_iron_not_in_view_is_explored_for() -> None:
    result = plan("obtain iron_pickaxe", available_blocks=frozenset({"oak_log", "stone"}),
                  block_distance={"oak_log": 4.0, "stone": 6.0})
    explores = [leaf.args["target"] for leaf in leaves(result.tree.root) if leaf.capability == "explore"]
    assert "raw_iron" in explores
    assert validate_definition(result.tree, default_registry()).ok


def test_nether_only_items_are_out_of_reach() -> None:
    with pytest.raises(PlanningFailure) as info:
        plan("obtain quartz", available_blocks=frozenset({"oak_log", "stone"}))
    assert info.value.reason == "out_of_reach"


def test_replan_starts_from_the_observed_state() -> None:
    planner = GoapPlanner()
    full = plan("obtain stone_pickaxe", planner)
    obs = Observation(tick=0, position=Position(0.5, 64, 0.5), health=20, food=20, time_of_day=1000,
                      inventory={"wooden_pickaxe": 1, "stick": 2, "cobblestone": 1})
    repaired = planner.replan(obs, stations=frozenset({"crafting_table"}))
    assert repaired.steps < full.steps
    assert "local repair" in repaired.explanation
    mined = [leaf for leaf in leaves(repaired.tree.root) if leaf.capability == "acquire_material"]
    # the table in reach is carried along: stone is not in view, and the explore for it walks away
    assert [(x.args["item"], x.args["count"]) for x in mined] == [("crafting_table", 1), ("cobblestone", 2)]


def test_replan_before_plan_is_refused() -> None:
    obs = Observation(tick=0, position=Position(0, 64, 0), health=20, food=20, time_of_day=0, inventory={})
    with pytest.raises(PlanningFailure):
        GoapPlanner().replan(obs)
