"""The introspection and navigation API (seed 004, second half) on the embedded world."""

from __future__ import annotations

from craftbt.craftscript.introspect import Introspection
from tests.csh import body


def test_get_vox_flat_world() -> None:
    b = body()
    b.world.set_block((1, 64, 1), ("oak_log", (("axis", "y"),)))
    vox = Introspection(b).get_vox(grep=["oak_log"])
    assert vox["window"] == {"radius": 2, "shape": [5, 5, 5], "origin": {"x": 0, "y": 64, "z": 0}}
    ids = {v["id"] for v in vox["voxels"]}
    assert "minecraft:air" not in ids and "minecraft:grass_block" in ids
    assert vox["matches"] == [{"x": 1, "y": 64, "z": 1, "id": "minecraft:oak_log"}]
    assert vox["predicates"] == {"HAZARDS": []}


def test_affordances_block_info_nearest() -> None:
    b = body(give={"iron_pickaxe": 1})
    b.world.set_block((1, 64, 0), ("stone", ()))
    api = Introspection(b)
    aff = api.affordances(1, 64, 0)
    assert aff["can_stand"] is False and aff["tools"]["break_best"] == "minecraft:iron_pickaxe"
    assert "up" in aff["placeable_faces"]
    info = api.block_info(id="minecraft:gravel")
    assert info["props"]["falls"] and info["props"]["category"] == "gravity" and not info["props"]["liquid"]
    assert info["props"]["drops"] == ["minecraft:gravel"]
    assert api.block_info(x=0, y=63, z=0)["id"] == "minecraft:grass_block"
    near = api.nearest(block_id="minecraft:stone", radius=8, reachable=True)["matches"]
    assert near[0]["world"] == [1, 64, 0] and near[0]["reachable"] is True


def test_topography_and_nav() -> None:
    b = body()
    topo = Introspection(b).get_topography()
    assert topo["grid"]["size"] == [13, 13] and len(topo["heightmap"]) == 169
    assert topo["summary"] == {"min": 0, "max": 0, "flat_cells": 169} and topo["slope"] == {}
    b.world.set_block((2, 64, 0), ("stone", ()))
    stepped = Introspection(b).get_topography()
    assert stepped["heightmap"]["2,0"] == 1 and stepped["slope"]["2,0"] in ("gentle_down",)
    api = Introspection(b)
    started = api.nav("start", target={"type": "WORLD", "x": 10, "y": 64, "z": 10}, tol=1)
    assert started["state"] == "planning"
    for _ in range(200):
        b.advance(1)
        if api.nav("status", nav_id=started["nav_id"])["state"] == "arrived":
            break
    assert api.nav("status", nav_id=started["nav_id"])["state"] == "arrived"
    far = api.nav("start", target={"type": "WORLD", "x": -30, "y": 64, "z": 0})
    b.advance(5)
    assert api.nav("cancel", nav_id=far["nav_id"])["state"] == "canceled"
    here = b.position()
    b.advance(40)
    assert b.position() == here
