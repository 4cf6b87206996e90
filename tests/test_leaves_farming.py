"""Farming leaves: seed 000 situations (world/scenarios/leaves/*.yaml) on the embedded world."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from craftbt.capabilities.leaves.common import is_item_entity
from craftbt.capabilities.leaves.farming import max_age, produce, seed_item
from craftbt.capabilities.spec import Verdict
from craftbt.world import mcdata
from craftbt.world.body import BlockPos
from tests.leafkit import run_leaf

SCENARIOS = Path(__file__).resolve().parent.parent / "world" / "scenarios" / "leaves"
FEET = BlockPos(0, 64, 0)
MD = mcdata.load()


def scenario(name: str) -> Any:
    loader = pytest.importorskip("craftbt.world.scenarios.loader")
    return loader.load_scenario(SCENARIOS / f"{name}.yaml")


def vec(p: BlockPos) -> dict[str, int]:
    return {"x": p.x, "y": p.y, "z": p.z}


def count(body: Any, item: str) -> int:
    return sum(s.count for s in body.inventory() if s.name == item)


def test_crop_facts_come_from_minecraft_data() -> None:
    assert [seed_item(MD, c) for c in ("wheat", "carrots", "potatoes", "beetroots")] == [
        "wheat_seeds", "carrot", "potato", "beetroot_seeds"]
    assert (max_age(MD, "wheat"), max_age(MD, "beetroots")) == (7, 3)
    assert "wheat" in produce(MD, "wheat") and "beetroot" in produce(MD, "beetroots")


# -- till_soil -----------------------------------------------------------------------------------
def test_till_soil_turns_dirt_into_farmland() -> None:
    body = scenario("till_soil")
    target = FEET.offset(dx=2, dy=-1)
    run = run_leaf(body, "till_soil", {"position": vec(target)})
    assert run.ok and run.verdict is Verdict.VERIFIED, run.result
    assert body.block_at(target).name == "farmland"
    again = run_leaf(body, "till_soil", {"position": vec(target)})
    assert again.ok and again.observables["already_tilled"] is True


def test_till_soil_finds_the_nearest_tillable_block() -> None:
    body = scenario("till_soil")
    run = run_leaf(body, "till_soil", {"radius": 4})
    assert run.ok and run.verdict is Verdict.VERIFIED
    assert run.result.receipt is not None and run.result.receipt.block == "farmland"


def test_till_soil_refusals() -> None:
    body = scenario("till_soil")
    body.set_block(FEET.offset(dx=2), "stone")
    covered = run_leaf(body, "till_soil", {"position": vec(FEET.offset(dx=2, dy=-1))})
    assert covered.code == "guard_failed:occupied:stone"
    not_soil = run_leaf(body, "till_soil", {"position": vec(FEET.offset(dx=2))})
    assert not_soil.code == "guard_failed:not_tillable:stone"
    body.run_command("/clear @s wooden_hoe")
    no_hoe = run_leaf(body, "till_soil", {"position": vec(FEET.offset(dx=-2, dy=-1))})
    assert no_hoe.code == "guard_failed:precond_missing:hoe"


# -- plant_crop ----------------------------------------------------------------------------------
def test_plant_crop_plants_on_the_farmland() -> None:
    body = scenario("plant_crop")
    farmland = FEET.offset(dx=2, dy=-1)
    run = run_leaf(body, "plant_crop", {"crop": "wheat", "position": vec(farmland)})
    assert run.ok and run.verdict is Verdict.VERIFIED, run.result
    crop = body.block_at(farmland.offset(dy=1))
    assert (crop.name, crop.state.get("age")) == ("wheat", 0)
    assert count(body, "wheat_seeds") == 15
    again = run_leaf(body, "plant_crop", {"crop": "wheat", "position": vec(farmland)})
    assert again.ok and again.observables["already_planted"] is True and count(body, "wheat_seeds") == 15


def test_plant_crop_refusals() -> None:
    body = scenario("plant_crop")
    no_seeds = run_leaf(body, "plant_crop", {"crop": "carrots", "position": vec(FEET.offset(dx=2, dy=-1))})
    assert no_seeds.code == "guard_failed:precond_missing:seeds"
    not_farmland = run_leaf(body, "plant_crop", {"crop": "wheat", "position": vec(FEET.offset(dx=-2, dy=-1))})
    assert not_farmland.code == "guard_failed:not_farmland:grass_block"
    body.set_block(FEET.offset(dx=2, dy=-1), "dirt")
    nothing = run_leaf(body, "plant_crop", {"crop": "wheat", "radius": 6})
    assert nothing.code == "guard_failed:no_target"


@pytest.mark.parametrize("hoe", [True, False])
def test_plant_crop_hoes_again_the_soil_that_dried_back_to_dirt_on_the_way(hoe: bool) -> None:
    """Dry farmland with nothing on it turns to dirt at a random tick; the sowing that finds dirt hoes it again."""
    body = scenario("plant_crop")
    if hoe:
        body.give("wooden_hoe")
    farmland = FEET.offset(dx=7, dy=-1)  # out of reach: the bot walks, and the soil dries meanwhile
    body.set_block(farmland, "farmland")
    advance, dried = body.advance, [False]

    def dries(ticks: int = 1) -> None:  # once, at the walk's first tick
        if not dried[0]:
            body.set_block(farmland, "dirt")
            dried[0] = True
        advance(ticks)

    body.advance = dries
    run = run_leaf(body, "plant_crop", {"crop": "wheat", "position": vec(farmland)})
    if hoe:
        assert run.ok and run.verdict is Verdict.VERIFIED, run.result
        assert (body.block_at(farmland).name, body.block_at(farmland.offset(dy=1)).name) == ("farmland", "wheat")
    else:
        assert not run.ok and run.code == "not_placeable", run.result
        assert count(body, "wheat_seeds") == 16


# -- harvest_crop --------------------------------------------------------------------------------
def test_harvest_crop_harvests_only_the_mature_crop_and_collects() -> None:
    body = scenario("harvest_crop")
    run = run_leaf(body, "harvest_crop", {"radius": 8})
    assert run.ok and run.verdict is Verdict.VERIFIED, run.result
    assert run.observables["harvested"] == [[2, 64, 0, "wheat"]]
    assert body.block_at(FEET.offset(dx=2)).is_air
    assert body.block_at(FEET.offset(dx=-2)).name == "carrots"  # age 2: left alone
    assert count(body, "wheat") + count(body, "wheat_seeds") >= 1


def test_harvest_crop_waits_for_drops_that_arrive_after_the_dig() -> None:
    """On a server the drops of a broken crop arrive a round trip after the dig is confirmed (flying-squid: 1-2
    ticks). A harvest that looked once, at once, saw none, left the bot two blocks off, and the wheat lay there."""
    body = scenario("harvest_crop")
    seen: dict[int, int] = {}
    entities = body.entities

    def late_entities(radius: float = 32.0, kind: str | None = None) -> list[Any]:
        now = body.now_ticks()
        found = entities(radius, kind)
        for e in found:
            seen.setdefault(e.id, now)
        return [e for e in found if not is_item_entity(e) or now - seen[e.id] >= 2]  # an item shows 2 ticks late

    body.entities = late_entities
    run = run_leaf(body, "harvest_crop", {"position": vec(FEET.offset(dx=2))})
    assert run.ok, run.result
    assert count(body, "wheat") == 1


def test_harvest_crop_refusals() -> None:
    body = scenario("harvest_crop")
    young = run_leaf(body, "harvest_crop", {"position": vec(FEET.offset(dx=-2))})
    assert young.code == "guard_failed:not_mature:2/7"
    not_crop = run_leaf(body, "harvest_crop", {"position": vec(FEET.offset(dx=-2, dy=-1))})
    assert not_crop.code == "guard_failed:not_a_crop:farmland"
    assert run_leaf(body, "harvest_crop", {"crop": "wheat"}).ok
    none_left = run_leaf(body, "harvest_crop", {"radius": 8})
    assert none_left.code == "guard_failed:no_target"


# -- manage_farm ---------------------------------------------------------------------------------
def test_manage_farm_maintain_harvests_tills_and_replants() -> None:
    body = scenario("manage_farm")
    run = run_leaf(body, "manage_farm", {"action": "maintain", "crop": "wheat", "radius": 8}, max_ticks=4000)
    assert run.ok and run.verdict is Verdict.VERIFIED, run.result
    assert (run.observables["harvested"], run.observables["tilled"]) == (1, 2)
    assert run.observables["planted"] == 3
    for dx, dz in ((2, 0), (3, 0), (4, 1)):
        assert body.block_at(FEET.offset(dx=dx, dy=-1, dz=dz)).name == "farmland"
        assert body.block_at(FEET.offset(dx=dx, dz=dz)).name == "wheat"
    # Stone everywhere else: nothing away from the water was tilled.
    assert body.block_at(FEET.offset(dx=-3, dy=-1)).name == "stone"
    idle = run_leaf(body, "manage_farm", {"action": "maintain"})
    assert idle.ok and idle.observables["operations"] == 0 and idle.verdict is Verdict.VERIFIED


def test_manage_farm_respects_the_budget() -> None:
    body = scenario("manage_farm")
    run = run_leaf(body, "manage_farm", {"action": "till", "max_operations": 1})
    assert run.ok and run.observables["tilled"] == 1 and run.observables["operations"] == 1


def test_manage_farm_refusals() -> None:
    body = scenario("manage_farm")
    no_seeds = run_leaf(body, "manage_farm", {"action": "plant", "crop": "potatoes"})
    assert no_seeds.code == "guard_failed:precond_missing:seeds"
    nothing = run_leaf(body, "manage_farm", {"action": "harvest", "crop": "carrots"})
    assert nothing.code == "guard_failed:no_target"
    body.run_command("/clear @s diamond_hoe")
    no_hoe = run_leaf(body, "manage_farm", {"action": "till"})
    assert no_hoe.code == "guard_failed:precond_missing:hoe"


def test_the_harvest_and_collect_items_pick_up_through_one_walk(monkeypatch: pytest.MonkeyPatch) -> None:
    """One pick-up (``blocks.pick_up``: onto where the drop lands, else beside it, then wait for it to leave the
    ground) serves the harvest and ``collect_items``; the harvest had a copy of its own without the landing
    cell or the walk's failure."""
    from craftbt.capabilities.leaves import blocks, farming

    picked: list[str] = []

    def spy(module: Any) -> Any:
        real = blocks.pick_up

        def pick_up(ctx: Any, drop: Any, wait_ticks: int) -> Any:
            picked.append(module.__name__.rsplit(".", 1)[1])
            return (yield from real(ctx, drop, wait_ticks))
        return pick_up

    monkeypatch.setattr(farming, "pick_up", spy(farming))
    monkeypatch.setattr(blocks, "pick_up", spy(blocks))
    harvest = scenario("harvest_crop")
    assert run_leaf(harvest, "harvest_crop", {"radius": 8}).ok and count(harvest, "wheat") >= 1
    collect = scenario("collect_items")
    assert run_leaf(collect, "collect_items", {}).ok and collect.observe().count("diamond") == 3
    assert "farming" in picked and "blocks" in picked, picked
