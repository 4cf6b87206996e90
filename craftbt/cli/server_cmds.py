"""``craftbt server start``: run a local flying-squid server in the foreground until Ctrl-C.

The server binds 127.0.0.1 in offline mode with every player opped, so a bot
(``craftbt run --body mineflayer --host 127.0.0.1 --port P``) can join and use
``/give`` and ``/setblock``. Exit codes: 0 after a clean Ctrl-C, 1 when the
server could not start or died (the reason and the log tail are printed).
"""

from __future__ import annotations

import sys
import time
from typing import Annotated

import typer

from craftbt.world.mineflayer.server import DEFAULT_VERSION, GENERATIONS, FlyingSquid, ServerError
from craftbt.world.mineflayer.terrain import DEFAULT_RADIUS, MAX_RADIUS, TERRAIN_WORLDS

server_app = typer.Typer(help="A local Minecraft server (flying-squid) for demos and tests.", no_args_is_help=True)


@server_app.command("start")
def start_cmd(
    port: Annotated[int, typer.Option(help="TCP port on 127.0.0.1 (default: 25565).", min=1, max=65535)] = 25565,
    version: Annotated[str, typer.Option(help="Minecraft version the server speaks.")] = DEFAULT_VERSION,
    generation: Annotated[str, typer.Option(help=f"World generator: {', '.join(GENERATIONS)}.")] = "superflat",
    world: Annotated[str | None, typer.Option(
        help=f"Serve the embedded world instead, block for block: {', '.join(TERRAIN_WORLDS)} (see docs/server.md).",
    )] = None,
    seed: Annotated[int, typer.Option(help="The embedded world's seed (with --world).")] = 0,
    radius: Annotated[int, typer.Option(
        help="With --world: chunks served around the spawn chunk (outside them the server serves air).",
        min=0, max=MAX_RADIUS,
    )] = DEFAULT_RADIUS,
    daylight_cycle: Annotated[bool, typer.Option(
        "--daylight-cycle/--fixed-time",
        help="With --world: the day starts at 1000 as in the embedded world; --fixed-time keeps it there.",
    )] = True,
    game_mode: Annotated[str, typer.Option("--game-mode", help="survival, creative, adventure or spectator.")] = (
        "survival"
    ),
    vanilla_plugin: Annotated[bool, typer.Option(
        "--vanilla-plugin/--no-vanilla-plugin",
        help="Load craftbt's plugin (crafting, furnaces, chests, barrels, drops by harvest tool; see docs/server.md).",
    )] = True,
) -> None:
    """Start flying-squid and keep it running until Ctrl-C (needs `craftbt node install` once).

    Example: craftbt server start --port 25565, then craftbt run greet --body mineflayer --port 25565
    """
    try:
        server = FlyingSquid(port=port, version=version, generation=generation, game_mode=game_mode,
                             vanilla_plugin=vanilla_plugin, world=world, seed=seed, radius=radius,
                             daylight_cycle=daylight_cycle)
        server.start()
    except ServerError as err:
        print(f"craftbt server: {err.code.value}: {err.detail}", file=sys.stderr)
        raise typer.Exit(1) from None
    print(
        f"flying-squid {version} listening on {server.host}:{server.port} (offline mode, everyone op, "
        f"{'with' if vanilla_plugin else 'without'} craftbt's plugin); "
        f"{_world_line(server)}log: {server.log_path}; Ctrl-C to stop",
        flush=True,
    )
    try:
        while server.running:
            time.sleep(0.5)
    except KeyboardInterrupt:
        print("stopping flying-squid", flush=True)
        server.stop()
        return
    print(f"craftbt server: flying-squid exited; log:\n{server.log_tail()}", file=sys.stderr)
    raise typer.Exit(1)


def _world_line(server: FlyingSquid) -> str:
    if server.terrain is None:
        return f"world: flying-squid's {server.generation}; "
    t = server.terrain
    x, y, z = t.spawn
    return (f"world: embedded {t.world} seed {t.seed}, {2 * t.radius + 1}x{2 * t.radius + 1} chunks around "
            f"spawn cell ({x}, {y}, {z}); ")


def register(app: typer.Typer) -> None:
    app.add_typer(server_app, name="server")
