"""Hostiles hit, shoot and light their fuse only with the player in sight, as vanilla's attacks do."""

from __future__ import annotations

import math

from craftbt.world.sim.body import SimBody, new_world
from craftbt.world.sim.mobs import line_of_sight

MIDNIGHT = 18000


def night_world() -> SimBody:
    body = SimBody(new_world(seed=3))
    body.world.rules.do_mob_spawning = False  # only the mobs a test places
    body.world.clock.set_time_of_day(MIDNIGHT)
    return body


def wall(body: SimBody, x: int, z0: int, z1: int, y0: int, height: int) -> None:
    for z in range(z0, z1 + 1):
        for y in range(y0, y0 + height):
            body.set_block((x, y, z), "stone")


def test_a_creeper_on_the_roof_over_a_walled_in_bot_never_lights_its_fuse() -> None:
    """Natural seed 1's crossbow: a creeper stood on the night shelter's roof, 3 blocks over the bot's feet, where
    the old rule lit its fuse through the roof."""
    body = night_world()
    p = body.position().block()
    for dx, dz in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        for dy in (0, 1):
            body.set_block((p.x + dx, p.y + dy, p.z + dz), "stone")
    body.set_block((p.x, p.y + 2, p.z), "stone")
    creeper = body.world.spawn_mob("creeper", p.x + 0.5, p.y + 3, p.z + 0.5)
    lit = -1
    for _ in range(400):
        body.advance(1)
        lit = max(lit, creeper.fuse)
    assert lit < 0 and body.world.player.health == 20.0 and creeper.id in body.world.entities
    body.set_block((p.x, p.y + 2, p.z), "air")  # the roof dug: it drops in, and sees the bot
    body.advance(60)
    assert creeper.id not in body.world.entities and body.world.player.health < 20.0


def test_a_zombie_in_the_open_hits_the_player() -> None:
    body = night_world()
    p = body.position()
    body.world.spawn_mob("zombie", p.x + 10, p.y, p.z)
    body.advance(200)
    assert body.world.player.health < 20.0


def test_a_skeleton_behind_a_wall_does_not_shoot_through_it() -> None:
    """The old rule shot the player from 6 blocks through three blocks of stone."""
    body = night_world()
    p = body.position().block()
    wall(body, p.x + 3, p.z - 3, p.z + 3, p.y, 4)
    skeleton = body.world.spawn_mob("skeleton", p.x + 6.5, p.y, p.z + 0.5)
    body.advance(200)
    assert body.world.player.health == 20.0 and skeleton.id in body.world.entities
    for z in range(p.z - 3, p.z + 4):
        for y in range(p.y, p.y + 4):
            body.set_block((p.x + 3, y, z), "air")  # the wall taken down
    body.advance(200)
    assert body.world.player.health < 20.0


def test_line_of_sight_stops_at_the_first_solid_cell_on_the_segment() -> None:
    body = night_world()
    p = body.position().block()
    eye = (p.x + 0.5, p.y + 1.62, p.z + 0.5)
    far = (p.x + 8.5, p.y + 1.62, p.z + 5.5)
    assert line_of_sight(body.world, eye, far)
    crossed = (p.x + 4, math.floor(eye[1]), p.z + 2)  # the cell the diagonal passes through at x = 4.5
    body.set_block(crossed, "stone")
    assert not line_of_sight(body.world, eye, far) and not line_of_sight(body.world, far, eye)
    body.set_block((p.x, p.y + 1, p.z), "oak_leaves")  # the ends' own cells are not walls
    body.set_block(crossed, "air")
    assert line_of_sight(body.world, eye, far)
