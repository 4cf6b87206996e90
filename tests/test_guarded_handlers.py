"""The semantic-guard handlers (seed 000 S000-17): multi-block placement and collect with explore-on-fail
run on the embedded world as verified leaves; what a handler cannot do is refused, never guessed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from craftbt.capabilities.default import default_registry
from craftbt.core.errors import CraftbtError
from craftbt.executor.config import Bounds, ExecutorConfig
from craftbt.executor.executor import Executor
from craftbt.planners.guarded import action_node
from craftbt.trees import model as m
from tests.simkit import sim_body

FENCE = Bounds(min_x=-200, min_y=-64, min_z=-200, max_x=200, max_y=320, max_z=200)


def run_node(tmp_path: Path, body: Any, node: m.Node) -> tuple[Any, list[dict[str, Any]]]:
    ex = Executor(default_registry(), body, config=ExecutorConfig(geofence=FENCE, max_ticks=6_000), home=tmp_path)
    out = ex.run(m.TreeDefinition(tree="guarded", root=node))
    return out, ex.journal.run_detail(out.run_id)["steps"]


def test_count_above_one_places_each_block_verified(tmp_path: Path) -> None:
    body, feet = sim_body()
    body.run_command("/give @s cobblestone 8")
    node = action_node("place_block", {"block_type": "cobblestone", "count": 3})
    out, steps = run_node(tmp_path, body, node)
    assert out.ok, out.failures
    assert [(s["capability"], bool(s["ok"]), s["verdict"]) for s in steps] == [("place_block", True, "verified")] * 3
    around = [feet.offset(dx=dx, dz=dz) for dx, dz in ((1, 0), (-1, 0), (0, 1), (0, -1))]
    assert sum(body.block_at(p).name == "cobblestone" for p in around) == 3
    assert body.observe().count("cobblestone") == 5


def test_a_line_placement_puts_blocks_where_it_says(tmp_path: Path) -> None:
    body, feet = sim_body()
    body.run_command("/give @s cobblestone 8")
    start = feet.offset(dx=2)
    node = action_node("place_block", {"block_type": "cobblestone", "count": 4, "placement": "line", "axis": "z",
                                       "position": {"x": start.x, "y": start.y, "z": start.z}})
    out, steps = run_node(tmp_path, body, node)
    assert out.ok, out.failures
    assert len(steps) == 4 and all(s["ok"] and s["verdict"] == "verified" for s in steps)
    assert [body.block_at(start.offset(dz=i)).name for i in range(4)] == ["cobblestone"] * 4


def test_collect_explores_when_nothing_is_near(tmp_path: Path) -> None:
    body, feet = sim_body()
    body.run_command('/summon item ~ ~1 ~15 {Item:{id:"minecraft:diamond",Count:3}}')
    node = action_node("collect_items_enhanced", {"item": "diamond", "exploreOnFail": True}, at=feet)
    assert isinstance(node, m.SelectorNode)
    out, steps = run_node(tmp_path, body, node)
    assert out.ok, out.failures
    assert body.observe().count("diamond") == 3
    assert "collect diamond here" not in {s["node"] for s in steps if s["ok"]}  # nothing within reach here
    assert steps[0]["capability"] == "move_to" and steps[0]["ok"]  # so it walked out to look
    assert steps[-1]["capability"] == "collect_items" and steps[-1]["ok"] and steps[-1]["verdict"] == "verified"
    for step in steps:  # every step closed with its result; a walk that found nothing is a failed collect only
        assert step["ok"] is not None
        if step["ok"]:
            assert step["verdict"] == "verified", step


def test_without_the_guard_the_plain_leaf_runs() -> None:
    assert isinstance(action_node("place_block", {"block_type": "dirt"}), m.LeafNode)
    plain = action_node("collect_items_enhanced", {"item": "diamond"})
    assert isinstance(plain, m.LeafNode) and plain.capability == "collect_items"


@pytest.mark.parametrize(("params", "match"), [
    ({"block_type": "dirt", "count": 5}, "at most 4"),
    ({"block_type": "dirt", "count": 2, "placement": "ring"}, "unknown placement"),
    ({"block_type": "dirt", "count": 2, "placement": "column"}, "needs a position"),
    ({"block_type": "dirt", "count": 99}, "count must be"),
])
def test_what_a_handler_cannot_do_is_refused(params: dict[str, Any], match: str) -> None:
    with pytest.raises(CraftbtError, match=match):
        action_node("place_block", params)


def test_explore_needs_a_starting_point() -> None:
    with pytest.raises(CraftbtError, match="player's position"):
        action_node("collect_items_enhanced", {"item": "diamond", "exploreOnFail": True})
