"""Every Plan-to-Body pipeline refusal is a structured, recorded decision with its backoff class."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from craftbt.executor.backoff import DETERMINISTIC_BLOCK_BACKOFF_MS
from craftbt.executor.config import Bounds, ExecutorConfig, RateLimit
from craftbt.executor.executor import Executor
from craftbt.executor.lifecycle import Stage
from craftbt.trees import model as m
from tests.executor_fakes import make_registry
from tests.fakes import FlatFakeBody
from tests.test_executor_core import FENCE, leaf, run, tree


def decisions(ex: Executor, run_id: str) -> list[dict[str, Any]]:
    return ex.journal.run_detail(run_id)["decisions"]


def decision(ex: Executor, run_id: str, prefix: str) -> dict[str, Any]:
    found = [d for d in decisions(ex, run_id) if d["reason"].startswith(prefix)]
    assert found, f"no {prefix} decision in {[d['reason'] for d in decisions(ex, run_id)]}"
    return found[0]


def report_reasons(ex: Executor, run_id: str) -> list[str]:
    report = ex.recorder.get_report(run_id)
    assert report is not None
    return [d["reason"] for d in report["execution"]["decisions"]]


def test_unknown_verb_blocks_before_the_tree_starts(tmp_path: Path) -> None:
    out, ex, _body = run(tree(leaf("tap"), leaf("teleport")), tmp_path)
    assert out.status == "blocked" and out.dispatches == 0
    d = decision(ex, out.run_id, "unknown_verb")
    assert d["block_class"] == "deterministic"
    assert out.gate is not None and out.gate.should_replan
    assert out.next_eligible_at is not None
    report = ex.recorder.get_report(out.run_id)
    assert report is not None and report["execution"]["executor_blocked_reason"] == "unknown_verb"


def test_invalid_args_static_blocks_before_start(tmp_path: Path) -> None:
    defn = m.TreeDefinition(tree="bb", blackboard={"count": "lots"},
                            root=m.SequenceNode(children=[leaf("tap", {"n": "{count}"})]))
    out, ex, _ = run(defn, tmp_path)
    assert out.status == "blocked" and out.dispatches == 0
    d = decision(ex, out.run_id, "invalid_args")
    assert d["block_class"] == "deterministic" and d["detail"]["stage"] == "validation"


def test_invalid_args_at_dispatch_recorded(tmp_path: Path) -> None:
    import py_trees

    defn = m.TreeDefinition(tree="bb", blackboard={"count": 2},
                            root=m.SequenceNode(children=[leaf("tap", {"n": 1}), leaf("tap", {"n": "{count}"})]))
    body = FlatFakeBody()

    def spoil(*_: Any) -> None:
        py_trees.blackboard.Blackboard.storage["/count"] = "lots"

    ex = Executor(make_registry(body), body, config=ExecutorConfig(geofence=FENCE), home=tmp_path, on_tick=spoil)
    out = ex.run(defn)
    assert out.status == "escalated" and out.dispatches == 1
    d = decision(ex, out.run_id, "invalid_args")
    assert d["block_class"] == "deterministic" and d["detail"]["stage"] == "args_schema"


def test_derived_args_blocked_and_materialize_marks_non_certifiable(tmp_path: Path) -> None:
    out, ex, _ = run(tree(leaf("tap", args_source="derived")), tmp_path)
    assert out.status == "blocked"
    assert decision(ex, out.run_id, "derived_args_not_allowed_live")["block_class"] == "deterministic"
    out2, ex2, _ = run(tree(leaf("tap", args_source="derived")), tmp_path / "b", allow_materialize=True)
    assert out2.status == "success" and out2.certifiable is False
    assert ex2.journal.find_run(out2.run_id)["certifiable"] == 0  # type: ignore[index]


def test_sentinel_args_blocked(tmp_path: Path) -> None:
    out, ex, _ = run(tree(leaf("tap", {"label": "unknown"})), tmp_path)
    assert out.status == "blocked"
    assert decision(ex, out.run_id, "sentinel_args")["detail"]["detail"]


def test_guard_failed_escalates_with_precondition_context(tmp_path: Path) -> None:
    out, ex, _ = run(tree(leaf("guarded")), tmp_path)
    assert out.status == "escalated" and out.dispatches == 0
    d = decision(ex, out.run_id, "guard_failed:no_table")
    assert d["detail"]["stage"] == "guard"
    assert out.escalation is not None and out.escalation.context.effects_unmet == "precond_missing"


def test_stage_order_guard_before_geofence(tmp_path: Path) -> None:
    # geofence unconfigured AND a guard that fails: the guard (stage 4) answers first.
    body = FlatFakeBody()
    reg = make_registry(body)
    out = Executor(reg, body, config=ExecutorConfig(geofence=None), home=tmp_path).run(tree(leaf("guarded")))
    assert out.failures[0].reason == "guard_failed:no_table"


def test_geofence_fail_closed_without_bounds(tmp_path: Path) -> None:
    body = FlatFakeBody(inventory={"cobblestone": 2})
    ex = Executor(make_registry(body), body, config=ExecutorConfig(geofence=None), home=tmp_path)
    out = ex.run(tree(leaf("tap"), leaf("place", {"item": "cobblestone", "position": {"x": 1, "y": 64, "z": 1}})))
    assert out.status == "escalated"
    assert decision(ex, out.run_id, "geofence_unconfigured")["capability"] == "place@1.0.0"
    assert out.dispatches == 1 and body.placed == []  # the non-world-changing leaf ran, place did not


def test_geofence_violation_on_target(tmp_path: Path) -> None:
    out, ex, body = run(tree(leaf("place", {"item": "cobblestone", "position": {"x": 90, "y": 64, "z": 0}})),
                        tmp_path)
    assert decision(ex, out.run_id, "geofence_violation:target")["block_class"] == "deterministic"
    assert body.placed == []


def test_permission_profile_refuses_ungranted(tmp_path: Path) -> None:
    out, ex, _ = run(tree(leaf("tap")), tmp_path, profile="observer")
    d = decision(ex, out.run_id, "permission_denied:inventory")
    assert d["detail"]["stage"] == "permissions"
    out2, ex2, _ = run(tree(leaf("redstone_thing")), tmp_path / "b", profile="survival")
    assert decision(ex2, out2.run_id, "permission_denied:redstone")


def test_shadow_mode_observes_and_mutates_nothing(tmp_path: Path) -> None:
    defn = tree(leaf("move", {"pos": {"x": 3, "y": 64, "z": 0}}),
                leaf("place", {"item": "cobblestone", "position": {"x": 3, "y": 64, "z": 1}}))
    out, ex, body = run(defn, tmp_path, shadow=True)
    assert out.status == "success" and out.shadow and not out.certifiable
    assert body.placed == [] and body.handles == [] and body.pos.x == 0.5
    report = ex.recorder.get_report(out.run_id)
    assert report is not None
    assert [s["leaf"] for s in report["execution"]["shadow_steps"]] == ["move", "place"]
    assert report["execution"]["dispatched_total"] == 0
    steps = ex.journal.run_detail(out.run_id)["steps"]
    assert all(s["shadow"] == 1 for s in steps)


def test_rate_limited_waits_transient_backoff(tmp_path: Path) -> None:
    out, ex, _ = run(tree(leaf("tap", {"n": 1}), leaf("tap", {"n": 2})), tmp_path,
                     rate_limit=RateLimit(max_dispatches=1, window_ms=1000))
    assert out.status == "success"
    d = decision(ex, out.run_id, "rate_limited")
    assert d["block_class"] == "transient"
    steps = ex.journal.run_detail(out.run_id)["steps"]
    assert steps[1]["started_tick"] - steps[0]["started_tick"] >= 600  # 30 s of game time


def test_feasibility_gate_blocks_at_dispatch_then_escalates(tmp_path: Path) -> None:
    body = FlatFakeBody(inventory={"cobblestone": 1})
    defn = tree(leaf("place", {"item": "cobblestone", "position": {"x": 1, "y": 64, "z": 0}}),
                leaf("place", {"item": "cobblestone", "position": {"x": 2, "y": 64, "z": 0}}))
    out, ex, _ = run(defn, tmp_path, body=body)
    assert out.status == "escalated"
    d = decision(ex, out.run_id, "rig_g_blocked:has:cobblestone")
    assert d["block_class"] == "transient" and d["detail"]["stage"] == "feasibility"
    assert out.escalation is not None and out.escalation.reason == "transient_block_exhausted"
    assert body.placed == [(1, 64, 0)]


def test_tree_gate_blocks_unreachable_precondition(tmp_path: Path) -> None:
    out, ex, _ = run(tree(leaf("place", {"item": "diamond_block", "position": {"x": 1, "y": 64, "z": 0}})),
                     tmp_path)
    assert out.status == "blocked"
    assert out.gate is not None and out.gate.block_reason == "rig_g_blocked" and out.gate.should_replan
    assert decision(ex, out.run_id, "rig_g_blocked")["block_class"] == "transient"


def test_double_dispatch_same_key_collapsed(tmp_path: Path) -> None:
    out, ex, body = run(tree(leaf("tap", {"n": 1}, idempotency_key="k1"), leaf("tap", {"n": 1}, idempotency_key="k1")),
                        tmp_path)
    assert out.status == "success"
    assert out.dispatches == 1 and [h.kind for h in body.handles] == ["equip"]
    assert decision(ex, out.run_id, "double_dispatch_collapsed")["detail"]["idempotency_key"] == "k1"


def test_post_dispatch_preempted_maps_to_safety_preempted(tmp_path: Path) -> None:
    out, ex, _ = run(tree(leaf("preempted_nav")), tmp_path)
    d = decision(ex, out.run_id, "safety_preempted")
    assert d["block_class"] == "transient"
    assert out.metrics["transient_waits"] == 3 and out.dispatches == 4
    assert out.escalation is not None and out.escalation.reason == "transient_block_exhausted"


def test_post_dispatch_nav_busy_is_not_retried(tmp_path: Path) -> None:
    """No local retry is spent on a body busy navigating: the leaf waits for the walk to end (30 s at most)."""
    out, ex, _ = run(tree(leaf("busy_nav")), tmp_path)
    assert decision(ex, out.run_id, "navigating_in_progress")
    assert out.metrics["local_retries"] == 0
    assert out.dispatches == 31 and out.metrics["transient_waits"] == 30
    assert out.escalation is not None and out.escalation.reason == "navigation_never_ended"
    assert out.ticks >= 30 * 20  # it waited on the body's clock


def test_nav_busy_waits_for_the_walk_to_end_then_runs(tmp_path: Path) -> None:
    out, ex, _ = run(tree(leaf("busy_then_free")), tmp_path)
    assert out.status == "success"
    assert out.dispatches == 3 and out.metrics["local_retries"] == 0
    steps = ex.journal.run_detail(out.run_id)["steps"]
    assert [s["error_code"] for s in steps] == ["navigating_in_progress", "navigating_in_progress", None]
    assert steps[-1]["verdict"] == "verified"


def test_revoked_version_never_runs(tmp_path: Path) -> None:
    body = FlatFakeBody()
    ex = Executor(make_registry(body), body, config=ExecutorConfig(geofence=FENCE), home=tmp_path)
    ex.lifecycle.set("tap@1.0.0", Stage.REVOKED)
    out = ex.run(tree(leaf("tap")))
    assert out.dispatches == 0 and body.handles == []
    assert decision(ex, out.run_id, "capability_revoked")["detail"]["stage"] == "registry"


def test_decisions_are_in_report_and_journal_alike(tmp_path: Path) -> None:
    out, ex, _ = run(tree(leaf("guarded")), tmp_path)
    journal = [d["reason"] for d in decisions(ex, out.run_id)]
    report = [r for r in report_reasons(ex, out.run_id) if r not in ("dispatch", "plan_built")]
    assert journal == report


def test_next_eligible_at_is_five_minutes_for_deterministic(tmp_path: Path) -> None:
    import time

    out, _, _ = run(tree(leaf("nope_verb")), tmp_path)
    assert out.next_eligible_at is not None
    assert abs(out.next_eligible_at - (time.time() * 1000 + DETERMINISTIC_BLOCK_BACKOFF_MS)) < 5_000


def test_bounds_parse_rejects_garbage() -> None:
    assert Bounds.parse("1,2,3:-4,5,6").min_x == -4
    import pytest

    with pytest.raises(ValueError):
        Bounds.parse("1,2:3")
