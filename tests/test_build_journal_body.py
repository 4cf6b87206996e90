"""The journaling body's write-ahead order: row committed before the command, world saved before ``done``."""

from __future__ import annotations

from pathlib import Path

import pytest

from craftbt.executor.build_state.journal_body import JournalingBody
from craftbt.executor.build_state.store import BuildStore
from craftbt.world.body import ActionStatus, BlockPos, BodyError, Face
from craftbt.world.sim.body import SimBody

AGAINST = BlockPos(2, 63, 0)  # the flat world's top layer; the block goes on top of it
CELL = (2, 64, 0)


def _statuses(store: BuildStore) -> list[str]:
    return [row["status"] for row in store.actions("b")]


def _place(body: JournalingBody, inner: SimBody) -> None:
    handle = body.place("cobblestone", AGAINST, Face.UP)
    while handle.status() is ActionStatus.RUNNING:
        body.advance(1)
    assert handle.status() is ActionStatus.SUCCEEDED
    assert inner.block_at(BlockPos(*CELL)).name == "cobblestone"


def test_a_placement_is_done_only_after_the_world_holding_it_was_saved(tmp_path: Path) -> None:
    store = BuildStore(tmp_path / "b.sqlite")
    inner = SimBody(seed=1)
    inner.give("cobblestone", 4)
    seen_at_persist: list[list[str]] = []
    body = JournalingBody(inner, store, "b", persist=lambda: seen_at_persist.append(_statuses(store)),
                          persist_every=10_000)
    _place(body, inner)
    # committed before dispatch, and not closed while the world holding the block is unsaved
    assert _statuses(store) == ["in_flight"]
    body.flush()
    assert seen_at_persist == [["in_flight"]]  # the world was saved while the row was still open
    assert _statuses(store) == ["done"]
    assert store.actions("b")[0]["effect"] == "placed"


def test_the_periodic_save_closes_the_rows_it_covers(tmp_path: Path) -> None:
    store = BuildStore(tmp_path / "b.sqlite")
    inner = SimBody(seed=1)
    inner.give("cobblestone", 4)
    saves: list[int] = []
    body = JournalingBody(inner, store, "b", persist=lambda: saves.append(inner.now_ticks()), persist_every=5)
    _place(body, inner)
    for _ in range(5):
        body.advance(1)
    assert saves and _statuses(store) == ["done"]


def test_without_a_persist_rows_close_as_soon_as_the_action_finishes(tmp_path: Path) -> None:
    store = BuildStore(tmp_path / "b.sqlite")
    inner = SimBody(seed=1)
    inner.give("cobblestone", 4)
    body = JournalingBody(inner, store, "b")  # a real server saves its world itself
    _place(body, inner)
    assert _statuses(store) == ["done"]


def test_an_action_that_ends_without_its_effect_closes_at_once(tmp_path: Path) -> None:
    store = BuildStore(tmp_path / "b.sqlite")
    inner = SimBody(seed=1)
    body = JournalingBody(inner, store, "b", persist=lambda: None, persist_every=10_000)
    handle = body.dig(AGAINST)
    handle.cancel("test")  # the dig never lands: nothing to save first
    body.advance(1)
    assert _statuses(store) == ["failed"]
    assert store.actions("b")[0]["effect"] == "cancelled"


def test_a_refused_command_closes_failed(tmp_path: Path) -> None:
    store = BuildStore(tmp_path / "b.sqlite")
    inner = SimBody(seed=1)  # no cobblestone to place
    body = JournalingBody(inner, store, "b", persist=lambda: None, persist_every=10_000)
    with pytest.raises(BodyError):
        body.place("cobblestone", AGAINST, Face.UP)
    assert _statuses(store) == ["failed"]
