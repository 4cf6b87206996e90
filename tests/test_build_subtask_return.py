"""S001-46: a material the build must dig from the terrain (cobblestone on the flat SimBody(seed=1)).

The sub-task's explore goes down a staircase and acquire_material mines the stone nearest the bot, its
staircase's lowest steps and the floor under its feet among them: the bot ends in a pit near y 55. The
sub-task is done only once the bot is back where it left the build (router/build/return_trip.py).
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

from craftbt.router.build.return_trip import stair_up
from craftbt.router.build.subtasks import SolverAcquirer
from craftbt.trees.structure_template import load_template
from craftbt.world.body import BlockPos
from craftbt.world.sim.body import SimBody
from craftbt.world.sim.snapshot import load_file
from tests.buildkit import make_runner, world_matches


class Killed(BaseException):
    """A crash between the sub-task's mining and its way back (BaseException: nothing catches it)."""


def _short_of_cobblestone() -> SimBody:
    body = SimBody(seed=1)
    for item, n in load_template("hut").materials().items():
        if item != "cobblestone":
            body.give(item, n)
    body.give("stone_pickaxe", 1)
    return body


def _on_site(runner: Any, x: int, y: int, z: int) -> bool:
    b = runner.site.footprint_bounds
    return b.min.x - 1 <= x <= b.max.x + 1 and b.min.z - 1 <= z <= b.max.z + 1 and y >= b.min.y - 2


def test_a_terrain_subtask_brings_the_bot_back_and_the_build_finishes(tmp_path: Path) -> None:
    runner, body, store = make_runner(tmp_path, "hut", body=_short_of_cobblestone(), acquirer=SolverAcquirer())
    meta = runner.run()
    assert meta.status.value == "complete", meta.blocked_reason
    assert world_matches(runner, body)
    # a trip per module short of cobblestone (the roof's is a second one: a mining step stops at the plan's total)
    sub, *later = store.subtasks(meta.task_id)
    assert sub["goal"]["item"] == "cobblestone" and all(t["status"] == "done" for t in [sub, *later])
    phases = [e.get("phase") for e in sub["progress"]]
    assert phases[0] == "depart" and phases[-1] == "returned"
    left_from = next(e for e in sub["progress"] if e.get("phase") == "return")["from"]
    assert left_from[1] < 60  # the mining really ended in a pit: the way back had to be dug
    stair = [a for a in store.actions(runner.build_id) if a["kind"] == "dig" and a["module_id"] is None]
    assert stair and not any(_on_site(runner, a["x"], a["y"], a["z"]) for a in stair)
    assert all(n == 1 for n in store.placement_counts(runner.build_id).values())


def test_a_crash_before_the_way_back_resumes_into_it(tmp_path: Path) -> None:
    def mine_then_die(runner: Any, task: dict[str, Any]) -> bool:
        SolverAcquirer()(runner, task)  # its rounds end in a flush: the pit is in the saved world
        raise Killed

    runner, _body, store = make_runner(tmp_path, "hut", body=_short_of_cobblestone(), acquirer=mine_then_die)
    with contextlib.suppress(Killed):
        runner.run()
    store.close()
    world = load_file(tmp_path / "world.snap")
    assert world.position().y < 60  # saved in the pit
    again, body2, store2 = make_runner(tmp_path, "hut", body=world, acquirer=SolverAcquirer())
    meta = again.run()
    assert meta.status.value == "complete", meta.blocked_reason
    assert world_matches(again, body2)
    sub, *later = store2.subtasks(meta.task_id)
    assert all(t["status"] == "done" for t in [sub, *later]) and sub["progress"][-1]["phase"] == "returned"
    assert all(n == 1 for n in store2.placement_counts(again.build_id).values())


def test_the_stair_turns_away_from_cells_it_may_not_dig() -> None:
    feet, goal = BlockPos(0, 10, 0), BlockPos(20, 14, 0)

    def read(p: BlockPos) -> str:  # stone up to y 13, the feet at the bottom of a 4-deep shaft
        return "air" if p.y >= 14 or ((p.x, p.z) == (0, 0) and p.y >= 10) else "stone"

    def breakable(name: str) -> bool:
        return name != "bedrock"

    straight = stair_up(read, feet, goal, allowed=lambda p: True, breakable=breakable)
    assert straight is not None and [s for s, _ in straight][-1] == BlockPos(4, 14, 0)  # toward the goal
    assert [len(cells) for _, cells in straight] == [2, 3, 1, 0]  # only solid cells are dug

    def off_site(p: BlockPos) -> bool:
        return p.x <= 0  # the site is east of the pit

    turned = stair_up(read, feet, goal, allowed=off_site, breakable=breakable)
    assert turned is not None and all(s.x == 0 for s, _ in turned)
    assert all(off_site(c) for _, cells in turned for c in cells)
    assert stair_up(read, feet, goal, allowed=lambda p: p == feet, breakable=breakable) is None
