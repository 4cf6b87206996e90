"""``craftbt prove``: the seed's smoke proof, planner -> dispatch -> verify, as a 4-checkpoint report.

Runs on the embedded world by default, on a real server with ``--body mineflayer``;
writes ``$CRAFTBT_HOME/proofs/<proof_id>.json`` and exits 0 only when ``proof_passed``.
A failed checkpoint exits ``10 + n`` for failure Fn (11 for F1 ... 16 for F6), so a script
tells F1 from F2 from success; ``--variant`` runs one of the seed's failure variants, which
exits with its own failure's code when it fails as it should (F2: 12).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.table import Table

from craftbt.bot.body import make_body
from craftbt.bot.bot import Bot, executor_config, parse_geofence
from craftbt.capabilities.default import default_registry
from craftbt.capabilities.registry import Registry
from craftbt.cli.console import table_console
from craftbt.cli.run_cmds import _err, body_spec
from craftbt.executor.executor import Executor

if TYPE_CHECKING:
    from craftbt.router.prove import Failure


def prove_cmd(
    variant: str = typer.Option("ok", "--variant", help="ok | planner_offline | unknown_goal | "
                                "malformed | executor_disabled | verify_fails | slow"),
    goal: str | None = typer.Option(None, "--goal", help='Goal to prove (default "obtain stick")'),
    planner: str = typer.Option("auto", "--planner", help="auto | solver | htn | goap | llm"),
    timeout_s: int = typer.Option(45, "--timeout", help="Budget in seconds of game time (seed: 45)"),
    body: str = typer.Option("sim", "--body", help="sim | mineflayer"),
    scenario: Path | None = typer.Option(None, "--scenario", help="Scenario YAML for the embedded world"),
    world: str = typer.Option("starter", "--world", help="natural | starter | flat (sim body, without --scenario)"),
    seed: int = typer.Option(0, "--seed", help="World seed"),
    host: str = typer.Option("127.0.0.1", "--host"),
    port: int = typer.Option(25565, "--port"),
    geofence: str | None = typer.Option(None, "--geofence", help="x1,y1,z1:x2,y2,z2 (default: scenario bounds)"),
    as_json: bool = typer.Option(False, "--json", help="Print the proof report as JSON"),
) -> None:
    """Prove planner -> dispatch -> verify on a body: 4 checkpoints, proof_passed, or the failure's name and a
    non-zero exit."""
    from craftbt.router.prove import VARIANTS, Variant, prove

    try:
        chosen = Variant(variant)
    except ValueError:
        raise _err(f"--variant {variant!r} is not one of {', '.join(v.value for v in VARIANTS)}") from None
    spec = body_spec(body, world, seed, scenario, host, port)
    fence_given = parse_geofence(geofence)  # a bad fence is a usage error before a server is joined
    the_body, fence = make_body(spec)
    bots: list[Bot] = []

    def make_executor(*, registry: Registry, shadow: bool, max_ticks: int) -> Executor:
        config = executor_config(fence_given if fence_given is not None else fence, shadow=shadow,
                                 max_ticks=max_ticks)
        bots.append(Bot(the_body, registry=registry, config=config, body_kind=spec.kind, seed=seed))
        return bots[-1].executor

    try:
        report = prove(make_executor, default_registry(), variant=chosen, goal=goal, planner=planner,
                       timeout_s=timeout_s, body_kind=spec.kind.value, seed=seed)
    finally:
        for bot in bots:
            bot.close()
        close: Any = getattr(the_body, "close", None)
        if callable(close):
            close()
    if as_json:
        typer.echo(report.model_dump_json(indent=2, by_alias=True))
    else:
        table = Table("checkpoint", "ok", "detail", title=f"proof {report.proof_id} — {report.goal} ({chosen.value})")
        for name in ("A_requested", "A_result", "B_expansion", "C_dispatch", "D_verification"):
            point = getattr(report, name)
            shown = {k: v for k, v in point.detail.items() if k not in ("dispatched_steps", "gate")}
            table.add_row(name, "✓" if point.ok else "✗", str(shown)[:100])
        table.add_row("proof_passed", "✓" if report.proof_passed else "✗",
                      f"{report.failure.value}: {report.failure_reason}" if report.failure else "")
        table.add_row("report", "", report.proof_path or "")
        table_console().print(table)
    if report.failure is not None:
        raise typer.Exit(failure_exit_code(report.failure))
    if not report.proof_passed:
        raise typer.Exit(1)


#: what ``craftbt prove`` exits with when a checkpoint fails with Fn: 10 + n (0 is a passed proof, 1 a usage error)
FAILURE_EXIT_BASE = 10


def failure_exit_code(failure: Failure) -> int:
    """11 for F1 ... 16 for F6."""
    return FAILURE_EXIT_BASE + int(failure.value.removeprefix("F"))


def register(app: typer.Typer) -> None:
    app.command("prove")(prove_cmd)
