"""Acceptance tests for the "run_script", "call_function" and "build_up" capabilities (CraftScript as leaves)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from craftbt.craftscript.functions import FunctionStore
from craftbt.executor.config import Bounds, ExecutorConfig
from craftbt.executor.executor import Executor
from craftbt.trees import model as m
from craftbt.trees.loader import load_text
from tests.csh import body, name_at
from tests.leafkit import run_leaf, shared_registry


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CRAFTBT_HOME", str(tmp_path))


def test_run_script_leaf_runs_commands_and_reports_changes() -> None:
    b = body(give={"cobblestone": 2})
    run = run_leaf(b, "run_script", {"source": 'place("cobblestone", 2, 64, 0); log("done");'}, max_ticks=400)
    assert run.ok, run.result.error
    assert name_at(b, 2, 64, 0) == "cobblestone"
    assert run.observables["block_changes"][0]["pos"] == [2, 64, 0]
    assert run.verdict is not None and run.verdict.value == "verified"


def test_run_script_guard_refuses_a_script_that_does_not_compile() -> None:
    run = run_leaf(body(), "run_script", {"source": "dgi(f1);"})
    assert not run.ok and run.code is not None and run.code.startswith("guard_failed:compile_error")


def test_run_script_failure_carries_the_script_error() -> None:
    run = run_leaf(body(), "run_script", {"source": "break(0, 70, 0);"})
    assert not run.ok and run.code == "no_target"
    assert run.observables["script_error"]["loc"] == {"line": 1, "column": 1, "source": "run_script"}


def test_call_function_runs_the_latest_version() -> None:
    b = body(give={"dirt": 3})
    store = FunctionStore(b.name)
    store.create("tower", "build_up(\"dirt\");", args=[{"name": "h", "type": "int"}])
    store.edit("tower", "repeat(h) { build_up(\"dirt\"); }")
    run = run_leaf(b, "call_function", {"name": "tower", "args": {"h": 3}}, max_ticks=400)
    assert run.ok, run.result.error
    assert b.position().block() == (0, 67, 0)
    missing = run_leaf(b, "call_function", {"name": "nope"})
    assert missing.code == "guard_failed:unknown_function"


def test_script_commands_obey_the_run_geofence_and_profile(tmp_path: Path) -> None:
    tree = load_text('tree: t\nversion: 1\nroot:\n  leaf: run_script\n  args: {source: "dig(0, 63, 0);"}\n').definition
    b = body()
    fence = Bounds.parse("-50,0,-50:50,100,50")
    ex = Executor(shared_registry(), b, config=ExecutorConfig(geofence=fence), home=tmp_path)
    assert ex.run(tree).ok
    assert name_at(b, 0, 63, 0) == "air"
    # the dig target lies outside a fence that still holds the bot: the nested command is refused
    far = load_text('tree: t\nversion: 1\nroot:\n  leaf: run_script\n  args: {source: "dig(0, 62, 3);"}\n').definition
    b2 = body()
    tight = Bounds.parse("-1,60,-1:1,70,1")
    out = Executor(shared_registry(), b2, config=ExecutorConfig(geofence=tight), home=tmp_path).run(far)
    assert not out.ok and name_at(b2, 0, 62, 3) == "dirt"
    # a profile without dig refuses the whole leaf before it starts
    out2 = Executor(shared_registry(), body(), config=ExecutorConfig(geofence=fence, profile="observer"),
                    home=tmp_path).run(tree)
    assert not out2.ok


def test_build_up_leaf_places_under_the_feet_and_rises() -> None:
    b = body(give={"dirt": 2})
    feet = b.position().block()
    run = run_leaf(b, "build_up", {"item": "dirt"}, max_ticks=100)
    assert run.ok, run.result.error
    assert name_at(b, feet.x, feet.y, feet.z) == "dirt"
    assert b.position().block() == feet.offset(dy=1)
    assert run.verdict is not None and run.verdict.value == "verified"


def test_build_up_leaf_refuses_without_the_item() -> None:
    run = run_leaf(body(), "build_up", {"item": "dirt"})
    assert not run.ok and run.code == "guard_failed:precond_missing:item"


# -- nested commands pass the pipeline's own admission stages -------------------------------------------
def _flat() -> Any:
    from craftbt.world.scenarios.loader import build
    from craftbt.world.scenarios.schema import Scenario

    return build(Scenario.model_validate({"name": "flat", "player": {"operator": True}}))


def _reasons(out: Any) -> list[str]:
    return [d.reason for d in out.failures]


def _one_leaf(capability: str, args: dict[str, Any]) -> m.TreeDefinition:
    return m.TreeDefinition(tree="t", root=m.SequenceNode(children=[m.LeafNode(capability=capability, args=args)]))


@pytest.mark.parametrize("leaf", ["move_to", "run_script"])
def test_a_goto_outside_the_fence_is_refused_before_the_bot_moves(tmp_path: Path, leaf: str) -> None:
    b = _flat()
    p = b.position()
    fence = Bounds(min_x=int(p.x) - 5, min_y=-64, min_z=int(p.z) - 5, max_x=int(p.x) + 5, max_y=320,
                   max_z=int(p.z) + 5)
    target = (int(p.x) + 40, int(p.y), int(p.z))
    args: dict[str, Any] = ({"pos": dict(zip("xyz", target, strict=True))} if leaf == "move_to"
                            else {"source": f"goto({target[0]}, {target[1]}, {target[2]});"})
    out = Executor(shared_registry(), b, config=ExecutorConfig(geofence=fence), home=tmp_path).run(
        _one_leaf(leaf, args))
    assert not out.ok
    assert "geofence_violation:target" in _reasons(out), _reasons(out)
    assert "geofence_violation:path" not in _reasons(out)
    assert b.position() == p


def _chat_through_nested_hooks(ctx: Any, args: Any) -> Any:
    """A leaf that dispatches a command itself, the way run_script does: through nested_context."""
    from craftbt.craftscript.dispatch import Dispatcher, nested_context

    result = yield from Dispatcher(nested_context(ctx)).run("chat", {"message": args.message}, "nested_chat")
    return result


@pytest.mark.parametrize(("message", "refused"), [("/time set night", True), ("/give @s diamond 1", False)])
def test_a_nested_server_command_needs_the_allowlist(tmp_path: Path, message: str, refused: bool) -> None:
    from craftbt.capabilities.default import register_all
    from craftbt.capabilities.leaves.sensing import ChatArgs
    from craftbt.capabilities.registry import Registry
    from craftbt.capabilities.spec import CapabilitySpec, Family, Permission, VerificationResult

    registry = Registry()
    register_all(registry)
    registry.register(CapabilitySpec(
        name="relay_chat", version="1.0.0", family=Family.SENSING, args_model=ChatArgs,
        runner=_chat_through_nested_hooks, acceptance=lambda pre, post, args, result: VerificationResult.verified(),
        permissions=frozenset({Permission.CHAT}), description="chat through a nested dispatch"))
    b = _flat()
    config = ExecutorConfig(geofence=Bounds.parse("-64,-64,-64:64,320,64"), profile="operator",
                            allowed_commands=frozenset({"give"}))
    before = b.time_of_day()
    out = Executor(registry, b, config=config, home=tmp_path).run(_one_leaf("relay_chat", {"message": message}))
    if refused:
        assert not out.ok and "permission_denied:command" in _reasons(out), _reasons(out)
        refusal = next(d for d in out.failures if d.reason == "permission_denied:command")
        assert refusal.command == "time" and refusal.node is not None and refusal.node.endswith("/nested_chat"), refusal
        b.advance(5)
        assert abs(b.time_of_day() - before) < 1_000  # the night never came
    else:
        assert out.ok, _reasons(out)
        assert b.observe().count("diamond") == 1
