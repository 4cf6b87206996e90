"""The starter world: natural terrain plus a guarantee of what a fresh player needs near spawn.

Natural terrain alone may put spawn in a treeless meadow. The starter world
makes sure that, within about 20 blocks of spawn, there are at least three
trees and an outcrop of stone with exposed coal and iron ore: enough to go
from an empty inventory to a wooden pickaxe, then stone tools and iron.
All choices come from the world's seeded random generator.
"""

from __future__ import annotations

import math

from craftbt.world.body import Position
from craftbt.world.sim.generator import SEA_LEVEL, place_tree_leaves, place_tree_trunk
from craftbt.world.sim.storage import make_state
from craftbt.world.sim.world import World

MIN_TREES = 3
TREE_RADIUS = 12


def find_spawn(world: World, near: tuple[int, int] = (0, 0), radius: int = 64) -> Position:
    """The nearest dry grass column to ``near`` with two blocks of air over it (spiral search); sets
    ``world.spawn`` too."""
    gen = world.generator
    cx, cz = near
    for r in range(radius + 1):
        ring = [(cx + dx, cz + dz) for dx in range(-r, r + 1) for dz in range(-r, r + 1)
                if max(abs(dx), abs(dz)) == r]
        for x, z in ring:
            h = gen.surface_y(x, z)
            # room for the head too: under a low canopy (natural seeds 15 and 17) the player stood in a
            # one-high gap with its head in leaves and no path led anywhere
            if (h >= SEA_LEVEL + 1 and world.name(x, h, z) == "grass_block" and world.name(x, h + 1, z) == "air"
                    and world.name(x, h + 2, z) == "air"):
                world.spawn = Position(x + 0.5, float(h + 1), z + 0.5)
                world.player.position = world.spawn
                return world.spawn
    return world.spawn


def _trees_near(world: World, x0: int, z0: int, y0: int, radius: int) -> int:
    count = 0
    for x in range(x0 - radius, x0 + radius + 1):
        for z in range(z0 - radius, z0 + radius + 1):
            h = world.generator.surface_y(x, z)
            if world.name(x, h + 1, z).endswith("_log"):
                count += 1
    return count


def _random_dry_spot(world: World, sx: int, sz: int, near: float, far: float) -> tuple[int, int, int] | None:
    """A random column ``near``..``far`` blocks from spawn, with its dry ground height; None if it is wet."""
    angle = world.rng.random() * math.tau
    dist = world.rng.uniform(near, far)
    x, z = sx + round(math.cos(angle) * dist), sz + round(math.sin(angle) * dist)
    h = _dry_ground(world, x, z)
    return None if h is None else (x, h, z)


def _dry_ground(world: World, x: int, z: int) -> int | None:
    h = world.generator.surface_y(x, z)
    if h < SEA_LEVEL + 1 or world.name(x, h, z) != "grass_block":
        return None
    for dx in range(-2, 3):
        for dz in range(-2, 3):
            if world.name(x + dx, h + 1, z + dz) != "air" or world.name(x + dx, h + 2, z + dz) != "air":
                return None
    return h


def make_starter(world: World) -> None:
    spawn = find_spawn(world)
    sx, sy, sz = math.floor(spawn.x), math.floor(spawn.y), math.floor(spawn.z)
    rng = world.rng
    trees = _trees_near(world, sx, sz, sy, TREE_RADIUS)
    attempts = 0
    while trees < MIN_TREES and attempts < 200:
        attempts += 1
        spot = _random_dry_spot(world, sx, sz, 4, 10)
        if spot is None:
            continue
        x, h, z = spot
        height = rng.randint(4, 6)
        place_tree_leaves(world.store, x, h + 1, z, height, "oak", world.seed)
        place_tree_trunk(world.store, x, h + 1, z, height, "oak")
        world.set_block((x, h, z), make_state("dirt"))
        trees += 1
    _outcrop(world, sx, sz)


def _outcrop(world: World, sx: int, sz: int) -> None:
    """A stone mound 10-16 blocks from spawn (5x5 two high, 3x3 on top), iron and coal ore on its faces.

    Sized so the whole tool progression to an iron pickaxe (11 cobblestone, 3 raw iron, fuel) can
    be mined from it standing on the ground, whatever the seed's terrain offers.
    """
    rng = world.rng
    for _ in range(200):
        spot = _random_dry_spot(world, sx, sz, 10, 16)
        if spot is None:
            continue
        x, h, z = spot
        cells = [(x + dx, h + dy, z + dz) for dy in (1, 2) for dx in range(-2, 3) for dz in range(-2, 3)]
        cells += [(x + dx, h + 3, z + dz) for dx in (-1, 0, 1) for dz in (-1, 0, 1)]
        for c in cells:
            world.set_block(c, make_state("stone"))
        faces = [c for c in cells if max(abs(c[0] - x), abs(c[2] - z)) == 2]
        rng.shuffle(faces)
        ores = ("iron_ore",) * 5 + ("coal_ore",) * 4
        for c, ore in zip(faces, ores, strict=False):
            world.set_block(c, make_state(ore))
        return
