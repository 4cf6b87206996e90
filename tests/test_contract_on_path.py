"""The action contract is on the run path: a tree written with the seeds' names validates, runs as the canonical
leaf and is recorded as normalised; a deprecated leaf is rewritten only where the registry names a
replacement and the legacy switch is on."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from craftbt.capabilities.contracts import WarningCode, normalize_spec_args
from craftbt.capabilities.default import default_registry
from craftbt.executor.config import ExecutorConfig, scenario_fence
from craftbt.executor.executor import Executor
from craftbt.trees import model as m
from craftbt.trees.loader import load_file
from craftbt.world.scenarios.loader import starter_world
from tests.clikit import cli

SEED_TREE = """\
tree: seed_spellings
root:
  sequence:
    children:
      - leaf: acquire_material
        name: mine a log
        args: {blockType: oak_log, count: 1}
      - leaf: craft_recipe
        name: craft planks
        args: {item: oak_planks, quantity: 4, timeoutMs: null}
      - leaf: place_block
        name: place a plank
        args: {blockType: oak_planks}
"""


def run_tree(tree: m.TreeDefinition, home: Path, **config: Any) -> tuple[Any, dict[str, Any], dict[str, Any]]:
    body = starter_world(0)
    ex = Executor(default_registry(), body, config=ExecutorConfig(geofence=scenario_fence(body), **config), home=home)
    out = ex.run(tree)
    detail = ex.journal.run_detail(out.run_id)
    report = ex.recorder.get_report(out.run_id)
    ex.journal.close()
    assert report is not None
    return out, detail, report


def test_the_seed_spellings_validate(tmp_path: Path) -> None:
    tree = tmp_path / "seed.yaml"
    tree.write_text(SEED_TREE, encoding="utf-8")
    done = cli(["validate", str(tree)])
    assert done.code == 0, done.text


def test_the_seed_spellings_run_as_canonical_names_recorded_as_normalised(tmp_path: Path) -> None:
    tree = tmp_path / "seed.yaml"
    tree.write_text(SEED_TREE, encoding="utf-8")
    out, detail, report = run_tree(load_file(tree), tmp_path)
    assert out.status == "success", out.failures
    steps = {s["node"]: s for s in detail["steps"]}
    assert steps["mine a log"]["args"]["item"] == "oak_log"
    assert steps["craft planks"]["args"]["recipe"] == "oak_planks" and steps["craft planks"]["args"]["qty"] == 4
    assert steps["place a plank"]["args"]["item"] == "oak_planks"
    normalised = {d["node"]: d["detail"] for d in detail["decisions"] if d["reason"] == "args_normalized"}
    assert normalised["mine a log"]["renamed"] == {"blockType": "item"}
    assert normalised["craft planks"]["renamed"] == {"item": "recipe", "quantity": "qty"}
    assert normalised["craft planks"]["contract"] == "craft"
    assert normalised["place a plank"]["renamed"] == {"blockType": "item"}
    dispatched = {s["node"]: s for s in report["execution"]["dispatched_steps"]}
    assert dispatched["craft planks"]["normalized"]["written"] == {"item": "oak_planks", "quantity": 4,
                                                                  "timeoutMs": None}


def test_canonical_args_are_not_recorded_as_normalised() -> None:
    args, record = normalize_spec_args(default_registry().get("craft_recipe"), {"recipe": "stick", "qty": 4})
    assert args == {"recipe": "stick", "qty": 4} and record is None


def test_a_conflict_keeps_the_canonical_name_and_warns() -> None:
    args, record = normalize_spec_args(default_registry().get("craft_recipe"),
                                       {"recipe": "stick", "item": "oak_planks"})
    assert args["recipe"] == "stick" and "item" not in args
    assert record is not None and [w.code for w in record.warnings] == [WarningCode.ALIAS_CONFLICT]


def test_a_null_means_absent() -> None:
    args, record = normalize_spec_args(default_registry().get("acquire_material"),
                                       {"item": "stone", "count": None, "radius": None})
    assert args == {"item": "stone"} and record is not None and sorted(record.nulls) == ["count", "radius"]
    assert default_registry().get("acquire_material").args_model.model_validate(args).count == 1


DIG = m.TreeDefinition(tree="dig", root=m.SequenceNode(children=[
    m.LeafNode(capability="dig_block", name="dig a log", args={"blockType": "oak_log"})]))


def test_a_deprecated_leaf_runs_as_written_without_the_legacy_switch(tmp_path: Path) -> None:
    _, detail, report = run_tree(DIG, tmp_path)
    assert [s["capability"] for s in detail["steps"]] == ["dig_block"]
    assert not [d for d in detail["decisions"] if d["reason"] == "leaf_remapped"]
    assert "original_leaf" not in report["execution"]["dispatched_steps"][0]


def test_only_a_leaf_the_registry_names_a_replacement_for_is_rewritten(tmp_path: Path) -> None:
    import dataclasses

    registry = default_registry()
    spec = registry.get("dig_block")
    assert spec.replaced_by == "acquire_material"
    object.__setattr__(spec, "replaced_by", None)  # the registry no longer says so
    try:
        _, detail, _ = run_tree(DIG, tmp_path, remap_deprecated=True)
    finally:
        object.__setattr__(spec, "replaced_by", "acquire_material")
    assert [s["capability"] for s in detail["steps"]] == ["dig_block"]
    assert dataclasses.replace(spec).replaced_by == "acquire_material"


def test_craft_four_oak_planks_from_the_solver_to_a_verified_step(tmp_path: Path) -> None:
    """The seed's walk-through: the solver's craft step becomes ``craft_recipe {recipe: oak_planks, qty: 4}``
    with explicit args, is dispatched and completes verified, on the run path (router -> executor -> journal)."""
    from craftbt.router.priors import PriorsStore
    from craftbt.router.router import run_goal

    body = starter_world(0)
    body.run_command("/give @s oak_log 1")
    ex = Executor(default_registry(), body, config=ExecutorConfig(geofence=scenario_fence(body)), home=tmp_path)
    run = run_goal("obtain 4 oak_planks", ex, planner="solver", priors=PriorsStore(tmp_path / "p.sqlite"),
                   max_replans=0)
    steps = ex.journal.run_detail(ex.journal.run_rows()[0]["run_id"])["steps"]
    ex.journal.close()
    assert run.ok, run.attempts
    crafts = [s for s in steps if s["capability"] == "craft_recipe"]
    assert [(s["args"]["recipe"], s["args"]["qty"]) for s in crafts] == [("oak_planks", 4)]
    assert crafts[0]["verdict"] == "verified" and crafts[0]["ok"] == 1
    assert body.observe().count("oak_planks") >= 4
