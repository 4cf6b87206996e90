"""Planning commands: ``craftbt plan`` (goal -> routed tree, and why) and ``craftbt gate`` (divergence gate).

``craftbt run --goal`` lives with the run command; both go through a :class:`craftbt.bot.bot.Bot`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer
from rich.table import Table

from craftbt.capabilities.default import default_registry
from craftbt.cli.console import table_console
from craftbt.cli.numbers import seed_int
from craftbt.core.errors import CraftbtError, ErrorCode
from craftbt.core.inputs import is_dir
from craftbt.core.outputs import check_output, write_output

PLANNERS = ("auto", "solver", "htn", "goap", "llm", "building", "fast_path")


def plan_cmd(
    goal: str = typer.Option(..., "--goal", help='e.g. "obtain iron_pickaxe"'),
    planner: str = typer.Option("auto", "--planner", help=" | ".join(PLANNERS)),
    out: Path | None = typer.Option(
        None, "--out", help="Write the tree (YAML, or JSON for .json): a new or regular file, never a link or FIFO"),
    scenario: Path | None = typer.Option(None, "--scenario", help="Scenario YAML for the embedded world"),
    seed: int = typer.Option(0, "--seed", help="World and router seed", parser=seed_int),
    world: str = typer.Option("starter", "--world", help="natural | starter | flat (without --scenario)"),
    biome: str | None = typer.Option(None, "--biome", help="Context for the priors (e.g. taiga)"),
    as_json: bool = typer.Option(False, "--json", help="Print the routing decision as JSON (a refusal too, as "
                                 '{"ok": false, "problems": [...]}, exit 1)'),
    at: str | None = typer.Option(None, "--at", help="Build goals: the site's corner X,Y,Z (default: near the bot)"),
    inventory: str | None = typer.Option(
        None, "--inventory", help='Start holding this: JSON {"item": count} or a file (flat world, a crafting '
        'table and a furnace beside the bot, unless --scenario/--world say otherwise)'),
    craft_only: bool = typer.Option(False, "--craft-only", help="Plan only from what is held and the stations "
                                    "in reach (no gathering); a refusal names the missing ingredient"),
) -> None:
    """Plan a goal on the embedded world: print the chosen tree and why it was chosen.

    Examples: craftbt plan --goal "obtain iron_pickaxe" · craftbt plan --goal "build hut" --planner auto --out hut.yaml
    """
    from craftbt.bot.bot import bot_for
    from craftbt.cli.run_cmds import body_spec, parse_inventory
    from craftbt.trees.dump import to_json, to_yaml

    if planner not in PLANNERS:
        raise CraftbtError.single(ErrorCode.INVALID_ARGUMENT, f"--planner {planner!r}",
                                  expected="one of " + ", ".join(PLANNERS))
    if out is not None:
        check_output(out, option="--out")  # refuse before planning
    registry = default_registry()
    context: dict[str, Any] = {"biome": biome} if biome else {}
    if at is not None:
        from craftbt.cli.build_cmds import parse_at

        context["at"] = list(parse_at(at))
    held = parse_inventory(inventory) if inventory is not None else None
    with bot_for(body_spec("sim", world, seed, scenario, inventory=held), registry=registry) as bot:
        try:
            decision = bot.plan(goal, planner=planner, context=context or None, craft_only=craft_only)
        except CraftbtError as refusal:
            if not as_json:
                raise
            # a refusal is this command's answer, not a crash: a script reading --json gets it on stdout
            typer.echo(json.dumps({"ok": False, "goal": goal, "problems": [p.to_dict() for p in refusal.problems]},
                                  indent=2))
            raise typer.Exit(1) from None
    tree = decision.plan.tree
    if out is not None:
        write_output(out, to_json(tree) if out.suffix == ".json" else to_yaml(tree), option="--out")
    if as_json:
        typer.echo(decision.model_dump_json(indent=2))
        return
    console = table_console()
    try:
        from craftbt.trees.render import render

        console.print(str(render(tree, "unicode", registry)))
    except CraftbtError:
        console.print(to_yaml(tree))
    table = Table("planner", "ok", "method", "cost ms", "confidence", "score", "plan ms", "reason", title="candidates")
    for c in decision.candidates:
        table.add_row(c.planner, "✓" if c.ok else "✗", c.method or "", f"{c.cost:.0f}" if c.cost else "",
                      f"{c.confidence:.2f}" if c.confidence is not None else "",
                      f"{c.score:.3f}" if c.score is not None else "", f"{c.planning_ms:.1f}", c.reason or "")
    console.print(table)
    console.print(f"[bold]chosen:[/] {decision.chosen} ({decision.method}) — {decision.reason}")
    console.print(f"plan: {decision.plan.explanation}")
    console.print(f"routing took {decision.routing_ms:.1f} ms; context {decision.context}"
                  + ("; [yellow]disagrees with the historical best[/]" if decision.disagreement else ""))
    if out is not None:
        console.print(f"wrote {out}")


def gate_cmd(
    tests: Path | None = typer.Option(None, "--tests", help="Directory with the acceptance tests"),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Fail (exit 1) when planners can emit unregistered verbs or a capability lacks acceptance check/test."""
    from craftbt.router.gate import TESTS, run_gate
    from craftbt.router.router import default_planners

    if tests is not None and not is_dir(tests):
        raise CraftbtError.single(ErrorCode.FILE_NOT_FOUND, f"--tests {str(tests)!r} is not a directory",
                                  expected="the directory holding the acceptance tests")
    report = run_gate(default_registry(), default_planners(), tests=tests or TESTS)
    if as_json:
        typer.echo(json.dumps(report.model_dump(), indent=2))
    elif report.ok:
        count = sum(len(v) for v in report.sources.values())
        typer.echo(f"gate: ok — {count} emitted verbs from {len(report.sources)} sources, all registered; "
                   "every capability has an acceptance check and test")
    else:
        table = Table("kind", "source", "verb", "detail", title=f"{len(report.differences)} divergence(s)")
        for d in report.differences:
            table.add_row(d.kind, d.source, d.verb, d.detail)
        table_console().print(table)
    if not report.ok:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command("plan")(plan_cmd)
    app.command("gate")(gate_cmd)
