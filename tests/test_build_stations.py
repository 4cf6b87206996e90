"""Seed 001 workstations: the registry read and written by place_workstation, ensure_workstation, the utility
zone and its fallback spots, reachability before craft/smelt, the storage anchor."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from craftbt.capabilities.leaves.common import REACH
from craftbt.router.build.stations import ensure_workstation, reserved_cells, utility_zone
from craftbt.router.build.subtasks import SolverAcquirer
from craftbt.world.body import BlockPos, Position
from tests.buildkit import make_runner, world_matches


def _station(runner: Any, kind: str) -> BlockPos:
    mid = runner.plan.order[0]
    cell = next(c for c, b in runner.template.stations(mid) if b == kind)
    return runner.witnesses[mid].anchor().absolute(cell)


def test_crafting_table_broken_mid_build_is_replaced_and_the_build_finishes(tmp_path: Path) -> None:
    runner, body, store = make_runner(tmp_path, "shelter", acquirer=SolverAcquirer())
    body.give("oak_log", 1)  # the makings of one crafting table, nothing more
    table = _station(runner, "crafting_table")

    def progress(kind: str, data: dict[str, Any]) -> None:
        if kind == "package" and data["module"] == "shell" and data["label"] == "module":
            body.set_block(table, "air")  # broken while the shell goes up (no drop: it is simply gone)

    runner.progress = progress
    meta = runner.run()
    assert meta.status.value == "complete", meta.blocked_reason
    ensured = store.events(runner.build_id, "ensure_workstation")
    assert ensured and ensured[0]["kind"] == "crafting_table" and ensured[0]["ok"] is True
    assert ensured[0]["pos"] == list(table)  # the utility zone's first spot is the template's own cell
    subs = store.subtasks(meta.task_id)
    assert any(s["goal"]["item"] == "crafting_table" and s["status"] == "done" for s in subs)
    shell_ckpt = next(c for c in meta.checkpoints if c.completed_modules[-1] == "shell")
    reach = next(r for r in shell_ckpt.invariant_results if r.invariant == "reachability")
    assert reach.passed  # repaired before the checkpoint was taken
    entry = next(e for e in meta.station_registry if e.kind == "crafting_table")
    assert (entry.pos.x, entry.pos.y, entry.pos.z) == tuple(table) and entry.reachable
    assert world_matches(runner, body)


def test_a_blocked_station_cell_falls_back_to_another_utility_zone_spot(tmp_path: Path) -> None:
    runner, body, store = make_runner(tmp_path, "shelter")
    runner.run(stop_after_modules=1)
    meta = runner.load_or_create()
    table = _station(runner, "crafting_table")
    body.set_block(table, "bedrock")  # the template's cell can no longer take a table
    body.give("crafting_table", 1)
    spots = utility_zone(runner, "crafting_table")
    assert spots[0] == table and len(spots) > 1 and not set(spots[1:]) & reserved_cells(runner)
    entry = ensure_workstation(runner, meta, "crafting_table")
    assert entry is not None and entry.provenance.source == "placed"
    where = BlockPos(entry.pos.x, entry.pos.y, entry.pos.z)
    assert where in spots[1:] and body.block_at(where).name == "crafting_table"
    assert store.load_build(runner.build_id).station_registry[-1].pos == entry.pos  # type: ignore[union-attr]
    # the stale entry at the blocked cell is gone from the registry: one crafting table, the usable one
    assert [e.pos for e in meta.station_registry if e.kind == "crafting_table"] == [entry.pos]


def test_a_station_already_in_the_world_is_registered_as_found(tmp_path: Path) -> None:
    runner, body, _store = make_runner(tmp_path, "hut", give=False)
    meta = runner.load_or_create()
    here = body.position().block()
    near = here.offset(dx=2)
    body.set_block(near, "crafting_table")
    entry = ensure_workstation(runner, meta, "crafting_table")
    assert entry is not None and entry.provenance.source == "found"
    assert (entry.pos.x, entry.pos.y, entry.pos.z) == tuple(near)
    assert body.observe().count("crafting_table") == 0  # nothing placed, nothing acquired


def test_craft_and_smelt_steps_first_reach_the_registered_station(tmp_path: Path) -> None:
    runner, body, _store = make_runner(tmp_path, "shelter")
    runner.run(stop_after_modules=1)
    runner.meta = meta = runner.load_or_create()
    table = _station(runner, "crafting_table")
    body.teleport(Position(table.x + 12.5, table.y, table.z + 0.5))  # wandered off: out of reach and reuse radius
    assert runner.ensure_stations_for({"crafting_table"}) == []
    eye = body.position()
    assert (eye.x - table.x - 0.5) ** 2 + (eye.y + 1.62 - table.y - 0.5) ** 2 + (eye.z - table.z - 0.5) ** 2 <= REACH**2
    assert [e.kind for e in meta.station_registry].count("crafting_table") == 1  # reused, not a second one


def test_storage_anchor_is_an_invariant_and_a_lost_chest_is_restored(tmp_path: Path) -> None:
    runner, body, _store = make_runner(tmp_path, "hut")
    chest = _station(runner, "chest")

    def progress(kind: str, data: dict[str, Any]) -> None:
        if kind == "package" and data["module"] == "roof" and data["label"] == "module":
            body.set_block(chest, "air")
            body.give("chest", 1)

    runner.progress = progress
    meta = runner.run()
    assert meta.status.value == "complete", meta.blocked_reason
    roof = meta.checkpoints[-1]
    assert any(d.issue.startswith("storage:") and d.status == "repaired" for d in roof.open_deltas)
    assert next(r for r in roof.invariant_results if r.invariant == "storage").passed
    assert body.block_at(chest).name == "chest" and world_matches(runner, body)


# -- crash reconciliation of inventory steps and sub-tasks ----------------------------------------------------
def test_in_flight_craft_and_container_steps_are_settled_by_the_inventory_delta(tmp_path: Path) -> None:
    runner, body, store = make_runner(tmp_path, "hut")
    meta = runner.load_or_create()
    planks = body.observe().count("oak_planks")
    made = store.begin_step(runner.build_id, None, "craft", "oak_planks", 1, planks)  # crafted, record not closed
    body.give("oak_planks", 4)
    lost = store.begin_step(runner.build_id, None, "craft", "stick", 1, 0)  # killed before the craft landed
    put = store.begin_step(runner.build_id, None, "put", "cobblestone", 1, body.observe().count("cobblestone") + 1)
    report = runner.resume(meta)
    rows = {r["seq"]: r for r in store.steps(runner.build_id)}
    assert (rows[made]["status"], rows[lost]["status"], rows[put]["status"]) == ("done", "lost", "done")
    assert report.reconciled_done == 2 and report.reconciled_lost == 1


def test_a_subtask_interrupted_by_a_crash_resumes_on_its_own_first(tmp_path: Path) -> None:
    runner, body, store = make_runner(tmp_path, "shelter", acquirer=SolverAcquirer())
    meta = runner.load_or_create()
    need = runner.template.materials()["oak_planks"]
    body.run_command("/clear @s oak_planks")
    body.give("oak_log", (need + 3) // 4)
    sub = f"{meta.task_id}:acquire:oak_planks:1"
    store.upsert_task(
        sub,
        kind="acquire",
        goal={"item": "oak_planks", "count": need, "deficit": need},
        status="running",
        parent_task_id=meta.task_id,
    )
    store.task_progress(sub, {"phase": "in_flight", "have": 0, "target": need})  # the kill came mid-run
    store.close()
    again, body2, store2 = make_runner(tmp_path, "shelter", body=body, acquirer=SolverAcquirer())
    order: list[str] = []
    store2.listeners.append(lambda kind, data: order.append(kind))
    final = again.run()
    assert order.index("subtask_resumed") < order.index("build_checkpoint")  # before the parent builds
    task = store2.task(sub)
    assert task is not None and task["status"] == "done"
    assert task["progress"][1]["resumed"] is True and task["progress"][1]["from"] == "in_flight"
    assert final.status.value == "complete" and world_matches(again, body2)
    assert [t["task_id"] for t in store2.subtasks(final.task_id)] == [sub]  # resumed, not spawned again


def test_a_registered_station_walled_in_is_flagged_and_another_is_placed(tmp_path: Path) -> None:
    runner, body, _store = make_runner(tmp_path, "shelter")
    runner.run(stop_after_modules=1)
    meta = runner.load_or_create()
    table = _station(runner, "crafting_table")
    body.teleport(Position(table.x + 0.5, table.y, table.z - 8.5))
    for dx in range(-4, 5):  # bury it: no standable cell within reach of it
        for dz in range(-4, 5):
            for dy in (-1, 0, 1, 2):
                p = table.offset(dx, dy, dz)
                if p != table:
                    body.set_block(p, "stone")
    body.give("crafting_table", 1)
    runner.revalidate_stations(meta)
    assert not next(e for e in meta.station_registry if e.kind == "crafting_table").reachable
    entry = ensure_workstation(runner, meta, "crafting_table")
    assert entry is not None and (entry.pos.x, entry.pos.y, entry.pos.z) != tuple(table)
    kinds = [(e.kind, e.reachable) for e in meta.station_registry if e.kind == "crafting_table"]
    assert sorted(kinds) == [("crafting_table", False), ("crafting_table", True)]


def test_a_station_that_cannot_be_had_degrades_but_does_not_block_the_build(tmp_path: Path) -> None:
    runner, body, store = make_runner(tmp_path, "shelter")  # no acquirer: a lost table cannot come back
    table = _station(runner, "crafting_table")

    def progress(kind: str, data: dict[str, Any]) -> None:
        if kind == "package" and data["module"] == "roof" and data["label"] == "module":
            body.set_block(table, "air")

    runner.progress = progress
    meta = runner.run()
    assert meta.status.value == "complete" and meta.blocked_reason is None
    assert store.events(runner.build_id, "ensure_workstation")[-1] == {
        **store.events(runner.build_id, "ensure_workstation")[-1],
        "ok": False,
        "kind": "crafting_table",
    }
    assert any(d.issue == "reachability: no reachable crafting_table" for d in meta.open_deltas)
