"""Execution commands: run, runs, show, sla, lifecycle.

``craftbt run TREE`` executes a tree on the embedded world (default) or a real
server, with a live display of the tree's node statuses, and prints a summary;
every run lands in the journal (``$CRAFTBT_HOME`` or ``.craftbt/``) with its
golden-run report. ``runs`` and ``show`` read the journal; ``sla`` reports per
capability@version health; ``lifecycle`` manages shadow/active/retired/revoked
versions and promotes canaries.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from craftbt.bot.body import BodyKind, BodySpec
from craftbt.bot.body import body_spec as make_spec
from craftbt.bot.bot import Bot, bot_for
from craftbt.capabilities.default import default_registry
from craftbt.cli.console import table_console
from craftbt.cli.numbers import ascii_int, port_int, seed_int
from craftbt.cli.trees_cmds import capabilities_app
from craftbt.cli.watching import ended_with, watching
from craftbt.core.errors import CraftbtError, ErrorCode
from craftbt.core.home import default_home
from craftbt.core.outputs import check_output, write_output
from craftbt.executor.config import PROFILES
from craftbt.executor.executor import RunOutcome
from craftbt.executor.journal import Journal
from craftbt.executor.lifecycle import Lifecycle, Stage, promote
from craftbt.executor.state import MS_PER_TICK
from craftbt.router.router import GoalRun

#: ``--planner`` values; ``fast_path`` answers safety goals only (the router says so otherwise)
PLANNERS = ("auto", "solver", "htn", "goap", "llm", "building", "fast_path")
#: the most game ticks one run may be given: about 58 days of game time
MAX_TICKS = 100_000_000


def _err(message: str, code: ErrorCode = ErrorCode.INVALID_ARGUMENT, expected: str | None = None) -> CraftbtError:
    return CraftbtError.single(code, message, expected=expected)


_DURATION = re.compile(r"([0-9]{1,9})([smhd])", re.ASCII)
_EPOCH = re.compile(r"[0-9]{1,12}(\.[0-9]{1,9})?", re.ASCII)
#: ``show`` takes a run id or a prefix of one; ``sla --capability`` a name with an optional version pin.
_RUN_REF = re.compile(r"[A-Za-z0-9.:_-]{1,128}", re.ASCII)
_CAP_REF = re.compile(r"[a-z][a-z0-9_]{0,63}(@[0-9]{1,9}(\.[0-9]{1,9}){0,2})?", re.ASCII)


def _since(text: str | None) -> float | None:
    """``90m``, ``2h``, ``7d``, ``30s`` ago, or an epoch timestamp (ASCII digits; finite)."""
    if text is None:
        return None
    units = {"s": 1, "m": 60, "h": 3600, "d": 86400}
    duration = _DURATION.fullmatch(text)
    if duration:
        return time.time() - int(duration[1]) * units[duration[2]]
    if _EPOCH.fullmatch(text):
        return float(text)
    raise _err(f"--since {text!r} is not a duration like 30m, 2h, 7d or an epoch time")


def parse_inventory(text: str) -> dict[str, int]:
    """``--inventory``: a JSON object ``{"item": count}`` given inline or as a file; pre-1.21 item names are
    renamed (world.legacy_names) with a note on stderr, never silently."""
    from craftbt.world.legacy_names import modern_inventory

    path = Path(text)
    source = text
    try:
        if not text.lstrip().startswith("{") and path.is_file():
            source = path.read_text(encoding="utf-8")
        raw = json.loads(source)
    except (OSError, ValueError) as err:
        raise CraftbtError.single(ErrorCode.INVALID_ARGUMENT, f"--inventory {text[:60]!r}: {err}",
                                  expected='a JSON object {"item": count} or a file holding one') from None
    if not isinstance(raw, dict) or not all(isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool)
                                            and v >= 0 for k, v in raw.items()):
        raise CraftbtError.single(ErrorCode.INVALID_ARGUMENT, "--inventory is not an object of item counts",
                                  expected='{"item": count, ...} with counts >= 0')
    inventory, notes = modern_inventory(raw)
    for note in notes:
        typer.echo(f"--inventory: {note}; using the 1.21.4 name", err=True)
    return inventory


def body_spec(body: str, world: str, seed: int, scenario: Path | None, host: str | None = None,
              port: int | None = None, version: str | None = None, username: str = "craftbt", *,
              realtime: bool = False, inventory: dict[str, int] | None = None) -> BodySpec:
    """The body the common options describe (``--body --world --seed --scenario --host --port --mc-version
    --realtime --inventory``)."""
    if body not in tuple(BodyKind):
        raise _err(f"--body {body!r} is not a body", expected="sim or mineflayer")
    return make_spec(body=BodyKind(body), world=world, seed=seed, scenario=scenario, host=host, port=port,
                     version=version, username=username, realtime=realtime, inventory=inventory)


def _summary_table(out: RunOutcome, holding: str = "", goal: GoalRun | None = None) -> Table:
    """The last run's summary; for a goal, the whole goal's game time too (its attempts and its nights: the last
    run of a goal that took six days may have taken ten seconds)."""
    table = Table(title=f"run {out.run_id} — {out.tree}", show_header=False)
    colour = "green" if out.ok else "red"
    table.add_row("result", f"[{colour}]{out.status}[/]" + (" (shadow)" if out.shadow else ""))
    if goal is not None:
        ticks = goal.sim_ticks()
        table.add_row("goal's time", f"{ticks * MS_PER_TICK / 1000:.2f} s ({ticks} ticks) over "
                                     f"{len(goal.outcomes)} run(s) and {len(goal.nights)} night(s)")
    table.add_row("simulated time" if goal is None else "last run's time",
                  f"{out.sim_ms / 1000:.2f} s ({out.ticks} ticks)")
    table.add_row("wall time", f"{out.wall_ms / 1000:.2f} s")
    table.add_row("leaves run", str(out.leaves_run))
    table.add_row("dispatches", str(out.dispatches))
    table.add_row("failures", str(out.metrics.get("failures", 0)))
    if holding:
        table.add_row("ended with", holding)
    if out.gate is not None and not out.gate.should_proceed:
        table.add_row("blocked", f"{out.gate.block_reason}: {out.gate.block_detail}")
    if out.escalation:
        e = out.escalation
        table.add_row("escalation", f"{e.node} ({e.capability}): {e.reason.value} {e.code or ''} {e.detail}")
    for d in out.failures[-5:]:
        table.add_row("decision", f"{d.reason} {d.node or ''}")
    if out.report_path:
        table.add_row("report", out.report_path)
    return table


def run_cmd(
    tree: Path | None = typer.Argument(None, metavar="TREE", show_default=False,
                                       help="Tree file (YAML, JSON) or a library tree's name; or use --goal"),
    goal: str | None = typer.Option(None, "--goal", help='Plan, route and run a goal, e.g. "obtain iron_pickaxe"'),
    planner: str = typer.Option("auto", "--planner", help="With --goal: " + " | ".join(PLANNERS)),
    scenario: Path | None = typer.Option(None, "--scenario", help="Scenario YAML for the embedded world"),
    seed: int = typer.Option(0, "--seed", help="World seed (a signed 64-bit integer)", parser=seed_int),
    world: str = typer.Option("starter", "--world", help="natural | starter | flat (sim body, without --scenario)"),
    inventory: str | None = typer.Option(
        None, "--inventory", help='Sim body: start holding this, JSON {"item": count} or a file (a flat world '
        'with a crafting table and a furnace unless --world names another)'),
    body: str = typer.Option("sim", "--body", help="sim | mineflayer"),
    host: str = typer.Option("127.0.0.1", "--host"),
    port: int = typer.Option(25565, "--port", help="1..65535", parser=port_int),
    username: str = typer.Option("craftbt", "--username", help="Bot name on the server (offline auth)"),
    mc_version: str = typer.Option("1.21.4", "--mc-version", "--version",
                                     help="Minecraft protocol version of the server (--body mineflayer)"),
    shadow: bool = typer.Option(False, "--shadow", help="Observe and record; dispatch nothing"),
    profile: str = typer.Option("survival", "--profile", help=f"Permission profile: {', '.join(PROFILES)}"),
    allow_command: list[str] = typer.Option(
        [], "--allow-command", help="A server command a tree may send (e.g. give); repeat for more; needs "
        "--profile operator"),
    geofence: str | None = typer.Option(None, "--geofence", help="x1,y1,z1:x2,y2,z2 (default: scenario bounds)"),
    max_ticks: int = typer.Option(24_000, "--max-ticks", help=f"Budget in game ticks (1..{MAX_TICKS})",
                                  parser=ascii_int(1, MAX_TICKS)),
    as_json: bool = typer.Option(False, "--json", help="Print the outcome as JSON"),
    at: str | None = typer.Option(None, "--at", help="Build goals: the site's corner X,Y,Z (default: near the bot)"),
    tree_path: list[Path] = typer.Option(
        [], "--tree-path", help="A folder subtrees may be read from (repeatable; also CRAFTBT_TREE_PATH)"),
    work_at_night: bool = typer.Option(
        False, "--work-at-night", help="With --goal: keep working on the surface at night (default: stop at "
        "sunset, shelter in a roofed pit, go on in the morning)"),
    no_live: bool = typer.Option(False, "--no-live", help="No live view of the running branch (the summary stays)"),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Print only the outcome line (no live view, no plans)"),
    realtime: bool = typer.Option(False, "--realtime", help="Pace the embedded world at 20 ticks a second"),
    groot2: int | None = typer.Option(
        None, "--groot2", help="Serve the running tree to Groot2 monitors (Groot2, btview) on PORT and PORT+1 "
        "(127.0.0.1)", parser=port_int, metavar="PORT"),
    groot2_wait: float = typer.Option(
        0.0, "--groot2-wait", min=0, max=3600, help="With --groot2: hold each run's first tick until a monitor "
        "connects, at most this many seconds"),
) -> None:
    """Run a tree (or plan one for --goal) on a body; record the journal, golden-run report and SLA rows.

    Examples: craftbt run obtain_wooden_pickaxe --seed 3 · craftbt run my_tree.yaml --world flat ·
    craftbt run --goal "obtain iron_pickaxe" · craftbt run greet --body mineflayer --host 127.0.0.1 --port 25565
    """
    from craftbt.cli.trees_cmds import load_checked, use_tree_path
    from craftbt.trees.paths import tree_argument

    use_tree_path(tree_path)
    if (tree is None) == (goal is None):
        typer.echo("craftbt run: give a TREE file or --goal, not both and not neither", err=True)
        raise typer.Exit(2)
    if planner not in PLANNERS:
        raise _err(f"--planner {planner!r} is not a planner", expected="one of " + ", ".join(PLANNERS))
    registry = default_registry()
    if tree is not None:
        tree = tree_argument(tree)  # a library tree by name: `craftbt run obtain_wooden_pickaxe`
    # every problem of the file, located, before a body exists (a refused subtree is never opened)
    definition = load_checked(tree, registry) if tree is not None else None
    held = parse_inventory(inventory) if inventory is not None else None
    the_bot = bot_for(body_spec(body, world, seed, scenario, host, port, mc_version, username, realtime=realtime,
                                inventory=held),
                      profile=profile, geofence=geofence, registry=registry, shadow=shadow, max_ticks=max_ticks,
                      allowed_commands=frozenset(c.strip().lower() for c in allow_command))
    console = Console(stderr=True)
    quiet = quiet or as_json
    try:
        with watching(the_bot.executor, console, live=not (no_live or quiet), groot2=groot2, groot2_wait=groot2_wait):
            goal_run: GoalRun | None = None
            if definition is not None and tree is not None:
                out = _run_tree(definition, tree, the_bot, quiet=quiet)
            else:
                assert goal is not None
                goal_run = _run_goal(goal, the_bot, planner, quiet=quiet, at=at, shelter_at_night=not work_at_night)
                out = goal_run.outcomes[-1]
            holding = ended_with(the_bot.body)
    finally:
        the_bot.close()  # the journal, and a real body's connection and Node bridge
    if as_json:
        typer.echo(out.model_dump_json(indent=2))
    elif quiet:
        typer.echo(f"{out.status} {out.run_id} {out.tree}: ended with {holding}")
    else:
        table_console().print(_summary_table(out, holding, goal_run))
    if not out.ok:
        raise typer.Exit(1)


def _run_goal(goal: str, bot: Bot, planner: str, *, quiet: bool, at: str | None = None,
              shelter_at_night: bool = True) -> GoalRun:
    """Route the goal to a planner, run its tree, replan on escalation; print why each plan was chosen and how
    each night was spent. The goal run has run at least one plan."""
    from craftbt.cli.build_cmds import parse_at

    context = {"at": list(parse_at(at))} if at is not None else None
    goal_run = bot.run_goal(goal, planner=planner, context=context, shelter_at_night=shelter_at_night)
    if not quiet:
        console = table_console()
        nights = iter(goal_run.nights)
        for decision, attempt in zip(goal_run.decisions, goal_run.attempts, strict=False):
            console.print(f"[bold]{decision.chosen}[/] ({decision.method}): {decision.reason} "
                          f"-> {attempt.status} [dim]{attempt.run_id}[/]")
            night = next(nights, None) if attempt.status == "preempted" else None
            if night is not None:
                spent = "in a roofed pit" if night.sheltered else f"working: {escape(night.why or '')}"
                console.print(f"  night: stopped at sunset, ticks {night.started_at}-{night.ended_at} {spent} "
                              f"[dim]{', '.join(night.run_ids)}[/]")
        if goal_run.stopped:
            console.print(f"[yellow]{goal_run.stopped}[/]")
    if not goal_run.outcomes:
        raise _err(f"no plan was run for {goal!r}")
    return goal_run


def _run_tree(definition: Any, tree: Path, bot: Bot, *, quiet: bool) -> RunOutcome:
    """Run a tree file; a missing precondition (item, station, fuel, tool) runs as a planned subgoal first."""
    tree_run = bot.run_tree_repaired(definition, base_dir=tree.parent)
    if not quiet:
        console = table_console()
        for repair, attempt in zip(tree_run.repairs, tree_run.attempts[1:], strict=False):
            console.print(f"[bold]subgoal[/] {repair} first -> {attempt.status} [dim]{attempt.run_id}[/]")
        if tree_run.stopped:
            console.print(f"[yellow]{tree_run.stopped}[/]")
    return tree_run.outcomes[-1]


def runs_cmd(
    limit: int = typer.Option(20, "--limit", help="1..100000", parser=ascii_int(1, 100_000)),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """List recent runs from the journal (read-only: works on a read-only copy)."""
    journal = Journal(read_only=True)
    try:
        rows = journal.list_runs(limit)
        damage = journal.damage()
    finally:
        journal.close()
    if as_json:
        typer.echo(json.dumps([{k: v for k, v in r.items() if k != "summary"} for r in rows], indent=2, default=str))
    else:
        table = Table("run", "tree", "status", "body", "steps", "failures", "sim s", "started")
        for r in rows:
            table.add_row(r["run_id"], r["tree_name"] or "", r["status"], r["body"] or "", str(r["steps"]),
                          str(r["failures"]), f"{(r['sim_ticks'] or 0) / 20:.1f}",
                          time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(r["started_at"])))
        table_console().print(table)
    if damage:  # what could be read is shown; the exit code says the journal is not sound (docs/records.md)
        typer.echo(f"{journal.path}: storage_corrupt: the journal is damaged ({'; '.join(damage[:2])}); the runs "
                   "above may be incomplete. Run `craftbt doctor` for how to recover.", err=True)
        raise typer.Exit(1)


def show_cmd(run_id: str = typer.Argument(..., help="Run id (or a unique prefix)"),
             as_json: bool = typer.Option(False, "--json")) -> None:
    """Print one run: provenance, steps with verdicts, decisions (read-only)."""
    if not _RUN_REF.fullmatch(run_id):
        raise _err(f"RUN_ID {run_id[:80]!r} is not a run id", expected="a run id or a prefix of one, e.g. run-3f2a")
    journal = Journal(read_only=True)
    try:
        detail = journal.run_detail(run_id)
    except KeyError:
        raise _err(f"no run {run_id!r} in {journal.path}", ErrorCode.FILE_NOT_FOUND) from None
    finally:
        journal.close()
    if as_json:
        typer.echo(json.dumps(detail, indent=2, default=str))
        return
    console = table_console()
    console.print(f"[bold]{detail['run_id']}[/] {detail['tree_name']} — {detail['status']}"
                  f" ({(detail['sim_ticks'] or 0) / 20:.1f} s simulated)")
    console.print(f"intent {detail['intent_id']}  plan {detail['plan_id']}  failed steps {detail['failures']}")
    console.print(f"expansion {detail['expansion_digest']}\nexecutor plan {detail['executor_plan_digest']}")
    steps = Table("#", "node", "capability", "attempt", "outcome", "verdict", "ms", "ttfa", "error", title="steps")
    for s in detail["steps"]:
        steps.add_row(str(s["step_id"]), s["node"], f"{s['capability']}@{s['version']}"
                      + (" (shadow)" if s["shadow"] else ""), str(s["attempt"]), STEP_MARK[s["outcome"]],
                      s["verdict"] or "", f"{s['duration_ms'] or 0:.0f}",
                      "" if s["ttfa_ms"] is None else f"{s['ttfa_ms']:.0f}", s["error_code"] or "")
    console.print(steps)
    failed = ([s for s in detail["steps"] if s["outcome"] == "failed" and s.get("error_detail")]
              or [s for s in detail["steps"] if s["ok"] == 0 and s.get("error_detail")])  # a cancel, say
    if failed and detail["status"] != "success":
        # the last failure in full: an explore step says what it searched for, where and for how long
        last = failed[-1]
        console.print(f"[bold]why[/] {last['node']} ({last['capability']}): {last['error_code']}: "
                      f"{last['error_detail']}")
    if detail["decisions"]:
        dec = Table("tick", "reason", "class", "node", "detail", title="decisions")
        for d in detail["decisions"]:
            dec.add_row(str(d["tick"]), d["reason"], d["block_class"] or "", d["node"] or "",
                        json.dumps(d["detail"], default=str)[:80])
        console.print(dec)


#: a step's mark in ``show``: its outcome as the journal defines it (:class:`executor.journal.StepOutcome`)
STEP_MARK = {"ok": "✓", "failed": "✗", "interrupted": "↷ interrupted", "unknown": "?"}


def sla_cmd(
    since: str | None = typer.Option(None, "--since", help="Only runs started in the last 30m / 2h / 7d"),
    capability: str | None = typer.Option(None, "--capability", help="NAME or NAME@VERSION"),
    fmt: str = typer.Option("table", "--format", help="table | json | html"),
    output: Path | None = typer.Option(
        None, "-o", "--output",
        help="Write to this file (a new or regular file, replaced atomically; never a link, FIFO or device)"),
    last_failures: int = typer.Option(5, "--last-failures", help="0..1000", parser=ascii_int(0, 1000)),
) -> None:
    """Per capability@version SLA: attempts, success rate, durations, TTFA, retries, timeouts, failures."""
    from craftbt.executor.sla import build_report, render_html, render_table

    if fmt not in ("table", "json", "html"):
        raise _err(f"--format {fmt!r} is not one of table, json, html")
    if capability is not None and not _CAP_REF.fullmatch(capability):
        raise _err(f"--capability {capability[:80]!r} is not NAME or NAME@VERSION", expected="e.g. chat or chat@1.0.0")
    if output is not None:
        check_output(output, option="--output")  # refuse before the report is built
    report = build_report(Journal(read_only=True), since=_since(since), capability=capability, last_n=last_failures)
    report["router"] = _router_metrics()
    if fmt == "table":
        text = None
        table_console().print(render_table(report))
    elif fmt == "json":
        text = json.dumps(report, indent=2, sort_keys=True)
    else:
        text = render_html(report)
    if text is not None:
        if output is not None:
            write_output(output, text, option="--output")
            typer.echo(f"wrote {output}")
        else:
            typer.echo(text)


def _router_metrics() -> dict[str, Any]:
    """The router's metric beside the executor's: how often routing overrode the historical best."""
    path = default_home() / "priors.sqlite"
    if not path.is_file():
        return {"disagreement_rate": None, "routed": 0}
    from craftbt.router.priors import PriorsStore

    priors = PriorsStore(path, read_only=True)  # sla only reads: it works on a read-only copy
    try:
        return {"disagreement_rate": priors.disagreement_rate(), "routed": priors.routed_count()}
    finally:
        priors.close()


lifecycle_app = typer.Typer(help="Capability lifecycle: shadow, active, retired, revoked; canary promotion.",
                            no_args_is_help=True)


@lifecycle_app.command("list")
def lifecycle_list() -> None:
    """Every registered capability version and its stage."""
    lc = Lifecycle()
    table = Table("capability", "stage")
    for spec in default_registry().list():
        table.add_row(spec.key, lc.stage(spec).value)
    table_console().print(table)


@lifecycle_app.command("set")
def lifecycle_set(ref: str = typer.Argument(..., help="NAME@VERSION"),
                  stage: str = typer.Argument(..., help="shadow | active | retired | revoked")) -> None:
    """Set a version's stage (revoked versions never run)."""
    if stage not in {s.value for s in Stage}:
        raise _err(f"stage {stage!r} is not one of shadow, active, retired, revoked")
    if not _CAP_REF.fullmatch(ref) or "@" not in ref:
        raise _err(f"{ref[:80]!r} is not NAME@VERSION", expected="e.g. chat@1 or chat@1.0.0")
    spec = default_registry().get(ref)
    Lifecycle().set(spec.key, Stage(stage))
    typer.echo(f"{spec.key}: {stage}")


@lifecycle_app.command("promote")
def lifecycle_promote(ref: str = typer.Argument(..., help="NAME@VERSION (a shadow version)")) -> None:
    """Promote a shadow version when its success rate and p95 duration are no worse than the active one."""
    decision = promote(ref, default_registry(), Lifecycle(), Journal())
    for reason in decision.reasons:
        typer.echo(f"{'promoted' if decision.promoted else 'not promoted'}: {decision.candidate}: {reason}")
    if not decision.promoted:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command("run")(run_cmd)
    app.command("runs")(runs_cmd)
    app.command("show")(show_cmd)
    app.command("sla")(sla_cmd)
    app.add_typer(lifecycle_app, name="lifecycle")
    # the spelling: ``craftbt capabilities promote NAME@VERSION`` is the same command
    capabilities_app.command("promote")(lifecycle_promote)


__all__ = ["default_home", "register"]
