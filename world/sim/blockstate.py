"""Block-state mechanics: support, gravity, crops and farmland, doors, levers, buttons, pistons, lamps.

Functions here take the :class:`~world.sim.world.World` and change blocks only
through ``world.set_block`` so every consequence (light, containers, support)
runs. Redstone is reduced to what levers and buttons next to a device need:
a device is powered when a powered lever or button touches it, or touches a
solid block it touches (strong power through one block).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from craftbt.world.body import FACE_OFFSETS, Face, Position
from craftbt.world.sim.storage import AIR, BlockState, make_state

if TYPE_CHECKING:
    from craftbt.world.sim.world import World

Pos = tuple[int, int, int]

#: Seeds -> the crop block they plant; crops grow through their ``age`` state.
SEED_CROPS: dict[str, str] = {
    "wheat_seeds": "wheat", "carrot": "carrots", "potato": "potatoes", "beetroot_seeds": "beetroots",
}
CROPS = frozenset(SEED_CROPS.values())
TILLABLE = ("grass_block", "dirt", "dirt_path")
#: Ticks a button stays pressed (vanilla: stone 20, wooden 30).
BUTTON_TICKS = {"stone_button": 20, "polished_blackstone_button": 20}
WOODEN_BUTTON_TICKS = 30
#: Light from state-dependent emitters that minecraft-data lists as 0 (they emit only when lit).
LIT_LIGHT = {"redstone_lamp": 15, "furnace": 13, "smoker": 13, "blast_furnace": 13}
PISTON_PUSH_LIMIT = 12
FARMLAND_WATER_RANGE = 4

NEIGHBOURS: tuple[Pos, ...] = ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1))
FACING: dict[str, Pos] = {
    "north": (0, 0, -1), "south": (0, 0, 1), "west": (-1, 0, 0), "east": (1, 0, 0),
    "up": (0, 1, 0), "down": (0, -1, 0),
}


def add(p: Pos, d: Pos) -> Pos:
    return (p[0] + d[0], p[1] + d[1], p[2] + d[2])


def with_props(state: BlockState, **changes: Any) -> BlockState:
    props = dict(state[1])
    props.update(changes)
    return make_state(state[0], props)


def set_prop(world: World, pos: Pos, key: str, value: Any) -> None:
    st = world.state(*pos)
    if dict(st[1]).get(key) != value:
        world.set_block(pos, with_props(st, **{key: value}))


def emitted_light(world: World, state: BlockState) -> int:
    name, props = state
    if name in LIT_LIGHT:
        return LIT_LIGHT[name] if dict(props).get("lit") else 0
    if name in ("air", "cave_air", "void_air"):
        return 0
    if dict(props).get("lit") is False:
        return 0
    return world.md.block(name).emit_light


def is_door(name: str) -> bool:
    return name.endswith("_door")


def is_button(name: str) -> bool:
    return name.endswith("_button")


def facing_from_yaw(yaw: float) -> str:
    """The horizontal direction a player with this yaw looks at (mineflayer yaw: 0 = north, CCW)."""
    # mineflayer: yaw 0 looks -z (north), pi/2 looks -x (west).
    dx, dz = -math.sin(yaw), -math.cos(yaw)
    if abs(dx) > abs(dz):
        return "east" if dx > 0 else "west"
    return "south" if dz > 0 else "north"


# -- change hooks -----------------------------------------------------------------------------------
def on_changed(world: World, pos: Pos, old: BlockState, new: BlockState) -> None:
    from craftbt.world.sim.flags import NEEDS_SUPPORT, SOLID

    x, y, z = pos
    old_name, new_name = old[0], new[0]
    if is_door(old_name) and old_name != new_name:
        half = dict(old[1]).get("half")
        other = (x, y + 1, z) if half == "lower" else (x, y - 1, z)
        if world.name(*other) == old_name:
            world.set_block(other, AIR)
    if old_name.endswith("_bed") and old_name != new_name:
        props = dict(old[1])
        d = FACING[str(props.get("facing", "north"))]
        other = add(pos, d) if props.get("part") == "foot" else add(pos, (-d[0], -d[1], -d[2]))
        if world.name(*other) == old_name:
            world.set_block(other, AIR)
    if old_name in ("piston", "sticky_piston") and dict(old[1]).get("extended") and old_name != new_name:
        head = add(pos, FACING[str(dict(old[1]).get("facing", "north"))])
        if world.name(*head) == "piston_head":
            world.set_block(head, AIR)
    # Support: whatever stands on this block pops off when it stops being solid (or farmland, for crops).
    above = (x, y + 1, z)
    above_state = world.state(*above)
    above_flags = world.flags(*above)
    if above_state[0] != "air" and above_flags & NEEDS_SUPPORT and not is_door_upper(above_state):
        lost = not world.flags_of(world.palette.id_of(new)) & SOLID
        if above_state[0] in CROPS and new_name != "farmland":
            lost = True
        if lost:
            pop_block(world, above)
    if new_name in CROPS or new_name == "farmland":
        schedule_random(world, pos)
    if new_name in ("lever",) or is_button(new_name) or is_button(old_name) or old_name == "lever":
        update_power_near(world, pos)
    elif is_powerable(new_name):
        update_power_at(world, pos)


def is_door_upper(state: BlockState) -> bool:
    return is_door(state[0]) and dict(state[1]).get("half") == "upper"


def pop_block(world: World, pos: Pos) -> None:
    """Break a block as if by hand (its drops fall as items)."""
    name, props = world.state(*pos)
    age = dict(props).get("age")
    drops = world.md.drops(name, None, world.rng, age=age if isinstance(age, int) else None)
    world.set_block(pos, AIR)
    for item, count in drops:
        world.spawn_item(item, count, pos[0] + 0.5, pos[1] + 0.25, pos[2] + 0.5)


# -- random ticks: crops and farmland -------------------------------------------------------------
def schedule_random(world: World, pos: Pos) -> None:
    if pos not in world.random_pending:
        world.random_pending.add(pos)
        world.schedule(world.random_tick_delay(), "random", pos)


def on_timer(world: World, kind: str, pos: Pos) -> None:
    if kind == "random":
        world.random_pending.discard(pos)
        name = world.name(*pos)
        if name in CROPS:
            grow_crop(world, pos)
            schedule_random(world, pos)
        elif name == "farmland":
            tick_farmland(world, pos)
            if world.name(*pos) == "farmland":
                schedule_random(world, pos)
    elif kind == "button_release":
        st = world.state(*pos)
        if is_button(st[0]) and dict(st[1]).get("powered"):
            world.set_block(pos, with_props(st, powered=False))


def crop_max_age(world: World, name: str) -> int:
    return world.md.block(name).max_state


def grow_crop(world: World, pos: Pos) -> None:
    st = world.state(*pos)
    age = int(dict(st[1]).get("age", 0))
    top = crop_max_age(world, st[0])
    if age >= top:
        return
    if world.rng.random() < 1.0 / (math.floor(25.0 / growth_speed(world, pos, st[0])) + 1):
        world.set_block(pos, with_props(st, age=age + 1))


def growth_speed(world: World, pos: Pos, crop: str) -> float:
    """Vanilla's ``CropBlock.getGrowthSpeed``: 1, plus per farmland cell of the 3x3 below 1 (3 when moist),
    a quarter of that for the eight around; halved when the same crop stands beside it along both x and
    z, or (otherwise) diagonally. A lone crop on moist farmland: 4; dry: 2; inside a moist row: 5.5."""
    x, y, z = pos
    speed = 1.0
    for dx in (-1, 0, 1):
        for dz in (-1, 0, 1):
            soil = world.state(x + dx, y - 1, z + dz)
            if soil[0] != "farmland":
                continue
            points = 3.0 if int(dict(soil[1]).get("moisture", 0)) > 0 else 1.0
            speed += points if dx == 0 and dz == 0 else points / 4
    along_x = crop in (world.name(x - 1, y, z), world.name(x + 1, y, z))
    along_z = crop in (world.name(x, y, z - 1), world.name(x, y, z + 1))
    diagonal = any(world.name(x + dx, y, z + dz) == crop for dx in (-1, 1) for dz in (-1, 1))
    if (along_x and along_z) or diagonal:
        speed /= 2
    return speed


def water_near(world: World, pos: Pos) -> bool:
    x, y, z = pos
    r = FARMLAND_WATER_RANGE
    for dy in (0, 1):
        for dx in range(-r, r + 1):
            for dz in range(-r, r + 1):
                if world.name(x + dx, y + dy, z + dz) == "water":
                    return True
    return False


def tick_farmland(world: World, pos: Pos) -> None:
    st = world.state(*pos)
    moisture = int(dict(st[1]).get("moisture", 0))
    if water_near(world, pos):
        if moisture != 7:
            world.set_block(pos, with_props(st, moisture=7))
    elif moisture > 0:
        world.set_block(pos, with_props(st, moisture=moisture - 1))
    elif world.name(pos[0], pos[1] + 1, pos[2]) not in CROPS:
        world.set_block(pos, make_state("dirt"))


# -- gravity ---------------------------------------------------------------------------------------
def settle_gravity(world: World, queue: Iterable[Pos]) -> None:
    from craftbt.world.sim.flags import AIRLIKE, GRAVITY, LIQUID, MIN_Y

    for pos in sorted(set(queue), key=lambda p: (p[1], p[0], p[2])):
        if not world.flags(*pos) & GRAVITY:
            continue
        x, y, z = pos
        land = y
        while land - 1 > MIN_Y and world.flags(x, land - 1, z) & (AIRLIKE | LIQUID):
            land -= 1
        if land == y:
            continue
        st = world.state(*pos)
        world.set_block(pos, AIR)
        world.set_block((x, land, z), st)


def apply_player_gravity(world: World) -> None:
    """The player falls to the ground when what held them goes; vanilla fall damage is distance - 3."""
    from craftbt.world.sim.flags import LIQUID, MIN_Y, SOLID

    pl = world.player
    p = pl.position
    bx, by, bz = math.floor(p.x), math.floor(p.y), math.floor(p.z)
    if world.flags(bx, by, bz) & SOLID:
        # Buried (a block was placed into or fell onto the player): step up out of it.
        while world.flags(bx, by, bz) & SOLID or world.flags(bx, by + 1, bz) & SOLID:
            by += 1
        pl.position = Position(p.x, float(by), p.z)
        return
    if p.y - by > 1e-6 or world.flags(bx, by - 1, bz) & (SOLID | LIQUID) or world.flags(bx, by, bz) & LIQUID:
        return
    land = by
    while land > MIN_Y and not world.flags(bx, land - 1, bz) & (SOLID | LIQUID):
        land -= 1
    distance = by - land
    pl.position = Position(p.x, float(land), p.z)
    if distance > 3 and not world.flags(bx, land, bz) & LIQUID:
        world.damage_player(float(distance - 3), "fall")


# -- power -----------------------------------------------------------------------------------------
def is_powerable(name: str) -> bool:
    return (
        is_door(name) or name.endswith("_trapdoor") or name.endswith("_fence_gate")
        or name in ("redstone_lamp", "piston", "sticky_piston")
    )


def source_on(world: World, pos: Pos) -> bool:
    name, props = world.state(*pos)
    if name == "lever" or is_button(name):
        return bool(dict(props).get("powered"))
    return name == "redstone_block"


def is_powered(world: World, pos: Pos) -> bool:
    from craftbt.world.sim.flags import SOLID

    for d in NEIGHBOURS:
        n = add(pos, d)
        if source_on(world, n):
            return True
        if world.flags(*n) & SOLID and not is_powerable(world.name(*n)):
            for d2 in NEIGHBOURS:
                m = add(n, d2)
                if m != pos and source_on(world, m):
                    return True
    return False


def update_power_near(world: World, source: Pos) -> None:
    for dx in range(-2, 3):
        for dy in range(-2, 3):
            for dz in range(-2, 3):
                p = add(source, (dx, dy, dz))
                if is_powerable(world.name(*p)):
                    update_power_at(world, p)


def update_power_at(world: World, pos: Pos) -> None:
    st = world.state(*pos)
    name, props_t = st
    props = dict(props_t)
    powered = is_powered(world, pos)
    if is_door(name):
        if props.get("half") == "upper":
            return  # the lower half drives the door
        upper = (pos[0], pos[1] + 1, pos[2])
        powered = powered or is_powered(world, upper)
        if props.get("powered") == powered:
            return
        set_door(world, pos, open_=powered, powered=powered)
    elif name == "redstone_lamp":
        if bool(props.get("lit")) != powered:
            world.set_block(pos, with_props(st, lit=powered))
    elif name in ("piston", "sticky_piston"):
        if bool(props.get("extended")) != powered:
            if powered:
                extend_piston(world, pos)
            else:
                retract_piston(world, pos)
    elif name.endswith(("_trapdoor", "_fence_gate")) and props.get("powered") != powered:
        world.set_block(pos, with_props(st, open=powered, powered=powered))


def set_door(world: World, lower: Pos, *, open_: bool, powered: bool | None = None) -> None:
    changes: dict[str, Any] = {"open": open_}
    if powered is not None:
        changes["powered"] = powered
    upper = (lower[0], lower[1] + 1, lower[2])
    lower_state = world.state(*lower)
    upper_state = world.state(*upper)
    world.store.set(*lower, world.palette.id_of(with_props(lower_state, **changes)))
    if is_door(upper_state[0]):
        world.store.set(*upper, world.palette.id_of(with_props(upper_state, **changes)))


def extend_piston(world: World, pos: Pos) -> bool:
    from craftbt.world.sim.flags import CONTAINER, REPLACEABLE

    st = world.state(*pos)
    facing = str(dict(st[1]).get("facing", "north"))
    d = FACING[facing]
    chain: list[Pos] = []
    cur = add(pos, d)
    while not world.flags(*cur) & REPLACEABLE:
        name = world.name(*cur)
        data = world.md.block(name)
        if (
            len(chain) >= PISTON_PUSH_LIMIT or data.hardness is None or data.hardness >= 50
            or world.flags(*cur) & CONTAINER or name in ("piston_head", "moving_piston")
        ):
            return False
        chain.append(cur)
        cur = add(cur, d)
    for p in reversed(chain):
        world.set_block(add(p, d), world.state(*p), drop_contents=False)
    head = make_state("piston_head", {"facing": facing, "type": "sticky" if st[0] == "sticky_piston" else "normal"})
    world.store.set(*pos, world.palette.id_of(with_props(st, extended=True)))
    world.set_block(add(pos, d), head)
    return True


def retract_piston(world: World, pos: Pos) -> None:
    st = world.state(*pos)
    facing = str(dict(st[1]).get("facing", "north"))
    d = FACING[facing]
    head = add(pos, d)
    world.store.set(*pos, world.palette.id_of(with_props(st, extended=False)))
    if world.name(*head) == "piston_head":
        world.set_block(head, AIR)
        if st[0] == "sticky_piston":
            pulled = add(head, d)
            pst = world.state(*pulled)
            if pst[0] not in ("air", "water", "lava") and world.md.block(pst[0]).hardness not in (None,):
                world.set_block(pulled, AIR, drop_contents=False)
                world.set_block(head, pst)


# -- activation ------------------------------------------------------------------------------------
def activatable(name: str) -> bool:
    return (
        (is_door(name) and name != "iron_door") or name == "lever" or is_button(name)
        or (name.endswith("_trapdoor") and name != "iron_trapdoor") or name.endswith("_fence_gate")
    )


def activate(world: World, pos: Pos) -> dict[str, Any]:
    """Toggle a door, trapdoor, gate or lever, or press a button; returns the new state."""
    st = world.state(*pos)
    name, props_t = st
    props = dict(props_t)
    if is_door(name):
        lower = pos if props.get("half") != "upper" else (pos[0], pos[1] - 1, pos[2])
        set_door(world, lower, open_=not props.get("open"))
    elif name == "lever":
        world.set_block(pos, with_props(st, powered=not props.get("powered")))
    elif is_button(name):
        if not props.get("powered"):
            world.set_block(pos, with_props(st, powered=True))
            world.schedule(BUTTON_TICKS.get(name, WOODEN_BUTTON_TICKS), "button_release", pos)
    else:
        world.set_block(pos, with_props(st, open=not props.get("open")))
    return dict(world.state(*pos)[1])


def face_offset(face: Face) -> Pos:
    return FACE_OFFSETS[face]
