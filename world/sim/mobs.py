"""Mob behaviour: passive mobs wander, hostiles spawn in the dark, chase and hit, creepers explode.

Daylight follows vanilla: zombies and skeletons burn while the sky is bright over them (not under
cover, not in water, not in rain); spiders turn neutral in light 12 or more (they wander and do not
attack unless the player hit them, and forget that with a 1 % chance a tick while the light stays
bright); creepers stay hostile around the clock.

A hostile hits, shoots or lights its fuse only with the player in sight, as vanilla's attacks do (a creeper on
the roof of a pit the bot sits in does not swell; a skeleton does not shoot through stone). Within its follow
range it knows where the player is, seen or not: vanilla forgets a target three seconds out of sight, and
the hunts of night mobs count on hostiles gathering where the bot spent the night (see docs/autonomy.md).

Movement is a greedy walk on the block grid (step up one block, fall any
distance), not pathfinding: enough for mobs to close in and for walls to
stop them. Explosions follow vanilla's shape (a sphere of radius ~power)
and damage formula; blocks with no hardness (unbreakable) or hardness >= 50
survive, and destroyed blocks drop their item with chance 1/power.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from craftbt.world.body import Position
from craftbt.world.nature import FUSE_OUT, UNDEAD
from craftbt.world.sim import light
from craftbt.world.sim.entities import (
    CREEPER_FUSE,
    CREEPER_POWER,
    FOLLOW_RANGE,
    Entity,
)
from craftbt.world.sim.storage import AIR

if TYPE_CHECKING:
    from craftbt.world.sim.world import World

#: Hostile mobs the world spawns in the dark, with vanilla's weights for the overworld's land biomes
#: (``BiomeDefaultFeatures.monsters``: spider 100, zombie 95 and zombie villager 5, here both zombies, skeleton 100,
#: creeper 100). Vanilla's slime (100: swamps and slime chunks), enderman (10) and witch (5) are left out: the sim
#: has no swamp or slime chunk, and neither a neutral enderman nor a witch's potions.
SPAWN_TABLE: tuple[tuple[str, int], ...] = (("zombie", 100), ("skeleton", 100), ("spider", 100), ("creeper", 100))
HOSTILE_CAP = 8
SPAWN_INTERVAL = 20
SPAWN_MIN_DIST = 16
SPAWN_MAX_DIST = 32
DESPAWN_DIST = 96.0
#: vanilla ``Level.isDay()``: the sky darkens by less than 4 (time of day before ~12650 or after ~23350)
DAY_DARKENING = 4
#: a spider is neutral in this much light or more (vanilla: brightness >= 0.5, i.e. light level 12)
SPIDER_NEUTRAL_LIGHT = 12
#: the chance per tick that a provoked spider in bright light forgets the player (vanilla SpiderAttackGoal)
SPIDER_CALM_CHANCE = 0.01
PROVOKED = "provoked"
#: ``Entity.extra`` key: the tick of a mob's last look at the player, and whether it saw it
SIGHT = "sight"
#: ticks a look stands for
SIGHT_INTERVAL = 5
#: vanilla ``LivingEntity``'s eye height: 0.85 of the mob's height (the spider's own: 0.65 blocks)
EYE_FRACTION = 0.85
EYE_HEIGHTS = {"spider": 0.65}


def kind_for(category: str) -> str:
    if category in ("hostile", "passive", "player"):
        return category
    return "other"


def tick_mobs(world: World) -> None:
    p = world.player.position
    alive = world.player.health > 0
    dead: list[int] = []
    for eid, e in list(world.entities.items()):
        if e.kind in ("item", "player", "other"):
            continue
        e.age += 1
        if e.health <= 0:
            dead.append(eid)
            continue
        if e.no_ai:
            continue
        if e.kind == "hostile":
            if e.name in UNDEAD and e.age % 20 == 0 and burns(world, e):
                e.health -= 1.0  # on fire in daylight: 1 a second, as vanilla's fire
            dist = e.distance_to(p)
            if dist > DESPAWN_DIST:
                dead.append(eid)
                continue
            if e.name == "spider" and not _spider_hostile(world, e):
                _wander(world, e)
                continue
            if alive and dist <= FOLLOW_RANGE:
                _hostile_act(world, e, p, dist)
            continue
        _wander(world, e)
    for eid in dead:
        e = world.entities.pop(eid)
        if e.health <= 0:  # killed, not despawned
            world.note({"event": "mob_died", "entity": e.name, "id": e.id})
    if world.rules.do_mob_spawning and world.clock.tick % SPAWN_INTERVAL == 0 and alive:
        _try_spawn(world)


def _in_sun(world: World, e: Entity) -> bool:
    return light.raw_sky_light(world, math.floor(e.x), math.floor(e.y) + 1, math.floor(e.z)) >= 15


def is_day(world: World) -> bool:
    return light.sky_darkening(world.clock.time_of_day) < DAY_DARKENING


def burns(world: World, e: Entity) -> bool:
    """An undead mob catches fire: day, open sky over its head, not in water, not in rain."""
    from craftbt.world.sim.flags import LAVA, LIQUID

    if not is_day(world) or getattr(world, "weather", "clear") in ("rain", "thunder"):
        return False
    x, y, z = math.floor(e.x), math.floor(e.y), math.floor(e.z)
    if any(world.flags(x, y + dy, z) & LIQUID and not world.flags(x, y + dy, z) & LAVA for dy in (0, 1)):
        return False  # water puts the fire out
    return _in_sun(world, e)


def provoke(e: Entity) -> None:
    """The player hit this mob: a neutral spider attacks back (vanilla HurtByTargetGoal)."""
    e.extra[PROVOKED] = True


def _spider_hostile(world: World, e: Entity) -> bool:
    """Dark: hostile. Bright (light >= 12): neutral unless provoked, and a provoked spider calms down slowly."""
    x, y, z = math.floor(e.x), math.floor(e.y), math.floor(e.z)
    if light.light_level(world, x, y, z) < SPIDER_NEUTRAL_LIGHT:
        return True
    if e.extra.get(PROVOKED):
        if world.rng.random() < SPIDER_CALM_CHANCE:
            e.extra.pop(PROVOKED, None)
            e.fuse = -1
            return False
        return True
    return False


def eye_height(world: World, name: str) -> float:
    return EYE_HEIGHTS.get(name) or world.md.entity(name).height * EYE_FRACTION


def line_of_sight(world: World, a: tuple[float, float, float], b: tuple[float, float, float]) -> bool:
    """No block with a full collision box between ``a`` and ``b`` (vanilla's ``hasLineOfSight``: a clip against
    colliders, fluids ignored): a walk through the cells the segment crosses (Amanatides and Woo). The cells
    of the two ends are not looked at: a mob's head in a crown's leaves (where the sim lets it stand) is no
    wall between it and the player."""
    from craftbt.world.sim.flags import SOLID

    cell = [math.floor(a[0]), math.floor(a[1]), math.floor(a[2])]
    end = (math.floor(b[0]), math.floor(b[1]), math.floor(b[2]))
    step, t_max, t_delta = [0, 0, 0], [math.inf] * 3, [math.inf] * 3
    for i in range(3):
        d = b[i] - a[i]
        if d != 0:
            step[i] = 1 if d > 0 else -1
            t_delta[i] = abs(1 / d)
            t_max[i] = ((cell[i] + (step[i] > 0)) - a[i]) / d
    while True:
        i = min(range(3), key=t_max.__getitem__)
        if t_max[i] > 1:
            return True
        cell[i] += step[i]
        t_max[i] += t_delta[i]
        if tuple(cell) == end:
            return True
        if world.flags(cell[0], cell[1], cell[2]) & SOLID:
            return False


def _sees_player(world: World, e: Entity) -> bool:
    """The mob's sight of the player's eyes, looked at again every SIGHT_INTERVAL ticks (vanilla looks every
    tick; a walk of cells a tick for every mob near halved the simulator's tick rate)."""
    tick = world.clock.tick
    looked = e.extra.get(SIGHT)
    if looked is not None and tick - looked[0] < SIGHT_INTERVAL:
        return bool(looked[1])
    sees = line_of_sight(world, (e.x, e.y + eye_height(world, e.name), e.z), world.player.eye())
    e.extra[SIGHT] = (tick, sees)
    return sees


def _hostile_act(world: World, e: Entity, p: Position, dist: float) -> None:
    """A hostile within its follow range: closes in, and hits, shoots or swells when it sees the player."""
    stats = e.stats()
    if e.cooldown > 0:
        e.cooldown -= 1
    if e.name == "creeper":
        if e.fuse >= 0:
            if dist > FUSE_OUT or not _sees_player(world, e):
                e.fuse = -1
            else:
                e.fuse += 1
                if e.fuse >= CREEPER_FUSE:
                    world.entities[e.id].health = 0
                    explode(world, e.x, e.y + 0.5, e.z, CREEPER_POWER, source=e.name)
                return
        elif dist <= stats.attack_range and _sees_player(world, e):
            e.fuse = 0
            return
    elif dist <= stats.attack_range and abs(e.y - p.y) < 2.5 and _sees_player(world, e):
        if e.cooldown == 0:
            e.cooldown = stats.cooldown
            world.damage_player(stats.damage, e.name)
        if e.name == "skeleton":
            return  # skeletons keep their distance
    if dist > 1.2:
        _step_towards(world, e, p.x - e.x, p.z - e.z, stats.speed)


def _wander(world: World, e: Entity) -> None:
    dx, dz, left = e.wander
    if left <= 0:
        if world.rng.random() < 0.02:
            angle = world.rng.random() * math.tau
            e.wander = (math.cos(angle), math.sin(angle), world.rng.randint(20, 60))
        return
    _step_towards(world, e, dx, dz, e.stats().speed)
    e.wander = (dx, dz, left - 1)


def _passable(world: World, x: int, y: int, z: int) -> bool:
    from craftbt.world.sim.flags import LAVA, SOLID

    return not world.flags(x, y, z) & (SOLID | LAVA) and not world.flags(x, y + 1, z) & SOLID


def _step_towards(world: World, e: Entity, dx: float, dz: float, speed: float) -> None:
    from craftbt.world.sim.flags import MIN_Y, SOLID

    norm = math.hypot(dx, dz)
    if norm < 1e-9:
        return
    nx, nz = e.x + dx / norm * speed, e.z + dz / norm * speed
    bx, bz, by = math.floor(nx), math.floor(nz), math.floor(e.y)
    if (bx, bz) != (math.floor(e.x), math.floor(e.z)):
        if _passable(world, bx, by, bz):
            pass
        elif _passable(world, bx, by + 1, bz) and not world.flags(math.floor(e.x), by + 2, math.floor(e.z)) & SOLID:
            by += 1
        else:
            return
    while by > MIN_Y and not world.flags(bx, by - 1, bz) & SOLID:
        by -= 1
    e.x, e.z = nx, nz
    e.y = float(by) if by != math.floor(e.y) else e.y


def _try_spawn(world: World) -> None:
    from craftbt.world.sim.flags import SOLID

    p = world.player.position
    near = sum(1 for e in world.entities.values() if e.kind == "hostile" and e.distance_to(p) < 64)
    if near >= HOSTILE_CAP:
        return
    rng = world.rng
    angle = rng.random() * math.tau
    dist = rng.uniform(SPAWN_MIN_DIST, SPAWN_MAX_DIST)
    x = math.floor(p.x + math.cos(angle) * dist)
    z = math.floor(p.z + math.sin(angle) * dist)
    if (x >> 4, z >> 4) not in world.generated:
        return  # only spawn in loaded chunks, like the server's spawn radius
    y = world.highest_solid(x, z) + 1
    if not world.flags(x, y - 1, z) & SOLID or not _passable(world, x, y, z):
        return
    if light.block_light(world, x, y, z) > 0:
        return
    sky = light.raw_sky_light(world, x, y, z) - light.sky_darkening(world.clock.time_of_day)
    if sky > rng.randrange(8):
        return
    total = sum(w for _, w in SPAWN_TABLE)
    pick = rng.randrange(total)
    for name, weight in SPAWN_TABLE:
        pick -= weight
        if pick < 0:
            world.spawn_mob(name, x + 0.5, float(y), z + 0.5)
            return


def explode(world: World, cx: float, cy: float, cz: float, power: float, *, source: str) -> list[tuple[int, int, int]]:
    """Remove blocks in a sphere of radius ``power`` around the centre and hurt the player."""
    destroyed: list[tuple[int, int, int]] = []
    r = math.ceil(power)
    bx, by, bz = math.floor(cx), math.floor(cy), math.floor(cz)
    for dx in range(-r, r + 1):
        for dy in range(-r, r + 1):
            for dz in range(-r, r + 1):
                x, y, z = bx + dx, by + dy, bz + dz
                d = math.sqrt((x + 0.5 - cx) ** 2 + (y + 0.5 - cy) ** 2 + (z + 0.5 - cz) ** 2)
                # Vanilla rays lose strength with distance and a random factor; keep that shape.
                if d > power * (0.7 + world.rng.random() * 0.6):
                    continue
                name = world.name(x, y, z)
                if name in ("air", "cave_air", "void_air", "water", "lava"):
                    continue
                data = world.md.block(name)
                if data.hardness is None or data.hardness >= 50:
                    continue
                destroyed.append((x, y, z))
    for pos in destroyed:
        name = world.name(*pos)
        if name == "air":  # already gone with a neighbour (the other half of a door or bed)
            continue
        drops = world.md.drops(name, None, world.rng) if world.rng.random() < 1.0 / power else []
        world.set_block(pos, AIR)
        for item, count in drops:
            world.spawn_item(item, count, pos[0] + 0.5, pos[1] + 0.25, pos[2] + 0.5)
    pl = world.player
    pd = math.sqrt((pl.position.x - cx) ** 2 + (pl.position.y + 0.9 - cy) ** 2 + (pl.position.z - cz) ** 2)
    if pd < 2 * power:
        impact = 1.0 - pd / (2 * power)
        world.damage_player(float(int((impact * impact + impact) / 2.0 * 7.0 * 2 * power + 1.0)), f"explosion:{source}")
    for e in world.entities.values():
        if e.kind in ("hostile", "passive"):
            ed = e.distance_to(Position(cx, cy, cz))
            if ed < 2 * power:
                impact = 1.0 - ed / (2 * power)
                e.health -= (impact * impact + impact) / 2.0 * 7.0 * 2 * power + 1.0
    world.note({"event": "explosion", "source": source, "pos": [cx, cy, cz], "blocks": len(destroyed)})
    return destroyed
