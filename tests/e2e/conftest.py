"""Fixtures for end-to-end tests on a real Minecraft server.

By default the suite starts flying-squid itself (``world.mineflayer.server``) on
127.0.0.1 and a free port, once per session. With ``CRAFTBT_MC_HOST`` (and
``CRAFTBT_MC_PORT``, ``CRAFTBT_MC_VERSION``) set, tests run against that server
instead, which must be offline-mode with the bots opped; tests marked
``vanilla_only`` run only there. Without Node packages every test here is
skipped with the npm command that fixes it.

Each test gets its own bot, teleported to its own arena (a strip of the world
no other test touches), so tests do not see each other's blocks.
"""

from __future__ import annotations

import itertools
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TypeVar

import pytest

from world.body import ActionHandle, ActionStatus, BlockPos, BodyError, BodyErrorCode
from world.mineflayer.body import MineflayerBody
from world.mineflayer.node_env import BODY_PACKAGES, SERVER_PACKAGES, missing_packages, setup_hint
from world.mineflayer.server import DEFAULT_VERSION, FlyingSquid

T = TypeVar("T")

FLYING_SQUID_LACKS = (
    "flying-squid 1.12 lacks this (chest/furnace/crafting windows, mob AI and /summon do not work); "
    "set CRAFTBT_MC_HOST/CRAFTBT_MC_PORT to a vanilla offline-mode server to run it"
)
ARENA_SPACING = 32
_arena_counter = itertools.count(1)
_name_counter = itertools.count(1)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", f"vanilla_only: {FLYING_SQUID_LACKS}")


@dataclass(frozen=True)
class McServer:
    host: str
    port: int
    version: str
    kind: str  # "flying-squid" | "external"

    @property
    def is_squid(self) -> bool:
        return self.kind == "flying-squid"


def _skip_without_node(packages: tuple[str, ...]) -> None:
    missing = missing_packages(packages)
    if missing:
        pytest.skip(f"e2e needs Node packages: {setup_hint(missing)}")


@pytest.fixture(scope="session")
def mc_server() -> Iterator[McServer]:
    host = os.environ.get("CRAFTBT_MC_HOST")
    version = os.environ.get("CRAFTBT_MC_VERSION", DEFAULT_VERSION)
    if host:
        _skip_without_node(BODY_PACKAGES)
        yield McServer(host, int(os.environ.get("CRAFTBT_MC_PORT", "25565")), version, "external")
        return
    _skip_without_node(BODY_PACKAGES + SERVER_PACKAGES)
    server = FlyingSquid(version=version).start()
    try:
        yield McServer(server.host, server.port, version, "flying-squid")
    finally:
        server.stop()


@pytest.fixture
def squid_only_server() -> Iterator[FlyingSquid]:
    """A private flying-squid for tests that stop the server (disconnect handling)."""
    _skip_without_node(BODY_PACKAGES + SERVER_PACKAGES)
    server = FlyingSquid().start()
    try:
        yield server
    finally:
        server.kill()


@pytest.fixture(autouse=True)
def _vanilla_only(request: pytest.FixtureRequest) -> None:
    if request.node.get_closest_marker("vanilla_only") is None:
        return
    server: McServer = request.getfixturevalue("mc_server")
    if server.is_squid:
        pytest.skip(FLYING_SQUID_LACKS)


def unique_name(prefix: str = "e2e") -> str:
    return f"{prefix}{os.getpid() % 1000}_{next(_name_counter)}"[:16]


def wait_until(predicate: Callable[[], T], timeout_s: float = 10.0, what: str = "condition") -> T:
    """Poll ``predicate`` until it returns something truthy; fail the test after ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout_s}s waiting for {what}")
        time.sleep(0.05)


def finish(handle: ActionHandle, timeout_s: float = 20.0) -> ActionStatus:
    """Poll a body action the way the tree does, until it leaves RUNNING."""
    deadline = time.monotonic() + timeout_s
    while (status := handle.status()) is ActionStatus.RUNNING:
        if time.monotonic() > deadline:
            handle.cancel("test timeout")
            pytest.fail(f"{handle.kind} still running after {timeout_s}s")
        time.sleep(0.05)
    return status


def command(body: MineflayerBody, line: str) -> None:
    """Run a server command through chat (the bot is op) and wait until it was sent."""
    assert finish(body.chat(line), 5) is ActionStatus.SUCCEEDED


def refusal(action: Callable[[], object]) -> BodyErrorCode:
    """The code of the BodyError an action raises at once; fails if it starts instead."""
    with pytest.raises(BodyError) as info:
        handle = action()
        if isinstance(handle, ActionHandle):
            handle.cancel("unexpected start")
    return info.value.code


def solid(body: MineflayerBody, pos: BlockPos) -> bool:
    """True once ``pos`` is loaded and not air (block_at refuses unloaded blocks)."""
    try:
        return not body.block_at(pos).is_air
    except BodyError as err:
        if err.code is BodyErrorCode.OUT_OF_REACH:
            return False
        raise


@dataclass
class Arena:
    """The bot's private patch of world: ``origin`` is the block its feet stand in."""

    body: MineflayerBody
    origin: BlockPos

    @property
    def ground(self) -> BlockPos:
        return self.origin.offset(dy=-1)

    def setblock(self, pos: BlockPos, block: str) -> None:
        command(self.body, f"/setblock {pos.x} {pos.y} {pos.z} {block}")
        wait_until(lambda: self.body.block_at(pos).name == block, 10, f"{block} at {tuple(pos)}")

    def give(self, item: str, count: int = 1) -> None:
        name = item.removeprefix("minecraft:")
        before = self.body.observe().count(name)
        command(self.body, f"/give {self.body.username} {item} {count}")
        wait_until(lambda: self.body.observe().count(name) >= before + count, 10, f"{count} {item}")


def _connect(server: McServer) -> MineflayerBody:
    return MineflayerBody.connect(server.host, server.port, unique_name(), version=server.version, timeout_s=30)


@pytest.fixture
def body(mc_server: McServer) -> Iterator[MineflayerBody]:
    bot = _connect(mc_server)
    try:
        yield bot
    finally:
        bot.close()


def _enter_arena(body: MineflayerBody, timeout_s: float = 8.0) -> BlockPos | None:
    """Teleport to a fresh strip of ground; the block the bot stands in once it is settled there.

    Two flying-squid 1.12 quirks are waited out rather than slept over: a
    teleport issued while the server still finishes the bot's login is undone
    by a later position packet, and chunks are sent on a move only if the
    player went more than 16 blocks since the last batch and no batch is still
    being sent. So the bot hops between two spots 20 blocks apart until it
    stands on loaded ground and stays there.
    """
    start = body.position().block()
    x = start.x + ARENA_SPACING * next(_arena_counter)
    spots = [BlockPos(x, start.y, start.z), BlockPos(x, start.y, start.z + 20)]
    deadline = time.monotonic() + timeout_s
    hops = 0
    target = spots[0]
    last_hop = float("-inf")
    settled_since: float | None = None
    while time.monotonic() < deadline:
        now = time.monotonic()
        here = body.position().block()
        if here == target and solid(body, here.offset(dy=-1)) and solid(body, here.offset(dx=8, dy=-1)):
            settled_since = settled_since or now
            if now - settled_since >= 0.3:
                return here
        else:
            settled_since = None
            if now - last_hop > 1.0:
                target = spots[hops % 2]
                hops += 1
                last_hop = now
                command(body, f"/tp {body.username} {target.x} {target.y} {target.z}")
        time.sleep(0.05)
    return None


@pytest.fixture
def arena(mc_server: McServer) -> Iterator[Arena]:
    """A fresh bot standing in its own strip of loaded ground.

    Now and then flying-squid 1.12 stops sending chunks to a player for good;
    the arena then starts over with a new bot rather than wait on it.
    """
    for _ in range(3):
        bot = _connect(mc_server)
        origin = _enter_arena(bot)
        if origin is not None:
            break
        bot.close()
    else:
        pytest.fail("the server sent no chunks for the arena to three bots in a row")
    try:
        yield Arena(bot, origin)
    finally:
        bot.close()
