"""Missing preconditions become subgoals (seed 003 FM-02): items, stations, fuel and tools, in tree-file
runs as in goal runs, and the same precondition failing more than twice is not repaired again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from craftbt.capabilities.default import default_registry
from craftbt.executor.config import ExecutorConfig
from craftbt.executor.executor import Executor
from craftbt.executor.failures import Failure, FailureSource, precondition_of
from craftbt.executor.gate import assess
from craftbt.planners.subgoals import Subgoal, SubgoalKind, listed_missing, subgoal_for
from craftbt.router.priors import PriorsStore
from craftbt.router.router import RepeatedFailures, failure_subgoal, run_tree
from craftbt.trees import model as m
from craftbt.world.scenarios import starter_world


@pytest.mark.parametrize(("code", "missing", "args", "want"), [
    ("guard_failed:precond_missing:item:stick", {"stick": 2}, {}, (SubgoalKind.ITEM, "stick", 2, False)),
    ("guard_failed:precond_missing:item:raw_iron", {"raw_iron": 2}, {}, (SubgoalKind.ITEM, "raw_iron", 2, False)),
    ("guard_failed:precond_missing:item:raw_iron", {}, {}, (SubgoalKind.ITEM, "raw_iron", 1, False)),
    ("guard_failed:precond_missing:item", {"dirt": 1}, {}, (SubgoalKind.ITEM, "dirt", 1, False)),
    ("guard_failed:precond_missing:table", {}, {}, (SubgoalKind.STATION, "crafting_table", 1, True)),
    ("precond_missing:table", {}, {}, (SubgoalKind.STATION, "crafting_table", 1, True)),
    ("guard_failed:precond_missing:furnace", {}, {}, (SubgoalKind.STATION, "furnace", 1, False)),
    ("guard_failed:precond_missing:fuel", {}, {"input": "raw_iron", "qty": 16},
     (SubgoalKind.FUEL, "coal", 2, False)),
    ("guard_failed:precond_missing:fuel", {}, {"qty": 3, "fuel": "oak_planks"},
     (SubgoalKind.FUEL, "oak_planks", 3, False)),
    ("guard_failed:precond_missing:tool:wooden_pickaxe", {}, {}, (SubgoalKind.TOOL, "wooden_pickaxe", 1, False)),
    ("guard_failed:precond_missing:tool", {"wooden_axe": 1}, {}, (SubgoalKind.TOOL, "wooden_axe", 1, False)),
    ("guard_failed:precond_missing:tool", {}, {"toolType": "shovel"}, (SubgoalKind.TOOL, "wooden_shovel", 1, False)),
    ("guard_failed:precond_missing:hoe", {}, {}, (SubgoalKind.TOOL, "wooden_hoe", 1, False)),
    ("rig_g_blocked:has:coal", {}, {}, (SubgoalKind.ITEM, "coal", 1, False)),
    ("rig_g_blocked:has:coal*3", {"coal": 2}, {}, (SubgoalKind.ITEM, "coal", 2, False)),
    ("rig_g_blocked:near:crafting_table", {}, {}, (SubgoalKind.STATION, "crafting_table", 1, True)),
])
def test_every_kind_of_precondition_maps_to_a_subgoal(code: str, missing: dict[str, int], args: dict[str, Any],
                                                      want: tuple[SubgoalKind, str, int, bool]) -> None:
    got = subgoal_for(precondition_of(code), missing, args)
    assert got is not None
    assert (got.kind, got.item, got.count, got.place) == want


@pytest.mark.parametrize("code", [None, "", "timeout", "no_path", "guard_failed:not_hungry", "permission_denied:dig",
                                  "rig_g_blocked"])
def test_other_failures_are_not_subgoals(code: str | None) -> None:
    assert subgoal_for(precondition_of(code), {}, {}) is None


def test_the_subgoal_total_counts_what_is_held() -> None:
    item = Subgoal(kind=SubgoalKind.ITEM, item="stick", count=2, precondition="p")
    assert item.goal(held=1) == "obtain 3 stick"
    table = Subgoal(kind=SubgoalKind.STATION, item="crafting_table", place=True, precondition="p")
    assert table.goal(held=0) == table.goal(held=1) == "obtain crafting_table"


def test_a_gate_block_names_its_unreachable_precondition() -> None:
    """The gate hands up the fact it found unreachable; the subgoal is read from it, not from the message."""
    body = starter_world(0)
    tree = m.TreeDefinition(tree="smelt", root=m.SequenceNode(children=[
        m.LeafNode(name="smelt#1", capability="smelt", args={"input": "raw_iron", "qty": 1})]))
    gate, _ = assess(tree, default_registry(), body.observe())
    assert not gate.should_proceed and gate.unreachable[0] == "has:raw_iron", gate
    failure = Failure.of(None, [Failure.decided(gate.block_reason or "rig_g_blocked", node=None, capability=None,
                                                tick=0, payload={"unreachable": gate.unreachable,
                                                                 "detail": "a message nobody parses"})], "blocked")
    wanted = failure_subgoal(failure)
    assert wanted is not None and wanted.item == "raw_iron"


def test_a_refused_craft_records_what_it_lacks_and_its_rewording_changes_no_subgoal(tmp_path: Path) -> None:
    """The craft guard records every missing ingredient with its count where it refuses; the executor hands it
    up typed and the router's subgoals are read from it: a reworded message yields the same subgoals (the old
    text-parsing read the counts out of ``missing oak_planks x3, stick x2`` and lost them on any rewording)."""
    from craftbt.executor.config import scenario_fence

    body = starter_world(0)
    body.run_command("/give @s oak_planks 1")
    ex = Executor(default_registry(), body, home=tmp_path,
                  config=ExecutorConfig(geofence=scenario_fence(body), max_ticks=2_000))
    craft = m.LeafNode(name="craft", capability="craft_recipe", args={"recipe": "wooden_pickaxe", "qty": 1})
    out = ex.run(m.TreeDefinition(tree="t", root=m.SequenceNode(children=[craft])))
    failure = out.failure
    assert failure is not None and failure.source is FailureSource.ESCALATION
    assert failure.precondition is not None and failure.precondition.startswith("precond_missing:item:")
    assert len(failure.missing) == 2 and all(n >= 1 for n in failure.missing.values()), failure
    assert out.escalation is not None and out.escalation.context.missing == failure.missing
    decision = next(f for f in out.failures if f.reason.startswith("guard_failed:"))
    assert decision.missing == failure.missing  # the refusal's decision record carries it too
    wanted = failure_subgoal(failure)
    assert wanted is not None and wanted.count == failure.missing[wanted.item]
    reworded = failure.model_copy(update={"detail": "the bench wants more wood and a handle"})
    assert failure_subgoal(reworded) == wanted
    assert listed_missing(wanted, reworded.missing) == listed_missing(wanted, failure.missing)
    assert {s.item: s.count for s in listed_missing(wanted, failure.missing)} == failure.missing


def test_an_equip_tool_refusal_names_the_tool_it_lacks(tmp_path: Path) -> None:
    """``nothing in the inventory harvests stone`` names no tool kind: the text-parsing found no subgoal; the
    guard's record of the cheapest tool that would harvest it does."""
    from craftbt.capabilities.context import CapabilityContext
    from craftbt.capabilities.leaves.combat import EquipToolArgs, guard_equip_tool

    body = starter_world(0)
    ctx = CapabilityContext(body=body, registry=default_registry())
    refused = guard_equip_tool(ctx, EquipToolArgs(block="stone", fallbackToHand=False))
    assert not refused.ok and refused.reason == "precond_missing:tool" and refused.missing == {"wooden_pickaxe": 1}
    wanted = subgoal_for(refused.reason, refused.missing, {"block": "stone"})
    assert wanted is not None and wanted.item == "wooden_pickaxe"


def test_repeated_failure_detector_trips_on_the_third() -> None:
    seen = RepeatedFailures()
    failure = Failure(source=FailureSource.ESCALATION, reason="local_repair_exhausted",
                      code="guard_failed:precond_missing:table")
    assert [seen.note(failure) for _ in range(3)] == [False, False, True]
    assert seen.note(failure.model_copy(update={"code": "guard_failed:precond_missing:fuel"})) is False


def world_run(tmp_path: Path, gives: list[str], leaf: m.LeafNode, *, max_replans: int = 2) -> tuple[Any, Executor]:
    from craftbt.executor.config import scenario_fence

    body = starter_world(0)
    for what in gives:
        body.run_command(f"/give @s {what}")
    ex = Executor(default_registry(), body, home=tmp_path,
                  config=ExecutorConfig(geofence=scenario_fence(body), max_ticks=40_000))
    tree = m.TreeDefinition(tree="t", root=m.SequenceNode(children=[leaf]))
    return run_tree(tree, ex, priors=PriorsStore(tmp_path / "p.sqlite"), max_replans=max_replans), ex


@pytest.mark.parametrize(("gives", "leaf", "code", "repair", "done"), [
    (["oak_planks 7", "stick 2"], m.LeafNode(capability="craft_recipe", args={"recipe": "wooden_pickaxe", "qty": 1}),
     "guard_failed:precond_missing:table", "obtain crafting_table", "wooden_pickaxe"),
    (["raw_iron 2", "furnace 1"], m.LeafNode(capability="smelt", args={"input": "raw_iron", "qty": 2}),
     "guard_failed:precond_missing:fuel", "obtain coal", "iron_ingot"),
    (["dirt 1"], m.LeafNode(capability="acquire_material", args={"item": "cobblestone", "count": 2, "radius": 24}),
     "guard_failed:precond_missing:tool:wooden_pickaxe", "obtain wooden_pickaxe", "cobblestone"),
    (["dirt 1", "stick 2"],
     m.LeafNode(capability="craft_recipe", args={"recipe": "stick", "qty": 8}),
     "guard_failed:precond_missing:item", None, "stick"),
], ids=["station", "fuel", "tool", "item"])
def test_a_tree_file_run_splices_the_subgoal_and_succeeds(tmp_path: Path, gives: list[str], leaf: m.LeafNode,
                                                           code: str, repair: str | None, done: str) -> None:
    run, ex = world_run(tmp_path, gives, leaf)
    assert run.ok, (run.attempts, run.stopped)
    first = run.attempts[0].escalation
    assert first is not None and first.code is not None and first.code.startswith(code)
    assert first.context.effects_unmet == "precond_missing"
    assert len(run.repairs) == 1 and (repair is None or run.repairs == [repair])
    assert [a.status for a in run.attempts] == ["escalated", "success"]
    steps = ex.journal.run_detail(run.outcomes[-1].run_id)["steps"]
    assert steps and all(s["ok"] and s["verdict"] == "verified" for s in steps)  # the subgoal's steps and the leaf
    assert steps[-1]["capability"] == leaf.capability
    assert ex.inner_body.observe().count(done) >= 1


def test_a_failure_that_is_no_precondition_is_not_repaired(tmp_path: Path) -> None:
    run, _ = world_run(tmp_path, ["dirt 1"], m.LeafNode(capability="consume_food", args={}))
    assert not run.ok and run.repairs == [] and len(run.attempts) == 1


def test_the_same_guard_failure_three_times_in_a_run_is_detected(tmp_path: Path) -> None:
    """A retry around a branch re-enters a guarded leaf: the third refusal is flagged (FM-02)."""
    from craftbt.executor.config import scenario_fence

    body = starter_world(0)
    ex = Executor(default_registry(), body, home=tmp_path,
                  config=ExecutorConfig(geofence=scenario_fence(body), max_ticks=2_000))
    craft = m.LeafNode(capability="craft_recipe", args={"recipe": "wooden_pickaxe", "qty": 1})
    root = m.DecoratorNode(decorator=m.DecoratorKind.RETRY, params={"attempts": 3},
                           child=m.SequenceNode(children=[craft]))
    out = ex.run(m.TreeDefinition(tree="t", root=m.SequenceNode(children=[root])))
    assert out.status == "escalated"
    decisions = ex.journal.run_detail(out.run_id)["decisions"]
    flagged = [d for d in decisions if d["reason"] == "repeated_guard_failure"]
    assert len(flagged) == 1 and flagged[0]["detail"]["times"] == 3
    assert out.escalation is not None and out.escalation.context.guard_failures == 3


def test_a_craft_from_nothing_gets_its_ingredients_then_its_table(tmp_path: Path) -> None:
    """The leaf names one recipe variant (pale oak); the router plans the variant the world offers, every
    missing ingredient at once (sticks before the planks they are made of), then the table."""
    run, ex = world_run(tmp_path, ["dirt 1"],
                        m.LeafNode(capability="craft_recipe", args={"recipe": "wooden_pickaxe", "qty": 1}))
    assert run.ok, (run.attempts, run.stopped)
    assert [a.status for a in run.attempts] == ["escalated", "escalated", "success"]
    assert len(run.repairs) == 2 and "stick" in run.repairs[0] and run.repairs[1] == "obtain crafting_table"
    for outcome in run.outcomes:  # every step of every attempt, not only the last
        for step in ex.journal.run_detail(outcome.run_id)["steps"]:
            assert step["ok"] and step["verdict"] == "verified", step
    assert ex.inner_body.observe().count("wooden_pickaxe") == 1


def test_plan_repair_rate_counts_tasks_that_needed_a_repair(tmp_path: Path) -> None:
    """Seed 003's plan-repair rate: tasks that needed a router repair (was: local retries per run)."""
    from craftbt.executor.sla import build_report

    run, ex = world_run(tmp_path, ["oak_planks 7", "stick 2"],
                        m.LeafNode(capability="craft_recipe", args={"recipe": "wooden_pickaxe", "qty": 1}))
    assert run.ok and len(run.outcomes) == 2
    metrics = build_report(ex.journal)["executor"]
    assert metrics["plan_repair_rate"] == 1.0  # one task (two runs), repaired
    fine = ex.run(m.TreeDefinition(tree="t2", root=m.LeafNode(capability="wait", args={"ms": 50})))
    assert fine.ok
    assert build_report(ex.journal)["executor"]["plan_repair_rate"] == 0.5


def test_sla_reports_the_router_disagreement_rate(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    from typer.testing import CliRunner

    from craftbt.cli.root import app

    monkeypatch.setenv("CRAFTBT_HOME", str(tmp_path))
    runner = CliRunner()
    empty = json.loads(runner.invoke(app, ["sla", "--format", "json"]).output)
    assert empty["router"] == {"disagreement_rate": None, "routed": 0}
    assert runner.invoke(app, ["run", "--goal", "obtain stick", "--json"]).exit_code == 0
    report = json.loads(runner.invoke(app, ["sla", "--format", "json"]).output)
    assert report["router"]["routed"] >= 1
    assert 0.0 <= report["router"]["disagreement_rate"] <= 1.0
