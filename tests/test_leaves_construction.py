"""Construction leaves and the structure model: seed 001 situations on the embedded world.

Each leaf runs through the real CapabilityBehaviour (tests.leafkit.run_leaf) on a
scenario from world/scenarios/leaves/; success paths must end VERIFIED, refusals
with their structured code.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import py_trees
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from craftbt.capabilities.spec import Verdict
from craftbt.capabilities.structures import (
    LIBRARY,
    Anchor,
    Cell,
    Facing,
    ModuleSpec,
    Placement,
    build_order,
    rotate,
    scan_module,
)
from craftbt.world.body import BlockPos
from tests.leafkit import run_leaf

SCENARIOS = Path(__file__).resolve().parent.parent / "world" / "scenarios" / "leaves"
FEET = BlockPos(0, 64, 0)


def scenario(name: str) -> Any:
    loader = pytest.importorskip("craftbt.world.scenarios.loader")
    return loader.load_scenario(SCENARIOS / f"{name}.yaml")


def vec(p: BlockPos) -> dict[str, int]:
    return {"x": p.x, "y": p.y, "z": p.z}


# -- the structure model -------------------------------------------------------------------------
def test_rotation_turns_the_front_clockwise() -> None:
    front = (0, -1)  # drawn facing north: the front looks towards -z
    assert rotate(*front, Facing.N) == (0, -1)
    assert rotate(*front, Facing.E) == (1, 0)
    assert rotate(*front, Facing.S) == (0, 1)
    assert rotate(*front, Facing.W) == (-1, 0)


def test_digest_is_content_addressed_and_order_free() -> None:
    a = ModuleSpec(module_id="a", placements=[Placement(dx=0, dy=0, dz=0, block="stone"),
                                              Placement(dx=1, dy=0, dz=0, block="dirt")])
    b = ModuleSpec(module_id="b", placements=[Placement(dx=1, dy=0, dz=0, block="dirt"),
                                              Placement(dx=0, dy=0, dz=0, block="minecraft:stone")])
    c = ModuleSpec(module_id="a", placements=[Placement(dx=0, dy=0, dz=0, block="stone")])
    assert a.digest == b.digest and a.digest.startswith("sha256:")
    assert a.digest != c.digest


def test_module_rejects_overlaps_and_empty_specs() -> None:
    with pytest.raises(ValidationError, match="two placements"):
        ModuleSpec(module_id="x", placements=[Placement(dx=0, dy=0, dz=0, block="stone")] * 2)
    with pytest.raises(ValidationError, match="both a placement and required empty"):
        ModuleSpec(module_id="x", placements=[Placement(dx=0, dy=0, dz=0, block="stone")],
                   required_empty=[Cell(dx=0, dy=0, dz=0)])
    with pytest.raises(ValidationError, match="at least one"):
        ModuleSpec(module_id="x")


@settings(max_examples=60, deadline=None)
@given(
    cells=st.sets(st.tuples(st.integers(-4, 4), st.integers(0, 4), st.integers(-4, 4)), min_size=1, max_size=40),
    facing=st.sampled_from(list(Facing)),
)
def test_build_order_is_a_bottom_up_permutation(cells: set[tuple[int, int, int]], facing: Facing) -> None:
    module = ModuleSpec(module_id="m", placements=[Placement(dx=x, dy=y, dz=z, block="stone") for x, y, z in cells])
    anchor = Anchor(origin=BlockPos(10, 64, -3), facing=facing)
    order = build_order(module, anchor)
    assert sorted(p for p, _ in order) == sorted(anchor.absolute(p) for p in module.placements)
    ys = [p.y for p, _ in order]
    assert ys == sorted(ys)
    assert build_order(module, anchor) == order  # deterministic


def test_build_order_places_each_layer_cell_next_to_a_support() -> None:
    module = LIBRARY["oak_shelter_3x3"]
    order = build_order(module, Anchor(origin=BlockPos(0, 64, 0)))
    placed: set[BlockPos] = set()
    for pos, _ in order:
        near = {pos.offset(dy=-1), pos.offset(dx=1), pos.offset(dx=-1), pos.offset(dz=1), pos.offset(dz=-1)}
        assert pos.y == 64 or near & placed, f"{pos} has no placed neighbour"
        placed.add(pos)


def test_scan_sorts_every_cell_into_one_bucket() -> None:
    module = ModuleSpec(
        module_id="m",
        placements=[Placement(dx=0, dy=0, dz=0, block="stone"), Placement(dx=1, dy=0, dz=0, block="stone"),
                    Placement(dx=2, dy=0, dz=0, block="stone")],
        required_empty=[Cell(dx=0, dy=1, dz=0)],
    )
    world = {BlockPos(0, 0, 0): "stone", BlockPos(1, 0, 0): "short_grass", BlockPos(2, 0, 0): "dirt",
             BlockPos(0, 1, 0): "torch"}
    witness = scan_module(module, Anchor(origin=BlockPos(0, 0, 0)), lambda p: world.get(p, "air"))
    assert [c.position for c in witness.matched] == [BlockPos(0, 0, 0)]
    assert [c.position for c in witness.missing] == [BlockPos(1, 0, 0)]
    assert [(c.position, c.observed) for c in witness.wrong] == [(BlockPos(2, 0, 0), "dirt")]
    assert [(c.position, c.observed) for c in witness.obstructed] == [(BlockPos(0, 1, 0), "torch")]
    assert not witness.complete and witness.checked == 4
    assert witness.summary()["wrong"] == [[2, 0, 0, "stone", "dirt"]]


# -- place_block_at ------------------------------------------------------------------------------
def test_place_block_at_places_and_is_idempotent() -> None:
    body = scenario("place_block_at")
    target = FEET.offset(dx=2, dz=2)
    run = run_leaf(body, "place_block_at", {"position": vec(target), "block": "cobblestone"})
    assert run.ok and run.verdict is Verdict.VERIFIED, run.result
    assert body.block_at(target).name == "cobblestone"
    assert run.observables["placed"] is True and run.result.receipt is not None
    assert run.result.receipt.position == target and run.result.receipt.block == "cobblestone"
    again = run_leaf(body, "place_block_at", {"position": vec(target), "block": "cobblestone"})
    assert again.ok and again.observables["already_present"] is True and again.verdict is Verdict.VERIFIED
    assert sum(s.count for s in body.inventory() if s.name == "cobblestone") == 15


def test_place_block_at_steps_out_of_the_cell_it_stands_in() -> None:
    body = scenario("place_block_at")
    run = run_leaf(body, "place_block_at", {"position": vec(FEET), "block": "cobblestone"})
    assert run.ok and run.verdict is Verdict.VERIFIED, run.result
    assert body.block_at(FEET).name == "cobblestone"
    assert body.position().block() != FEET


def test_place_block_at_refusals() -> None:
    body = scenario("place_block_at")
    occupied = run_leaf(body, "place_block_at", {"position": vec(FEET.offset(dx=3)), "block": "cobblestone"})
    assert occupied.code == "guard_failed:occupied:stone"
    missing = run_leaf(body, "place_block_at", {"position": vec(FEET.offset(dx=2)), "block": "oak_planks"})
    assert missing.code == "guard_failed:precond_missing:item:oak_planks"
    floating = run_leaf(body, "place_block_at", {"position": vec(FEET.offset(dy=5)), "block": "cobblestone"})
    assert floating.code == "guard_failed:no_reference_block"
    unknown = run_leaf(body, "place_block_at", {"position": vec(FEET.offset(dx=2)), "block": "cobblestone_x"})
    assert unknown.code == "guard_failed:unknown_block:cobblestone_x"
    assert body.block_at(FEET.offset(dx=2)).name == "air"


# -- dig_block_at --------------------------------------------------------------------------------
def test_dig_block_at_equips_the_best_tool_and_clears_the_cell() -> None:
    body = scenario("dig_block_at")
    target = FEET.offset(dx=2)
    run = run_leaf(body, "dig_block_at", {"position": vec(target), "expect": "stone"})
    assert run.ok and run.verdict is Verdict.VERIFIED, run.result
    assert body.block_at(target).is_air
    assert body.equipment()["hand"] is not None and body.equipment()["hand"].name == "stone_pickaxe"
    again = run_leaf(body, "dig_block_at", {"position": vec(target)})
    assert again.ok and again.observables["already_air"] is True and again.verdict is Verdict.VERIFIED


def test_dig_block_at_refusals() -> None:
    body = scenario("dig_block_at")
    drifted = run_leaf(body, "dig_block_at", {"position": vec(FEET.offset(dx=2)), "expect": "cobblestone"})
    assert drifted.code == "guard_failed:unexpected_block:stone"
    bedrock = run_leaf(body, "dig_block_at", {"position": vec(FEET.offset(dx=-2))})
    assert bedrock.code == "guard_failed:not_diggable:bedrock"
    assert body.block_at(FEET.offset(dx=2)).name == "stone"


# -- build_module / verify_module ----------------------------------------------------------------
SHELTER = {"module_id": "oak_shelter_3x3", "origin": vec(FEET.offset(dx=3, dz=2)), "facing": "W"}


def test_build_module_builds_digs_the_doorway_and_verifies() -> None:
    body = scenario("build_module")
    module = LIBRARY["oak_shelter_3x3"]
    run = run_leaf(body, "build_module", SHELTER, max_ticks=6000)
    assert run.ok and run.verdict is Verdict.VERIFIED, run.result
    witness = run.result.verification.evidence["witness"]  # type: ignore[union-attr]
    assert witness["complete"] and witness["matched"] == len(module.placements) + len(module.required_empty)
    assert len(run.observables["placed"]) == len(module.placements)
    assert run.observables["cleared"] == [list(FEET.offset(dx=3, dz=1))]  # the dirt in the doorway
    check = run_leaf(body, "verify_module", SHELTER)
    assert check.ok and check.verdict is Verdict.VERIFIED and check.observables["postconditions_met"]


def test_build_module_resumes_after_an_interruption() -> None:
    body = scenario("build_module")
    module = LIBRARY["cobblestone_wall_3x2"]
    args = {"module": module.model_dump(), "origin": vec(FEET.offset(dx=2, dz=-2)), "facing": "N"}
    # A previous run got as far as the first two blocks.
    anchor = Anchor(origin=FEET.offset(dx=2, dz=-2))
    for pos, block in build_order(module, anchor)[:2]:
        body.set_block(pos, block)
    run = run_leaf(body, "build_module", args, max_ticks=3000)
    assert run.ok and run.verdict is Verdict.VERIFIED, run.result
    assert run.observables["already_present"] == 2 and len(run.observables["placed"]) == 4


def test_build_module_resolves_ids_from_the_blackboard() -> None:
    body = scenario("build_module")
    module = ModuleSpec(module_id="step", placements=[Placement(dx=0, dy=0, dz=0, block="cobblestone")])
    py_trees.blackboard.Blackboard.storage["/build/modules/step"] = module.model_dump()
    run = run_leaf(body, "build_module", {"module_id": "step", "origin": vec(FEET.offset(dx=-2))})
    assert run.ok and run.verdict is Verdict.VERIFIED
    assert body.block_at(FEET.offset(dx=-2)).name == "cobblestone"


def test_build_module_refusals() -> None:
    body = scenario("build_module")
    unknown = run_leaf(body, "build_module", {"module_id": "castle", "origin": vec(FEET)})
    assert unknown.code == "guard_failed:unknown_module:castle"
    big = ModuleSpec(module_id="big", placements=[Placement(dx=i, dy=0, dz=4, block="stone") for i in range(3)])
    short = run_leaf(body, "build_module", {"module": big.model_dump(), "origin": vec(FEET)})
    assert short.code == "guard_failed:precond_missing:item:stone"
    blocked = run_leaf(body, "build_module", {**SHELTER, "clear_obstructions": False})
    assert blocked.code == "guard_failed:occupied:dirt"
    with pytest.raises(ValidationError):
        run_leaf(body, "build_module", {"origin": vec(FEET)})


def test_verify_module_contradicts_with_the_diff() -> None:
    body = scenario("verify_module")
    good = run_leaf(body, "verify_module", {"module_id": "cobblestone_pillar_3", "origin": vec(FEET.offset(dx=2))})
    assert good.ok and good.verdict is Verdict.VERIFIED
    bad = run_leaf(body, "verify_module", {"module_id": "cobblestone_pillar_3", "origin": vec(FEET.offset(dx=-2))})
    assert not bad.ok and bad.verdict is Verdict.CONTRADICTED and bad.code == "verification_contradicted"
    witness = bad.result.verification.evidence["witness"]  # type: ignore[union-attr]
    base, top = FEET.offset(dx=-2), FEET.offset(dx=-2, dy=2)
    assert witness["wrong"] == [[base.x, base.y, base.z, "cobblestone", "dirt"]]
    assert witness["missing"] == [[top.x, top.y, top.z, "cobblestone", "air"]]
    assert bad.observables["witness"]["digest"] == LIBRARY["cobblestone_pillar_3"].digest
    assert body.block_at(base).name == "dirt"  # read-only


# -- prepare_site --------------------------------------------------------------------------------
def test_prepare_site_clears_the_box_and_fills_the_floor() -> None:
    body = scenario("prepare_site")
    origin = FEET.offset(dx=3)
    run = run_leaf(body, "prepare_site", {"origin": vec(origin), "size": {"dx": 3, "dy": 2, "dz": 3},
                                          "floor": "cobblestone"}, max_ticks=4000)
    assert run.ok and run.verdict is Verdict.VERIFIED, run.result
    for x in range(3, 6):
        for z in range(0, 3):
            for y in (0, 1):
                assert body.block_at(FEET.offset(dx=x, dy=y, dz=z)).is_air
            assert not body.block_at(FEET.offset(dx=x, dy=-1, dz=z)).is_air
    assert sorted(run.observables["floored"]) == sorted([list(FEET.offset(3, -1, 2)), list(FEET.offset(5, -1, 0))])


def test_prepare_site_refusals() -> None:
    body = scenario("prepare_site")
    body.set_block(FEET.offset(dx=4), "bedrock")
    bedrock = run_leaf(body, "prepare_site", {"origin": vec(FEET.offset(dx=3)), "size": {"dx": 3, "dy": 2, "dz": 3}})
    assert bedrock.code == "guard_failed:not_diggable:bedrock"
    body.set_block(FEET.offset(dx=-6, dy=-1), "air")
    no_floor = run_leaf(body, "prepare_site", {"origin": vec(FEET.offset(dx=-6)), "size": {"dx": 2, "dy": 1, "dz": 1},
                                               "floor": "oak_planks"})
    assert no_floor.code == "guard_failed:precond_missing:item:oak_planks"
    with pytest.raises(ValidationError):
        run_leaf(body, "prepare_site", {"origin": vec(FEET)})


# -- place_feature -------------------------------------------------------------------------------
def test_place_feature_door_takes_two_cells() -> None:
    body = scenario("place_feature")
    pos = FEET.offset(dx=-2)
    run = run_leaf(body, "place_feature", {"feature": "door", "position": vec(pos)})
    assert run.ok and run.verdict is Verdict.VERIFIED, run.result
    lower, upper = body.block_at(pos), body.block_at(pos.offset(dy=1))
    assert (lower.name, lower.state.get("half")) == ("oak_door", "lower")
    assert (upper.name, upper.state.get("half")) == ("oak_door", "upper")


def test_place_feature_torches_ladders_and_windows() -> None:
    body = scenario("place_feature")
    floor_torch = run_leaf(body, "place_feature", {"feature": "torch", "position": vec(FEET.offset(dz=-2))})
    assert floor_torch.ok and floor_torch.verdict is Verdict.VERIFIED
    assert body.block_at(FEET.offset(dz=-2)).name == "torch"
    wall_torch = run_leaf(body, "place_feature", {"feature": "torch", "position": vec(FEET.offset(dx=2, dy=1)),
                                                  "facing": "W"})
    assert wall_torch.ok and wall_torch.verdict is Verdict.VERIFIED, wall_torch.result
    assert body.block_at(FEET.offset(dx=2, dy=1)).name == "wall_torch"
    ladder = run_leaf(body, "place_feature", {"feature": "ladder", "position": vec(FEET.offset(dx=2, dz=1)),
                                              "facing": "W"})
    assert ladder.ok and ladder.verdict is Verdict.VERIFIED, ladder.result
    window = run_leaf(body, "place_feature", {"feature": "window", "position": vec(FEET.offset(dx=2, dz=-1, dy=1))})
    assert window.ok and body.block_at(FEET.offset(dx=2, dz=-1, dy=1)).name == "glass_pane"


def test_place_feature_refusals() -> None:
    body = scenario("place_feature")
    no_wall = run_leaf(body, "place_feature", {"feature": "ladder", "position": vec(FEET.offset(dx=-3)),
                                               "facing": "N"})
    assert no_wall.code == "guard_failed:no_reference_block"
    blocked = run_leaf(body, "place_feature", {"feature": "door", "position": vec(FEET.offset(dx=3))})
    assert blocked.code == "guard_failed:occupied:cobblestone"
    missing = run_leaf(body, "place_feature", {"feature": "door", "position": vec(FEET.offset(dz=3)),
                                               "material": "spruce_door"})
    assert missing.code == "guard_failed:precond_missing:item:spruce_door"
