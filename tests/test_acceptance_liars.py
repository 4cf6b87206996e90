"""No acceptance check believes a leaf's word: a runner that claims success but did nothing is never verified.

For every registered capability the test runs the real runner once in a small situation (its verdict must be
``verified``: the situation is a fair one), then builds the same situation afresh and runs a *liar*: the same
spec whose runner returns that honest result (receipt, observables and all) without touching the world. The
acceptance check compares observations taken before and after, so the liar must come out ``contradicted`` or
``inconclusive``. A read-only leaf changes nothing by design; its liar reports the honest reading in a world
where that reading is now false (``falsify``), and the check must read the world again to notice.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from craftbt.capabilities.context import CapabilityContext
from craftbt.capabilities.spec import ActionResult, CapabilitySpec, RunnerGen, Verdict, always_allow
from craftbt.world.body import BlockPos
from tests.leafkit import make_context, run_leaf, shared_registry

SCENARIOS = Path(__file__).resolve().parent.parent / "world" / "scenarios" / "leaves"
FEET = BlockPos(0, 64, 0)


def vec(p: BlockPos) -> dict[str, int]:
    return {"x": p.x, "y": p.y, "z": p.z}


def flat(*commands: str) -> Any:
    """A flat embedded world, set up with operator commands."""
    body = pytest.importorskip("craftbt.world.sim.body").SimBody(seed=1)
    for command in commands:
        body.run_command(command)
    return body


def scenario(name: str, *commands: str) -> Callable[[], Any]:
    def build() -> Any:
        body = pytest.importorskip("craftbt.world.scenarios.loader").load_scenario(SCENARIOS / f"{name}.yaml")
        for command in commands:
            body.run_command(command)
        return body
    return build


def on_flat(*commands: str) -> Callable[[], Any]:
    return lambda: flat(*commands)


def commands(*lines: str) -> Callable[[Any], None]:
    def apply(body: Any) -> None:
        for line in lines:
            body.run_command(line)
    return apply


@dataclass(frozen=True)
class Case:
    world: Callable[[], Any]
    args: dict[str, Any]
    #: applied to the liar's world only: the fact a read-only leaf reports is false there
    falsify: Callable[[Any], None] | None = None
    #: applied to the honest claim before the liar replays it (a leaf that reads no world: a false answer)
    lie: Callable[[ActionResult], None] | None = None
    #: prepares the context (memory, functions) in both worlds
    prepare: Callable[[CapabilityContext], None] | None = None
    max_ticks: int = 3_000
    tags: tuple[str, ...] = field(default=())


def _wrong_recipe(claim: ActionResult) -> None:
    claim.observables["recipes"] = [{"ingredients": {"dirt": 9}, "count": 1, "needs_table": False}]


def _pillar_function(ctx: CapabilityContext) -> None:
    from craftbt.craftscript.functions import FunctionStore

    store = FunctionStore(ctx.body.name)
    if store.latest("pillar") is None:
        store.create("pillar", 'build_up("cobblestone"); build_up("cobblestone");')


SHELTER = {"module_id": "cobblestone_pillar_3", "origin": vec(FEET.offset(dx=2))}

CASES: dict[str, Case] = {
    "acquire_material": Case(scenario("acquire_material"), {"item": "oak_log", "count": 1}),
    "attack_entity": Case(
        on_flat("/summon zombie 0 64 3 {NoAI:1b}", "/give @s iron_sword 1"), {"entityType": "zombie"}),
    "build_module": Case(scenario("build_module"), SHELTER, max_ticks=6_000),
    "build_up": Case(on_flat("/give @s cobblestone 4"), {"item": "cobblestone"}),
    "call_function": Case(on_flat("/give @s cobblestone 8"), {"name": "pillar", "args": {}},
                          prepare=_pillar_function),
    "chat": Case(on_flat(), {"message": "hello there"}),
    "close_container": Case(on_flat("/setblock 2 64 0 chest"), {}),
    "collect_items": Case(scenario("collect_items"), {"itemName": "diamond"}),
    "consume_food": Case(scenario("consume_food"), {"food_type": "bread"}),
    "control_environment": Case(scenario("control_environment"), {"action": "set_weather", "weather": "rain"}),
    "control_redstone": Case(scenario("control_redstone"),
                             {"action": "power_on", "target_position": vec(FEET.offset(dx=2))}),
    "craft_recipe": Case(on_flat("/give @s oak_log 2"), {"recipe": "oak_planks", "qty": 4}),
    "dig_block": Case(scenario("dig_block"), {"pos": vec(FEET.offset(dx=3))}),
    "dig_block_at": Case(scenario("dig_block_at"), {"position": vec(FEET.offset(dx=2))}),
    "equip_tool": Case(on_flat("/give @s dirt 1", "/give @s iron_pickaxe 1"), {"block": "stone"}),
    "equip_weapon": Case(on_flat("/give @s dirt 1", "/give @s iron_sword 1"), {}),
    "explore": Case(on_flat("/setblock 20 64 0 oak_log"), {"target": "oak_log", "max_distance": 32}),
    "find_resource": Case(scenario("find_resource"), {"blockType": "oak_log"},
                          falsify=commands("/setblock 3 64 0 air", "/setblock 0 64 9 air")),
    "follow_entity": Case(scenario("follow_entity"), {"entityId": 0}),
    "get_block_at": Case(on_flat(), {"position": vec(FEET.offset(dy=-1))},
                         falsify=commands("/setblock 0 63 0 stone")),
    "get_light_level": Case(on_flat("/time set 18000", "/setblock 1 64 0 glowstone"), {"position": vec(FEET)},
                            falsify=commands("/setblock 1 64 0 air")),
    "harvest_crop": Case(scenario("harvest_crop"), {"crop": "wheat"}),
    "interact_with_block": Case(scenario("interact_with_block"), {"position": vec(FEET.offset(dx=2))}),
    "introspect_recipe": Case(on_flat(), {"output": "stick"}, lie=_wrong_recipe),
    "manage_farm": Case(scenario("manage_farm"), {"action": "maintain"}, max_ticks=6_000),
    "manage_inventory": Case(on_flat("/give @s rotten_flesh 4", "/give @s diamond 2"), {"action": "drop_unwanted"}),
    "milk_animal": Case(on_flat("/give @s bucket 1", "/summon cow 0 64 4 {NoAI:1b}"), {"entityType": "cow"}),
    "move_to": Case(on_flat(), {"pos": vec(FEET.offset(dx=5))}),
    "navigate": Case(on_flat(), {"pos": vec(FEET.offset(dz=5))}),
    "open_container": Case(on_flat("/setblock 2 64 0 chest"), {"containerType": "chest"}),
    "operate_piston": Case(scenario("operate_piston"), {"position": vec(FEET.offset(dx=2)), "action": "extend"}),
    "place_block": Case(scenario("place_block"), {"item": "cobblestone"}),
    "place_block_at": Case(scenario("place_block_at"), {"position": vec(FEET.offset(dx=2)), "block": "cobblestone"}),
    "place_feature": Case(scenario("place_feature"), {"feature": "torch", "position": vec(FEET.offset(dz=-2))}),
    "place_torch": Case(scenario("place_torch"), {}),
    "place_torch_if_needed": Case(scenario("place_torch"), {}),
    "place_workstation": Case(on_flat("/give @s crafting_table 1"), {"workstation": "crafting_table"}),
    "plant_crop": Case(scenario("plant_crop"), {"crop": "wheat", "position": vec(FEET.offset(dx=2, dy=-1))}),
    "prepare_site": Case(scenario("prepare_site"),
                         {"origin": vec(FEET.offset(dx=3)), "size": {"dx": 3, "dy": 2, "dz": 3}}, max_ticks=6_000),
    "retreat_and_block": Case(scenario("retreat_and_block"), {}),
    "retreat_from_threat": Case(on_flat("/summon zombie 0 64 3 {NoAI:1b}"),
                                {"retreatDistance": 8, "safeRadius": 6}),
    "run_script": Case(on_flat("/give @s cobblestone 2"),
                       {"source": 'place("cobblestone", 2, 64, 0);'}),
    "sense_hostiles": Case(on_flat("/summon zombie 0 64 5 {NoAI:1b}"), {"radius": 16},
                           falsify=commands("/summon skeleton 3 64 0 {NoAI:1b}")),
    "sleep": Case(scenario("sleep"), {}, max_ticks=6_000),
    "smelt": Case(on_flat("/give @s raw_iron 1", "/give @s coal 1", "/give @s furnace 1"),
                  {"input": "raw_iron", "qty": 1}, max_ticks=6_000),
    "step_forward_safely": Case(on_flat(), {"distance": 2, "checkLight": False}),
    "till_soil": Case(scenario("till_soil"), {"position": vec(FEET.offset(dx=2, dy=-1))}),
    "transfer_items": Case(on_flat("/setblock 2 64 0 chest", "/give @s apple 10"),
                           {"item": "apple", "count": 6, "mode": "deposit"}),
    "use_item": Case(on_flat("/give @s snowball 3"), {"item": "snowball", "quantity": 2}),
    "verify_module": Case(scenario("verify_module"), SHELTER, falsify=commands("/setblock 2 65 0 air")),
    "wait": Case(on_flat(), {"ms": 500}),
}

#: Leaves that need another leaf's effect first (a window open, an entity id known) in both worlds.
BEFORE: dict[str, tuple[str, dict[str, Any]]] = {
    "close_container": ("open_container", {"containerType": "chest"}),
    "transfer_items": ("open_container", {"containerType": "chest"}),
}


def liar(spec: CapabilitySpec, claim: ActionResult) -> CapabilitySpec:
    """The same spec, but its runner only returns ``claim``: it says what the honest run said and does nothing."""

    def runner(ctx: CapabilityContext, args: Any) -> RunnerGen:
        yield None  # one tick, no action
        return claim.model_copy(deep=True)

    return dataclasses.replace(spec, runner=runner, guard=always_allow)


def args_for(case: Case, body: Any) -> dict[str, Any]:
    args = dict(case.args)
    if "entityId" in args:  # the first non-player entity of the situation
        args["entityId"] = next(e.id for e in body.entities(64.0))
    return args


def situation(name: str, case: Case) -> tuple[Any, CapabilityContext, dict[str, Any]]:
    body = case.world()
    ctx = make_context(body)
    if case.prepare is not None:
        case.prepare(ctx)
    if name in BEFORE:
        first, first_args = BEFORE[name]
        assert run_leaf(body, first, first_args, ctx=ctx).ok
    return body, ctx, args_for(case, body)


def test_every_registered_capability_has_a_liar_case() -> None:
    assert sorted(CASES) == sorted(shared_registry().names())


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_runner_that_changed_nothing_is_never_verified(name: str) -> None:
    case = CASES[name]
    spec = shared_registry().get(name)
    body, ctx, args = situation(name, case)
    honest = run_leaf(body, name, args, max_ticks=case.max_ticks, ctx=ctx)
    assert honest.ok and honest.verdict is Verdict.VERIFIED, f"the situation is not fair: {honest.result}"
    claim = honest.result.model_copy(deep=True)
    claim.verification = None
    if case.lie is not None:
        case.lie(claim)

    body, ctx, args = situation(name, case)
    if case.falsify is not None:
        case.falsify(body)
    lying = run_leaf(body, name, args, max_ticks=case.max_ticks, ctx=ctx, spec=liar(spec, claim))
    assert lying.verdict in (Verdict.CONTRADICTED, Verdict.INCONCLUSIVE), (
        f"{name} verified a runner that changed nothing: {lying.result.verification}")
