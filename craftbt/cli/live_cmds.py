"""``craftbt live``: the autonomy loop for N game days, with an end report; a killed session resumes.

On the embedded world the loop runs as fast as it can (``--realtime`` paces it
at 20 ticks a second, like a server); on a server (``--body mineflayer``) it runs
in real time. Lines on stdin are suggestions for the intrusive-thought filter.
State lives in ``$CRAFTBT_HOME`` (``memory.sqlite``, ``live/world.snap``): a
second start with a session still running resumes it, task in flight first;
``--fresh`` starts over (episodic memory is kept: it is what the bot learned).
"""

from __future__ import annotations

import json
import queue
import sys
import threading
from pathlib import Path
from typing import Any

import typer

from craftbt.autonomy import bodyinfo
from craftbt.autonomy.loop import LiveLoop, live_fence
from craftbt.autonomy.memory import EpisodicMemory
from craftbt.autonomy.report import LiveReport, render
from craftbt.cli.console import table_console
from craftbt.core.errors import CraftbtError, ErrorCode
from craftbt.core.home import default_home
from craftbt.executor.config import Bounds, ExecutorConfig
from craftbt.planners.llm.client import LlmConfig
from craftbt.router.thoughts import ThoughtDecision
from craftbt.world.body import Body

WORLDS = ("starter", "natural")


def _err(message: str) -> CraftbtError:
    return CraftbtError.single(ErrorCode.INVALID_ARGUMENT, message)


def _stdin_thoughts() -> queue.Queue[str | ThoughtDecision]:
    """Each stdin line becomes a suggestion; a daemon thread, so a silent stdin never holds the exit."""
    lines: queue.Queue[str | ThoughtDecision] = queue.Queue()

    def read() -> None:
        try:
            for line in sys.stdin:
                if line.strip():
                    lines.put(line.strip())
        except (OSError, ValueError):
            return

    threading.Thread(target=read, name="craftbt-live-stdin", daemon=True).start()
    return lines


def live_cmd(
    days: float = typer.Option(3.0, "--days", help="Game days to live (24,000 ticks each)"),
    seed: int = typer.Option(0, "--seed", help="World seed (embedded world) and the loop's seed"),
    world: str = typer.Option("starter", "--world", help="starter | natural (embedded world)"),
    body: str = typer.Option("sim", "--body", help="sim | mineflayer"),
    host: str = typer.Option("127.0.0.1", "--host"),
    port: int = typer.Option(25565, "--port"),
    username: str = typer.Option("craftbt", "--username"),
    geofence: str | None = typer.Option(None, "--geofence", help="x1,y1,z1:x2,y2,z2 (sim default: around spawn)"),
    realtime: bool = typer.Option(False, "--realtime", help="Pace the embedded world at 20 ticks a second"),
    fresh: bool = typer.Option(False, "--fresh", help="Start a new session even if one is unfinished"),
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON"),
    planner: str = typer.Option("solver", "--planner", help="The router's planner for obtain goals: solver (default) "
                                "| auto | htn | goap | llm"),
) -> None:
    """Live autonomously: needs -> goals -> plans -> actions, for N game days; report at the end."""
    if world not in WORLDS:
        raise _err(f"--world {world!r} is not one of {', '.join(WORLDS)}")
    if days <= 0:
        raise _err("--days must be positive")
    home = default_home()
    home.mkdir(parents=True, exist_ok=True)
    (home / "live").mkdir(exist_ok=True)
    snap = home / "live" / "world.snap"
    memory = EpisodicMemory(home / "memory.sqlite")
    session: dict[str, Any] | None = memory.get_state("session")
    resume = (not fresh and session is not None and session.get("status") == "running"
              and session.get("body") == body and (body != "sim" or snap.exists()))
    report: LiveReport | None = None
    if resume:
        assert session is not None
        saved = memory.get_state("report")
        report = LiveReport.model_validate(saved) if saved else None
        if report is not None:
            report.resumed += 1
        seed, world = int(session["seed"]), str(session["world"])
        note = f"resuming the unfinished session (seed {seed}, {world} world)"
    else:
        memory.clear_session()
        note = ""
    memory.close()
    the_body, fence = _open_body(body, world, seed, realtime, host, port, username, snap if resume else None)
    if geofence is not None:
        try:
            fence = Bounds.parse(geofence)
        except ValueError as exc:
            raise _err(str(exc)) from None
    elif resume and session is not None and session.get("fence"):
        fence = Bounds(**session["fence"])
    loop = LiveLoop(the_body, home, seed=seed, days=days, world=world, body_kind=body,
                    config=ExecutorConfig(geofence=fence), llm=LlmConfig.from_env(), thoughts=_stdin_thoughts(),
                    snapshot=snap if bodyinfo.can_snapshot(the_body) else None, report=report, planner=planner)
    loop.memory.set_state("session", {"seed": seed, "world": world, "body": body, "days": days,
                                      "status": "running", "fence": fence.model_dump() if fence else None})
    if note and not as_json:
        typer.echo(note, err=True)
    interrupted = False
    try:
        out = loop.run()
        loop.memory.set_state("session", {**loop.memory.get_state("session"), "status": "finished"})
    except KeyboardInterrupt:
        interrupted = True
        out = loop.close()  # the task in flight stays `running` in the journal: the next start resumes it
    finally:
        close = getattr(the_body, "close", None)
        if callable(close):
            close()
    if as_json:
        typer.echo(json.dumps(out.as_json(), indent=2))
    else:
        table_console().print(render(out))
        if interrupted:
            typer.echo("interrupted: run `craftbt live` again to resume", err=True)
    if interrupted:
        raise typer.Exit(130)


def _open_body(kind: str, world: str, seed: int, realtime: bool, host: str, port: int, username: str,
               snapshot: Path | None) -> tuple[Body, Bounds | None]:
    from craftbt.bot.body import BodyKind, make_body
    from craftbt.cli.run_cmds import body_spec

    spec = body_spec(kind, world, seed, None, host, port, username=username)
    body, _ = make_body(spec.model_copy(update={"snapshot": snapshot, "realtime": realtime}))
    # the live loop's own fence on the embedded world (days range wider than one task); none on a server:
    # world-changing leaves stay refused there until --geofence is given
    return body, live_fence(body) if spec.kind is BodyKind.SIM else None


def register(app: typer.Typer) -> None:
    app.command("live")(live_cmd)
