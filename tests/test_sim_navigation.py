"""Pathfinding, the navigation lease and determinism of the simulated world."""

from __future__ import annotations

import pytest

from craftbt.world.body import ActionStatus, BlockPos, BodyError, BodyErrorCode
from craftbt.world.scenarios import load_scenario, starter_world
from craftbt.world.sim.body import SimBody
from craftbt.world.sim.loop import run_until
from craftbt.world.sim.snapshot import dumps, loads


def test_path_around_a_wall() -> None:
    b = SimBody(seed=1)
    b.run_command("/fill 3 64 -5 3 65 5 cobblestone")
    h = b.goto(BlockPos(6, 64, 0), 0)
    assert run_until(h, b) is ActionStatus.SUCCEEDED
    assert b.position().block() == BlockPos(6, 64, 0)
    assert h.result()["blocks_walked"] > 6  # it went round, not through
    assert b.block_at(BlockPos(3, 64, 0)).name == "cobblestone"


def test_step_up_one_block_but_not_two() -> None:
    b = SimBody(seed=1)
    b.run_command("/fill 2 64 -3 2 64 3 cobblestone")
    h = b.goto(BlockPos(4, 64, 0), 0)
    assert run_until(h, b) is ActionStatus.SUCCEEDED
    b2 = SimBody(seed=1)
    # A closed box of two-high walls: no way out.
    b2.run_command("/fill -2 64 -2 2 65 2 cobblestone outline")
    b2.run_command("/fill -1 64 -1 1 65 1 air")
    b2.run_command("/fill -2 66 -2 2 66 2 cobblestone")
    with pytest.raises(BodyError) as err:
        b2.goto(BlockPos(8, 64, 0), 0)
    assert err.value.code is BodyErrorCode.NO_PATH
    assert b2.running_handles() == []


def test_newer_goto_preempts_older() -> None:
    b = SimBody(seed=1)
    first = b.goto(BlockPos(20, 64, 0), 0)
    b.advance(3)
    second = b.goto(BlockPos(-5, 64, 0), 0)
    assert first.status() is ActionStatus.CANCELLED
    err = first.error()
    assert err is not None and err.code is BodyErrorCode.PREEMPTED
    assert run_until(second, b) is ActionStatus.SUCCEEDED
    assert b.position().block() == BlockPos(-5, 64, 0)


def test_walking_takes_simulated_time() -> None:
    b = SimBody(seed=1)
    h = b.goto(BlockPos(10, 64, 0), 0)
    run_until(h, b)
    assert 40 <= h.result()["ticks"] <= 60  # 10 blocks at 4.317 blocks/s is ~46 ticks
    assert h.result()["seconds"] == h.result()["ticks"] / 20


def test_goto_bad_arguments() -> None:
    b = SimBody(seed=1)
    with pytest.raises(BodyError) as err:
        b.goto(BlockPos(0, 64, 0), -1)
    assert err.value.code is BodyErrorCode.INVALID_ARGUMENT
    with pytest.raises(BodyError) as err:
        b.goto(BlockPos(0, 9999, 0))
    assert err.value.code is BodyErrorCode.INVALID_ARGUMENT


def _episode(seed: int) -> bytes:
    b = starter_world(seed)
    logs = b.find_blocks(["oak_log", "birch_log"], 16, 1)
    h = b.goto(logs[0], 3.0)
    run_until(h, b)
    d = b.dig(logs[0])
    run_until(d, b)
    b.run_command("/time set midnight")
    b.run_command("/summon zombie ~5 ~ ~")
    b.advance(400)
    return dumps(b)


def test_same_seed_same_snapshot_bytes() -> None:
    a, b = _episode(7), _episode(7)
    assert a == b
    assert _episode(8) != a


def test_snapshot_round_trip_resumes_identically() -> None:
    b = load_scenario("hostile_swarm")
    b.advance(50)
    copy = loads(dumps(b))
    assert dumps(copy) == dumps(b)
    b.advance(100)
    copy.advance(100)
    assert dumps(copy) == dumps(b)
