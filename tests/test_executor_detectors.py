"""Detectors (TTFA, stuckness, branch hang, pathfinding flap), preemption and tri-state verification."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import py_trees

from craftbt.executor.config import ExecutorConfig
from craftbt.executor.executor import Executor
from craftbt.executor.preemption import LAVA_RECHECK_TICKS, SafetyMonitor, Signal
from craftbt.trees import model as m
from craftbt.world.body import BlockPos, EntityInfo, Position
from tests.executor_fakes import make_registry
from tests.fakes import FlatFakeBody
from tests.test_executor_core import FENCE, leaf, run, tree


def reasons(ex: Executor, run_id: str) -> list[str]:
    return [d["reason"] for d in ex.journal.run_detail(run_id)["decisions"]]


def test_silent_leaf_trips_ttfa_then_stuck_loop_then_escalates(tmp_path: Path) -> None:
    out, ex, _ = run(tree(leaf("silent")), tmp_path)
    got = reasons(ex, out.run_id)
    assert got.count("ttfa_exceeded") == 3  # A1, once per dispatch
    assert got.count("stuck.loop") == 3  # A4, then 2 local retries (A3)
    assert out.status == "escalated" and out.escalation is not None and out.escalation.code == "stuck.loop"
    steps = ex.journal.run_detail(out.run_id)["steps"]
    assert [s["error_code"] for s in steps] == ["stuck.loop"] * 3
    # stuck after > 3 s of game time without an actuator command, not before, and noticed at the next
    # detector sample (every 250 ms) plus the tick the abort takes
    cadence_ms = ExecutorConfig().detectors.sample_every_ticks * 50
    assert all(3000 < s["duration_ms"] <= 3000 + cadence_ms + 100 for s in steps), [s["duration_ms"] for s in steps]


def test_long_running_command_is_not_stuck(tmp_path: Path) -> None:
    body = FlatFakeBody()
    body.goto_ticks = 200  # a 10 s walk: one command, in flight the whole time
    out, ex, _ = run(tree(leaf("move", {"pos": {"x": 20, "y": 64, "z": 0}})), tmp_path, body=body)
    assert out.status == "success"
    assert "stuck.loop" not in reasons(ex, out.run_id)


def test_pathfinding_flap_detected_and_repaired(tmp_path: Path) -> None:
    body = FlatFakeBody()
    body.goto_ticks = 80
    # a path recomputed each way: 250 ms east, 250 ms west, for 3 s, without net motion
    body.wobble = ([(0.2, 0.0)] * 5 + [(-0.2, 0.0)] * 5) * 6
    out, ex, _ = run(tree(leaf("move", {"pos": {"x": 5, "y": 64, "z": 0}})), tmp_path, body=body)
    got = reasons(ex, out.run_id)
    assert "pathfinding_flap" in got and "local_retry" in got
    assert out.status == "success"  # the re-dispatch (local repair) got there
    assert out.metrics["flaps"] >= 1


def test_branch_hang_detected(tmp_path: Path) -> None:
    body = FlatFakeBody()
    registry = make_registry(body)
    ex = Executor(registry, body, config=ExecutorConfig(geofence=FENCE), home=tmp_path)
    # a repeat of a condition that is always false and a failure_is_success: the root stays RUNNING forever
    defn = m.TreeDefinition(tree="hang", root=m.DecoratorNode(
        decorator=m.DecoratorKind.REPEAT, params={"count": -1}, child=m.DecoratorNode(
            decorator=m.DecoratorKind.FAILURE_IS_SUCCESS,
            child=m.ConditionNode(check="has_item", args={"item": "diamond", "count": 1}))))
    out = ex.run(defn)
    assert out.status == "hung"
    assert "branch_hang" in reasons(ex, out.run_id)
    assert out.ticks < 200


def test_hostile_preempts_goal_tree_with_fast_path_and_resumes(tmp_path: Path) -> None:
    body = FlatFakeBody()
    body.goto_ticks = 30
    state: dict[str, Any] = {"spawned": False}

    def spawn(ex: Executor, run: Any, root: py_trees.behaviour.Behaviour) -> None:
        if not state["spawned"] and body.tick == 10:
            state["spawned"] = True
            body.mobs.append(EntityInfo(id=7, name="zombie", kind="hostile", position=Position(2.0, 64.0, 2.0)))

    ex = Executor(make_registry(body), body, config=ExecutorConfig(geofence=FENCE), home=tmp_path, on_tick=spawn)
    out = ex.run(tree(leaf("move", {"pos": {"x": 6, "y": 64, "z": 0}}), leaf("tap", {"n": 1})))
    assert out.status == "success"
    got = reasons(ex, out.run_id)
    assert got.index("safety_preempt") < got.index("preemption_resumed")
    steps = ex.journal.run_detail(out.run_id)["steps"]
    assert [s["capability"] for s in steps] == ["move", "retreat_from_threat", "move", "tap"]
    assert steps[0]["error_code"] == "safety_preempted_by_executor"
    assert "goto" in body.cancelled  # the interrupted walk was cancelled, then re-dispatched


def test_preemption_waits_for_atomic_action(tmp_path: Path) -> None:
    body = FlatFakeBody(inventory={"cobblestone": 1})
    body.place_ticks = 12  # the atomic action is in flight when the signal is sampled

    def starve(ex: Executor, run: Any, root: py_trees.behaviour.Behaviour) -> None:
        if body.tick == 0:
            body.hunger = 4
            body.items["bread"] = 1

    ex = Executor(make_registry(body), body, config=ExecutorConfig(geofence=FENCE), home=tmp_path, on_tick=starve)
    out = ex.run(tree(leaf("place", {"item": "cobblestone", "position": {"x": 1, "y": 64, "z": 0}}), leaf("tap")))
    assert out.status == "success"
    got = reasons(ex, out.run_id)
    assert got.count("preemption_deferred") == 1 and "safety_preempt" in got
    steps = ex.journal.run_detail(out.run_id)["steps"]
    assert [s["capability"] for s in steps] == ["place", "consume_food", "tap"]
    assert steps[0]["ok"] == 1  # the atomic place was never abandoned
    assert body.hunger == 20


def test_fast_path_skipped_when_capability_unregistered(tmp_path: Path) -> None:
    body = FlatFakeBody()
    registry = make_registry(body)
    registry.unregister("consume_food")
    body.hunger = 3
    out, ex, _ = run(tree(leaf("tap")), tmp_path, body=body, registry=registry)
    assert out.status == "success" and "safety_preempt" not in reasons(ex, out.run_id)


def test_contradicted_verification_redispatches(tmp_path: Path) -> None:
    body = FlatFakeBody(inventory={"cobblestone": 3})
    registry = make_registry(body)
    spec = registry.get("place")
    calls = {"n": 0}
    original = spec.acceptance

    def flaky_accept(pre: Any, post: Any, args: Any, result: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == 1:
            from craftbt.capabilities.spec import VerificationResult

            return VerificationResult.contradicted(block="stone", expected=args.item)
        return original(pre, post, args, result)

    object.__setattr__(spec, "acceptance", flaky_accept)
    out, ex, _ = run(tree(leaf("place", {"item": "cobblestone", "position": {"x": 1, "y": 64, "z": 0}})),
                     tmp_path, body=body, registry=registry)
    steps = ex.journal.run_detail(out.run_id)["steps"]
    assert [s["verdict"] for s in steps][:1] == ["contradicted"]
    assert steps[0]["error_code"] == "verification_contradicted"
    assert "verification_contradicted" in reasons(ex, out.run_id)


def test_five_cobblestones_inconclusive_probes_never_redispatch(tmp_path: Path) -> None:
    """Seed 000: inconclusive verification (chunk not loaded) used to re-dispatch; now one block is placed."""
    body = FlatFakeBody(inventory={"cobblestone": 5})
    body.unloaded.add((1, 64, 0).__class__((1, 64, 0)))  # type: ignore[call-arg]
    from craftbt.world.body import BlockPos

    body.unloaded = {BlockPos(1, 64, 0)}
    out, ex, _ = run(tree(leaf("place", {"item": "cobblestone", "position": {"x": 1, "y": 64, "z": 0}})),
                     tmp_path, body=body)
    assert out.status == "success"
    assert len(body.placed) == 1 and body.items["cobblestone"] == 4
    steps = ex.journal.run_detail(out.run_id)["steps"]
    assert len(steps) == 1 and steps[0]["verdict"] == "inconclusive"
    assert steps[0]["evidence"]["accepted_on_probe_timeout"] is True
    assert "verification_inconclusive" in reasons(ex, out.run_id)


def test_lava_signal_on_stepping_in_and_when_it_flows_under_a_standing_bot() -> None:
    body = FlatFakeBody()
    safety = SafetyMonitor(make_registry(body))
    assert safety.poll(body) == []
    # walking into lava: the feet enter another block, so the cells are read on the next poll
    body.blocks[BlockPos(3, 63, 0)] = "lava"
    body.pos = Position(3.5, 64.0, 0.5)
    body.advance(5)
    assert safety.poll(body) == [Signal.LAVA]
    body.pos = Position(0.5, 64.0, 0.5)
    body.advance(5)
    assert safety.poll(body) == []
    # lava flowing under a bot that stands still is seen within LAVA_RECHECK_TICKS
    body.blocks[BlockPos(0, 63, 0)] = "flowing_lava"
    seen_after = None
    for waited in range(5, LAVA_RECHECK_TICKS + 10, 5):
        body.advance(5)
        if safety.poll(body) == [Signal.LAVA]:
            seen_after = waited
            break
    assert seen_after is not None and seen_after <= LAVA_RECHECK_TICKS


def test_a_signal_without_a_registered_fast_path_is_recorded_not_skipped(tmp_path: Path, monkeypatch: Any) -> None:
    from craftbt.executor.preemption import FastPath

    # a table naming only an unregistered capability (as pillar_up was): the signal is said once, not dropped
    monkeypatch.setattr(SafetyMonitor.__init__, "__defaults__", (None, (FastPath(Signal.HOSTILE_NEAR, "pillar_up"),)))
    body = FlatFakeBody()
    body.goto_ticks = 30
    body.mobs.append(EntityInfo(id=7, name="zombie", kind="hostile", position=Position(2.0, 64.0, 2.0)))
    ex = Executor(make_registry(body), body, config=ExecutorConfig(geofence=FENCE), home=tmp_path)
    out = ex.run(tree(leaf("move", {"pos": {"x": 6, "y": 64, "z": 0}}), leaf("tap", {"n": 1})))
    assert out.status == "success"
    got = reasons(ex, out.run_id)
    assert got.count("fast_path_unavailable") == 1 and "safety_preempt" not in got
