"""An evaluation episode on a real server: the test server serving the episode's embedded world, one bot.

Without ``spec.server`` the episode starts flying-squid for itself, serving the embedded world of its
world kind and seed (:class:`~craftbt.world.mineflayer.server.FlyingSquid` ``world=``/``seed=``), so every
episode meets the world untouched, as its embedded twin does: an episode digs the trees and the stone near
spawn, and a second goal on the same server would find them gone. The server serves a region wide enough
for the embedded world's own geofence (192 blocks around spawn on the natural world, 64 on the others),
and the bot gets that same fence. The time of day is fixed at 1000 (``daylight_cycle=False``): a server
day lasts 20 real minutes and a night spent sheltering would cost 10 of them; the embedded episodes meet
their nights and shelter. With ``spec.server`` (``host:port``) the episode joins that server with a bot
of its own name and the fence ``spec.geofence``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager

from craftbt.bot.body import BodySpec
from craftbt.bot.bot import body_and_config
from craftbt.core.errors import CraftbtError, ErrorCode, Location
from craftbt.evaluation.spec import EpisodeSpec, WorldKind
from craftbt.executor.config import DEFAULT_FENCE_RADIUS, NATURAL_FENCE_RADIUS, Bounds, ExecutorConfig
from craftbt.world.body import Body
from craftbt.world.mineflayer.server import FlyingSquid, ServerError


def fence_blocks(world: WorldKind) -> int:
    """Half the side of the embedded world's default fence for this world kind (``executor.config``)."""
    return NATURAL_FENCE_RADIUS if world is WorldKind.NATURAL else DEFAULT_FENCE_RADIUS


def served_radius(world: WorldKind) -> int:
    """Chunks served around the spawn chunk so the whole fence is inside the served region."""
    return (fence_blocks(world) + 15) // 16 + 1


def bot_name(spec: EpisodeSpec) -> str:
    """A name of its own per episode (a server keeps a player's inventory by name)."""
    return "ev" + hashlib.sha256(spec.key.encode()).hexdigest()[:12]


def _address(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise CraftbtError.single(ErrorCode.INVALID_ARGUMENT, f"server {text!r} is not host:port",
                                  location=Location(path="--host/--port"))
    return host, int(port)


@contextmanager
def server_body(spec: EpisodeSpec) -> Iterator[tuple[Body, ExecutorConfig]]:
    """The episode's bot body on its server and its executor configuration; a server it started stops after."""
    server: FlyingSquid | None = None
    try:
        if spec.server is None:
            try:
                server = FlyingSquid(world=spec.world.value, seed=spec.seed, radius=served_radius(spec.world),
                                     daylight_cycle=False).start()
            except ServerError as err:
                raise CraftbtError.single(ErrorCode.SERVER_UNREACHABLE, f"the test server did not start: {err}"
                                          ) from None
            host, port = server.host, server.port
            assert server.spawn is not None
            x, _, z = server.spawn
            r = fence_blocks(spec.world)
            fence: str | Bounds | None = Bounds(min_x=x - r, min_y=-64, min_z=z - r, max_x=x + r, max_y=320,
                                                max_z=z + r)
        else:
            host, port = _address(spec.server)
            fence = spec.geofence
        body, config = body_and_config(BodySpec(host=host, port=port, username=bot_name(spec)), geofence=fence,
                                       max_ticks=spec.max_ticks)
        yield body, config
    finally:
        if server is not None:
            server.stop()
