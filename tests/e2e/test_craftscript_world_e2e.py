"""CraftScript's world commands on flying-squid: move (flat, step up, step down, out of a hole), dig, place,
build_up, goto, scan, block_info and log, each run through the executor on a real server, and the server's
world read back through the body afterwards.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from craftbt.bot.bot import Bot
from craftbt.craftscript.interp import ScriptOutcome
from craftbt.craftscript.parser import parse
from craftbt.executor.config import Bounds, ExecutorConfig
from craftbt.world.body import BlockPos
from tests.e2e.squidkit import Arena, McServer, block_name, squid_server, wait_until

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def mc_server() -> Iterator[McServer]:
    """A server of this module's own: its world-changing scripts take plots the session's server lacks."""
    yield from squid_server()


def run(arena: Arena, text: str, home: Path) -> ScriptOutcome:
    o = arena.origin
    fence = Bounds(min_x=o.x - 12, min_y=0, min_z=o.z - 12, max_x=o.x + 12, max_y=40, max_z=o.z + 12)
    bot = Bot(arena.body, config=ExecutorConfig(geofence=fence), body_kind="mineflayer", home=home)
    try:
        done = bot.run_script(parse(text), text=text, name="e2e")
    finally:
        bot.close()  # the journal; the arena keeps its body
    assert done.script is not None, (done.outcome.failures, done.outcome.metrics)
    return done.script


def ops(outcome: ScriptOutcome) -> list[Any]:
    return [s["op"] for s in outcome.steps]


def test_dig_place_and_move_on_flying_squid(arena: Arena, tmp_path: Path) -> None:
    arena.give("dirt", 16)
    o = arena.origin
    out = run(arena, """
        turn_face("east");
        log("start");
        dig(f1+d1);                          // a hole in the ground ahead
        place("dirt", f1+d1, face: "up");    // fill it again
        place("dirt", f2, face: "up");       // a step two ahead
        move(f1);
        move(f1^);                           // up onto the step
        move(f1_);                           // and down the far side
        block_info(b2);
        scan(r: 2);
    """, tmp_path)
    assert out.ok, out.error
    assert ops(out) == ["turn_face", "log", "dig", "place", "place", "move", "move", "move", "block_info", "scan"]
    assert block_name(arena.body, BlockPos(o.x + 1, o.y - 1, o.z)) == "dirt"
    assert block_name(arena.body, BlockPos(o.x + 2, o.y, o.z)) == "dirt"
    here = arena.body.position().block()
    assert here == BlockPos(o.x + 3, o.y, o.z), here


@pytest.mark.shows_on_server("build_up")
def test_move_out_of_a_hole_and_build_up(arena: Arena, tmp_path: Path) -> None:
    arena.give("dirt", 16)
    o = arena.origin
    out = run(arena, """
        turn_face("east");
        dig(d1);               // stand in a hole one deep
        move(f1^);             // climb out onto the ground ahead
        build_up("dirt");
        build_up();
    """, tmp_path)
    assert out.ok, out.error
    assert block_name(arena.body, BlockPos(o.x, o.y - 1, o.z)) == "air"
    assert block_name(arena.body, BlockPos(o.x + 1, o.y, o.z)) == "dirt"
    assert block_name(arena.body, BlockPos(o.x + 1, o.y + 1, o.z)) == "dirt"
    here = arena.body.position().block()
    assert here == BlockPos(o.x + 1, o.y + 2, o.z), here


def test_goto_refuses_a_path_beside_lava_before_a_step_and_applies_max_drop(arena: Arena, tmp_path: Path) -> None:
    o = arena.origin
    assert arena.body.set_max_drop(2) == 4  # mineflayer-pathfinder's own default, before the policy
    assert arena.body.set_max_drop(4) == 2
    lava = BlockPos(o.x + 4, o.y - 1, o.z + 1)  # in the floor, beside the straight line east
    arena.setblock(lava, "lava")
    start = arena.body.position()
    out = run(arena, "goto(" + f"{o.x + 8}, {o.y}, {o.z}, tol: 0, max_drop: 1" + ");", tmp_path)
    assert not out.ok and out.error is not None
    assert out.error["error"] == "invariant_violation" and out.error["notes"]["nav"] == "HAZARD", out.error
    assert "lava" in out.error["message"]
    # refused from mineflayer-pathfinder's own path before a step (a watch while walking stopped it too late
    # on a loaded machine: the walk had reached the goal)
    assert arena.body.position().distance_to(start) < 0.5
    assert arena.body.set_max_drop(4) == 4  # the walk's max_drop 1 was given back


def test_the_six_introspection_calls_on_flying_squid(arena: Arena) -> None:
    from craftbt.craftscript.introspect import Introspection

    o = arena.origin
    arena.setblock(BlockPos(o.x + 1, o.y, o.z), "gravel")
    api = Introspection(arena.body)
    vox = api.get_vox(2, grep=["gravel"])
    assert vox["window"] == {"radius": 2, "shape": [5, 5, 5], "origin": {"x": o.x, "y": o.y, "z": o.z}}
    assert {"x": o.x + 1, "y": o.y, "z": o.z, "id": "minecraft:gravel"} in vox["matches"]
    assert all(v["id"].startswith("minecraft:") for v in vox["voxels"]) and "HAZARDS" in vox["predicates"]
    aff = api.affordances(o.x, o.y, o.z)
    assert aff["position"] == {"x": o.x, "y": o.y, "z": o.z} and aff["can_stand"] is True
    assert set(aff) >= {"safe_step_up", "safe_step_down", "placeable_faces", "tools"}
    near = api.nearest(block_id="minecraft:gravel", radius=8, reachable=True)
    assert near["matches"][0]["world"] == [o.x + 1, o.y, o.z] and near["matches"][0]["reachable"] is True
    info = api.block_info(x=o.x + 1, y=o.y, z=o.z)
    assert info["id"] == "minecraft:gravel" and info["props"]["falls"] is True
    assert info["props"]["category"] == "gravity"
    topo = api.get_topography(radius=3)
    assert topo["grid"] == {"size": [7, 7], "origin": {"x": o.x, "z": o.z}}
    assert topo["heightmap"][f"{o.x},{o.z}"] == 0 and topo["heightmap"][f"{o.x + 1},{o.z}"] == 1
    started = api.nav("start", target={"type": "WORLD", "x": o.x + 4, "y": o.y, "z": o.z + 3}, tol=0,
                      timeout_ms=15_000, policy={"allow_dig": False, "max_drop": 1, "max_step": 1})
    assert started["state"] == "planning" and started["nav_id"].startswith("nav_")

    def ended() -> dict[str, Any] | None:
        s = api.nav("status", nav_id=started["nav_id"])
        return s if s["state"] not in ("planning", "moving") else None

    status = wait_until(ended, 20, "the walk to end")
    assert status["state"] == "arrived", status
    assert set(status) >= {"distance_remaining", "nodes_expanded", "replan_count", "eta_seconds"}
    assert arena.body.position().block() == BlockPos(o.x + 4, o.y, o.z + 3)
    assert api.nav("cancel", nav_id=started["nav_id"]) == {"nav_id": started["nav_id"], "state": "arrived"}
