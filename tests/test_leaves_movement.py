"""Movement leaves on the embedded world: move_to/navigate, step_forward_safely, follow_entity."""

from __future__ import annotations

import py_trees

from craftbt.capabilities.behaviour import CapabilityBehaviour
from craftbt.capabilities.spec import Verdict
from craftbt.world.body import BlockPos
from craftbt.world.scenarios.loader import load_scenario
from tests.leafkit import make_context, run_leaf, shared_registry

SCENARIOS = "world/scenarios/leaves/"


def test_move_to_walks_around_the_wall_and_verifies() -> None:
    body = load_scenario(SCENARIOS + "move_to.yaml")
    run = run_leaf(body, "move_to", {"pos": {"x": 6, "y": 64, "z": 0}})
    assert run.ok and run.verdict is Verdict.VERIFIED
    assert body.position().distance_to(BlockPos(6, 64, 0)) <= 2.0
    assert run.observables["pathLength"] > 5
    assert run.result.verification is not None
    assert run.result.verification.evidence["distance_after"] <= 2.0


def test_navigate_is_move_to_under_its_seed_name() -> None:
    registry = shared_registry()
    assert registry.get("navigate").args_schema() == registry.get("move_to").args_schema()
    body = load_scenario(SCENARIOS + "move_to.yaml")
    run = run_leaf(body, "navigate", {"pos": {"x": 0, "y": 64, "z": 6}, "goal": "block"})
    assert run.ok and run.verdict is Verdict.VERIFIED
    assert body.position().block() == BlockPos(0, 64, 6)


def test_move_to_refuses_a_lava_target_unless_unsafe_is_asked() -> None:
    body = load_scenario(SCENARIOS + "move_to.yaml")
    start = body.position()
    run = run_leaf(body, "move_to", {"pos": {"x": -8, "y": 64, "z": 0}})
    assert run.code == "guard_failed:unsafe_target"
    assert body.position() == start


def test_move_to_unreachable_fails_with_no_path() -> None:
    body = load_scenario(SCENARIOS + "move_to.yaml")
    run = run_leaf(body, "move_to", {"pos": {"x": 2, "y": 80, "z": 0}, "goal": "block"})
    assert not run.ok and run.code == "no_path"


def test_move_to_interrupted_stops_the_walk() -> None:
    body = load_scenario(SCENARIOS + "move_to.yaml")
    ctx = make_context(body)
    node = CapabilityBehaviour("walk", ctx.registry.get("move_to"), {"pos": {"x": 12, "y": 64, "z": 0}}, ctx)
    for _ in range(5):
        node.tick_once()
        body.advance(1)
    node.stop(py_trees.common.Status.INVALID)
    here = body.position()
    body.advance(40)
    assert body.position() == here


def test_step_forward_safely_stops_before_lava() -> None:
    body = load_scenario(SCENARIOS + "step_forward_safely.yaml")
    run = run_leaf(body, "step_forward_safely", {"distance": 6})
    assert run.ok and run.verdict is Verdict.VERIFIED
    assert run.observables["stepped"] == 3
    assert run.observables["stoppedShort"] == "hazard"
    assert body.position().block() == BlockPos(0, 64, -3)


def test_step_forward_safely_refuses_a_wall_ahead() -> None:
    body = load_scenario(SCENARIOS + "step_forward_safely.yaml")
    body.world.player.yaw = 3.14159  # face south, into the stone wall
    run = run_leaf(body, "step_forward_safely", {})
    assert run.code == "guard_failed:unsafe_ahead"


def test_follow_entity_reaches_the_pig() -> None:
    body = load_scenario(SCENARIOS + "follow_entity.yaml")
    pig = next(e for e in body.entities(20) if e.name == "pig")
    run = run_leaf(body, "follow_entity", {"entityId": pig.id, "range": 3})
    assert run.ok and run.verdict is Verdict.VERIFIED
    assert body.position().distance_to(pig.position) <= 3.0


def test_follow_entity_refuses_an_unknown_entity() -> None:
    body = load_scenario(SCENARIOS + "follow_entity.yaml")
    assert run_leaf(body, "follow_entity", {"entityId": 987654}).code == "guard_failed:no_target"
