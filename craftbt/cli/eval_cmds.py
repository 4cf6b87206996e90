"""``craftbt eval``: a goal x seed x planner x world matrix, in-process or on Ray, resumable, with a report."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from craftbt.core.errors import CraftbtError, ErrorCode, Location
from craftbt.core.inputs import is_file, read_text
from craftbt.evaluation.episode import MAX_SEED, EpisodeBody, EpisodeResult, WorldKind
from craftbt.evaluation.fleet import MAX_BOTS, BodyKind, FleetSpec, ItemResult, WorkItem, run_fleet
from craftbt.evaluation.report import html_report, summarize
from craftbt.evaluation.runner import evaluate, expand
from craftbt.evaluation.side_by_side import agreement, pair_up, side_by_side_text
from craftbt.evaluation.store import ResultStore
from craftbt.executor.config import Bounds
from craftbt.executor.sla import percentile

#: at most this many episodes in one command: a typo in --seeds must not queue a billion
MAX_EPISODES = 100_000
MAX_GOALS_FILE_BYTES = 1_000_000
_SEED_RANGE = re.compile(r"^([0-9]+)-([0-9]+)$")


def _err(message: str, expected: str | None = None) -> CraftbtError:
    return CraftbtError.single(ErrorCode.INVALID_ARGUMENT, message, expected=expected)


def parse_seeds(text: str) -> list[int]:
    """``0-19``, ``3,7,11`` or ``5``; ASCII digits only, each within 64 bits."""
    seeds: list[int] = []
    for part in (p.strip() for p in text.split(",")):
        match = _SEED_RANGE.match(part)
        if match:
            low, high = int(match.group(1)), int(match.group(2))
            if high < low or high - low >= MAX_EPISODES:
                raise _err(f"--seeds {part!r} is not a range low-high of at most {MAX_EPISODES} seeds")
            seeds.extend(range(low, high + 1))
        elif part.isascii() and part.isdigit():
            seeds.append(int(part))
        else:
            raise _err(f"--seeds {part!r} is not a seed or a range", expected="0-19, or 3,7,11")
    if not seeds or max(seeds) > MAX_SEED:
        raise _err(f"--seeds {text!r} must name seeds from 0 to {MAX_SEED}")
    return list(dict.fromkeys(seeds))


def parse_goals(text: str) -> list[str]:
    """A file of goals (one per line, ``#`` comments) or a comma-separated list."""
    path = Path(text)
    if is_file(path):  # a regular file, size-limited, UTF-8: the input boundary says otherwise by name
        lines = read_text(path, what="goals file", max_bytes=MAX_GOALS_FILE_BYTES).splitlines()
        goals = [line.split("#", 1)[0].strip() for line in lines]
    else:
        goals = [g.strip() for g in text.split(",")]
    goals = [g for g in goals if g]
    if not goals:
        raise _err(f"--goals {text!r} names no goal", expected='"obtain stick,obtain wooden_pickaxe" or a file')
    return list(dict.fromkeys(goals))


def readable_goals(goals: list[str]) -> list[str]:
    """``goals`` when the goal parser reads every one; else every one it cannot read, in one error."""
    from craftbt.planners.intent import parse_goal

    problems = []
    for goal in goals:
        try:
            parse_goal(goal)
        except CraftbtError as err:
            problem = err.problems[0]
            problem.location = Location(path="--goals")
            if problem.code is ErrorCode.INVALID_ARGUMENT and " " not in goal.strip():
                problem.suggestion = f"obtain {goal.strip()}"  # a bare item name: the usual slip
            problems.append(problem)
    if problems:
        raise CraftbtError(problems)
    return goals


def server_episodes(body: str, host: str | None, port: int, geofence: str | None) -> dict[str, object] | None:
    """What turns an embedded episode into its server twin (``--body mineflayer``), or None for ``--body sim``."""
    try:
        kind = EpisodeBody(body)
    except ValueError:
        raise _err(f"--body {body!r} is not one of {', '.join(b.value for b in EpisodeBody)}") from None
    if kind is EpisodeBody.SIM:
        return None
    if host is None:
        return {"body": kind}
    if geofence is None:
        raise _err("--host needs --geofence: world-changing leaves stay refused on a server without one")
    try:
        Bounds.parse(geofence)
    except ValueError as err:
        raise _err(f"--geofence {geofence!r}: {err}", expected="x1,y1,z1:x2,y2,z2") from None
    return {"body": kind, "server": f"{host}:{port}", "geofence": geofence}


def eval_cmd(
    goals: str = typer.Option(..., "--goals", help='Comma-separated goals, or a file with one per line'),
    seeds: str = typer.Option("0-9", "--seeds", help="Seeds: 0-19, or 3,7,11"),
    planner: str = typer.Option("auto", "--planner", help="Comma-separated: auto, solver, htn, goap, llm"),
    world: str = typer.Option("starter", "--world", help="Comma-separated: starter, natural, flat"),
    workers: int = typer.Option(1, "--workers", min=1, max=1024, help="Parallel episodes (Ray above 1)"),
    address: str | None = typer.Option(None, "--address", help="Join a Ray cluster: auto or HOST:PORT"),
    out: Path = typer.Option(Path("eval-out"), "--out", help="Results folder (resumes what is there)"),
    max_ticks: int = typer.Option(24_000, "--max-ticks", min=1, max=10_000_000, help="Game-tick budget per run"),
    as_json: bool = typer.Option(False, "--json", help="Print the summary as JSON"),
    body: str = typer.Option("sim", "--body", help="sim, or mineflayer: each episode also on the test server "
                             "serving the same world (one server and one bot per episode), side by side"),
    host: str | None = typer.Option(None, "--host", help="--body mineflayer: join this server instead of "
                                    "starting one per episode (it must serve the same world and seed)"),
    port: int = typer.Option(25565, "--port", min=1, max=65535, help="--body mineflayer with --host"),
    geofence: str | None = typer.Option(None, "--geofence", help="--body mineflayer with --host: x1,y1,z1:x2,y2,z2"),
) -> None:
    """Evaluate goals over seeds, planners and worlds; every episode once, results under --out.

    Example: craftbt eval --goals "obtain stick,obtain wooden_pickaxe" --seeds 0-9 --planner solver,htn;
    craftbt eval --body mineflayer --world natural --goals "obtain wooden_pickaxe" --seeds 1-5
    """
    try:  # what the parser cannot read is refused before any episode starts (exit 2, the reason)
        goal_list = readable_goals(parse_goals(goals))
        seed_list = parse_seeds(seeds)
    except CraftbtError as err:
        for problem in err.problems:
            typer.echo(f"craftbt eval: {problem.render()}", err=True)
        raise typer.Exit(2) from None
    planners = [p.strip() for p in planner.split(",") if p.strip()]
    try:
        worlds = [WorldKind(w.strip()).value for w in world.split(",") if w.strip()]
    except ValueError:
        raise _err(f"--world {world!r}: each must be one of {', '.join(k.value for k in WorldKind)}") from None
    specs = expand(goal_list, seed_list, planners or ["auto"], worlds or ["starter"], max_ticks)
    try:  # a bad --body, --host without a fence or a bad box: a usage error (exit 2) before any episode
        kind = server_episodes(body, host, port, geofence)
    except CraftbtError as err:
        for problem in err.problems:
            typer.echo(f"craftbt eval: {problem.render()}", err=True)
        raise typer.Exit(2) from None
    if kind is not None:
        specs += [s.model_copy(update=kind) for s in specs]
    if len(specs) > MAX_EPISODES:
        raise _err(f"{len(specs)} episodes requested; at most {MAX_EPISODES} per command")
    if out.exists() and not out.is_dir():
        raise _err(f"--out {out} exists and is not a folder")

    columns = (TextColumn("[bold]eval"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
               TextColumn("{task.fields[last]}"))
    with Progress(*columns, disable=as_json or not sys.stderr.isatty(), console=None, transient=False) as bar:
        task = bar.add_task("eval", total=len(specs), last="")

        def seen(result: EpisodeResult) -> None:
            bar.update(task, advance=1, last=f"{result.goal} seed {result.seed}: {result.status.value}")

        try:
            run = evaluate(specs, out, workers=workers, address=address, on_result=seen)
        except KeyboardInterrupt:  # SIGINT or SIGTERM: the run in flight closed cancelled; its episode is not stored
            typer.echo(f"craftbt eval: finished episodes are stored in {out / 'results.sqlite'}; the one in flight "
                       "was not: the same command resumes it", err=True)
            raise
    store = ResultStore(run.store)
    try:
        wanted = {s.key for s in specs}
        results = [r for r in store.results() if r.key in wanted]
    finally:
        store.close()
    report = out / "report.html"
    report.write_text(html_report(results), encoding="utf-8")
    cells = summarize(results)
    pairs = pair_up(results) if kind is not None else []
    if as_json and not pairs:
        typer.echo(json.dumps({
            "ran": run.ran, "skipped": run.skipped, "backend": run.backend, "store": str(run.store),
            "report": str(report), "cells": [{**c.model_dump(), "rate": c.rate} for c in cells],
        }, indent=2))
        return
    if as_json and pairs:
        a = agreement(pairs)
        typer.echo(json.dumps({
            "ran": run.ran, "skipped": run.skipped, "backend": run.backend, "store": str(run.store),
            "report": str(report), "cells": [{**c.model_dump(), "rate": c.rate} for c in cells],
            "side_by_side": [{"goal": p.goal, "seed": p.seed, "planner": p.planner, "world": p.world,
                              "embedded": p.embedded.status.value if p.embedded else None,
                              "server": p.server.status.value if p.server else None} for p in pairs],
            "agreement": {**vars(a), "server_share": a.server_share},
        }, indent=2))
        return
    typer.echo(f"{run.ran} episodes run ({run.backend}), {run.skipped} already done; results {run.store}")
    for c in cells:
        sim = "" if c.median_sim_minutes is None else f", median {c.median_sim_minutes:.1f} simulated min"
        typer.echo(f"  {c.goal} [{c.planner}, {c.world}]: {c.successes}/{c.episodes}{sim}")
    for line in side_by_side_text(pairs) if pairs else []:
        typer.echo(line)
    typer.echo(f"report {report}")


def fleet_cmd(
    bots: int = typer.Option(2, "--bots", min=1, max=MAX_BOTS, help="How many bots"),
    body: str = typer.Option("sim", "--body", help="sim (a world per bot) or mineflayer (all on one server)"),
    goals: str | None = typer.Option(None, "--goals", help="Comma-separated goals, or a file with one per line"),
    tree: list[Path] = typer.Option([], "--tree", help="A tree file to run (repeatable)"),
    repeat: int = typer.Option(1, "--repeat", min=1, max=1000, help="Queue every item this many times"),
    host: str = typer.Option("127.0.0.1", "--host"),
    port: int = typer.Option(25565, "--port", min=1, max=65535),
    version: str = typer.Option("1.21.4", "--mc-version", "--version",
                                help="Minecraft protocol version (--body mineflayer)"),
    geofence: str | None = typer.Option(None, "--geofence", help="x1,y1,z1:x2,y2,z2 (needed on a server)"),
    seed: int = typer.Option(0, "--seed", min=0, max=2**62),
    workers: int = typer.Option(1, "--workers", min=1, max=1024, help="Above 1: each bot a Ray actor"),
    out: Path = typer.Option(Path("fleet-out"), "--out", help="The bots' journals go under here"),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Run a queue of goals and trees on a fleet of bots, each with its own body, executor and journal."""
    items = [WorkItem(kind="goal", text=g) for g in (parse_goals(goals) if goals else [])]
    for path in tree:
        if not path.is_file():
            raise _err(f"--tree {path}: no such file")
        items.append(WorkItem(kind="tree", text=str(path.resolve())))
    if not items:
        raise _err("nothing to do", expected="--goals and/or --tree")
    try:
        spec = FleetSpec(bots=bots, body=BodyKind(body), seed=seed, host=host, port=port, version=version,
                         geofence=Bounds.parse(geofence) if geofence else None)
    except ValueError as err:
        raise _err(f"fleet options: {err}") from None
    results = run_fleet(spec, items * repeat, out.resolve(), workers=workers)
    per_bot: dict[int, list[ItemResult]] = {}
    for r in results:
        per_bot.setdefault(r.bot, []).append(r)
    rows = []
    for bot, done in sorted(per_bot.items()):
        p95 = percentile([t for r in done for t in r.ttfa_ms], 95)  # the SLA report's nearest rank
        rows.append({"bot": bot, "items": len(done), "successes": sum(r.status == "success" for r in done),
                     "ttfa_p95_ms": p95})
    if as_json:
        typer.echo(json.dumps({"bots": rows, "results": [r.model_dump(mode="json") for r in results]}, indent=2))
    else:
        for row in rows:
            shown = "" if row["ttfa_p95_ms"] is None else f", TTFA p95 {row['ttfa_p95_ms']:.1f} ms"
            typer.echo(f"bot {row['bot']}: {row['successes']}/{row['items']} succeeded{shown}")
    if any(r.status != "success" for r in results):
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command("eval")(eval_cmd)
    app.command("fleet")(fleet_cmd)
