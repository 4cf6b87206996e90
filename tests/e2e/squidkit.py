"""Helpers for the end-to-end tests on a real server (flying-squid by default).

Kept out of ``conftest.py`` so test modules import them as an ordinary module
(pytest loads a conftest under its own name, and importing it again from a
test made mypy see the module twice).

Isolation without long teleports: every test that changes the world gets its
own *plot*, a 16x16 cell of the region every bot has loaded from the moment it
spawns. flying-squid 1.12 spawns players at x, z in 0..29 (chunk 0 or 1) and
sends the chunks within 3 of the spawn chunk before the spawn, so chunks -2..2
(blocks -32..47 on both axes) are loaded for every bot; moving inside them
never unloads any (the view distance is 4). The region holds 5 x 5 plots,
handed out in a fixed order per server; a test that asks for one more fails with a
clear message instead of sharing a plot (a module with many world-changing tests
takes a server of its own, see :func:`squid_server`).

A flying-squid 1.12 quirk shapes this: its login ends only when the client
first sends a look (then it re-sends the login position, undoing any teleport
made before): ``MineflayerBody.connect`` settles that before it returns, and
:func:`connect` checks the server answered (and, when it did not, says what the
server logged about that client: a packet that did not serialize stops every
later one, as flying-squid's ``entity_teleport`` did for 1.21.4 before
craftbt's plugin replaced it).

Everything waits on an explicit condition with a bounded timeout (a block
update seen, an inventory count, a position reached), never on a bare sleep.
"""

from __future__ import annotations

import itertools
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import pytest

from craftbt.world.body import ActionHandle, ActionStatus, BlockPos, BodyError, BodyErrorCode, Position
from craftbt.world.mineflayer.body import MineflayerBody
from craftbt.world.mineflayer.node_env import BODY_PACKAGES, SERVER_PACKAGES, missing_packages, setup_hint
from craftbt.world.mineflayer.server import DEFAULT_VERSION, FlyingSquid

T = TypeVar("T")

FLYING_SQUID_LACKS = (
    "flying-squid 1.12 lacks this (mob pathing, crop growth and most redstone, even with craftbt's plugin); "
    "set CRAFTBT_MC_HOST/CRAFTBT_MC_PORT to a vanilla offline-mode server to run it"
)
#: The marker naming the capabilities an e2e test runs to a success on the server (see conftest.py).
SHOWS_MARKER = "shows_on_server"
SHOWS_HELP = (
    "the test runs each named capability to a success on the server (checked while it runs; "
    "docs/server.md's table 'Capabilities on the server' lists them)"
)
#: Blocks -32..47 on x and z: the chunks every bot holds from its spawn on (see the module docstring).
REGION_MIN = -32
PLOT_SIZE = 16
PLOTS_PER_SIDE = 5
#: Where a plot's bot stands, from the plot's low corner: room for +12 on x and +-7 on z.
PLOT_STAND = (2, 8)
#: Feet level on flying-squid's superflat world (bedrock 0, dirt 1-3, grass 4).
SQUID_FEET_Y = 5
#: flying-squid answers a login look within a tick; this bound only matters on a starved machine.
SQUID_LOGIN_SETTLE_S = 15.0

#: One plot counter per server (host, port): a module with its own server has its own 25 plots.
_plot_counters: dict[tuple[str, int], itertools.count[int]] = {}
_name_counter = itertools.count(1)


@dataclass(frozen=True)
class McServer:
    host: str
    port: int
    version: str
    kind: str  # "flying-squid" | "external"
    workdir: Path | None = None  # flying-squid's private directory (world, player data)

    @property
    def is_squid(self) -> bool:
        return self.kind == "flying-squid"


def skip_without_node(packages: tuple[str, ...]) -> None:
    missing = missing_packages(packages)
    if missing:
        pytest.skip(f"e2e needs Node packages: {setup_hint(missing)}")


def unique_name(prefix: str = "e2e") -> str:
    return f"{prefix}{os.getpid() % 1000}_{next(_name_counter)}"[:16]


def wait_until(predicate: Callable[[], T | None], timeout_s: float = 10.0, what: str = "condition") -> T:
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


def block_name(body: MineflayerBody, pos: BlockPos) -> str | None:
    """The block at ``pos``, or None while it is not loaded."""
    try:
        return body.block_at(pos).name
    except BodyError as err:
        if err.code is BodyErrorCode.OUT_OF_REACH:
            return None
        raise


def connect(server: McServer, username: str | None = None) -> MineflayerBody:
    """A new bot that has finished logging in (on flying-squid: the server answered its login look)."""
    settle = SQUID_LOGIN_SETTLE_S if server.is_squid else 1.5
    bot = MineflayerBody.connect(
        server.host, server.port, username or unique_name(), version=server.version, timeout_s=30, login_settle_s=settle
    )
    if server.is_squid and bot.status()["settled"] != "answered":
        bot.close()
        pytest.fail(f"flying-squid never answered the login of {bot.username}{server_errors(server)}")
    return bot


def server_errors(server: McServer, lines: int = 12) -> str:
    """The errors flying-squid logged (a packet that did not serialize, a plugin that threw), for a failure message."""
    log = server.workdir / "server.log" if server.workdir is not None else None
    try:
        text = log.read_text(errors="replace") if log is not None else ""
    except OSError:
        return ""
    found = [line.strip() for line in text.splitlines() if "ERROR" in line or "Disconnecting client" in line]
    return "; the server logged:\n" + "\n".join(found[-lines:]) if found else "; the server logged no error"


def next_plot(server: McServer, spawn: Position) -> BlockPos:
    """The stand position of the next free plot (feet level)."""
    index = next(_plot_counters.setdefault((server.host, server.port), itertools.count()))
    if index >= PLOTS_PER_SIDE**2:
        pytest.fail(
            f"all {PLOTS_PER_SIDE**2} plots of the spawn region are taken; "
            "share a plot between tests that do not change the world, or widen the region in squidkit.py"
        )
    if server.is_squid:
        base_x = base_z = REGION_MIN
        y = SQUID_FEET_Y
    else:  # another server: plots around the first bot's spawn, at its height
        first = spawn.block()
        base_x, base_z, y = first.x - 40, first.z - 40, first.y
    gx, gz = divmod(index, PLOTS_PER_SIDE)
    return BlockPos(base_x + gx * PLOT_SIZE + PLOT_STAND[0], y, base_z + gz * PLOT_SIZE + PLOT_STAND[1])


def stand_at(body: MineflayerBody, target: BlockPos, timeout_s: float = 10.0) -> None:
    """Teleport to the middle of ``target`` (loaded ground) and wait until the bot stands there.

    ``/tp`` with explicit decimals lands exactly (no +0.5 drop). The bot's login
    is settled, so nothing undoes the teleport afterwards.
    """
    want = Position(target.x + 0.5, float(target.y), target.z + 0.5)
    command(body, f"/tp {want.x:.1f} {want.y:.1f} {want.z:.1f}")

    def there() -> bool:
        here = body.position()
        return here.distance_to(want) < 0.01 and block_name(body, target.offset(dy=-1)) not in (None, "air")

    wait_until(there, timeout_s, f"{body.username} to stand at {tuple(target)}")


@dataclass
class Arena:
    """A bot on its own plot: ``origin`` is the block its feet stand in."""

    body: MineflayerBody
    origin: BlockPos

    @property
    def ground(self) -> BlockPos:
        return self.origin.offset(dy=-1)

    def setblock(self, pos: BlockPos, block: str) -> None:
        setblock(self.body, pos, block)

    def give(self, item: str, count: int = 1) -> None:
        give(self.body, self.body.username, item, count)


def setblock(body: MineflayerBody, pos: BlockPos, block: str) -> None:
    """``/setblock`` and wait until ``body`` has seen the block update."""
    command(body, f"/setblock {pos.x} {pos.y} {pos.z} {block}")
    wait_until(lambda: block_name(body, pos) == block, 10, f"{block} at {tuple(pos)}")


def give(body: MineflayerBody, player: str, item: str, count: int = 1) -> None:
    """``/give`` to ``body`` itself (``player`` is its name) and wait until the items arrived."""
    name = item.removeprefix("minecraft:")
    before = body.observe().count(name)
    command(body, f"/give {player} {item} {count}")
    wait_until(lambda: body.observe().count(name) >= before + count, 10, f"{count} {item}")


def enter_plot(server: McServer, body: MineflayerBody) -> Arena:
    origin = next_plot(server, body.position())
    stand_at(body, origin)
    return Arena(body, origin)


def squid_server() -> Iterator[McServer]:
    """The server of a test session (or of one module, used as a module-scoped ``mc_server`` fixture).

    ``CRAFTBT_MC_HOST`` (with ``CRAFTBT_MC_PORT``, ``CRAFTBT_MC_VERSION``) names an external server;
    otherwise flying-squid starts on 127.0.0.1 and a free port and stops when the generator is closed.
    """
    host = os.environ.get("CRAFTBT_MC_HOST")
    version = os.environ.get("CRAFTBT_MC_VERSION", DEFAULT_VERSION)
    if host:
        skip_without_node(BODY_PACKAGES)
        yield McServer(host, int(os.environ.get("CRAFTBT_MC_PORT", "25565")), version, "external")
        return
    skip_without_node(BODY_PACKAGES + SERVER_PACKAGES)
    server = FlyingSquid(version=version).start()
    try:
        yield McServer(server.host, server.port, version, "flying-squid", server.workdir)
    finally:
        server.stop()
