"""CraftScript commands: ``craftbt script run|check|logs|trace``, ``craftbt fn create|edit|delete|list|show|versions``.

``script run`` parses and checks the script, then runs it as an executor run on the embedded world
(or a real server): every command goes through the capability pipeline and lands in the journal.
Exit 0 when the script finished, 1 on a compile or script error.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import typer

from craftbt.bot.bot import bot_for
from craftbt.cli.run_cmds import _RUN_REF, body_spec
from craftbt.core.errors import CraftbtError, ErrorCode
from craftbt.core.inputs import read_text
from craftbt.craftscript import ast as a
from craftbt.craftscript.checker import Checker
from craftbt.craftscript.errors import ScriptError
from craftbt.craftscript.functions import FunctionStore, FunctionStoreError, parse_arg_spec
from craftbt.craftscript.interp import Limits
from craftbt.craftscript.macros import core_macros
from craftbt.craftscript.parser import parse
from craftbt.craftscript.records import ScriptRuns, logs_view, trace_view
from craftbt.craftscript.runner import outcome_json

script_app = typer.Typer(help="Run and check CraftScript scripts.", no_args_is_help=True)
fn_app = typer.Typer(help="Persistent, versioned CraftScript functions (per bot).", no_args_is_help=True)

#: the embedded world's player; ``fn`` commands use it unless --bot or CRAFTBT_BOT says otherwise
DEFAULT_BOT = "Sterling"


def _usage(message: str) -> CraftbtError:
    return CraftbtError.single(ErrorCode.INVALID_ARGUMENT, message)


def _read(path: Path) -> str:
    return read_text(path, what="script")  # regular files only, size-limited, UTF-8 with a location


def _compile(text: str, source: str, functions: dict[str, dict[str, Any]]) -> tuple[a.Program | None,
                                                                                   list[ScriptError]]:
    try:
        program = parse(text, source=source)
    except ScriptError as err:
        return None, [err]
    return program, Checker(program, core_macros=core_macros(), functions=functions).check()


def _print_errors(errors: list[ScriptError], as_json: bool) -> None:
    if as_json:
        print(json.dumps({"ok": False, "errors": [_problem(e) for e in errors]}, indent=2))
    else:
        for e in errors:
            print(e.render(), file=sys.stderr)


def _not_run(errors: list[ScriptError]) -> dict[str, Any]:
    """``script run --json`` for a script that did not compile: status ``compile_error``, the first problem
    as the structured failure in ``error``, every problem in ``errors`` (as ``script check --json`` lists them)."""
    first = errors[0]
    return {"ok": False, "status": "compile_error", "ops": 0,
            "error": {"ok": False, "error": first.code, "message": first.message, "op_index": 0,
                      "loc": first.loc.as_dict() if first.loc else None,
                      "notes": {"suggestion": first.suggestion} if first.suggestion else {},
                      "ts": int(time.time() * 1000)},
            "errors": [_problem(e) for e in errors], "logs": [], "steps": [], "block_changes": [], "position": None,
            "run_id": None}


def _problem(e: ScriptError) -> dict[str, Any]:
    return {"code": e.code, "message": e.message, "loc": e.loc.as_dict() if e.loc else None,
            "file": e.loc.source if e.loc else None, "suggestion": e.suggestion}


def _bot(bot: str | None) -> str:
    return bot or os.environ.get("CRAFTBT_BOT") or DEFAULT_BOT


def _parse_waypoints(items: list[str]) -> dict[str, tuple[int, int, int]]:
    out: dict[str, tuple[int, int, int]] = {}
    for item in items:
        name, _, coords = item.partition("=")
        try:
            x, y, z = (int(v) for v in coords.split(","))
        except ValueError:
            raise _usage(f"--waypoint {item!r} is not NAME=X,Y,Z") from None
        out[name] = (x, y, z)
    return out


def script_run(
    file: Path | None = typer.Argument(None, help="Script file (.cs); or use -e"),
    text: str | None = typer.Option(None, "-e", "--eval", help="Script text instead of a file"),
    scenario: Path | None = typer.Option(None, "--scenario", help="Scenario YAML for the embedded world"),
    seed: int = typer.Option(0, "--seed", help="World seed"),
    world_kind: str = typer.Option("starter", "--world", help="natural | starter | flat (sim, no --scenario)"),
    give: list[str] = typer.Option([], "--give", help="ITEM:N put in the inventory first (sim only; repeatable)"),
    waypoint: list[str] = typer.Option([], "--waypoint", help="NAME=X,Y,Z for waypoint(\"NAME\") (repeatable)"),
    body: str = typer.Option("sim", "--body", help="sim | mineflayer"),
    host: str = typer.Option("127.0.0.1", "--host"),
    port: int = typer.Option(25565, "--port"),
    username: str = typer.Option("craftbt", "--username"),
    profile: str = typer.Option("survival", "--profile", help="Permission profile"),
    shadow: bool = typer.Option(False, "--shadow", help="Observe only: commands are journalled, not dispatched"),
    geofence: str | None = typer.Option(None, "--geofence", help="x1,y1,z1:x2,y2,z2 (default: scenario bounds)"),
    max_ops: int = typer.Option(10_000, "--max-ops", min=1, help="Op cap (statements, loop iterations, predicates)"),
    max_ticks: int = typer.Option(20 * 60 * 20, "--max-ticks", min=1, help="Game-time budget in ticks"),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON"),
) -> None:
    """Run a CraftScript script as a journalled run."""
    if (file is None) == (text is None):
        raise _usage("craftbt script run: give a FILE or -e TEXT (exactly one)")
    source = str(file) if file is not None else "<eval>"
    script = _read(file) if file is not None else str(text)
    # options first: a bad one is a usage error before a server is joined or a world generated
    bot = bot_for(body_spec(body, world_kind, seed, scenario, host, port, username=username), profile=profile,
                  geofence=geofence, shadow=shadow, max_ticks=max_ticks)
    try:
        store = FunctionStore(bot.body.name)
        program, errors = _compile(script, source, store.signatures())
        if errors or program is None:
            if as_json:  # the run's own shape (nothing ran), so a caller reads "error" either way
                print(json.dumps(_not_run(errors), indent=2))
            else:
                _print_errors(errors, as_json)
            raise typer.Exit(1)
        for g in give:
            _give(bot.body, g)
        done = bot.run_script(program, text=script, name=Path(source).name, functions=store,
                              waypoints=_parse_waypoints(waypoint), limits=Limits(max_ops=max_ops))
    finally:
        bot.close()
    run, outcome = done.outcome, done.script
    payload = outcome_json(outcome, run)
    if as_json:
        print(json.dumps(payload, indent=2, default=str))
    else:
        for entry in payload["logs"]:
            if entry["kind"] == "log":
                print(entry["text"])
            elif entry["kind"] == "block_info":
                print(f"[block_info] {entry['summary']}")
        if payload["ok"]:
            print(f"ok: {payload['ops']} ops, run {payload['run_id']}", file=sys.stderr)
        else:
            err = payload["error"] or {}
            loc = err.get("loc") or {}
            print(f"{loc.get('source', source)}:{loc.get('line', '?')}:{loc.get('column', '?')}: "
                  f"{err.get('error')}: {err.get('message')} (run {payload['run_id']})", file=sys.stderr)
            for call in (err.get("notes") or {}).get("called_from", []):
                print(f"  in {call['name']}, called at {call.get('source', source)}:{call['line']}:{call['column']}",
                      file=sys.stderr)
    raise typer.Exit(0 if payload["ok"] else 1)


def _give(world: Any, spec: str) -> None:
    item, _, count = spec.partition(":")
    inv = getattr(getattr(getattr(world, "world", None), "player", None), "inventory", None)
    if inv is None:
        raise _usage("--give works on the embedded world only")
    try:
        n = int(count or "1")
        name = world.md.item(item.removeprefix("minecraft:")).name
    except (ValueError, KeyError, Exception) as exc:  # an unknown item name or a bad count
        raise _usage(f"--give {spec!r}: {exc}") from None
    if n < 1 or inv.add(name, n):
        raise _usage(f"--give {spec!r}: the count must be positive and fit in the inventory")


def script_check(
    file: Path = typer.Argument(..., help="Script file"),
    bot: str | None = typer.Option(None, "--bot", help="Whose functions count as known commands"),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Parse and statically check a script; errors as FILE:LINE:COL."""
    store = FunctionStore(_bot(bot))
    _, errors = _compile(_read(file), str(file), store.signatures())
    if errors:
        _print_errors(errors, as_json)
        raise typer.Exit(1)
    if as_json:
        print(json.dumps({"ok": True, "errors": []}))
    else:
        print(f"{file}: ok", file=sys.stderr)


def _kept(run_id: str) -> dict[str, Any]:
    """A script run's kept result, by run id or a unique prefix (exit 1 naming the store when there is none)."""
    if not _RUN_REF.fullmatch(run_id):
        raise _usage(f"RUN {run_id[:80]!r} is not a run id")
    records = ScriptRuns(read_only=True)
    try:
        payload = records.payload(run_id)
    finally:
        records.close()
    if payload is None:
        raise CraftbtError.single(ErrorCode.FILE_NOT_FOUND, f"no script run {run_id!r} in {records.path}")
    return payload


def script_logs(run_id: str = typer.Argument(..., help="Run id (or a unique prefix) of a script run"),
                as_json: bool = typer.Option(False, "--json")) -> None:
    """A script run's status, error and ordered logs (the craftscript_logs tool)."""
    view = logs_view(_kept(run_id))
    if as_json:
        print(json.dumps(view, indent=2, default=str))
        return
    for entry in view["logs"]:
        rest = {k: v for k, v in entry.items() if k not in ("kind", "line")}
        print(f"{entry.get('line', '-')}: {entry['kind']} {json.dumps(rest, default=str)}")
    print(f"{view['job_id']}: {view['status']}, {view['ops']} ops", file=sys.stderr)


def script_trace(run_id: str = typer.Argument(..., help="Run id (or a unique prefix) of a script run"),
                 as_json: bool = typer.Option(False, "--json")) -> None:
    """A script run's block changes and goto movement (the craftscript_trace tool)."""
    view = trace_view(_kept(run_id))
    if as_json:
        print(json.dumps(view, indent=2, default=str))
        return
    for c in view["changes"]:
        print(f"{c['action']} {c['block_id']} at {c['x']},{c['y']},{c['z']} by {c['command']}")
    for m in view["movement"]:
        print(f"goto from {m.get('from')} to {m.get('to')} arrived {m.get('arrived')}"
              + (f" (waypoint {m['waypoint']})" if m.get("waypoint") else ""))
    print(f"{view['job_id']}: {view['total_changes']} block change(s), {len(view['movement'])} goto(s)",
          file=sys.stderr)


# -- fn ----------------------------------------------------------------------------------------
def _store_call(fn: Any, as_json: bool) -> dict[str, Any]:
    try:
        result: dict[str, Any] = fn()
    except FunctionStoreError as err:
        if as_json:
            print(json.dumps({"ok": False, "error": err.code, "message": err.message,
                              "loc": err.loc.as_dict() if err.loc else None}))
        else:
            print(err.render(), file=sys.stderr)
        raise typer.Exit(1) from None
    return result


def fn_create(
    name: str = typer.Argument(...),
    body_file: Path = typer.Option(..., "--body-file", help="CraftScript body"),
    description: str = typer.Option("", "--description"),
    arg: list[str] = typer.Option([], "--arg", help="NAME:TYPE, NAME:TYPE=DEFAULT or NAME:TYPE? (repeatable)"),
    bot: str | None = typer.Option(None, "--bot"),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Create a function (version 1)."""
    store = FunctionStore(_bot(bot))
    body = _read(body_file)
    out = _store_call(lambda: store.create(name, body, description=description,
                                           args=[parse_arg_spec(s) for s in arg], source=str(body_file)), as_json)
    print(json.dumps(out) if as_json else f"created {out['name']} version {out['version']}")


def fn_edit(
    name: str = typer.Argument(...),
    body_file: Path = typer.Option(..., "--body-file"),
    summary: str = typer.Option("", "--summary", help="change_summary for this version"),
    arg: list[str] = typer.Option([], "--arg", help="Replace the argument list (default: keep it)"),
    bot: str | None = typer.Option(None, "--bot"),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Save a new version of a function's body."""
    store = FunctionStore(_bot(bot))
    body = _read(body_file)
    out = _store_call(lambda: store.edit(name, body, change_summary=summary,
                                         args=[parse_arg_spec(s) for s in arg] if arg else None,
                                         source=str(body_file)), as_json)
    print(json.dumps(out) if as_json else f"{out['name']} is now version {out['version']}")


def fn_delete(name: str = typer.Argument(...), bot: str | None = typer.Option(None, "--bot"),
              as_json: bool = typer.Option(False, "--json")) -> None:
    """Delete a function and every version of it."""
    store = FunctionStore(_bot(bot))
    out = _store_call(lambda: store.delete(name), as_json)
    print(json.dumps(out) if as_json else f"deleted {name}")


def fn_list(bot: str | None = typer.Option(None, "--bot"), as_json: bool = typer.Option(False, "--json")) -> None:
    """List the bot's functions."""
    store = FunctionStore(_bot(bot))
    out = _store_call(store.list, as_json)
    if as_json:
        print(json.dumps(out, indent=2))
        return
    for f in out["functions"]:
        args = ", ".join(f"{s['name']}:{s['type']}" for s in f["args"])
        print(f"{f['name']}({args})  v{f['current_version']}  {f['description']}")


def fn_show(name: str = typer.Argument(...), bot: str | None = typer.Option(None, "--bot"),
            as_json: bool = typer.Option(False, "--json")) -> None:
    """A function's details and current body."""
    store = FunctionStore(_bot(bot))
    out = _store_call(lambda: store.get(name), as_json)
    if as_json:
        print(json.dumps(out, indent=2))
        return
    args = ", ".join(f"{s['name']}:{s['type']}" for s in out["args"])
    print(f"{out['name']}({args})  version {out['version']}\n{out['description']}\n---\n{out['body']}")


def fn_versions(name: str = typer.Argument(...), limit: int | None = typer.Option(None, "--limit", min=0),
                bot: str | None = typer.Option(None, "--bot"), as_json: bool = typer.Option(False, "--json")) -> None:
    """A function's version history, newest first."""
    store = FunctionStore(_bot(bot))
    out = _store_call(lambda: store.versions(name, limit), as_json)
    if as_json:
        print(json.dumps(out, indent=2))
        return
    for v in out["versions"]:
        print(f"v{v['version']}  {v['created_at']}  {v['created_by']}  {v['change_summary']}")


def register(app: typer.Typer) -> None:
    script_app.command("run")(script_run)
    script_app.command("check")(script_check)
    script_app.command("logs")(script_logs)
    script_app.command("trace")(script_trace)
    fn_app.command("create")(fn_create)
    fn_app.command("edit")(fn_edit)
    fn_app.command("delete")(fn_delete)
    fn_app.command("list")(fn_list)
    fn_app.command("show")(fn_show)
    fn_app.command("get")(fn_show)
    fn_app.command("versions")(fn_versions)
    app.add_typer(script_app, name="script")
    app.add_typer(fn_app, name="fn")
