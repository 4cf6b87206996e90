"""``craftbt serve`` (HTTP, WebSocket, /mcp, the viewer) and ``craftbt mcp`` (the MCP server over stdio).

Both hold one long-lived bot (a body, the registry, an executor and its journal). ``serve`` binds
127.0.0.1 by default, prints a token (or takes ``--token`` / ``CRAFTBT_SERVE_TOKEN``, one admin token,
or ``--token-file`` / ``CRAFTBT_SERVE_TOKEN_FILE``, scoped clients) and refuses a non-loopback address
without one. SIGTERM or Ctrl-C stops it cleanly (an active run is cancelled and
its journal row closed; uvicorn then re-raises the signal, so the exit status is the signal's); 1 when it
cannot start.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import typer

from craftbt.core.extras import Extra, require
from craftbt.serve.security import DEFAULT_MAX_BODY, SecurityError

_BODY = typer.Option("sim", "--body", help="sim | mineflayer")
_SCENARIO = typer.Option(None, "--scenario", help="Scenario YAML for the embedded world")
_SEED = typer.Option(0, "--seed", help="World seed")
_WORLD = typer.Option("starter", "--world", help="natural | starter | flat (sim body, without --scenario)")
_MC_VERSION = typer.Option("1.21.4", "--mc-version", help="Minecraft protocol version of the server")
_MC_HOST = typer.Option("127.0.0.1", "--mc-host", help="Minecraft server (with --body mineflayer)")
_MC_PORT = typer.Option(25565, "--mc-port", help="Minecraft server port (with --body mineflayer)")
_USERNAME = typer.Option("craftbt", "--username", help="Bot name on the server (offline auth)")
_PROFILE = typer.Option("survival", "--profile", help="Permission profile")
_GEOFENCE = typer.Option(None, "--geofence", help="x1,y1,z1:x2,y2,z2 (default: scenario bounds)")
_MAX_TICKS = typer.Option(20 * 60 * 20, "--max-ticks", min=1, help="Default game-tick budget of a run")
_HOME = typer.Option(None, "--home", help="Journal folder (default: $CRAFTBT_HOME or .craftbt)")
_MAX_WALL = typer.Option(1800.0, "--max-wall-s", min=1, help="Wall-time cap of any run (s): the server cancels it "
                                                            "after this")


def serve_cmd(
    host: str = typer.Option("127.0.0.1", "--host", help="Address to bind (non-loopback needs --token)"),
    port: int = typer.Option(8765, "--port", min=1, max=65535),
    token: str | None = typer.Option(None, "--token", help="Bearer token of scope admin (default: generated; "
                                     "or $CRAFTBT_SERVE_TOKEN)"),
    token_file: Path | None = typer.Option(None, "--token-file", help="Scoped clients, one 'SCOPE NAME TOKEN "
                                           "[max_ticks=N] [runs_per_hour=N]' a line; SCOPE is read, act or admin "
                                           "(or $CRAFTBT_SERVE_TOKEN_FILE)"),
    max_wall_s: float = _MAX_WALL,
    body: str = _BODY,
    scenario: Path | None = _SCENARIO,
    world: str = _WORLD,
    seed: int = _SEED,
    mc_host: str = _MC_HOST,
    mc_port: int = _MC_PORT,
    mc_version: str = _MC_VERSION,
    username: str = _USERNAME,
    profile: str = _PROFILE,
    geofence: str | None = _GEOFENCE,
    max_ticks: int = _MAX_TICKS,
    pace_ms: float | None = typer.Option(None, "--pace-ms", min=0,
                                         help="Wall ms per game tick (default: 50 on sim, Minecraft's pace; 0: "
                                              "full speed)"),
    max_body: int = typer.Option(DEFAULT_MAX_BODY, "--max-body", min=1024, help="Request-body cap in bytes"),
    home: Path | None = _HOME,
    live: float | None = typer.Option(None, "--live", min=0.01, help="Run the autonomy loop for this many game "
                                      "days (suggestions via POST /api/cognitive/signals); runs are refused meanwhile"),
    groot2: int | None = typer.Option(None, "--groot2", min=1, max=65534, metavar="PORT",
                                      help="Also serve each run's tree to Groot2 monitors (Groot2, btview) on PORT "
                                           "and PORT+1, on 127.0.0.1"),
) -> None:
    """Serve one bot over HTTP and WebSocket, with an MCP endpoint at /mcp and a live viewer at /viewer."""
    require(Extra.SERVE, "craftbt serve")
    from craftbt.serve.launch import BotOptions, serve  # FastAPI, uvicorn and mcp load only for this command

    opts = BotOptions(body=body, scenario=scenario, world=world, seed=seed, mc_host=mc_host, mc_port=mc_port,
                      mc_version=mc_version, username=username, profile=profile, geofence=geofence,
                      max_ticks=max_ticks, pace_ms=pace_ms, home=home, live_days=live, groot2=groot2)
    try:
        env_file = os.environ.get("CRAFTBT_SERVE_TOKEN_FILE")
        serve(opts, host=host, port=port, token=token or os.environ.get("CRAFTBT_SERVE_TOKEN") or None,
              max_body=max_body, token_file=token_file or (Path(env_file) if env_file else None),
              max_wall_s=max_wall_s)
    except SecurityError as err:
        print(f"craftbt serve: {err}", file=sys.stderr)
        raise typer.Exit(1) from None


def mcp_cmd(
    body: str = _BODY,
    scenario: Path | None = _SCENARIO,
    world: str = _WORLD,
    seed: int = _SEED,
    mc_host: str = _MC_HOST,
    mc_port: int = _MC_PORT,
    mc_version: str = _MC_VERSION,
    username: str = _USERNAME,
    profile: str = _PROFILE,
    geofence: str | None = _GEOFENCE,
    max_ticks: int = _MAX_TICKS,
    home: Path | None = _HOME,
    scope: str = typer.Option("admin", "--scope", help="What the client may do: read, act (world-changing tools, "
                              "runs) or admin (also the function store)"),
    max_wall_s: float = _MAX_WALL,
) -> None:
    """Serve one bot as an MCP server over stdio (for MCP clients that start their servers)."""
    require(Extra.SERVE, "craftbt mcp")
    from craftbt.serve.launch import BotOptions, mcp_stdio

    opts = BotOptions(body=body, scenario=scenario, world=world, seed=seed, mc_host=mc_host, mc_port=mc_port,
                      mc_version=mc_version, username=username, profile=profile, geofence=geofence,
                      max_ticks=max_ticks, home=home)
    if scope.strip().lower() not in ("read", "act", "admin"):
        print(f"craftbt mcp: --scope {scope!r} is not one of read, act, admin", file=sys.stderr)
        raise typer.Exit(2)
    mcp_stdio(opts, scope=scope, max_wall_s=max_wall_s)


def register(app: typer.Typer) -> None:
    app.command("serve")(serve_cmd)
    app.command("mcp")(mcp_cmd)
