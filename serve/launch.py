"""Start the service: make the body and the bot, resolve the token, run uvicorn until SIGTERM or Ctrl-C.

uvicorn turns SIGTERM and SIGINT into a graceful shutdown: it stops accepting, closes the
WebSockets, then runs the app's lifespan exit, which cancels an active run, waits (bounded) for its
journal row to close as ``cancelled`` with its open step, and stops the bot's thread. uvicorn then
raises the signal again: :mod:`craftbt.core.signals` turns it into exit 130 (SIGINT) or 143
(SIGTERM), naming the run it recorded, as every front door does.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import uvicorn

from craftbt.bot.body import BodyKind, BodySpec
from craftbt.bot.body import body_spec as make_spec
from craftbt.bot.bot import body_and_config
from craftbt.capabilities.default import default_registry
from craftbt.core import signals
from craftbt.core.errors import CraftbtError, ErrorCode
from craftbt.core.home import default_home
from craftbt.executor.watch import RunWatcher
from craftbt.serve.access import DEFAULT_MAX_WALL_S, LOCAL_ADMIN, Principal, Scope, ServiceLimits
from craftbt.serve.app import create_app
from craftbt.serve.bot import Bot
from craftbt.serve.security import DEFAULT_MAX_BODY, resolve_tokens

#: Minecraft's own pace; the embedded world otherwise runs a tree in milliseconds, too fast to watch
GAME_PACE_MS = 50.0


@dataclass
class BotOptions:
    body: str = "sim"
    scenario: Path | None = None
    seed: int = 0
    #: the embedded world without a scenario: natural | starter | flat
    world: str = "starter"
    mc_host: str = "127.0.0.1"
    mc_port: int = 25565
    username: str = "craftbt"
    mc_version: str = "1.21.4"
    profile: str = "survival"
    geofence: str | None = None
    max_ticks: int = 20 * 60 * 20
    pace_ms: float | None = None
    home: Path | None = None
    #: run the autonomy loop for this many game days instead of waiting for runs (``--live``)
    live_days: float | None = None
    #: serve the running tree to Groot2 monitors on this port and the next (``--groot2``)
    groot2: int | None = None


def body_spec(opts: BotOptions) -> BodySpec:
    """The body the service's options describe, for the one body factory (:func:`craftbt.bot.body.make_body`)."""
    if opts.body not in tuple(BodyKind):
        raise CraftbtError.single(ErrorCode.INVALID_ARGUMENT, f"--body {opts.body!r} is not one of sim, mineflayer")
    return make_spec(body=BodyKind(opts.body), world=opts.world, seed=opts.seed, scenario=opts.scenario,
                     host=opts.mc_host, port=opts.mc_port, version=opts.mc_version, username=opts.username)


def make_bot(opts: BotOptions) -> Bot:
    spec = body_spec(opts)
    # the bot's executor is made on its worker thread (SQLite): here the body and the configuration
    body, config = body_and_config(spec, profile=opts.profile, geofence=opts.geofence, max_ticks=opts.max_ticks)
    pace = opts.pace_ms if opts.pace_ms is not None else (GAME_PACE_MS if spec.kind is BodyKind.SIM else 0.0)
    return Bot(body, registry=default_registry(), home=opts.home or default_home(), config=config,
               body_kind=spec.kind.value, scenario=str(opts.scenario) if opts.scenario else None, seed=opts.seed,
               pace_ms=pace, live_days=opts.live_days, watchers=_watchers(opts))


def _watchers(opts: BotOptions) -> list[RunWatcher]:
    if opts.groot2 is None:
        return []
    from craftbt.executor.groot2 import Groot2Publisher

    return [Groot2Publisher(opts.groot2)]  # binds now: a port in use fails before the server starts


def serve(opts: BotOptions, *, host: str, port: int, token: str | None, max_body: int = DEFAULT_MAX_BODY,
          token_file: Path | None = None, max_wall_s: float = DEFAULT_MAX_WALL_S) -> None:
    """Run until a signal; prints where to point a browser, curl and an MCP client."""
    tokens, secret, generated = resolve_tokens(host, token, token_file)
    bot = make_bot(opts)
    app = create_app(bot, tokens=tokens, host=host, max_body=max_body,
                     limits=ServiceLimits(max_ticks=opts.max_ticks, max_wall_s=max_wall_s))
    shown = f"[{host}]" if ":" in host else host
    base = f"http://{shown}:{port}"
    print(f"craftbt serve: {opts.body} body ({body_spec(opts).label()}), journal {bot.home / 'journal.sqlite'}",
          flush=True)
    print(f"  viewer  {base}/viewer" + (f"#token={secret}" if secret else ""), flush=True)
    print(f"  API     {base}/docs   MCP {base}/mcp", flush=True)
    if secret is not None:
        print(f"  token   {secret}   (scope admin)" + ("   (generated; pass --token to choose one)" if generated
                                                        else ""), flush=True)
    else:
        clients = ", ".join(f"{p.name} ({p.scope.label})" for p in tokens.principals())
        print(f"  tokens  {token_file}: {clients}", flush=True)
    if opts.groot2 is not None:
        print(f"  Groot2  127.0.0.1:{opts.groot2} (e.g. `btview --port {opts.groot2}`)", flush=True)
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", timeout_graceful_shutdown=5,
                            ws_max_size=max_body, lifespan="on")
    server = uvicorn.Server(config)
    try:
        server.run()
    except signals.Cancelled as cancel:  # uvicorn re-raises the signal it shut down on: exit 128 + signal
        cancel.run_id = bot.stopped_run
        raise
    finally:
        for watcher in bot.watchers:
            close = getattr(watcher, "close", None)
            if callable(close):
                close()
    if not server.started:
        print(f"craftbt serve: could not listen on {host}:{port}", file=sys.stderr)
        raise SystemExit(1)
    print("craftbt serve: stopped", flush=True)


def mcp_stdio(opts: BotOptions, scope: str = "admin", max_wall_s: float = DEFAULT_MAX_WALL_S) -> None:
    """``craftbt mcp``: the MCP server on stdin/stdout (stdout carries only protocol messages).

    The one client is the user who started the process: ``admin`` unless ``scope`` says less (an
    agent that should only look, or act but not write functions).
    """
    import anyio
    from mcp.server.stdio import stdio_server

    from craftbt.serve.access import Runs
    from craftbt.serve.mcp_server import McpTools, build_server

    if opts.pace_ms is None:
        opts.pace_ms = 0.0  # nobody watches a stdio server's tree tick
    principal = Principal(LOCAL_ADMIN.name, Scope.parse(scope))
    bot = make_bot(opts)
    runs = Runs(bot, ServiceLimits(max_ticks=opts.max_ticks, max_wall_s=max_wall_s))
    server = build_server(McpTools(bot, runs=runs, principal=principal))

    async def main() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    bot.start()
    try:
        anyio.run(main)
    finally:
        bot.stop()
