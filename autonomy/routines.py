"""Built-in routines: small trees the router has no planner for (a night shelter, leaving it, eating, going somewhere).

Each routine is a function from the body's current state to a validated-shape
:class:`~craftbt.trees.model.TreeDefinition` of registered capabilities only, so it
runs through the executor's gate, geofence and journal like any planned tree.

The shelter is a pit: three blocks dug under the feet and one block placed over
the head. Standing three blocks below the surface puts the bot out of reach of
melee mobs on the surface and below a skeleton's line of fire; leaving it in the
morning digs the roof and a two-step stair out, then walks up.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from craftbt.trees import model as m
from craftbt.world.body import BlockPos, Body

#: blocks the routines place (roof, stair fill), most plentiful first at run time
BUILDING_BLOCKS = ("dirt", "cobblestone", "cobbled_deepslate", "stone", "sand", "gravel", "oak_planks",
                   "birch_planks", "spruce_planks", "netherrack", "granite", "diorite", "andesite")
#: blocks that do not keep mobs out or hold the bot (dug anyway, never counted as a roof)
SOFT = frozenset({"air", "cave_air", "water", "lava", "short_grass", "tall_grass", "snow", "torch"})
PIT_DEPTH = 3
STEPS = ((1, 0), (-1, 0), (0, 1), (0, -1))


def _vec(p: BlockPos) -> dict[str, int]:
    return {"x": p.x, "y": p.y, "z": p.z}


def _tree(name: str, description: str, leaves: list[m.LeafNode]) -> m.TreeDefinition:
    return m.TreeDefinition(tree=name, description=description, source=f"autonomy:{name}",
                            root=m.SequenceNode(name=name, children=list(leaves)))


def building_block(body: Body) -> str | None:
    inv = body.observe().inventory
    have = [(inv.get(b, 0), b) for b in BUILDING_BLOCKS if inv.get(b, 0) > 0]
    return max(have)[1] if have else None


def sheltered(body: Body) -> bool:
    """A solid roof within two blocks over the head and solid walls at the feet and head on four sides."""
    feet = body.position().block()

    def solid(p: BlockPos) -> bool:
        return body.block_at(p).name not in SOFT

    roof = solid(feet.offset(dy=2)) or solid(feet.offset(dy=3))
    walls = all(solid(feet.offset(dx=dx, dz=dz)) and solid(feet.offset(dx=dx, dy=1, dz=dz)) for dx, dz in STEPS)
    return roof and walls


def dig_pit(body: Body) -> m.TreeDefinition | None:
    """Dig three blocks down under the feet; None when the ground there cannot be dug."""
    feet = body.position().block()
    leaves: list[m.LeafNode] = []
    for i in range(1, PIT_DEPTH + 1):
        cell = feet.offset(dy=-i)
        name = body.block_at(cell).name
        if name in ("bedrock", "water", "lava"):
            return None
        if name not in SOFT:
            leaves.append(m.LeafNode(name=f"dig pit {i}", capability="dig_block_at",
                                     args={"position": _vec(cell)}, timeout_ms=20_000))
    return _tree("dig_pit", "dig a three-deep pit for the night", leaves) if leaves else None


def roof_over(body: Body) -> m.TreeDefinition | None:
    """Place a block right over the head (a second stage: the gate only counts what is carried now)."""
    feet = body.position().block()
    roof = feet.offset(dy=2)
    if body.block_at(roof).name not in SOFT:
        return None
    block = building_block(body)
    if block is None:
        return None
    return _tree("roof_over", "roof the pit over", [
        m.LeafNode(name="roof over", capability="place_block_at", args={"position": _vec(roof), "block": block},
                   timeout_ms=20_000)])


#: a routine is stages, each built from the body as it is when the stage starts
Stage = Callable[[Body], m.TreeDefinition | None]
SHELTER: tuple[Stage, ...] = (dig_pit, roof_over)


def leave_shelter(body: Body) -> m.TreeDefinition:
    """Dig the roof and a two-step stair in the first direction whose ground lets the bot walk out.

    From the pit's floor (feet at y) the stair steps are (1, y+1), (2, y+2) and the surface (3, y+3):
    every cell the body passes through on the way (feet, head, and the jump's headroom) is dug.
    """
    feet = body.position().block()
    dx, dz = _exit_direction(body, feet)

    def at(k: int, dy: int) -> BlockPos:
        return feet.offset(dx=k * dx, dy=dy, dz=k * dz)

    cells = (at(0, 2), at(1, 1), at(1, 2), at(1, 3), at(2, 2), at(2, 3), at(2, 4), at(3, 3), at(3, 4))
    leaves: list[m.LeafNode] = []
    for i, cell in enumerate(cells):
        if body.block_at(cell).name not in SOFT:
            leaves.append(m.LeafNode(name=f"dig exit {i}", capability="dig_block_at",
                                     args={"position": _vec(cell)}, timeout_ms=20_000))
    leaves.append(m.LeafNode(name="walk out", capability="move_to",
                             args={"pos": _vec(at(3, 3)), "range": 1.0}, timeout_ms=30_000))
    return _tree("leave_shelter", "dig out of the night shelter and walk up to the surface", leaves)


def _floor(name: str) -> bool:
    return name not in SOFT and not name.endswith(("_leaves", "_log"))


def _exit_direction(body: Body, feet: BlockPos) -> tuple[int, int]:
    """The first side whose stair floors (one, two and three blocks out, each a block higher) are solid."""
    for dx, dz in STEPS:
        floors = [feet.offset(dx=k * dx, dy=k - 1, dz=k * dz) for k in (1, 2, 3)]
        if all(_floor(body.block_at(p).name) for p in floors):
            return dx, dz
    return STEPS[0]


def eat(food: str | None = None) -> m.TreeDefinition:
    args: dict[str, Any] = {"until_saturation": False}
    if food:
        args["food_type"] = food
    return _tree("eat", "eat the best food carried", [
        m.LeafNode(name="eat", capability="consume_food", args=args, timeout_ms=10_000)])


def surface(body: Body, x: int, z: int, around_y: int, span: int = 12) -> BlockPos | None:
    """The standing cell (air over a solid block) at column x, z nearest ``around_y``; None if there is none."""
    for dy in sorted(range(-span, span + 1), key=abs):
        y = around_y + dy
        floor, feet, head = (body.block_at(BlockPos(x, y + k, z)).name for k in (-1, 0, 1))
        if _floor(floor) and feet in SOFT - {"water", "lava"} and head in SOFT - {"water", "lava"}:
            return BlockPos(x, y, z)
    return None


def go_to(target: BlockPos, range_: float = 2.0) -> m.TreeDefinition:
    return _tree("go_to", f"walk to {target.x},{target.y},{target.z}", [
        m.LeafNode(name="walk", capability="move_to", args={"pos": _vec(target), "range": range_},
                   timeout_ms=60_000)])


def light_up() -> m.TreeDefinition:
    return _tree("light_up", "place a torch where the bot stands", [
        m.LeafNode(name="torch", capability="place_torch", args={}, timeout_ms=5_000)])
