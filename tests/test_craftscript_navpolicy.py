"""Seed 004's navigation policy (allow_dig, max_drop, max_step) and hazard envelope, for nav(start) and goto."""

from __future__ import annotations

import pytest

from craftbt.craftscript.introspect import Introspection
from craftbt.world.sim.body import SimBody
from tests.csh import body, run

STONE = ("stone", ())
LAVA = ("lava", ())


def ledge(b: SimBody) -> None:
    """A 3-high stone platform from x=1..6 (the bot spawns at 0,64,0 on the ground): stepping off its far edge
    at x=7 drops 3 blocks; the only way down within x<=8 is that drop."""
    for x in range(1, 7):
        for z in range(-3, 4):
            for y in range(64, 67):
                b.world.set_block((x, y, z), STONE)
    b.world.player.position = type(b.world.player.position)(3.5, 67.0, 0.5)


def test_goto_refuses_a_path_whose_drop_exceeds_max_drop() -> None:
    b = body()
    ledge(b)
    out, _ = run("goto(8, 64, 0, tol: 0, max_drop: 2);", on=b)
    assert not out.ok and out.error is not None
    assert out.error["error"] == "no_path" and out.error["notes"]["nav"] == "UNREACHABLE"
    assert "drop of 3" in out.error["message"]
    assert b.position().block() == (3, 67, 0)  # refused before moving
    ok, _ = run("goto(8, 64, 0, tol: 0);", on=b)  # the default (3) lets it jump down
    assert ok.ok, ok.error
    assert b.position().block() == (8, 64, 0)


def test_goto_refuses_a_path_past_lava() -> None:
    b = body()
    for z in range(-20, 21):
        b.world.set_block((3, 63, z), LAVA)  # a lava trench across the way, in the floor
    out, _ = run("goto(6, 64, 0, tol: 0);", on=b)
    assert not out.ok and out.error is not None
    assert out.error["error"] == "invariant_violation" and out.error["notes"]["nav"] == "HAZARD"
    assert "lava" in out.error["message"]


def test_goto_policy_arguments_are_checked() -> None:
    out, _ = run("goto(3, 64, 0, max_drop: 9);")
    assert not out.ok and out.error is not None and out.error["error"] == "bad_args"
    assert "max_drop" in out.error["message"]


def test_nav_start_applies_the_policy_and_reports_the_reason() -> None:
    b = body()
    ledge(b)
    api = Introspection(b)
    refused = api.nav("start", target={"type": "WORLD", "x": 8, "y": 64, "z": 0}, tol=0,
                      policy={"allow_dig": False, "max_drop": 1, "max_step": 1})
    assert refused["state"] == "failed" and refused["reason"] == "UNREACHABLE" and "drop of 3" in refused["detail"]
    with pytest.raises(ValueError, match="max_step"):
        api.nav("start", target={"type": "WORLD", "x": 8, "y": 64, "z": 0}, policy={"max_step": 4})
    with pytest.raises(ValueError, match="tunnel"):
        api.nav("start", target={"type": "WORLD", "x": 8, "y": 64, "z": 0}, policy={"tunnel": True})
    started = api.nav("start", target={"type": "WORLD", "x": 8, "y": 64, "z": 0}, tol=0, policy={"max_drop": 3})
    assert started["state"] == "planning"
    for _ in range(400):
        b.advance(1)
        if api.nav("status", nav_id=started["nav_id"])["state"] != "moving":
            break
    assert api.nav("status", nav_id=started["nav_id"])["state"] == "arrived"


def test_nav_status_stops_the_walk_when_lava_appears_beside_the_bot() -> None:
    b = body()
    api = Introspection(b)
    started = api.nav("start", target={"type": "WORLD", "x": 20, "y": 64, "z": 0}, tol=0)
    for _ in range(10):
        b.advance(1)
        api.nav("status", nav_id=started["nav_id"])
    feet = b.position().block()
    b.world.set_block((feet.x, feet.y - 1, feet.z + 1), LAVA)  # lava flows in beside the floor
    status = api.nav("status", nav_id=started["nav_id"])
    assert status["state"] == "failed" and status["reason"] == "HAZARD" and "lava" in status["detail"]
    here = b.position()
    b.advance(40)
    assert b.position() == here  # the walk was cancelled
