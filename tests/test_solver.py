"""The crafting solver: plans from the recipe graph, reuses stations, survives recipe cycles."""

from __future__ import annotations

import pytest

from craftbt.capabilities.default import default_registry
from craftbt.planners.base import PlanningFailure, PlanningState
from craftbt.planners.intent import Intent
from craftbt.planners.living import find_animal_step
from craftbt.planners.solver import CraftingSolver, recipe_graph
from craftbt.trees.model import LeafNode, Node


def leaves(node: Node) -> list[LeafNode]:
    if isinstance(node, LeafNode):
        return [node]
    children: list[Node] = list(getattr(node, "children", []))
    child = getattr(node, "child", None)
    if child is not None:
        children.append(child)
    return [leaf for c in children for leaf in leaves(c)]


def plan(goal: str, **state: object) -> list[tuple[str, dict[str, object]]]:
    result = CraftingSolver().plan(Intent.from_text(goal), PlanningState(**state), default_registry())  # type: ignore[arg-type]
    return [(leaf.capability, leaf.args) for leaf in leaves(result.tree.root)]


def test_recipe_graph_links_items_to_sources() -> None:
    graph = recipe_graph()
    assert graph.edges["wooden_pickaxe", "stick"]["kind"] == "craft"
    assert graph.edges["iron_ingot", "raw_iron"]["kind"] == "smelt"
    assert graph.edges["cobblestone", "block:stone"]["kind"] == "mine"


def test_wooden_pickaxe_from_empty_inventory_places_one_table() -> None:
    steps = plan("obtain wooden_pickaxe")
    verbs = [verb for verb, _ in steps]
    assert verbs.count("place_workstation") == 1
    assert steps[-1] == ("craft_recipe", {"recipe": "wooden_pickaxe", "qty": 1})
    assert ("acquire_material", {"item": "oak_log", "count": 3, "radius": 32, "hold": 3}) in steps


def test_table_in_reach_is_reused_not_placed() -> None:
    steps = plan("obtain wooden_pickaxe", stations=frozenset({"crafting_table"}))
    assert "place_workstation" not in [verb for verb, _ in steps]


def test_iron_pickaxe_from_empty_inventory_follows_the_tool_progression() -> None:
    steps = plan("obtain iron_pickaxe")
    order = [args.get("recipe") or args.get("item") or args.get("input") or args.get("workstation")
             for _, args in steps]
    assert order.index("wooden_pickaxe") < order.index("cobblestone") < order.index("stone_pickaxe")
    assert order.index("stone_pickaxe") < order.index("raw_iron")
    smelt_at = [verb for verb, _ in steps].index("smelt")
    assert order.index("furnace") < smelt_at < order.index("iron_pickaxe")
    smelt = next(args for verb, args in steps if verb == "smelt")
    assert smelt["qty"] == 3 and smelt["input"] == "raw_iron"
    assert all(int(args["count"]) <= 8 for verb, args in steps if verb == "acquire_material")


def test_held_items_shorten_the_plan() -> None:
    steps = plan("obtain wooden_pickaxe", inventory={"oak_planks": 3, "stick": 2},
                 stations=frozenset({"crafting_table"}))
    assert steps == [("craft_recipe", {"recipe": "wooden_pickaxe", "qty": 1})]


def test_iron_not_in_view_is_explored_for_not_refused() -> None:
    steps = plan("obtain iron_pickaxe", available_blocks=frozenset({"oak_log", "stone"}),
                 block_distance={"oak_log": 5.0, "stone": 8.0})
    explore = [i for i, (verb, args) in enumerate(steps) if verb == "explore"]
    # stone seen by a survey may lie deep in a cave: a search for it ends at once when it is in reach
    assert [steps[i][1]["target"] for i in explore] == ["cobblestone", "raw_iron"]
    iron = explore[1]
    assert steps[iron][1]["count"] == 3
    # the search comes after the pickaxe that mines the ore, and right before the mining
    order = [args.get("recipe") or args.get("item") or args.get("target") for _, args in steps]
    assert order.index("stone_pickaxe") < iron < order.index("raw_iron", iron + 1) == iron + 1


def test_diamond_pickaxe_on_a_bare_survey_mines_at_depth() -> None:
    steps = plan("obtain diamond_pickaxe", available_blocks=frozenset(), block_distance={})
    targets = [args["target"] for verb, args in steps if verb == "explore"]
    assert targets[-1] == "diamond" and "raw_iron" in targets
    assert steps[-1] == ("craft_recipe", {"recipe": "diamond_pickaxe", "qty": 1})


def test_nether_only_items_are_out_of_reach_with_that_reason() -> None:
    with pytest.raises(PlanningFailure) as info:
        plan("obtain quartz", available_blocks=frozenset({"oak_log", "stone"}))
    assert info.value.reason == "out_of_reach" and "Nether" in info.value.detail


def test_unknown_item_is_a_structured_failure() -> None:
    with pytest.raises(PlanningFailure) as info:
        plan("obtain unobtainium")
    assert info.value.reason == "unknown_item"


def test_effects_make_the_plan_skip_done_steps() -> None:
    result = CraftingSolver().plan(Intent.from_text("obtain stick"), PlanningState(), default_registry())
    root = result.tree.root
    assert root.kind == "selector"
    assert root.children[0].kind == "condition"  # type: ignore[union-attr]


def test_animal_drops_are_hunted_for_on_a_surveyed_world() -> None:
    steps = plan("obtain cooked_beef", available_blocks=frozenset({"oak_log", "stone"}),
                 block_distance={"oak_log": 4.0, "stone": 6.0})
    verbs = [verb for verb, _ in steps]
    assert ("explore", find_animal_step("cow", "beef").args) in steps
    kill = verbs.index("attack_entity")
    assert steps[kill][1]["entityType"] == "cow" and verbs[kill + 1] == "collect_items"
    assert kill < verbs.index("smelt")
    bed = plan("obtain white_bed", available_blocks=frozenset({"oak_log"}), block_distance={"oak_log": 4.0})
    assert [args for verb, args in bed if verb == "attack_entity"] == [
        {"entityType": "sheep", "radius": 32.0, "retreatHealth": 4.0}] * 3
