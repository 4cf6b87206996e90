"""Planning from a given inventory: a fixed sample of Plancraft-like examples through every planner.

Each example is an inventory, a crafting table and a furnace in reach, and a target; planning is
craft-only (``PlanningState.gathering=False``). Solvable ones must plan, and the plan's crafts must be
what the embedded world accepts; impossible ones must be refused with ``missing_ingredient`` naming what
is missing, in milliseconds (no search budget runs out).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from craftbt.capabilities.default import default_registry, register_all
from craftbt.capabilities.registry import Registry
from craftbt.planners.base import Planner, PlanningFailure, PlanningState
from craftbt.planners.goap.actions import ground
from craftbt.planners.goap.costs import ActionCosts
from craftbt.planners.goap.planner import GoapPlanner
from craftbt.planners.htn.knowledge import Knowledge
from craftbt.planners.htn.planner import HtnPlanner
from craftbt.planners.intent import Intent
from craftbt.planners.solver import CraftingSolver
from craftbt.world.body import ActionStatus
from craftbt.world.legacy_names import LEGACY_ITEMS, modern_inventory
from craftbt.world.mcdata import load
from craftbt.world.scenarios.loader import inventory_world

ROOT = Path(__file__).resolve().parent.parent
STATIONS = frozenset({"crafting_table", "furnace"})
PLANNERS: list[Planner] = [CraftingSolver(), HtnPlanner(), GoapPlanner()]

SOLVABLE = [
    ("chest", {"oak_planks": 5, "birch_planks": 3}),  # one slot, two plank kinds
    ("blue_wool", {"white_wool": 1, "blue_dye": 1}),  # a dye recipe takes any other colour
    ("comparator", {"quartz": 1, "redstone_torch": 3, "stone": 3}),  # a Nether item held
    ("blackstone_slab", {"blackstone": 3}),
    ("purpur_slab", {"purpur_block": 2, "purpur_pillar": 1}),
    ("bookshelf", {"warped_planks": 2, "acacia_planks": 1, "spruce_planks": 1, "oak_log": 1, "book": 3}),
    ("iron_ingot", {"raw_iron": 1, "lava_bucket": 1, "oak_planks": 2}),
    # a slot paid from several made options: two planks held, four made from an oak log and two from jungle
    # wood (or crimson hyphae); GOAP's heuristic also looked past "six oak planks" to that mix
    ("note_block", {"acacia_planks": 1, "dark_oak_planks": 1, "stripped_oak_log": 1, "redstone_block": 1,
                    "jungle_wood": 1, "crimson_hyphae": 1}),
    ("quartz_stairs", {"quartz_pillar": 5, "nether_quartz_ore": 4, "lava_bucket": 2}),
]
IMPOSSIBLE = [
    ("diamond_pickaxe", {"stick": 2, "oak_planks": 3}, "diamond"),
    ("chest", {"oak_planks": 7}, "oak_planks"),  # one plank short: a quantity, not a kind
    ("iron_ingot", {"raw_iron": 1}, "fuel"),  # nothing to burn
]


def state(inventory: dict[str, int]) -> PlanningState:
    return PlanningState(inventory=dict(inventory), available_blocks=frozenset(), stations=STATIONS,
                         gathering=False)


def crafts(result: Any) -> list[tuple[str, dict[str, Any]]]:
    out: list[tuple[str, dict[str, Any]]] = []

    def walk(node: Any) -> None:
        if getattr(node, "kind", None) == "leaf":
            out.append((node.capability, dict(node.args)))
        for child in getattr(node, "children", None) or []:
            walk(child)

    walk(result.tree.root)
    return out


@pytest.mark.parametrize("planner", PLANNERS, ids=lambda p: p.name)
@pytest.mark.parametrize(("target", "inventory"), SOLVABLE, ids=[t for t, _ in SOLVABLE])
def test_solvable_examples_plan_from_the_inventory_alone(planner: Planner, target: str,
                                                         inventory: dict[str, int]) -> None:
    result = planner.plan(Intent.from_text(f"obtain {target}"), state(inventory), default_registry())
    steps = crafts(result)
    assert steps and {cap for cap, _ in steps} <= {"craft_recipe", "smelt"}  # nothing gathered
    if target == "iron_ingot":  # the lava bucket burns, not the planks (HTN keeps planks as a fallback branch)
        assert steps[0] == ("smelt", {"input": "raw_iron", "qty": 1, "fuel": "lava_bucket"})


@pytest.mark.parametrize("planner", PLANNERS, ids=lambda p: p.name)
@pytest.mark.parametrize(("target", "inventory", "named"), IMPOSSIBLE, ids=[t for t, _, _ in IMPOSSIBLE])
def test_impossible_examples_are_refused_with_the_missing_ingredient(
        planner: Planner, target: str, inventory: dict[str, int], named: str) -> None:
    with pytest.raises(PlanningFailure) as refusal:
        planner.plan(Intent.from_text(f"obtain {target}"), state(inventory), default_registry())
    assert refusal.value.reason == "missing_ingredient"
    assert named in refusal.value.detail


@pytest.mark.parametrize("planner", PLANNERS, ids=lambda p: p.name)
def test_a_refusal_starts_at_what_the_plan_is_short_of(planner: Planner) -> None:
    """Two diamonds held for a pickaxe: the proof names the one diamond short first, then why it cannot be made
    (no diamond block), not the diamond block alone."""
    with pytest.raises(PlanningFailure) as refusal:
        planner.plan(Intent.from_text("obtain diamond_pickaxe"), state({"diamond": 2, "stick": 2}), default_registry())
    assert refusal.value.reason == "missing_ingredient"
    assert refusal.value.detail.startswith("1 more diamond: not held; making it: "), refusal.value.detail
    assert "diamond_block" in refusal.value.detail


@pytest.mark.parametrize("planner", PLANNERS, ids=lambda p: p.name)
def test_a_registry_that_cannot_mine_yields_no_gathering_fallback(planner: Planner) -> None:
    registry = Registry()  # not the process-wide one: other tests use it
    register_all(registry)
    registry.unregister("acquire_material")
    gathering = PlanningState(inventory={"stick": 2}, available_blocks=frozenset({"oak_log", "stone"}))
    with pytest.raises(PlanningFailure) as refusal:
        planner.plan(Intent.from_text("obtain stone_pickaxe"), gathering, registry)
    assert refusal.value.reason == "missing_ingredient"


def test_craft_only_knowledge_is_shared_and_grounds_only_what_can_be_had() -> None:
    """The planners one route asks share a craft-only Knowledge (a function of the goal and what is held), and
    GOAP grounds no craft from an item nothing gives: sticks from oak planks held, not from eleven other kinds
    of planks no craft-only plan can have."""
    held = {"oak_planks": 4, "lava_bucket": 1, "dirt": 3}
    first = Knowledge.of(state(held), gather=False, goal="stick")
    assert Knowledge.of(state(dict(held)), gather=False, goal="stick") is first
    assert Knowledge.of(state({**held, "oak_planks": 2}), gather=False, goal="stick") is not first
    assert Knowledge.of(state(held), gather=True, goal=None) is not Knowledge.of(state(held), gather=True, goal=None)
    # the fuels a plan can burn: held or made from what is held, not the game's hundred-odd
    assert {f for f, _ in first.fuels()} == {"oak_planks", "stick", "lava_bucket"}
    registry = default_registry()
    actions = ground("stick", first, registry, ActionCosts.from_registry(registry))
    assert [a.name for a in actions if a.capability == "craft_recipe"] == ["craft 4 stick from 2 oak_planks"]
    assert ActionCosts.from_registry(registry).cost("no_such_capability", 2) == 2000.0


def test_the_nether_is_refused_only_when_the_ingredient_must_be_fetched() -> None:
    solver = CraftingSolver()
    survey = PlanningState(available_blocks=frozenset({"oak_log", "stone"}))
    with pytest.raises(PlanningFailure) as refusal:
        solver.plan(Intent.from_text("obtain comparator"), survey, default_registry())
    assert refusal.value.reason == "out_of_reach"
    held = PlanningState(inventory={"quartz": 1}, available_blocks=frozenset({"oak_log", "stone"}))
    assert solver.plan(Intent.from_text("obtain comparator"), held, default_registry()).steps > 0


def test_the_embedded_world_makes_the_mixed_craft_the_planner_emits() -> None:
    body = inventory_world({"oak_planks": 5, "birch_planks": 3, "white_wool": 1, "blue_dye": 1})
    result = CraftingSolver().plan(Intent.from_text("obtain chest"), PlanningState.held(body), default_registry())
    assert crafts(result) == [("craft_recipe", {"recipe": "chest", "qty": 1})]
    table = body.find_blocks(["crafting_table"], 6, max_count=1)[0]
    for item, at in (("chest", table), ("blue_wool", None)):
        handle = body.craft(item, 1, at)
        body.advance(5)
        assert handle.status() is ActionStatus.SUCCEEDED, handle.error()
    held = body.observe().inventory
    assert held.get("chest") == 1 and held.get("blue_wool") == 1
    assert not held.get("oak_planks") and not held.get("birch_planks") and not held.get("white_wool")


def test_legacy_names_are_items_of_an_older_minecraft_data_and_renamed_aloud() -> None:
    data = ROOT / "node_modules" / "minecraft-data" / "minecraft-data" / "data" / "pc"
    if not (data / "1.13.2" / "items.json").exists():
        pytest.skip("node_modules/minecraft-data is not installed")
    old = {i["name"] for i in json.loads((data / "1.13.2" / "items.json").read_text())}
    md = load()
    for legacy, modern in LEGACY_ITEMS.items():
        assert legacy in old and not md.has_item(legacy) and md.has_item(modern), legacy
    inventory, notes = modern_inventory({"grass": 2, "short_grass": 1, "stick": 1})
    assert inventory == {"short_grass": 3, "stick": 1} and notes == ["'grass' is the pre-1.21 name of 'short_grass'"]


def test_a_goal_with_an_old_name_is_refused_with_its_new_name() -> None:
    with pytest.raises(PlanningFailure) as refusal:
        CraftingSolver().plan(Intent.from_text("obtain rose_red"), state({"poppy": 1}), default_registry())
    assert refusal.value.reason == "unknown_item" and "ask for red_dye" in refusal.value.detail


def test_the_cli_plans_from_an_inventory_and_refuses_bad_input(tmp_path: Path) -> None:
    from tests.clikit import cli

    done = cli(["plan", "--goal", "obtain chest", "--inventory", '{"oak_planks": 5, "birch_planks": 3}',
                "--craft-only", "--json"])
    assert done.code == 0, done.text
    decision = json.loads(done.out)
    assert decision["plan"]["steps"] == 1 and "craft_recipe" in json.dumps(decision["plan"]["tree"])
    short = tmp_path / "inv.json"
    short.write_text('{"oak_planks": 7, "grass": 1}')
    done = cli(["plan", "--goal", "obtain chest", "--inventory", str(short), "--craft-only"])
    assert done.code == 1 and "missing_ingredient" in done.text and "oak_planks" in done.text
    assert "'grass' is the pre-1.21 name of 'short_grass'" in done.err
    assert done.text.count("not held") == 1, done.text  # one proof, said once for the planners that share it
    done = cli(["plan", "--goal", "obtain chest", "--inventory", str(short), "--craft-only", "--json"])
    refusal = json.loads(done.out)
    assert done.code == 1 and refusal["ok"] is False and "missing_ingredient" in refusal["problems"][0]["message"]
    done = cli(["plan", "--goal", "obtain chest", "--inventory", '{"oak_plank": 8}', "--craft-only"])
    assert done.code == 1 and "did you mean 'oak_planks'" in done.text
    done = cli(["plan", "--goal", "obtain chest", "--inventory", "[1]", "--craft-only"])
    assert done.code == 1 and "--inventory" in done.text
