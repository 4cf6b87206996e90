"""Day and night on the Minecraft clock, one definition for bodies, leaves and planners."""

from __future__ import annotations

from craftbt.world.body import TICKS_PER_DAY

#: Beds work from dusk to dawn (vanilla: 12542..23459 in clear weather); hostile mobs spawn in that window.
NIGHT_START, NIGHT_END = 12_542, 23_459


def is_night(time_of_day: int) -> bool:
    return NIGHT_START <= time_of_day % TICKS_PER_DAY <= NIGHT_END
