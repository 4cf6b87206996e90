"""Every block a leaf digs is recorded in its result (``observables["digs"]``), whichever helper dug it."""

from __future__ import annotations

from craftbt.world.body import BlockPos
from craftbt.world.scenarios import starter_world
from tests.leafkit import run_leaf


def test_acquire_material_records_every_block_it_dug() -> None:
    body = starter_world(0)
    run = run_leaf(body, "acquire_material", {"item": "oak_log", "count": 3, "radius": 24}, 4_000)
    assert run.ok, run.result.error
    digs = run.observables["digs"]
    assert len(digs) >= run.observables["blocksDug"] >= 3
    for x, y, z, block in digs:
        assert block.endswith("_log") or block.endswith("_leaves") or block in ("dirt", "grass_block", "stone")
        assert body.block_at(BlockPos(x, y, z)).is_air  # each recorded dig is air in the world now


def test_dig_block_at_records_its_one_dig_and_a_second_run_none() -> None:
    body = starter_world(0)
    here = body.position().block()
    body.run_command(f"/setblock {here.x + 1} {here.y} {here.z} dirt")
    run = run_leaf(body, "dig_block_at", {"position": {"x": here.x + 1, "y": here.y, "z": here.z}}, 400)
    assert run.ok, run.result.error
    assert run.observables["digs"] == [[here.x + 1, here.y, here.z, "dirt"]]
    again = run_leaf(body, "dig_block_at", {"position": {"x": here.x + 1, "y": here.y, "z": here.z}}, 400)
    assert "digs" not in again.observables  # nothing dug: nothing recorded
