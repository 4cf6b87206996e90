"""Seed 001 record shape: step meta tags, refCorner, the macro plan's edges, pending modules, the site probe."""

from __future__ import annotations

from pathlib import Path

from craftbt.planners.building.decompose import STEP_META_KEY
from craftbt.planners.building.planner import BuildingPlanner
from craftbt.router.build.runner import REPLAN_SITE
from craftbt.trees.structure_template import load_template
from craftbt.trees.structure_witness import ModuleState
from tests.buildkit import AT, make_runner, world_matches


def test_steps_carry_the_seed_meta_and_checkpoints_the_witness_digest() -> None:
    plan = BuildingPlanner().plan_build(load_template("hut"), AT, "N")
    meta = plan.tree.blackboard[STEP_META_KEY]
    place = meta[f"place crafting_table @{AT.x + 5},{AT.y},{AT.z}"]
    assert place == {
        "domain": "building",
        "leaf": "place_block_at",
        "moduleId": "utility",
        "templateId": "hut",
        "position": {"x": AT.x + 5, "y": AT.y, "z": AT.z},
        "blockId": "crafting_table",
        "stepId": f"utility:place:{AT.x + 5},{AT.y},{AT.z}:crafting_table",
    }
    check = meta["checkpoint: verify module shell"]
    assert check["isCheckpoint"] is True and check["leaf"] == "verify_module"
    assert check["moduleWitnessDigest"] == plan.witnesses["shell"].witness_digest
    assert plan.witnesses["shell"].to_seed()["refCorner"] == {"x": AT.x, "y": AT.y, "z": AT.z}


def test_macro_plan_keeps_its_edges_and_content_addressed_nodes(tmp_path: Path) -> None:
    runner, _body, store = make_runner(tmp_path, "cottage")
    runner.load_or_create()
    again = store.load_build(runner.build_id)
    assert again is not None and again.macro_plan is not None
    ids = {n.module_id: n.node_id for n in again.macro_plan.nodes}
    assert ids["shell"].startswith("shell@") and ids == runner.plan.macro.node_ids
    assert (ids["utility_pad"], ids["shell"]) in again.macro_plan.edges
    assert (ids["shell"], ids["roof"]) in again.macro_plan.edges
    assert again.macro_plan.order == again.module_order
    # the same template elsewhere gives the same node ids (content addressed, not positional)
    other = BuildingPlanner().plan_build(load_template("cottage"), AT.offset(dx=40), "W")
    assert other.macro.node_ids == ids


def test_resume_calls_an_untouched_module_pending(tmp_path: Path) -> None:
    runner, _body, store = make_runner(tmp_path, "cottage")
    runner.run(stop_after_modules=0)
    first = store.events(runner.build_id, "build_resume")[0]
    assert first["current"]["state"] == ModuleState.PENDING.value and first["action"] == "build"
    runner.run(stop_after_modules=1)  # utility pad done; the shell has not been touched either
    runner.run(stop_after_modules=0)
    second = store.events(runner.build_id, "build_resume")[-1]
    assert second["current"]["module_id"] == "shell" and second["current"]["state"] == "pending"


def test_an_unrecognizable_site_is_replanned_from_bootstrap(tmp_path: Path) -> None:
    runner, body, _store = make_runner(tmp_path, "hut")
    runner.run(stop_after_modules=2)
    for mid in ("utility", "shell"):  # the site is levelled between sessions: nothing of the build is left
        for pos, block in runner.witnesses[mid].absolute_placements():
            body.set_block(pos, "air")
            body.give(block, 1)
    again, body2, store2 = make_runner(tmp_path, "hut", body=body)
    probes = again.site_probes(again.load_or_create())
    assert probes[0] == AT and len(probes) == 9
    meta = again.run()
    resume = store2.events(again.build_id, "build_resume")[-1]
    assert resume["site_valid"] is False and resume["action"] == REPLAN_SITE
    assert resume["moduleCursor"] == 0
    assert meta.status.value == "complete" and world_matches(again, body2)


def test_a_damaged_but_recognizable_site_is_not_replanned(tmp_path: Path) -> None:
    runner, body, _store = make_runner(tmp_path, "hut")
    runner.run(stop_after_modules=2)
    body.set_block(AT, "air")  # the reference corner alone is knocked out
    body.give("cobblestone", 1)
    again, body2, store2 = make_runner(tmp_path, "hut", body=body)
    meta = again.run()
    resume = store2.events(again.build_id, "build_resume")[-1]
    assert resume["site_valid"] is True and resume["action"] == "repair"
    assert meta.status.value == "complete" and world_matches(again, body2)


def test_a_changed_template_at_an_existing_site_is_an_input_error(tmp_path: Path) -> None:
    import pytest

    from craftbt.core.errors import CraftbtError, ErrorCode
    from craftbt.executor.build_state.store import BuildStore
    from craftbt.router.build.runner import BuildRunner
    from craftbt.trees.structure_template import parse_template

    runner, body, store = make_runner(tmp_path, "hut")
    runner.load_or_create()
    text = (Path(load_template("hut").source or "")).read_text().replace("block: cobblestone}", "block: stone}", 1)
    changed = parse_template(text, "hut.yaml", known_blocks=None)
    other = BuildRunner(BuildStore(tmp_path / "build.sqlite"), body, changed, AT, "N", home=tmp_path / "x")
    with pytest.raises(CraftbtError) as info:
        other.load_or_create()
    assert info.value.problems[0].code is ErrorCode.INVALID_ARGUMENT and "another version" in str(info.value)
    store.close()
