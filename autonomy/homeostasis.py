"""The homeostasis monitor (seed 003): the bot's internal state over time, with trends.

It keeps a window of recent percepts and reports, besides the current values,
how health and food are moving (points per game hour of 1,000 ticks, by least
squares over the window), the tool tier reached and whether the bot stands in
a shelter. The need generator reads only this state.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from pydantic import BaseModel

from craftbt.autonomy.signals import Percept

WINDOW = 30
#: tool tier: the best pickaxe carried (0 = none)
TIERS: tuple[tuple[str, int], ...] = (
    ("wooden_pickaxe", 1), ("stone_pickaxe", 2), ("iron_pickaxe", 3), ("diamond_pickaxe", 4),
    ("netherite_pickaxe", 5),
)
TIER_NAMES = {tier: name for name, tier in TIERS}


def tool_tier(inventory: dict[str, int]) -> int:
    return max((tier for name, tier in TIERS if inventory.get(name, 0) > 0), default=0)


def slope(points: list[tuple[int, float]]) -> float:
    """Least-squares change per 1,000 ticks; 0 with fewer than two distinct ticks."""
    if len(points) < 2:
        return 0.0
    n = len(points)
    mx = sum(t for t, _ in points) / n
    my = sum(v for _, v in points) / n
    var = sum((t - mx) ** 2 for t, _ in points)
    if var == 0:
        return 0.0
    return sum((t - mx) * (v - my) for t, v in points) / var * 1000


class HomeostasisState(BaseModel):
    percept: Percept
    health_trend: float = 0.0
    food_trend: float = 0.0
    tool_tier: int = 0
    sheltered: bool = False
    #: a remembered danger (death or damage) lies near, or happened at this time of day before
    remembered_danger: bool = False


@dataclass
class HomeostasisMonitor:
    window: int = WINDOW
    samples: deque[Percept] = field(default_factory=lambda: deque(maxlen=WINDOW))

    def update(self, percept: Percept, *, sheltered: bool, remembered_danger: bool = False) -> HomeostasisState:
        if self.samples and percept.tick < self.samples[-1].tick:
            self.samples.clear()  # the clock went back (a restored world): old samples say nothing now
        self.samples.append(percept)
        return HomeostasisState(
            percept=percept,
            health_trend=slope([(p.tick, p.health) for p in self.samples]),
            food_trend=slope([(p.tick, float(p.food)) for p in self.samples]),
            tool_tier=tool_tier(percept.inventory),
            sheltered=sheltered,
            remembered_danger=remembered_danger,
        )
