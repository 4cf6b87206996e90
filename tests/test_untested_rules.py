"""Rules that could be removed with every test passing: each test here fails when its rule is taken out.

* attack_entity backs off and fails ``low_health`` when health falls to retreatHealth during the fight;
* close_container with waitForItems closes a furnace only once its input is cooked;
* a bot outside the geofence may not change the world (it may still walk back in).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from craftbt.capabilities.default import default_registry
from craftbt.capabilities.leaves.combat import ATTACK_REACH
from craftbt.executor.config import Bounds, ExecutorConfig
from craftbt.executor.executor import Executor
from craftbt.trees import model as m
from craftbt.world.body import BlockPos
from tests.leafkit import run_leaf
from tests.simkit import sim_body


class Hurt:
    """A body whose health falls to ``low`` once the bot has swung at something (the fight is on)."""

    def __init__(self, inner: Any, low: float) -> None:
        self.inner, self.low, self.swung = inner, low, False

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def attack(self, entity_id: int) -> Any:
        self.swung = True
        return self.inner.attack(entity_id)

    def health(self) -> float:
        return self.low if self.swung else float(self.inner.health())


def test_attack_retreats_when_health_falls_during_the_fight() -> None:
    body, origin = sim_body()
    body.run_command(f"/summon zombie {origin.x} {origin.y} {origin.z + 2} {{NoAI:1b}}")
    zombie = next(e for e in body.entities(16.0) if e.name == "zombie")
    hurt = Hurt(body, low=4.0)
    run = run_leaf(hurt, "attack_entity", {"entityType": "zombie", "retreatHealth": 6}, max_ticks=2_000)
    assert hurt.swung  # the fight began at full health
    assert run.code == "low_health" and run.observables["hits"] >= 1
    still = next((e for e in body.entities(32.0) if e.id == zombie.id), None)
    assert still is not None  # it backed off instead of fighting on to the kill
    assert body.position().distance_to(still.position) > ATTACK_REACH + 2


def test_close_container_waits_until_the_furnace_has_cooked_its_input() -> None:
    body, origin = sim_body()
    furnace = origin.offset(dx=2)
    for cmd in (f"/setblock {furnace.x} {furnace.y} {furnace.z} furnace", "/give @s raw_iron 1", "/give @s coal 1"):
        body.run_command(cmd)
    assert run_leaf(body, "open_container", {"containerType": "furnace"}).ok
    assert run_leaf(body, "transfer_items", {"item": "raw_iron", "count": 1, "mode": "deposit", "slot": "input"}).ok
    assert run_leaf(body, "transfer_items", {"item": "coal", "count": 1, "mode": "deposit", "slot": "fuel"}).ok
    body.advance(140)  # an item cooks in 200 ticks: 60 to go, inside close_container's 5 s budget
    window = body.open_window()
    assert window is not None and window.slots.get("input")
    closed = run_leaf(body, "close_container", {"waitForItems": True}, max_ticks=400)
    assert closed.ok and body.open_window() is None
    assert closed.ticks >= 40  # it waited for the item, it did not close at once
    assert run_leaf(body, "open_container", {"containerType": "furnace"}).ok
    after = body.open_window()
    assert after is not None and not after.slots.get("input")  # nothing left to cook when it closed


def test_a_bot_outside_the_fence_may_not_change_the_world(tmp_path: Path) -> None:
    body, origin = sim_body()
    body.run_command("/give @s cobblestone 4")
    target = origin.offset(dx=2)
    # the fence holds the target cell but not the bot
    fence = Bounds(min_x=target.x, min_y=target.y - 1, min_z=target.z - 2,
                   max_x=target.x + 8, max_y=target.y + 4, max_z=target.z + 2)
    assert not fence.contains(body.position()) and fence.contains(target)
    place = m.LeafNode(capability="place_block_at", name="place",
                       args={"position": {"x": target.x, "y": target.y, "z": target.z}, "block": "cobblestone"})
    ex = Executor(default_registry(), body, config=ExecutorConfig(geofence=fence), home=tmp_path)
    try:
        out = ex.run(m.TreeDefinition(tree="outside", root=m.SequenceNode(children=[place])))
        detail = ex.journal.run_detail(out.run_id)
    finally:
        ex.journal.close()
    assert out.dispatches == 0 and body.block_at(BlockPos(*target)).name == "air"
    assert any(d["reason"] == "geofence_violation:bot" for d in detail["decisions"]), detail["decisions"]
