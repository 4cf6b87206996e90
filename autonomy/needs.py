"""The need generator (seed 003): homeostasis state -> needs, each with an urgency from context gates and trends.

Six needs: health, food, safety, shelter, tools, inventory space. A need's
urgency (0..1) starts from how far its value is from comfortable, then context
gates raise or silence it (night, dusk, hostiles near, darkness, a remembered
danger) and trends move it (food falling fast is more urgent than food low but
steady). Every need carries its reasons, so a decision can be explained.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, Field

from craftbt.autonomy.homeostasis import HomeostasisState
from craftbt.world.daytime import NIGHT_START

#: a food trend below this (points per 1,000 ticks) counts as falling fast
FOOD_FALLING = -1.0
HEALTH_FALLING = -2.0
MAX_TIER = 3  # iron: the tier the loop climbs to
#: carrying no food is a need before hunger is: a bot that waits for hunger to hunt may starve in the night
STOCK_FOOD = 0.35


class NeedKind(StrEnum):
    HEALTH = "health"
    FOOD = "food"
    SAFETY = "safety"
    SHELTER = "shelter"
    TOOLS = "tools"
    INVENTORY_SPACE = "inventory_space"


class Need(BaseModel):
    kind: NeedKind
    urgency: float = Field(ge=0.0, le=1.0)
    reasons: list[str] = Field(default_factory=list)


#: the evening begins here (a remembered danger moves it to EVENING_WARY): tool work stops, the shelter starts
EVENING, EVENING_WARY = 11_000, 10_000


def resting(state: HomeostasisState) -> bool:
    """Evening or night: the hours for the shelter, not for work or exploring."""
    tod = state.percept.time_of_day
    start = EVENING_WARY if state.remembered_danger else EVENING
    return state.percept.night or start <= tod < NIGHT_START


def _clip(x: float) -> float:
    return max(0.0, min(1.0, x))


def generate(state: HomeostasisState) -> list[Need]:
    """Every need with a non-zero urgency, most urgent first."""
    p = state.percept
    needs: list[Need] = []

    why: list[str] = []
    u = (20 - p.food) / 20
    if p.food <= 6:
        u, why = max(u, 0.9), [*why, f"food {p.food} <= 6: sprinting stops, starving is near"]
    elif p.food <= 14:
        why.append(f"food {p.food} <= 14")
    if state.food_trend < FOOD_FALLING:
        u, why = u + 0.15, [*why, f"food falling {state.food_trend:.1f}/1000 ticks"]
    if p.food_carried == 0:
        u, why = max(u, STOCK_FOOD), [*why, "no food carried: stock up before hunger"]
    elif p.ready_food == 0:  # a hunt whose cooking failed left raw meat: cook it (food goals), do not rest on it
        u, why = max(u, STOCK_FOOD), [*why, "only raw food carried: cook it"]
    if u > 0:
        needs.append(Need(kind=NeedKind.FOOD, urgency=_clip(u), reasons=why or [f"food {p.food}"]))

    why = []
    u = (20 - p.health) / 20
    if p.hostiles and p.health < 12:
        u, why = u + 0.3, [*why, "hurt with a hostile near"]
    if state.health_trend < HEALTH_FALLING:
        u, why = u + 0.2, [*why, f"health falling {state.health_trend:.1f}/1000 ticks"]
    if u > 0:
        needs.append(Need(kind=NeedKind.HEALTH, urgency=_clip(u), reasons=why or [f"health {p.health:g}"]))

    why = []
    u = 0.0
    if p.hostiles and not state.sheltered:
        u, why = 0.6, [f"{p.hostiles} hostile(s) within 12 blocks"]
        if p.night:
            u, why = u + 0.2, [*why, "at night"]
    if p.night and p.light <= 7 and not state.sheltered:
        u, why = max(u, 0.5), [*why, f"dark (light {p.light}) at night"]
    if u > 0:
        needs.append(Need(kind=NeedKind.SAFETY, urgency=_clip(u), reasons=why))

    # shelter: gated by the time of day; a remembered night danger opens the gate earlier
    if not state.sheltered and resting(state):
        why = ["night" if p.night else f"dusk (time {p.time_of_day})"]
        if state.remembered_danger:
            why.append("memory: danger here or at this hour before")
        needs.append(Need(kind=NeedKind.SHELTER, urgency=0.95 if p.night else 0.85, reasons=why))

    if state.tool_tier < MAX_TIER and not resting(state):
        needs.append(Need(kind=NeedKind.TOOLS, urgency=0.5 - 0.1 * state.tool_tier,
                          reasons=[f"tool tier {state.tool_tier} of {MAX_TIER}"]))

    if p.free_slots <= 3:
        needs.append(Need(kind=NeedKind.INVENTORY_SPACE, urgency=0.6, reasons=[f"{p.free_slots} free slots"]))
    return sorted(needs, key=lambda n: -n.urgency)
