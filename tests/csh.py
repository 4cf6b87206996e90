"""Helpers for the CraftScript tests: run a script inline on a shipped scenario."""

from __future__ import annotations

from pathlib import Path

from craftbt.capabilities.default import default_registry
from craftbt.craftscript.interp import Limits, ScriptOutcome
from craftbt.craftscript.parser import parse
from craftbt.craftscript.runner import run_inline
from craftbt.world.body import ActionStatus
from craftbt.world.scenarios.loader import load_scenario
from craftbt.world.sim.body import SimBody

SCENARIOS = Path(__file__).resolve().parent.parent / "world" / "scenarios"


def body(scenario: str = "flat_empty", give: dict[str, int] | None = None) -> SimBody:
    b = load_scenario(SCENARIOS / f"{scenario}.yaml", 0)
    for item, n in (give or {}).items():
        b.world.player.inventory.add(item, n)
    return b


def run(src: str, scenario: str = "flat_empty", give: dict[str, int] | None = None, *, on: SimBody | None = None,
        functions: object = None, waypoints: dict[str, tuple[int, int, int]] | None = None,
        max_ops: int = 10_000) -> tuple[ScriptOutcome, SimBody]:
    b = on or body(scenario, give)
    out = run_inline(parse(src), b, default_registry(), functions=functions,  # type: ignore[arg-type]
                     waypoints=waypoints, limits=Limits(max_ops=max_ops))
    return out, b


def texts(out: ScriptOutcome) -> list[str]:
    return [e["text"] for e in out.logs if e["kind"] == "log"]


def name_at(b: SimBody, x: int, y: int, z: int) -> str:
    return b.world.name(x, y, z)


class StuckAction:
    """An action that never finishes (a slow server): the leaf's timeout ends it."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.cancelled = False

    def status(self) -> ActionStatus:
        return ActionStatus.CANCELLED if self.cancelled else ActionStatus.RUNNING

    def error(self) -> None:
        return None

    def result(self) -> dict[str, object]:
        return {}

    def cancel(self, reason: str = "cancelled") -> None:
        self.cancelled = True
