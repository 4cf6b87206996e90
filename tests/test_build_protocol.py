"""Seed 001 acceptance: templates, planner, checkpoints, resume, invariants, sub-tasks, interruptions."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from craftbt.capabilities.structures import Anchor, Cell, Facing
from craftbt.core.errors import CraftbtError
from craftbt.executor.build_state.store import BuildStore
from craftbt.planners.building.decompose import StepKind, leaf_for
from craftbt.planners.building.planner import BuildingPlanner
from craftbt.router.build.subtasks import SolverAcquirer
from craftbt.trees.model import LeafNode, SequenceNode
from craftbt.trees.structure_template import load_template, parse_template
from craftbt.trees.structure_witness import ModuleState, classify, scan
from craftbt.world.body import BlockPos
from craftbt.world.sim.body import SimBody
from craftbt.world.sim.snapshot import load_file
from tests.buildkit import AT, make_runner, world_matches


# -- templates and planner ----------------------------------------------------------------------------
def test_shipped_templates_load_and_meet_the_sizes() -> None:
    shelter, cottage = load_template("shelter"), load_template("cottage")
    assert [m.id for m in shelter.modules] == ["utility_pad", "shell", "roof"]
    assert {"crafting_table", "furnace", "chest"} <= set(shelter.materials())
    assert len(cottage.modules) >= 5 and cottage.block_count() >= 300


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        (
            "template: x\nmodules:\n  - {id: a, type: shell, depends_on: [b], "
            "cells: [{dx: 0, dy: 0, dz: 0, block: dirt}]}\n",
            "unknown module 'b'",
        ),
        (
            "template: x\nmodules:\n  - {id: a, type: shell, depends_on: [b], "
            "cells: [{dx: 0, dy: 0, dz: 0, block: dirt}]}\n"
            "  - {id: b, type: roof, depends_on: [a], cells: [{dx: 0, dy: 1, dz: 0, block: dirt}]}\n",
            "cycle",
        ),
        (
            "template: x\nmodules:\n  - {id: a, type: shell, cells: [{dx: 0, dy: 0, dz: 0, block: dirtt}]}\n",
            "unknown block 'dirtt'",
        ),
        ("template: x\nmodules:\n  - {id: a, type: castle, cells: [{dx: 0, dy: 0, dz: 0, block: dirt}]}\n", "type"),
        ("template: [unclosed\n", "not valid YAML"),
        (
            "template: x\nmodules:\n  - {id: a, type: shell, cells: [{dx: 0, dy: 0, dz: 0, block: dirt}]}\n"
            "  - {id: b, type: roof, cells: [{dx: 0, dy: 0, dz: 0, block: stone}]}\n",
            "both place a block",
        ),
    ],
)
def test_template_errors_are_structured(text: str, fragment: str) -> None:
    with pytest.raises(CraftbtError) as info:
        parse_template(text, "t.yaml", known_blocks=frozenset({"dirt", "stone"}))
    assert fragment in str(info.value)
    assert "t.yaml" in str(info.value)


def test_unknown_template_name_suggests() -> None:
    with pytest.raises(CraftbtError) as info:
        load_template("sheltr")
    assert "shelter" in str(info.value)


@given(st.integers(-20, 20), st.integers(-20, 20))
def test_four_quarter_turns_are_the_identity_and_each_turn_is_rigid(dx: int, dz: int) -> None:
    cell = Cell(dx=dx, dy=0, dz=dz)
    origin = BlockPos(0, 0, 0)
    positions = [Anchor(origin=origin, facing=f).absolute(cell) for f in (Facing.N, Facing.E, Facing.S, Facing.W)]
    assert all(p.x * p.x + p.z * p.z == dx * dx + dz * dz for p in positions)
    east = positions[1]
    assert (east.x, east.z) == (-dz, dx)


def test_plan_orders_utility_then_shell_and_ends_each_module_in_a_checkpoint() -> None:
    plan = BuildingPlanner().plan_build(load_template("cottage"), AT, "S")
    assert plan.order[:2] == ["utility_pad", "shell"]
    assert plan.macro.feasible
    root = plan.tree.root
    assert isinstance(root, SequenceNode) and len(root.children) == 6
    for module, node in zip(plan.order, root.children, strict=True):
        assert isinstance(node, SequenceNode)
        leaves = [c for c in node.children if isinstance(c, LeafNode)]
        assert leaves[-1].capability == "verify_module"
        places = [leaf for leaf in leaves if leaf.capability == "place_block_at"]
        witness = plan.witnesses[module]
        assert [
            (p.args["position"]["x"], p.args["position"]["y"], p.args["position"]["z"], p.args["block"]) for p in places
        ] == [(*pos, b) for pos, b in witness.absolute_placements()]
        assert witness.witness_digest == load_template("cottage").spec(module).digest


def test_witness_digests_are_stable_and_facing_independent() -> None:
    tpl = load_template("shelter")
    a = BuildingPlanner().plan_build(tpl, AT, "N").witnesses
    b = BuildingPlanner().plan_build(tpl, BlockPos(50, 70, -9), "W").witnesses
    assert {k: w.witness_digest for k, w in a.items()} == {k: w.witness_digest for k, w in b.items()}
    assert a["shell"].to_seed()["witnessDigest"].startswith("sha256:")


def test_workstation_mapping_boundary() -> None:
    assert leaf_for("crafting_table", has_position=True) == "place_block_at"
    assert leaf_for("crafting_table", has_position=False) == "place_workstation"
    assert leaf_for("oak_planks", has_position=False) == "place_block"


# -- stage 1: checkpoints -------------------------------------------------------------------------------
def test_three_module_build_emits_three_persisted_checkpoints(tmp_path: Path) -> None:
    runner, body, store = make_runner(tmp_path, "shelter", facing="E")
    meta = runner.run()
    assert meta.status.value == "complete" and world_matches(runner, body)
    events = store.events(runner.build_id, "build_checkpoint")
    assert [e["moduleCursor"] for e in events] == [1, 2, 3]
    reopened = BuildStore(tmp_path / "build.sqlite").load_build(runner.build_id)
    assert reopened is not None
    ckpts = reopened.checkpoints
    assert [c.module_cursor for c in ckpts] == [1, 2, 3]
    assert ckpts[-1].completed_modules == ["utility_pad", "shell", "roof"]
    assert {c.template_digest for c in ckpts} == {load_template("shelter").digest}
    assert all(
        {"access", "footprint", "reachability", "structural", "storage"} <= {r.invariant for r in c.invariant_results}
        for c in ckpts
    )
    assert reopened.site_signature == runner.site
    assert {s.kind for s in reopened.station_registry} == {"crafting_table", "furnace", "chest"}
    with pytest.raises(Exception, match="append-only"):
        store.db.execute("DELETE FROM checkpoints")
    assert all(n == 1 for n in store.placement_counts(runner.build_id).values())


# -- stage 2: resume ----------------------------------------------------------------------------------------
def test_resume_reconciles_in_flight_and_completes_only_the_remaining_blocks(tmp_path: Path) -> None:
    runner, body, store = make_runner(tmp_path)
    runner.run(stop_after_modules=1)  # utility done, cursor 1
    shell = runner.witnesses["shell"]
    placements = shell.absolute_placements()
    for pos, block in placements[:5]:  # five blocks placed before the "crash"
        body.set_block(pos, block)
        body.world.player.inventory.remove(block, 1)
    realized, lost = placements[5], placements[6]
    body.set_block(realized[0], realized[1])  # effect reached the world, the done-record did not
    body.world.player.inventory.remove(realized[1], 1)
    store.begin_action(runner.build_id, "shell", "place", tuple(realized[0]), realized[1])  # type: ignore[arg-type]
    store.begin_action(runner.build_id, "shell", "place", tuple(lost[0]), lost[1])  # type: ignore[arg-type]
    store.close()
    again, body2, store2 = make_runner(tmp_path, body=body)
    meta = again.run()
    resume = store2.events(again.build_id, "build_resume")[-1]
    assert resume["reconciled_done"] == 1 and resume["reconciled_lost"] == 1
    assert resume["current"]["state"] == ModuleState.PARTIALLY_COMPLETED.value and resume["action"] == "repair"
    assert meta.status.value == "complete" and world_matches(again, body2)
    shell_places = [
        a
        for a in store2.actions(again.build_id)
        if a["module_id"] == "shell" and a["kind"] == "place" and a["effect"] == "placed"
    ]
    assert len(shell_places) == len(placements) - 6  # only the remaining blocks
    assert all(n == 1 for n in store2.placement_counts(again.build_id).values())


def test_kill_between_modules_resumes_at_the_next_module(tmp_path: Path) -> None:
    runner, _body, store = make_runner(tmp_path)
    runner.run(stop_after_modules=2)
    store.close()
    again, body2, store2 = make_runner(tmp_path, body=load_file(tmp_path / "world.snap"))
    meta = again.run()
    resume = store2.events(again.build_id, "build_resume")[-1]
    assert resume["moduleCursor"] == 2 and resume["current"]["module_id"] == "roof"
    assert meta.status.value == "complete" and world_matches(again, body2)
    assert len(store2.checkpoints(again.build_id)) == 3


def test_station_registry_is_revalidated_on_resume(tmp_path: Path) -> None:
    runner, body, _store = make_runner(tmp_path)
    runner.run(stop_after_modules=2)
    table = next(s for s in runner.load_or_create().station_registry if s.kind == "crafting_table")
    body.set_block(BlockPos(table.pos.x, table.pos.y, table.pos.z), "air")
    body.give("crafting_table", 1)
    again, body2, store2 = make_runner(tmp_path, body=body)
    meta = again.run()
    resume = store2.events(again.build_id, "build_resume")[-1]
    assert {
        "kind": "crafting_table",
        "pos": [table.pos.x, table.pos.y, table.pos.z],
        "present": False,
        "reachable": False,
    } in resume["stations"]
    assert meta.status.value == "complete" and world_matches(again, body2)


# -- stage 3: invariants --------------------------------------------------------------------------------
def test_doorway_blocked_during_a_later_module_is_repaired_before_the_checkpoint(tmp_path: Path) -> None:
    runner, body, store = make_runner(tmp_path, "shelter")
    door = Anchor(origin=AT, facing=Facing.N).absolute(Cell(dx=2, dy=0, dz=0))

    def progress(kind: str, data: dict[str, Any]) -> None:
        if kind == "package" and data["module"] == "roof" and data["label"] == "module":
            body.set_block(door, "dirt")  # drift while the roof is being built

    runner.progress = progress
    meta = runner.run()
    failed = store.events(runner.build_id, "build_invariant_failed")
    assert failed and failed[0]["openDeltas"][0]["severity"] == "blocking"
    assert "access" in failed[0]["openDeltas"][0]["issue"]
    last = meta.checkpoints[-1]
    assert any(d.severity.value == "blocking" and d.status == "repaired" for d in last.open_deltas)
    assert all(r.passed for r in last.invariant_results if r.invariant in ("access", "structural"))
    assert body.block_at(door).name == "air" and world_matches(runner, body)


def test_creeper_blast_between_sessions_is_detected_and_repaired(tmp_path: Path) -> None:
    from craftbt.world.sim.mobs import explode

    runner, body, _store = make_runner(tmp_path, "shelter")
    runner.run(stop_after_modules=2)
    wall = Anchor(origin=AT, facing=Facing.N).absolute(Cell(dx=0, dy=1, dz=2))
    destroyed = explode(body.world, wall.x - 0.5, wall.y + 0.5, wall.z + 0.5, 3.0, source="creeper")
    assert any(tuple(p) in {tuple(q) for q, _ in runner.witnesses["shell"].absolute_placements()} for p in destroyed)
    lost = {b: 0 for b in ("oak_planks", "cobblestone")}
    for p in destroyed:
        for w in runner.witnesses.values():
            for q, b in w.absolute_placements():
                if tuple(q) == tuple(p):
                    lost[b] = lost.get(b, 0) + 1
    for b, n in lost.items():
        if n:
            body.give(b, n)
    again, body2, store2 = make_runner(tmp_path, "shelter", body=body)
    meta = again.run()
    resume = store2.events(again.build_id, "build_resume")[-1]
    shell_scan = next(s for s in resume["completed_scans"] if s["module_id"] == "shell")
    assert shell_scan["state"] != "completed" and resume["action"] == "repair"
    assert store2.events(again.build_id, "build_repair")
    assert meta.status.value == "complete" and world_matches(again, body2)


def test_classification_follows_the_seed() -> None:
    tpl = load_template("shelter")
    w = BuildingPlanner().plan_build(tpl, AT, "N").witnesses["shell"]
    cells = dict(w.absolute_placements())
    assert classify(w, scan(w, lambda p: cells.get(p, "air"))) is ModuleState.COMPLETED
    some = dict(list(cells.items())[:30])
    assert classify(w, scan(w, lambda p: some.get(p, "air"))) is ModuleState.PARTIALLY_COMPLETED
    wrong = {**cells, next(iter(cells)): "dirt"}
    assert classify(w, scan(w, lambda p: wrong.get(p, "air"))) is ModuleState.DRIFTED
    assert classify(w, scan(w, lambda p: "air")) is ModuleState.DESTROYED


# -- stage 4: resource sub-tasks ---------------------------------------------------------------------------
def test_deficit_spawns_a_subtask_the_parent_waits_for(tmp_path: Path) -> None:
    tpl = load_template("shelter")
    body = SimBody(seed=1)
    for item, n in tpl.materials().items():
        if item != "oak_planks":
            body.give(item, n)
    body.give("oak_log", 18)  # 72 planks' worth: the sub-task must craft them
    seen: list[tuple[str, str | None]] = []
    runner, _, store = make_runner(tmp_path, "shelter", body=body, acquirer=SolverAcquirer())

    def progress(kind: str, data: dict[str, Any]) -> None:
        if kind == "subtask":
            meta = store.load_build(runner.build_id)
            assert meta is not None
            seen.append((meta.status.value, meta.blocked_reason))

    runner.progress = progress
    meta = runner.run()
    subs = store.subtasks(meta.task_id)
    assert subs and subs[0]["parent_task_id"] == meta.task_id and subs[0]["goal"]["item"] == "oak_planks"
    assert subs[0]["status"] == "done" and subs[0]["progress"]  # checkpointed on its own
    assert seen and seen[0][0] == "blocked_on_subtask" and seen[0][1] == f"awaiting_materials:{subs[0]['task_id']}"
    assert meta.status.value == "complete" and world_matches(runner, body)


def test_deficit_without_a_way_to_acquire_blocks_the_parent(tmp_path: Path) -> None:
    runner, _body, store = make_runner(tmp_path, "hut", give=False)
    meta = runner.run()
    assert meta.status.value == "blocked_on_subtask"
    assert store.subtasks(meta.task_id)[0]["status"] == "failed"
    assert meta.module_cursor == 0


def test_repair_plan_digs_wrong_blocks_before_placing() -> None:
    from craftbt.planners.building.decompose import repair_steps

    w = BuildingPlanner().plan_build(load_template("hut"), AT, "N").witnesses["shell"]
    cells = dict(w.absolute_placements())
    first = next(iter(cells))
    drift = {**cells, first: "dirt"}
    steps = repair_steps(w, scan(w, lambda p: drift.get(p, "air")))
    assert [(s.kind, s.pos) for s in steps] == [(StepKind.DIG, first), (StepKind.PLACE, first)]


def test_replanned_module_counts_only_the_blocks_still_missing(tmp_path: Path) -> None:
    """Regression (found by the crash test): a kill right after the first roof block leaves the roof
    "destroyed", so resume replans the whole module; its material check must not demand the block that
    already stands, or the parent blocks on a sub-task for one cobblestone it does not need."""
    runner, body, store = make_runner(tmp_path)
    runner.run(stop_after_modules=2)
    pos, block = runner.witnesses["roof"].absolute_placements()[0]
    body.set_block(pos, block)  # the first roof block, placed just before the kill...
    left = body.observe().count(block) - 1  # ...and the item it used
    body.run_command(f"/clear @s {block}")
    body.give(block, left)
    resumed, _, _ = make_runner(tmp_path, body=body)
    meta = resumed.run()
    assert meta.done and meta.blocked_reason is None
    assert store.subtasks(meta.task_id) == []
    assert world_matches(resumed, body)
