"""Timeouts that scale with the work (seed 000: smelt 12 s per item + 10 s, at least 30 s)."""

from __future__ import annotations

from pathlib import Path

import pytest

from craftbt.capabilities.default import default_registry
from craftbt.capabilities.leaves.crafting import SmeltArgs, smelt_timeout_ms
from craftbt.executor.config import Bounds, ExecutorConfig
from craftbt.executor.executor import Executor
from craftbt.trees import model as m
from tests.simkit import sim_body

FENCE = Bounds(min_x=-200, min_y=-64, min_z=-200, max_x=200, max_y=320, max_z=200)


@pytest.mark.parametrize(("qty", "ms"), [(1, 30_000), (2, 34_000), (8, 106_000), (16, 202_000), (64, 778_000)])
def test_smelt_timeout_follows_the_seed_formula(qty: int, ms: int) -> None:
    assert smelt_timeout_ms(SmeltArgs(input="raw_iron", qty=qty)) == ms
    assert default_registry().get("smelt").timeout_for(SmeltArgs(input="raw_iron", qty=qty)) == ms


def test_smelt_sixteen_raw_iron_succeeds_under_the_executor(tmp_path: Path) -> None:
    """Was: a fixed 90 s timeout; ``smelt raw_iron qty 10`` timed out with the ore left in the furnace."""
    body, origin = sim_body()
    furnace = origin.offset(dx=2)
    for cmd in (f"/setblock {furnace.x} {furnace.y} {furnace.z} furnace", "/give @s raw_iron 16", "/give @s coal 2"):
        body.run_command(cmd)
    ex = Executor(default_registry(), body, config=ExecutorConfig(geofence=FENCE, max_ticks=8_000), home=tmp_path)
    tree = m.TreeDefinition(tree="smelt16", root=m.SequenceNode(children=[
        m.LeafNode(capability="smelt", args={"input": "raw_iron", "qty": 16})]))
    out = ex.run(tree)
    assert out.ok, out.failures
    steps = ex.journal.run_detail(out.run_id)["steps"]
    assert [(s["ok"], s["verdict"], s["attempt"]) for s in steps] == [(1, "verified", 0)]
    after = body.observe()
    assert after.count("iron_ingot") == 16 and after.count("raw_iron") == 0


def test_a_tree_timeout_still_wins(tmp_path: Path) -> None:
    body, origin = sim_body()
    furnace = origin.offset(dx=2)
    for cmd in (f"/setblock {furnace.x} {furnace.y} {furnace.z} furnace", "/give @s raw_iron 16", "/give @s coal 2"):
        body.run_command(cmd)
    ex = Executor(default_registry(), body, config=ExecutorConfig(geofence=FENCE, max_ticks=8_000), home=tmp_path)
    tree = m.TreeDefinition(tree="smelt16", root=m.SequenceNode(children=[
        m.LeafNode(capability="smelt", args={"input": "raw_iron", "qty": 16}, timeout_ms=20_000)]))
    out = ex.run(tree)
    assert not out.ok
    codes = [s["error_code"] for s in ex.journal.run_detail(out.run_id)["steps"]]
    assert codes and codes[0] == "timeout"
