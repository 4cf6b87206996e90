"""The executor on the embedded world (world.sim): the library's wooden-pickaxe tree, and the 5-cobblestones bug."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from craftbt.capabilities.default import default_registry
from craftbt.capabilities.registry import Registry
from craftbt.capabilities.spec import VerificationResult
from craftbt.executor.config import ExecutorConfig
from craftbt.executor.executor import Executor, RunOutcome
from craftbt.executor.sla import build_report
from craftbt.trees import model as m
from craftbt.trees.loader import load_file

LIBRARY = Path(__file__).resolve().parents[1] / "trees" / "library"

sim_loader = pytest.importorskip("craftbt.world.scenarios.loader")


def _fence(body: Any) -> Any:
    from craftbt.executor.config import scenario_fence

    return scenario_fence(body)


def _run(defn: m.TreeDefinition, tmp_path: Path, registry: Registry | None = None, body: Any = None,
         base_dir: Path = LIBRARY) -> tuple[RunOutcome, Executor]:
    body = body or sim_loader.starter_world(0)
    ex = Executor(registry or default_registry(), body, config=ExecutorConfig(geofence=_fence(body)), home=tmp_path)
    return ex.run(defn, base_dir=base_dir), ex


def _consistent(out: RunOutcome, ex: Executor) -> None:
    detail = ex.journal.run_detail(out.run_id)
    report = ex.recorder.get_report(out.run_id)
    assert report is not None and report["result"]["status"] == out.status == detail["status"]
    real = [s for s in detail["steps"] if not s["shadow"]]
    assert report["execution"]["dispatched_total"] == len(real) == out.dispatches
    assert [s["node"] for s in report["execution"]["dispatched_steps"]] == [s["node"] for s in real]
    assert report["expansion"]["executor_plan_digest"] == detail["executor_plan_digest"]
    sla = build_report(ex.journal)
    measured = sum(r["attempts"] for r in sla["capabilities"])
    interrupted = sum(1 for s in real if s["error_code"] in ("interrupted", "safety_preempted_by_executor"))
    assert measured == len(real) - interrupted


def test_library_wooden_pickaxe_tree_runs_with_consistent_evidence(tmp_path: Path) -> None:
    out, ex = _run(load_file(LIBRARY / "obtain_wooden_pickaxe.yaml"), tmp_path)
    assert out.status == "success", out.failures
    _consistent(out, ex)
    assert ex.inner_body.observe().count("wooden_pickaxe") == 1
    steps = [s for s in ex.journal.run_detail(out.run_id)["steps"] if s["ok"]]
    assert steps and all(s["verdict"] in ("verified", "inconclusive") for s in steps)


def test_five_cobblestones_regression_on_sim(tmp_path: Path) -> None:
    """Seed 000: an inconclusive probe (chunk not loaded) must be probed again, never re-dispatched."""
    registry = default_registry()
    if not registry.has("place_block"):
        pytest.skip("place_block is not registered yet")
    body = sim_loader.starter_world(0)
    body.run_command("/give @s cobblestone 5")
    body.advance(1)
    if body.observe().count("cobblestone") < 5:
        pytest.skip("cannot give cobblestone in this build of the simulator")
    spec = registry.get("place_block")
    blind = Registry()
    for other in registry.list():
        if other.key != spec.key:
            blind.register(other)
    for check in registry.checks():
        blind.register_check(check)

    def chunk_not_loaded(pre: Any, post: Any, args: Any, result: Any) -> VerificationResult:
        return VerificationResult.inconclusive(reason="blockAt returned null: chunk not loaded")

    blind.register(dataclasses.replace(spec, acceptance=chunk_not_loaded))
    p = body.position()
    target = {"x": int(p.x) + 2, "y": int(p.y), "z": int(p.z)}
    defn = m.TreeDefinition(tree="five_cobblestones", root=m.SequenceNode(children=[
        m.LeafNode(capability="place_block", args={"item": "cobblestone", "pos": target})]))
    out, ex = _run(defn, tmp_path, registry=blind, body=body)
    assert out.status == "success", out.failures
    assert body.observe().count("cobblestone") == 4  # exactly one block placed
    steps = ex.journal.run_detail(out.run_id)["steps"]
    assert len(steps) == 1 and steps[0]["verdict"] == "inconclusive"
    assert steps[0]["evidence"]["accepted_on_probe_timeout"] is True


def test_a_tree_that_fails_on_a_condition_names_it_as_the_runs_failure(tmp_path: Path) -> None:
    """No step failed, a condition did: the run's failure names the condition (the goal run replans from it),
    not the last decision the run happened to record, nor nothing."""
    defn = m.TreeDefinition(tree="table", root=m.SequenceNode(name="craft at a table", children=[
        m.LeafNode(name="look around", capability="wait", args={"ms": 100}),
        m.ConditionNode(name="healthy enough to fight", check="health_above", args={"value": 15})]))
    body = sim_loader.starter_world(0)
    body.world.player.health = 9.0
    out, ex = _run(defn, tmp_path, body=body)
    assert out.status == "failure" and out.failure is not None
    assert (out.failure.code, out.failure.node) == ("condition_failed:health_above", "healthy enough to fight")
    reasons = [row["reason"] for row in ex.journal.decision_rows()]
    assert reasons[-1] == "condition_failed", reasons
