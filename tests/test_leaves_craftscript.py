"""Acceptance tests for the "run_script", "call_function" and "build_up" capabilities (CraftScript as leaves)."""

from __future__ import annotations

from pathlib import Path

import pytest

from craftbt.craftscript.functions import FunctionStore
from craftbt.executor.config import Bounds, ExecutorConfig
from craftbt.executor.executor import Executor
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
