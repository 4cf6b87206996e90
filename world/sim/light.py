"""Light: sky light by time of day (column exposure) and block light from emitters.

A simplification of vanilla's flood fill that keeps the numbers players see:
sky light is 15 minus the light filtered by the blocks above (no sideways
spread), darkened by 11 at night; block light falls by one per block of
Manhattan distance from each emitter (no occlusion).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from craftbt.world.body import TICKS_PER_DAY

if TYPE_CHECKING:
    from craftbt.world.sim.world import World

MAX_LIGHT = 15


def sky_darkening(time_of_day: int) -> int:
    """How much the sky's light is reduced: 0 by day, 11 at night, ramps at dusk and dawn."""
    t = time_of_day % TICKS_PER_DAY
    if t < 12000:
        return 0
    if t < 13800:
        return (t - 12000) * 11 // 1800
    if t < 22200:
        return 11
    return 11 - (t - 22200) * 11 // 1800


def raw_sky_light(world: World, x: int, y: int, z: int) -> int:
    """Sky light at a cell before time-of-day darkening."""
    level = MAX_LIGHT
    for yy in range(y + 1, world.top_y(x, z) + 1):
        level -= world.filter_light(x, yy, z)
        if level <= 0:
            return 0
    return level


def block_light(world: World, x: int, y: int, z: int) -> int:
    best = 0
    for (sx, sy, sz), emit in world.light_sources.items():
        level = emit - abs(sx - x) - abs(sy - y) - abs(sz - z)
        if level > best:
            best = level
    return best


def light_level(world: World, x: int, y: int, z: int) -> int:
    sky = raw_sky_light(world, x, y, z) - sky_darkening(world.clock.time_of_day)
    return max(block_light(world, x, y, z), sky, 0)
