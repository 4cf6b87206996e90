"""Server commands are a permission of their own: profile + per-command allowlist, on every path to the server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from craftbt.capabilities.default import default_registry
from craftbt.capabilities.spec import ActionResult, CapabilitySpec, Family, Permission, RunnerGen, VerificationResult
from craftbt.executor.config import PROFILES, Bounds, ExecutorConfig
from craftbt.executor.executor import Executor, RunOutcome
from craftbt.executor.failures import Failure
from craftbt.trees import model as m
from craftbt.world.scenarios.loader import build
from craftbt.world.scenarios.schema import Scenario

FENCE = Bounds(min_x=-64, min_y=-64, min_z=-64, max_x=64, max_y=320, max_z=64)


def op_world() -> Any:
    """A flat world whose bot IS a server operator: only craftbt's own policy stands between tree and server."""
    return build(Scenario.model_validate({"name": "op", "player": {"operator": True}}))


def chat_tree(message: str) -> m.TreeDefinition:
    return m.TreeDefinition(tree="cmd", root=m.SequenceNode(children=[
        m.LeafNode(capability="chat", args={"message": message})]))


def run(defn: m.TreeDefinition, tmp_path: Path, body: Any, registry: Any = None, **config: Any) -> RunOutcome:
    config.setdefault("geofence", FENCE)
    ex = Executor(registry or default_registry(), body, config=ExecutorConfig(**config), home=tmp_path)
    try:
        return ex.run(defn)
    finally:
        ex.journal.close()


def command_refusals(out: RunOutcome) -> list[Failure]:
    return [d for d in out.failures if d.reason == "permission_denied:command"]


@pytest.mark.parametrize("profile", ["observer", "survival", "full", "builder"])
def test_give_is_refused_without_the_command_permission(tmp_path: Path, profile: str) -> None:
    body = op_world()
    out = run(chat_tree("/give @s diamond_pickaxe 1"), tmp_path, body, profile=profile)
    assert out.status != "success" and out.dispatches == 0
    [refusal] = command_refusals(out)[:1]
    assert refusal.command == "give" and "/give" in refusal.detail
    body.advance(5)
    assert body.observe().count("diamond_pickaxe") == 0


def test_operator_profile_still_needs_the_command_on_the_allowlist(tmp_path: Path) -> None:
    body = op_world()
    out = run(chat_tree("/op someone"), tmp_path, body, profile="operator", allowed_commands=frozenset({"give"}))
    assert out.status != "success" and command_refusals(out)[0].command == "op"


def test_allowlisted_command_under_the_operator_profile_runs(tmp_path: Path) -> None:
    body = op_world()
    out = run(chat_tree("/give @s diamond_pickaxe 1"), tmp_path, body, profile="operator",
              allowed_commands=frozenset({"give"}))
    assert out.status == "success", out.failures
    assert body.observe().count("diamond_pickaxe") == 1


def test_plain_chat_needs_no_command_permission(tmp_path: Path) -> None:
    out = run(chat_tree("hello there"), tmp_path, op_world(), profile="observer")
    assert out.status == "success"


def test_only_the_operator_profile_grants_commands() -> None:
    assert [name for name, perms in PROFILES.items() if Permission.COMMAND in perms] == ["operator"]
    assert ExecutorConfig().command_refusal("/give @s dirt") is not None  # the default profile


def test_allowlist_entries_are_names() -> None:
    with pytest.raises(ValueError, match="command name"):
        ExecutorConfig(allowed_commands=frozenset({"/give"}))


def test_control_environment_is_a_command_too(tmp_path: Path) -> None:
    tree = m.TreeDefinition(tree="env", root=m.SequenceNode(children=[
        m.LeafNode(capability="control_environment", args={"action": "set_time", "time": "night"})]))
    body = op_world()
    before = body.time_of_day()
    out = run(tree, tmp_path, body, profile="survival")
    assert command_refusals(out)[0].command == "time"
    assert abs(body.time_of_day() - before) < 1_000
    ok = run(tree, tmp_path / "ok", op_world(), profile="operator", allowed_commands=frozenset({"time"}))
    assert ok.status == "success", ok.failures


def _sneaky_runner(ctx: Any, args: Any) -> RunGen:
    """A plugin leaf that sends a command without declaring it (no command_of)."""
    handle = yield ctx.body.chat("/give @s diamond 64")
    return ActionResult.success(sent=handle is not None)


RunGen = RunnerGen


def test_an_undeclared_command_is_stopped_at_the_body(tmp_path: Path) -> None:
    from pydantic import BaseModel

    class NoArgs(BaseModel):
        pass

    registry = default_registry()
    registry.register(CapabilitySpec(
        name="sneaky", version="1.0.0", family=Family.SENSING, args_model=NoArgs, runner=_sneaky_runner,
        acceptance=lambda pre, post, args, result: VerificationResult.verified(),
        permissions=frozenset({Permission.CHAT})))
    body = op_world()
    tree = m.TreeDefinition(tree="s", root=m.SequenceNode(children=[m.LeafNode(capability="sneaky")]))
    out = run(tree, tmp_path, body, registry=registry, profile="survival")
    assert out.status != "success"
    body.advance(5)
    assert body.observe().count("diamond") == 0


def test_the_embedded_world_runs_chat_commands_only_for_an_operator(tmp_path: Path) -> None:
    from craftbt.world.scenarios.loader import starter_world

    body = starter_world(0)
    assert body.is_operator() is False
    out = run(chat_tree("/give @s diamond 1"), tmp_path, body, profile="operator",
              allowed_commands=frozenset({"give"}))
    assert out.status != "success"
    body.advance(5)
    assert body.observe().count("diamond") == 0
