"""``craftbt build``: checkpointed structure builds (seed 001), and ``craftbt build status``.

``craftbt build TEMPLATE --at X,Y,Z --facing N|E|S|W`` builds a structure
template (a name from ``trees/structures`` or a path) module by module
with progress by module and block. State lives in ``--state DIR`` (default
``$CRAFTBT_HOME/build``, i.e. ``.craftbt/build`` when CRAFTBT_HOME is
unset): the build database and, on the embedded world, the world snapshot.
Re-running the same command (or adding ``--resume``) resumes: a killed build
continues from its last checkpoint after reconciling in-flight blocks. On a
fresh embedded world the template's materials are given unless
``--no-give`` (then deficits spawn resource sub-tasks).

``craftbt build status [--state DIR]`` shows the cursor, checkpoints,
invariant results and open deltas of every build in the state directory.
The template name ``status`` is reserved for that view.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.table import Table

from craftbt.capabilities.structures import Facing
from craftbt.cli.console import table_console
from craftbt.cli.numbers import parse_ascii_int, port_int, seed_int
from craftbt.core.errors import CraftbtError, ErrorCode, Location
from craftbt.core.inputs import read_bytes
from craftbt.world.body import BlockPos, Body

#: the state directory's name under ``$CRAFTBT_HOME`` (the default ``--state``)
STATE_DIR = "build"
WORLD_FILE = "world.snap"
DB_FILE = "build.sqlite"
#: a world snapshot larger than this is not one craftbt wrote
MAX_SNAPSHOT_BYTES = 1 << 30


def _err(message: str, expected: str | None = None) -> CraftbtError:
    return CraftbtError.single(ErrorCode.INVALID_ARGUMENT, message, expected=expected)


def parse_at(text: str) -> BlockPos:
    """``X,Y,Z`` in ASCII digits, inside the world border and height (checked before any work)."""
    from craftbt.world.scenarios.schema import BORDER
    from craftbt.world.sim.flags import MAX_Y, MIN_Y

    parts = text.split(",")
    if len(parts) != 3:
        raise _err(f"--at {text[:80]!r} has {len(parts)} part(s), not three integers", "X,Y,Z, e.g. 3,64,3")
    values: list[int] = []
    for axis, part, lo, hi in zip("XYZ", parts, (-BORDER, MIN_Y, -BORDER), (BORDER, MAX_Y, BORDER), strict=True):
        try:
            values.append(parse_ascii_int(part, lo, hi, f"--at {axis}"))
        except ValueError as err:
            raise _err(f"{err} (in --at {text[:80]!r})", "X,Y,Z inside the world, e.g. 3,64,3") from None
    return BlockPos(*values)


def parse_facing(text: str) -> Facing:
    if text.isascii():  # the long s (U+017F) upper-cases to "S"
        try:
            return Facing(text.upper())
        except ValueError:
            pass
    raise _err(f"--facing {text[:20]!r} is not a facing", "one of N, E, S, W")


def sim_body(state: Path, seed: int, scenario: Path | None, world: str | None = None) -> tuple[Any, bool]:
    """The embedded world: the state directory's snapshot if there is one, else a new world. (body, fresh)"""
    snap = state / WORLD_FILE
    if snap.exists():
        from craftbt.world.sim.snapshot import loads

        data = read_bytes(snap, what="world snapshot", max_bytes=MAX_SNAPSHOT_BYTES)
        try:
            return loads(data), False
        except Exception as exc:  # anything a damaged or foreign file makes the decoder raise
            raise CraftbtError.single(
                ErrorCode.ENVIRONMENT_ERROR, f"the world snapshot {str(snap)!r} cannot be loaded: {exc}",
                location=Location(str(snap)),
                expected="a snapshot written by craftbt build; move it away (with build.sqlite) to start over",
            ) from None
    if scenario is not None or world is not None:
        from craftbt.bot.body import body_spec, make_body

        return make_body(body_spec(scenario=scenario, world=world or "starter", seed=seed))[0], True
    from craftbt.world.sim.body import SimBody

    return SimBody(seed=seed), True


def run_build(
    template: str,
    at: BlockPos,
    facing: Facing,
    *,
    state: Path,
    seed: int = 0,
    scenario: Path | None = None,
    world: str | None = None,
    body_kind: str = "sim",
    give: bool = True,
    host: str = "127.0.0.1",
    port: int = 25565,
    username: str = "craftbt",
    version: str | None = None,
    progress: Any = None,
    mineflayer_body: Body | None = None,
) -> dict[str, Any]:
    """One build session (also the crash tests' worker). Returns a summary dict."""
    from craftbt.executor.build_state.store import BuildStore
    from craftbt.router.build.runner import BuildRunner, atomic_sim_persist
    from craftbt.router.build.subtasks import SolverAcquirer
    from craftbt.trees.structure_template import load_template

    tpl = load_template(template)
    state.mkdir(parents=True, exist_ok=True)
    persist = None
    owned: Any = None  # a body this session connected, closed at the end
    if body_kind == "sim":
        body, fresh = sim_body(state, seed, scenario, world)
        persist = atomic_sim_persist(body, state / WORLD_FILE)
        if fresh:
            if give:
                for item, n in tpl.materials().items():
                    body.give(item, n)
            persist()  # the world exists on disk before any build record refers to it
    elif body_kind == "mineflayer":
        if mineflayer_body is None:
            from craftbt.bot.body import BodyKind, BodySpec, make_body

            # the one body factory: a server that does not answer is a located server_unreachable error
            body, _ = make_body(BodySpec(body=BodyKind.MINEFLAYER, host=host, port=port, username=username,
                                         version=version))
            owned = body
        else:
            body = mineflayer_body
    else:
        raise _err(f"--body {body_kind!r} is not a body", "sim or mineflayer")
    store = BuildStore(state / DB_FILE)
    try:
        runner = BuildRunner(
            store,
            body,
            tpl,
            at,
            facing,
            persist=persist,
            home=state / "executor",
            acquirer=SolverAcquirer(),
            progress=progress,
            body_kind=body_kind,
        )
        meta = runner.run()
        return {
            "build_id": meta.build_id,
            "status": meta.status.value,
            "module_cursor": meta.module_cursor,
            "modules": len(meta.module_order),
            "checkpoints": len(meta.checkpoints),
            "placed_this_session": runner.body.placed,
            "blocked_reason": meta.blocked_reason,
        }
    finally:
        store.close()
        if owned is not None:
            owned.close()


def status_view(state: Path, console: Console, as_json: bool) -> None:
    from craftbt.executor.build_state.store import BuildStore

    db = state / DB_FILE
    if not db.exists():
        raise CraftbtError.single(
            ErrorCode.FILE_NOT_FOUND,
            f"no build state in {state}",
            expected=f"a directory holding {DB_FILE} (craftbt build ... --state DIR)",
        )
    store = BuildStore(db)
    try:
        out: list[dict[str, Any]] = []
        for build_id in store.builds():
            meta = store.load_build(build_id)
            assert meta is not None
            placements = store.placement_counts(build_id)
            out.append(
                {
                    "build_id": build_id,
                    "template": meta.template,
                    "status": meta.status.value,
                    "blocked_reason": meta.blocked_reason,
                    "cursor": meta.module_cursor,
                    "modules": meta.module_order,
                    "completed": meta.completed_modules,
                    "checkpoints": [c.model_dump(mode="json", by_alias=True) for c in meta.checkpoints],
                    "open_deltas": [d.model_dump(mode="json", by_alias=True) for d in meta.open_deltas],
                    "stations": [s.model_dump(mode="json", by_alias=True) for s in meta.station_registry],
                    "blocks_placed": sum(placements.values()),
                    "in_flight": len(store.in_flight(build_id)),
                    "subtasks": store.subtasks(meta.task_id),
                }
            )
    finally:
        store.close()
    if as_json:
        console.print_json(json.dumps(out))
        return
    for b in out:
        t = Table(title=f"build {b['build_id']} ({b['template']})", show_header=False)
        t.add_row("status", b["status"] + (f" — {b['blocked_reason']}" if b["blocked_reason"] else ""))
        t.add_row(
            "cursor",
            f"{b['cursor']}/{len(b['modules'])}: "
            + " ".join((f"[green]{m}[/]" if m in b["completed"] else m) for m in b["modules"]),
        )
        t.add_row("blocks placed", f"{b['blocks_placed']} (in flight: {b['in_flight']})")
        for c in b["checkpoints"]:
            inv = ", ".join(f"{r['invariant']}={'ok' if r['passed'] else 'FAIL'}" for r in c["invariantResults"])
            t.add_row(f"checkpoint {c['moduleCursor']}", f"{c['checkpointId']} ({inv})")
        for d in b["open_deltas"]:
            t.add_row("open delta", f"{d['severity']}: {d['moduleId']}: {d['issue']}")
        for s in b["stations"]:
            t.add_row("station", f"{s['kind']} at {s['pos']} reachable={s['reachable']}")
        for s in b["subtasks"]:
            t.add_row("sub-task", f"{s['task_id']} {s['status']} {s['goal']}")
        console.print(t)


def build_cmd(
    template: str = typer.Argument(..., help="Structure template name or path, or 'status'"),
    at: str | None = typer.Option(None, "--at", help="Reference corner X,Y,Z"),
    facing: str = typer.Option("N", "--facing", help="N | E | S | W"),
    body: str = typer.Option("sim", "--body", help="sim | mineflayer"),
    resume: bool = typer.Option(False, "--resume", help="Resume the build in --state (the default when it exists)"),
    scenario: Path | None = typer.Option(None, "--scenario", help="Scenario YAML for a fresh embedded world"),
    seed: int = typer.Option(0, "--seed", help="World seed for a fresh embedded world", parser=seed_int),
    world: str | None = typer.Option(None, "--world", help="natural | starter | flat for a fresh embedded world"),
    state: Path | None = typer.Option(
        None, "--state", help="State directory (build DB, world snapshot); default $CRAFTBT_HOME/build"),
    give: bool = typer.Option(True, "--give/--no-give", help="Give the template's materials on a fresh sim world"),
    host: str = typer.Option("127.0.0.1", "--host"),
    port: int = typer.Option(25565, "--port", help="1..65535", parser=port_int),
    username: str = typer.Option("craftbt", "--username", help="Bot name on the server (--body mineflayer)"),
    version: str | None = typer.Option(None, "--mc-version", "--version", help="Minecraft version (--body mineflayer)"),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON"),
) -> None:
    """Build a structure template with checkpoints; ``build status`` shows the build state."""
    from craftbt.core.home import default_home

    state = state if state is not None else default_home() / STATE_DIR
    console = table_console()
    if template == "status":
        status_view(state, console, as_json)
        return
    if at is None:
        raise _err("--at is required to build", "X,Y,Z of the reference corner")
    where, towards = parse_at(at), parse_facing(facing)  # before any state is touched
    if body not in ("sim", "mineflayer"):
        raise _err(f"--body {body!r} is not a body", "sim or mineflayer")
    if resume and not (state / DB_FILE).exists():
        raise CraftbtError.single(ErrorCode.FILE_NOT_FOUND, f"--resume: no build state in {state}")
    placed = {"n": 0}

    def progress(kind: str, data: dict[str, Any]) -> None:
        if as_json:
            return
        if kind == "package":
            console.print(
                f"[bold]{data['label']}[/] {data['module']}: {data['places']} blocks to place, "
                f"{data['steps'] - data['places']} to dig"
            )
        elif kind == "checkpoint":
            inv = ", ".join(f"{r['invariant']}={'ok' if r['passed'] else 'FAIL'}" for r in data["invariantResults"])
            console.print(f"  [green]checkpoint[/] {data['moduleCursor']}: {data['moduleId']} ({inv})")
        elif kind == "resume":
            cur = data.get("current") or {}
            console.print(
                f"resume: reconciled {data['reconciled_done']} done / {data['reconciled_lost']} lost; "
                f"site {'ok' if data['site_valid'] else 'INVALID'}; current {cur.get('module_id')} "
                f"{cur.get('state')}; action {data['action']} ({data['scan_ms']:.1f} ms)"
            )
        elif kind == "subtask":
            console.print(f"  [yellow]sub-task[/] {data['task']}: acquire {data['count']} {data['item']}")
        placed["n"] += 0

    result = run_build(
        template,
        where,
        towards,
        state=state,
        seed=seed,
        scenario=scenario,
        world=world,
        body_kind=body,
        give=give,
        host=host,
        port=port,
        username=username,
        version=version,
        progress=progress,
    )
    if as_json:
        console.print_json(json.dumps(result))
    else:
        console.print(
            f"{result['status']}: {result['module_cursor']}/{result['modules']} modules, "
            f"{result['checkpoints']} checkpoints, {result['placed_this_session']} blocks placed this session"
            + (f" — {result['blocked_reason']}" if result["blocked_reason"] else "")
        )
    if result["status"] not in ("complete",):
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command("build")(build_cmd)
