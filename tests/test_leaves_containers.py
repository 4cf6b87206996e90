"""Container leaves: refusals and no-action successes on the fake body, the seed's chest on the embedded world."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from craftbt.capabilities.leaves.containers import TransferItemsArgs
from craftbt.capabilities.spec import Verdict
from craftbt.world.body import BlockPos, WindowInfo
from craftbt.world.scenarios.loader import inventory_world
from tests.fakes import FakeBody
from tests.leafkit import run_leaf
from tests.simkit import sim_body


class WindowBody(FakeBody):
    """The fake body with a container window already open (the fake cannot open one itself)."""

    def __init__(self, window: WindowInfo | None, **kw: object) -> None:
        super().__init__(**kw)  # type: ignore[arg-type]
        self.window = window

    def open_window(self) -> WindowInfo | None:
        return self.window


def test_open_container_refuses_when_none_in_radius() -> None:
    run = run_leaf(FakeBody(), "open_container", {})
    assert run.code == "guard_failed:no_target"


def test_open_container_refuses_a_non_container_position() -> None:
    body = FakeBody(blocks={BlockPos(2, 64, 0): "stone"})
    run = run_leaf(body, "open_container", {"position": {"x": 2, "y": 64, "z": 0}})
    assert run.code == "guard_failed:not_a_container"


def test_transfer_needs_an_open_window() -> None:
    run = run_leaf(FakeBody(inventory={"apple": 10}), "transfer_items", {"item": "apple", "mode": "deposit"})
    assert run.code == "guard_failed:precond_missing:window"


def test_transfer_refuses_items_the_source_lacks() -> None:
    window = WindowInfo(kind="chest", pos=BlockPos(2, 64, 0))
    body = WindowBody(window, inventory={"apple": 2})
    run = run_leaf(body, "transfer_items", {"item": "apple", "count": 5, "mode": "deposit"})
    assert run.code == "guard_failed:precond_missing:item:apple"
    withdraw = run_leaf(body, "transfer_items", {"item": "apple", "mode": "withdraw"})
    assert withdraw.code == "guard_failed:precond_missing:item:apple"


def test_transfer_args_reject_contradicting_direction() -> None:
    with pytest.raises(ValidationError):
        TransferItemsArgs(mode="deposit", source="container")
    assert TransferItemsArgs(source="inventory", destination="container").depositing
    assert not TransferItemsArgs(mode="take").depositing


def test_close_container_is_idempotent_when_nothing_is_open() -> None:
    run = run_leaf(FakeBody(), "close_container", {})
    assert run.ok and run.verdict is Verdict.VERIFIED and run.observables["already_closed"] is True


def test_close_container_refuses_another_window() -> None:
    body = WindowBody(WindowInfo(kind="chest", pos=BlockPos(2, 64, 0)))
    run = run_leaf(body, "close_container", {"containerId": "9,9,9"})
    assert run.code == "guard_failed:window_mismatch"


def test_manage_inventory_audit_counts_mergeable_stacks() -> None:
    body = FakeBody(inventory={"apple": 5, "cobblestone": 32})
    run = run_leaf(body, "manage_inventory", {"action": "compact"})
    assert run.ok and run.verdict is Verdict.VERIFIED
    assert run.observables["minimal_stacks"] == 2 and run.observables["tossed"] == {}


def test_manage_inventory_refuses_an_empty_inventory() -> None:
    assert run_leaf(FakeBody(), "manage_inventory", {"action": "sort"}).code == "guard_failed:precond_missing:items"


def test_manage_inventory_toss_failure_is_structured() -> None:
    body = FakeBody(inventory={"rotten_flesh": 3, "bread": 2})
    run = run_leaf(body, "manage_inventory", {"action": "drop_unwanted"})
    assert not run.ok and run.code == "unsupported"  # the fake cannot toss: the failure is the body's code


# -- the seed's situations on the embedded world ---------------------------------------------------
def test_chest_round_trip_on_sim() -> None:
    """Seed: setblock ~2 ~ ~ chest, give apple 10; open, deposit, withdraw, close."""
    body, origin = sim_body()
    chest = origin.offset(dx=2)
    for cmd in (f"/setblock {chest.x} {chest.y} {chest.z} chest", "/give @s apple 10"):
        body.run_command(cmd)
    opened = run_leaf(body, "open_container", {"containerType": "chest"})
    assert opened.ok and opened.verdict is Verdict.VERIFIED, opened.result
    deposit = run_leaf(body, "transfer_items", {"item": "apple", "count": 6, "mode": "deposit"})
    assert deposit.ok and deposit.verdict is Verdict.VERIFIED, deposit.result
    assert body.observe().count("apple") == 4
    withdraw = run_leaf(body, "transfer_items", {"item": "apple", "count": 2, "mode": "withdraw"})
    assert withdraw.ok and withdraw.verdict is Verdict.VERIFIED
    closed = run_leaf(body, "close_container", {})
    assert closed.ok and closed.verdict is Verdict.VERIFIED and body.open_window() is None
    assert body.observe().count("apple") == 6


def test_manage_inventory_drop_unwanted_on_sim() -> None:
    body, _ = sim_body()
    for cmd in ("/give @s rotten_flesh 5", "/give @s bread 3", "/give @s cobblestone 32"):
        body.run_command(cmd)
    run = run_leaf(body, "manage_inventory", {"action": "drop_unwanted"})
    assert run.ok and run.verdict is Verdict.VERIFIED, run.result
    after = body.observe()
    assert after.count("rotten_flesh") == 0 and after.count("bread") == 3 and after.count("cobblestone") == 32


def test_make_room_tosses_junk_and_the_rubble_beyond_a_stack_and_keeps_the_rest() -> None:
    """``make_room`` (a full inventory's repair): dug filler down to what a mine search keeps (a stack of
    cobblestone), every junk item, never a keepItem; the acceptance check reads the world's inventory."""
    body = inventory_world({"cobblestone": 1_491, "dirt": 70, "gravel": 12, "rotten_flesh": 3, "raw_iron": 3,
                            "diorite": 200})
    run = run_leaf(body, "manage_inventory", {"action": "make_room", "keepItems": ["diorite"]})
    assert run.ok and run.verdict is Verdict.VERIFIED, run.result
    inv = body.observe().inventory
    assert inv["cobblestone"] == 64 and inv["diorite"] == 200 and inv["raw_iron"] == 3
    assert not {"dirt", "gravel", "rotten_flesh"} & set(inv), inv
    assert run.observables["tossed"] == {"cobblestone": 1_427, "dirt": 70, "gravel": 12, "rotten_flesh": 3}


def test_make_room_refuses_when_nothing_is_surplus() -> None:
    """Tossing nothing would pass the check and leave the step that needed room to fail the same way again."""
    run = run_leaf(inventory_world({"cobblestone": 64, "raw_iron": 3}), "manage_inventory",
                   {"action": "make_room"})
    assert run.code == "guard_failed:precond_missing:surplus"
