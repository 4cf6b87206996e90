"""Executor loop, journal and golden-run report on a fake body: the happy path and I1-I3."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from craftbt.executor.config import Bounds, ExecutorConfig
from craftbt.executor.executor import Executor, RunOutcome
from craftbt.executor.journal import Journal
from craftbt.trees import model as m
from tests.executor_fakes import make_registry
from tests.fakes import FlatFakeBody

FENCE = Bounds(min_x=-50, min_y=0, min_z=-50, max_x=50, max_y=255, max_z=50)


def leaf(cap: str, args: dict[str, Any] | None = None, **kw: Any) -> m.LeafNode:
    return m.LeafNode(capability=cap, args=args or {}, **kw)


def tree(*children: Any, name: str = "t", kind: str = "sequence") -> m.TreeDefinition:
    node: Any = m.SequenceNode(children=list(children)) if kind == "sequence" else m.SelectorNode(
        children=list(children), memory=True)
    return m.TreeDefinition(tree=name, root=node)


def run(defn: m.TreeDefinition, tmp_path: Path, body: FlatFakeBody | None = None, registry: Any = None,
        **config: Any) -> tuple[RunOutcome, Executor, FlatFakeBody]:
    body = body or FlatFakeBody(inventory={"cobblestone": 5})
    registry = registry or make_registry(body)
    config.setdefault("geofence", FENCE)
    ex = Executor(registry, body, config=ExecutorConfig(**config), home=tmp_path)
    return ex.run(defn), ex, body


def reasons(ex: Executor, run_id: str) -> list[str]:
    return [d["reason"] for d in ex.journal.run_detail(run_id)["decisions"]]


def test_happy_path_journal_report_consistent(tmp_path: Path) -> None:
    defn = tree(leaf("move", {"pos": {"x": 3, "y": 64, "z": 0}}),
                leaf("place", {"item": "cobblestone", "position": {"x": 3, "y": 64, "z": 1}}),
                leaf("tap", {"n": 2}))
    out, ex, body = run(defn, tmp_path)
    assert out.status == "success", out
    assert out.dispatches == 3 and out.leaves_run == 3
    detail = ex.journal.run_detail(out.run_id)
    assert detail["status"] == "success"
    assert [s["capability"] for s in detail["steps"]] == ["move", "place", "tap"]
    assert all(s["ok"] == 1 and s["verdict"] == "verified" for s in detail["steps"])
    assert [a["kind"] for a in detail["actions"]] == ["goto", "place", "equip"]
    assert detail["executor_plan_digest"].startswith("sha256:")
    report = ex.recorder.get_report(out.run_id)
    assert report is not None
    assert report["schema_version"] == "golden_run_report_v1"
    assert report["execution"]["dispatched_total"] == 3
    assert [s["leaf"] for s in report["execution"]["dispatched_steps"]] == ["move", "place", "tap"]
    assert all(s["result"]["ok"] for s in report["execution"]["dispatched_steps"])
    assert report["expansion"]["executor_plan_digest"] == detail["executor_plan_digest"]
    assert Path(out.report_path or "").is_file()
    assert body.placed == [(3, 64, 1)]


def test_local_repair_two_retries_then_success(tmp_path: Path) -> None:
    body = FlatFakeBody()
    out, ex, _ = run(tree(leaf("flaky")), tmp_path, body=body, registry=make_registry(body, flaky_failures=2))
    assert out.status == "success"
    assert out.metrics["local_retries"] == 2 and out.metrics["local_retry_successes"] == 1
    assert reasons(ex, out.run_id).count("local_retry") == 2


def test_local_repair_exhausted_escalates_after_two_retries(tmp_path: Path) -> None:
    body = FlatFakeBody()
    got: list[Any] = []
    registry = make_registry(body, flaky_failures=10)
    ex = Executor(registry, body, config=ExecutorConfig(geofence=FENCE), home=tmp_path, on_escalation=got.append)
    out = ex.run(tree(leaf("flaky")))
    assert out.status == "escalated"
    assert out.dispatches == 3  # first attempt + 2 local retries (A3)
    assert len(got) == 1 and got[0].reason == "local_repair_exhausted" and got[0].attempts == 3
    assert out.escalation is not None and out.escalation.code == "no_path"
    assert "escalated" in reasons(ex, out.run_id)


def test_non_retryable_failure_escalates_at_once(tmp_path: Path) -> None:
    out, _ex, _ = run(tree(leaf("fatal")), tmp_path)
    assert out.status == "escalated" and out.dispatches == 1
    assert out.escalation is not None and out.escalation.reason == "non_retryable_failure"


def test_selector_fallback_recovers_without_run_failure(tmp_path: Path) -> None:
    out, _, _ = run(tree(leaf("fatal"), leaf("tap"), kind="selector"), tmp_path)
    assert out.status == "success"


def test_every_dispatch_has_a_deadline_and_a_closed_row(tmp_path: Path) -> None:
    out, ex, _ = run(tree(leaf("move", {"pos": {"x": 1, "y": 64, "z": 1}}), leaf("tap")), tmp_path)
    steps = ex.journal.run_detail(out.run_id)["steps"]
    assert all(s["ended_tick"] is not None and s["ok"] is not None for s in steps)  # A2: no silent drop


def test_parallel_leaves_serialised_one_active_per_stream(tmp_path: Path) -> None:
    defn = m.TreeDefinition(tree="p", root=m.ParallelNode(children=[
        leaf("move", {"pos": {"x": 2, "y": 64, "z": 0}}), leaf("tap", {"n": 1})]))
    out, ex, _ = run(defn, tmp_path)
    assert out.status == "success"
    steps = ex.journal.run_detail(out.run_id)["steps"]
    # I1: the second leaf started only after the first ended
    assert steps[1]["started_tick"] >= steps[0]["ended_tick"]
    assert "stream_busy" in reasons(ex, out.run_id)
    assert out.metrics["i1_violations"] == 0


def test_runs_listed_and_journal_survives_reopen(tmp_path: Path) -> None:
    out, ex, _ = run(tree(leaf("tap")), tmp_path)
    ex.journal.close()
    again = Journal(tmp_path / "journal.sqlite")
    runs = again.list_runs()
    assert [r["run_id"] for r in runs] == [out.run_id]
    assert again.find_run(out.run_id[:8]) is not None


@pytest.mark.parametrize("budget", [5])
def test_budget_exhausted_closes_open_dispatch(tmp_path: Path, budget: int) -> None:
    body = FlatFakeBody()
    body.goto_ticks = 50  # the walk is still going when the budget runs out
    out, ex, _ = run(tree(leaf("move", {"pos": {"x": 9, "y": 64, "z": 9}})), tmp_path, body=body,
                     max_ticks=budget)
    assert out.status == "budget_exhausted"
    steps = ex.journal.run_detail(out.run_id)["steps"]
    assert steps and steps[0]["error_code"] == "interrupted" and steps[0]["verdict"] is None
    assert body.cancelled == ["goto"]


def test_budget_exhausted_after_the_action_landed_judges_the_step(tmp_path: Path) -> None:
    """The walk arrived on the last tick of the budget: the step ends with its verdict, not ``interrupted``."""
    out, ex, body = run(tree(leaf("move", {"pos": {"x": 9, "y": 64, "z": 9}})), tmp_path, max_ticks=5)
    assert out.status == "budget_exhausted"
    steps = ex.journal.run_detail(out.run_id)["steps"]
    assert len(steps) == 1 and steps[0]["ok"] and steps[0]["verdict"] == "verified"
    assert steps[0]["evidence"]["judged_on_halt"] is True
    assert body.cancelled == []


def test_a_parent_halting_a_running_leaf_closes_its_step_and_frees_its_stream(tmp_path: Path) -> None:
    # the parallel succeeds with the tap while the walk is still going: py_trees halts the walk
    race = m.ParallelNode(policy=m.ParallelPolicy.SUCCESS_ON_ONE,
                          children=[leaf("tap", {"n": 1}), leaf("move", {"pos": {"x": 9, "y": 64, "z": 9}})])
    body = FlatFakeBody()
    body.goto_ticks = 200
    out, ex, _ = run(m.TreeDefinition(tree="t", root=m.SequenceNode(children=[race, leaf("tap", {"n": 2})])),
                     tmp_path, body=body, streams=2)
    assert out.status == "success"
    steps = ex.journal.run_detail(out.run_id)["steps"]
    assert [(s["capability"], s["error_code"]) for s in steps] == [
        ("tap", None), ("move", "interrupted"), ("tap", None)]
    assert "goto" in body.cancelled  # the body action stopped with the leaf
    assert out.metrics["i1_violations"] == 0


def test_i1_violations_count_when_stream_acquisition_is_broken(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """The I1 counter can fail: with the supervisor's stream check disabled, two dispatches overlap."""
    from craftbt.executor.supervisor import Supervisor

    monkeypatch.setattr(Supervisor, "_acquire_stream", lambda self: True)
    defn = m.TreeDefinition(tree="p", root=m.ParallelNode(children=[
        leaf("move", {"pos": {"x": 2, "y": 64, "z": 0}}), leaf("tap", {"n": 1})]))
    out, ex, _ = run(defn, tmp_path)
    assert out.metrics["i1_violations"] == 1
    assert "i1_violation" in reasons(ex, out.run_id)
