"""The end report of ``craftbt live``: survived, deaths and causes, nights, food, goals, tools, structures."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field
from rich.table import Table

from craftbt.world.body import TICKS_PER_DAY


class GoalDone(BaseModel):
    goal: str
    source: str
    started_tick: int
    ended_tick: int
    day: int

    @property
    def ticks(self) -> int:
        return self.ended_tick - self.started_tick


class LiveReport(BaseModel):
    seed: int
    world: str
    body: str
    days: float
    start_tick: int
    end_tick: int
    ticks_run: int = 0
    finished: bool = False
    resumed: int = 0
    resumed_tasks: list[str] = Field(default_factory=list)
    deaths: list[dict[str, Any]] = Field(default_factory=list)
    nights_seen: int = 0
    nights_survived: int = 0
    night_samples: int = 0
    night_samples_safe: int = 0
    lowest_food: int = 20
    #: hostile_near rising edges at night: how often a hostile came within 12 blocks in the dark
    hostile_encounters: int = 0
    #: the most hostile mobs alive within 32 blocks in any night sample: they were there, near or not
    most_hostiles_at_night: int = 0
    lowest_health: float = 20.0
    meals: int = 0
    goals_completed: list[GoalDone] = Field(default_factory=list)
    goals_failed: int = 0
    preemptions: int = 0
    tools_reached: list[dict[str, Any]] = Field(default_factory=list)
    tool_tier: int = 0
    structures_built: list[dict[str, Any]] = Field(default_factory=list)
    suggestions: list[dict[str, Any]] = Field(default_factory=list)
    signals_emitted: int = 0
    signals_held: int = 0
    memory: dict[str, Any] = Field(default_factory=dict)
    bootstrap: list[dict[str, Any]] = Field(default_factory=list)

    @property
    def survived(self) -> bool:
        return not self.deaths

    @property
    def safe_at_night(self) -> float | None:
        """The fraction of night samples in which the bot was sheltered or stood in light >= 8."""
        return round(self.night_samples_safe / self.night_samples, 3) if self.night_samples else None

    def day_of(self, tick: int) -> int:
        return (tick - self.start_tick) // TICKS_PER_DAY + 1

    def as_json(self) -> dict[str, Any]:
        out = self.model_dump(mode="json")
        out["survived"] = self.survived
        out["safe_at_night"] = self.safe_at_night
        return out


def render(report: LiveReport) -> Table:
    table = Table(title=f"craftbt live — seed {report.seed}, {report.world} world, {report.days:g} day(s)",
                  show_header=False)
    colour = "green" if report.survived else "red"
    table.add_row("survived", f"[{colour}]{'yes' if report.survived else 'no'}[/]"
                  + ("" if report.finished else " (so far: the session is not finished)"))
    table.add_row("game time", f"{report.ticks_run} ticks ({report.ticks_run / TICKS_PER_DAY:.2f} days)"
                  + (f", resumed {report.resumed}x" if report.resumed else ""))
    table.add_row("deaths", ", ".join(f"day {d['day']}: {d['cause']}" for d in report.deaths) or "none")
    table.add_row("nights survived", f"{report.nights_survived} of {report.nights_seen}"
                  f" (hostiles within 12 blocks at night: {report.hostile_encounters} times; "
                  f"up to {report.most_hostiles_at_night} alive within 32)")
    safe = report.safe_at_night
    table.add_row("sheltered or lit at night", "no night yet" if safe is None else f"{safe:.0%} of samples")
    table.add_row("lowest food", f"{report.lowest_food} (meals: {report.meals})")
    table.add_row("lowest health", f"{report.lowest_health:g}")
    shown = [g for g in report.goals_completed if not g.goal.startswith("explore ")]
    walks = len(report.goals_completed) - len(shown)
    goals = "\n".join(f"day {g.day}: {g.goal} ({g.ticks} ticks, {g.source})" for g in shown)
    if walks:
        goals += f"\n{walks} exploration walk(s)"
    table.add_row("goals completed", goals.strip() or "none")
    table.add_row("goals failed / preempted", f"{report.goals_failed} / {report.preemptions}")
    table.add_row("tools reached", ", ".join(f"{t['tool']} (day {t['day']})" for t in report.tools_reached) or "none")
    table.add_row("structures built", ", ".join(f"{s['kind']} at {s['at']}" for s in report.structures_built)
                  or "none")
    if report.suggestions:
        table.add_row("suggestions", "\n".join(f"{s['text']!r}: {s['reason']}" for s in report.suggestions))
    m = report.memory
    if m:
        table.add_row("memory", f"method uplift {m.get('method_uplift')}, hazard recall {m.get('hazard_recall')} "
                                f"({m.get('hazards_recalled')}/{m.get('hazards')})")
    return table
