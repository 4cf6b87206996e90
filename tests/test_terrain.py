"""One terrain rule (world.terrain): every room that asks "can a player stand here" gets the same answer.

The leaves (move_to's standable, a placement's step aside), the trees' ``can_stand`` check, CraftScript
(``can_stand`` and the safe steps), the build (anchor reachability, its standing cells) and the simulator
ask the one module; these tests put each hazard and liquid under, at and over the feet and ask them all.
"""

from __future__ import annotations

from typing import Any

import pytest

from craftbt.capabilities import checks
from craftbt.capabilities.context import CapabilityContext
from craftbt.capabilities.default import default_registry
from craftbt.capabilities.leaves import blockwork, movement
from craftbt.capabilities.leaves.common import body_reader, registry_data
from craftbt.craftscript.introspect import Introspection
from craftbt.router.build.runner import standable_fn
from craftbt.trees import structure_paths
from craftbt.world import mcdata, terrain
from craftbt.world.body import BlockPos, Position
from tests.csh import body, run, texts

#: the hazards CraftScript's own list missed before it asked world.terrain (move_to refused them)
ONCE_MISSED = ("sweet_berry_bush", "soul_campfire", "wither_rose", "pointed_dripstone")
CELL = BlockPos(2, 64, 0)  # on the flat world's grass, two blocks from the bot


def _world_with(name: str, at: BlockPos) -> Any:
    b = body()
    b.world.set_block(tuple(at), (name, ()))
    return b


def _answers(b: Any, pos: BlockPos) -> dict[str, bool]:
    ctx = CapabilityContext(body=b, registry=default_registry())
    md = registry_data(ctx)
    return {
        "terrain": terrain.standable(body_reader(ctx), terrain.solid_in(md), pos),
        "move_to": movement.standable(md, ctx, pos) is None,
        "step_aside": blockwork.standable(ctx, pos),
        "craftscript": Introspection(b).standable(pos),
        "build_paths": structure_paths.standable(lambda p: b.block_at(p).name, pos),
        "build_runner": standable_fn(b)(pos),
        "tree_check": checks.can_stand(ctx, checks.PositionArgs(x=pos.x, y=pos.y, z=pos.z)),
    }


def test_open_ground_is_standable_for_everyone() -> None:
    answers = _answers(body(), CELL)
    assert all(answers.values()), answers


@pytest.mark.parametrize("name", sorted(terrain.HAZARDS - {"lava"}))
def test_a_hazard_at_the_feet_is_refused_by_everyone(name: str) -> None:
    answers = _answers(_world_with(name, CELL), CELL)
    assert not any(answers.values()), answers


@pytest.mark.parametrize("name", ["magma_block", "soul_sand", "stone"])
def test_a_floor_is_judged_the_same_way_by_everyone(name: str) -> None:
    answers = _answers(_world_with(name, CELL.offset(dy=-1)), CELL)
    assert len(set(answers.values())) == 1, answers
    assert answers["terrain"] is (name not in terrain.HAZARDS)


def test_water_at_the_feet_is_refused_by_everyone() -> None:
    answers = _answers(_world_with("water", CELL), CELL)
    assert not any(answers.values()), answers


@pytest.mark.parametrize("name", ONCE_MISSED)
def test_craftscript_can_stand_refuses_what_move_to_refuses(name: str) -> None:
    b = _world_with(name, CELL)
    out, _ = run(f"log(can_stand({CELL.x}, {CELL.y}, {CELL.z}));", on=b)
    assert out.ok and texts(out) == ["false"]
    ctx = CapabilityContext(body=b, registry=default_registry())
    assert movement.standable(registry_data(ctx), ctx, CELL) == terrain.Footing.HAZARD


@pytest.mark.parametrize("name", ONCE_MISSED)
def test_craftscript_safe_step_down_refuses_a_hazard_floor(name: str) -> None:
    b = body()
    b.world.set_block((1, 63, 0), ("air", ()))
    b.world.set_block((1, 62, 0), (name, ()))
    assert Introspection(b).safe_step_down(BlockPos(1, 64, 0)) is False
    b.world.set_block((1, 62, 0), ("stone", ()))
    assert Introspection(b).safe_step_down(BlockPos(1, 64, 0)) is True


def test_the_simulators_physics_agrees_with_the_rule() -> None:
    """SimBody.standable (over the simulator's flags) and terrain.standable (over names) give the same answers
    on ground, walls, pits, water and lava (the hazard the physics knows)."""
    b = body()
    b.world.set_block(tuple(CELL), ("lava", ()))
    b.world.set_block(tuple(CELL.offset(dx=1)), ("stone", ()))
    b.world.set_block(tuple(CELL.offset(dx=2, dy=-1)), ("air", ()))
    b.world.set_block(tuple(CELL.offset(dx=2, dy=-2)), ("air", ()))
    b.world.set_block(tuple(CELL.offset(dx=-2, dy=1)), ("lava", ()))
    ctx = CapabilityContext(body=b, registry=default_registry())
    solid = terrain.solid_in(registry_data(ctx))
    cells = [CELL.offset(dx=dx, dy=dy) for dx in range(-3, 4) for dy in (-1, 0, 1)]
    for pos in cells:
        assert b.standable(*pos) is terrain.standable(body_reader(ctx), solid, pos), pos
    assert b.standable(*CELL.offset(dx=-1)) and not b.standable(*CELL) and not b.standable(*CELL.offset(dx=-2))


def test_one_set_of_liquids() -> None:
    from craftbt.capabilities.leaves import common, crafting
    from craftbt.router.build import site

    assert common.LIQUIDS is terrain.LIQUIDS and crafting.LIQUIDS is terrain.LIQUIDS
    assert site.LIQUIDS is terrain.LIQUIDS and "bubble_column" in terrain.LIQUIDS
    assert terrain.BURNING <= terrain.HAZARDS


def test_a_stair_step_opens_the_jump_headroom_then_the_step() -> None:
    feet = BlockPos(0, 60, 0)
    first = terrain.stair_up_step(feet, (1, 0), 1)
    assert first.at == BlockPos(1, 61, 0) and first.floor == BlockPos(1, 60, 0)
    assert first.cells == (BlockPos(0, 62, 0), BlockPos(1, 61, 0), BlockPos(1, 62, 0))
    second = terrain.stair_up_step(feet, (0, -1), 2)
    assert second.cells == (BlockPos(0, 63, -1), BlockPos(0, 62, -2), BlockPos(0, 63, -2))


def test_the_night_exit_digs_the_same_stair_as_before() -> None:
    """leave_shelter's dig list, from a pit six deep in flat ground, is the one its own formula made before
    it asked world.terrain: the roof, then per step its feet and head cells and (but the last) the headroom
    over its head."""
    from craftbt.router import routines

    b = body()
    for y in range(58, 64):
        b.world.set_block((0, y, 0), ("air", ()))
    b.teleport(Position(0.5, 58.0, 0.5))
    feet = b.position().block()
    stair = routines._exit_stair(b, feet)
    assert stair is not None and stair.out
    (dx, dz), last = stair.side, len(stair.steps)

    def at(k: int, dy: int) -> BlockPos:
        return feet.offset(dx=k * dx, dy=dy, dz=k * dz)

    before = [at(0, dy) for dy in range(2, routines.ROOF_ABOVE_FEET + 1)]
    for k in range(1, last + 1):
        before += [at(k, k), at(k, k + 1)] + ([at(k, k + 2)] if k < last else [])
    expected = [tuple(c) for c in before if b.block_at(c).name not in routines.SOFT]
    tree = routines.leave_shelter(b)
    dug = [tuple(leaf.args["position"].values()) for leaf in _leaves(tree.root) if leaf.capability == "dig_block_at"]
    assert dug == expected and len(dug) >= 8


def _leaves(node: Any) -> list[Any]:
    children = getattr(node, "children", None)
    if children is None:
        child = getattr(node, "child", None)
        return [node] if child is None else _leaves(child)
    return [leaf for c in children for leaf in _leaves(c)]


def _hole_with_one_safe_side() -> tuple[Any, BlockPos]:
    """A night pit four deep in flat ground (natural seed 1's layers), its stair out safe to the west only: the
    east step's floor is magma, the north step's feet cell bedrock, and the south step's head cell, though the
    step's feet cell beside the bot is open already, lies next to water it would let in."""
    from craftbt.world.sim.body import SimBody

    b = SimBody(seed=1)
    top = b.position().block()
    b.run_command(f"/fill {top.x} {top.y - 4} {top.z} {top.x} {top.y - 1} {top.z} air")
    b.run_command(f"/tp @p {top.x} {top.y - 4} {top.z}")
    b.advance(2)
    feet = b.position().block()
    assert feet == top.offset(dy=-4)
    b.set_block(tuple(feet.offset(dx=1)), "magma_block")  # east: a hazard floor
    b.set_block(tuple(feet.offset(dy=1, dz=-1)), "bedrock")  # north: a cell no pickaxe opens
    b.set_block(tuple(feet.offset(dy=1, dz=1)), "air")  # south: a free step...
    b.set_block(tuple(feet.offset(dy=2, dz=2)), "water")  # ...whose head cell is next to water
    return b, feet


def test_every_way_out_of_a_hole_takes_the_one_safe_side() -> None:
    """Issue 32: exploration's climb, the build's way back, the night shelter's exit and CraftScript's
    ``stair_up_step`` each chose a side and judged its floor their own way; east first, exploration, the way
    back (its site to the east) and the night exit climbed onto the magma, and the core macro dug into the
    water's side. Each now asks world.terrain's ``plan_stair`` and all go west."""
    from craftbt.router import routines
    from craftbt.router.build.return_trip import stair_up
    from craftbt.world.sim.body import SimBody
    from tests.leafkit import run_leaf

    b, feet = _hole_with_one_safe_side()
    read, solid = (lambda p: b.block_at(p).name), terrain.solid_in(mcdata.load())
    stair = terrain.plan_stair(read, solid, feet)
    assert stair is not None and stair.side == (-1, 0) and stair.out and len(stair.steps) == 4

    # the night exit: digs only to the west and walks out there
    tree = routines.leave_shelter(b)
    dug = [leaf.args["position"] for leaf in _leaves(tree.root) if leaf.capability == "dig_block_at"]
    walk_out = [leaf for leaf in _leaves(tree.root) if leaf.capability == "move_to"][-1]
    assert dug and all(p["x"] <= feet.x for p in dug) and walk_out.args["pos"]["x"] < feet.x, dug

    # the build's way back to a site 20 blocks east
    md = mcdata.load()
    back = stair_up(read, feet, feet.offset(dx=20, dy=4), allowed=lambda p: True,
                    breakable=lambda n: md.has_block(n) and md.block(n).breakable)
    assert back is not None and [s for s, _ in back] == [s.at for s in stair.steps]

    # CraftScript's core macro: no step east (magma), north (bedrock) or south (water); one west
    for face in ("east", "north", "south"):
        out, _ = run(f'turn_face("{face}");\nstair_up_step();', on=b)
        assert out.error is not None and out.error["error"] == "assert_failed", (face, out.error)
    assert b.block_at(feet.offset(dy=2, dz=1)).name == "dirt"  # the water's side was not opened
    b.set_block(tuple(stair.steps[0].at), "air")  # the macro digs the head cell only (section 11 A)
    out, _ = run('turn_face("west");\nstair_up_step();', on=b)
    assert out.ok, out.error
    assert b.position().block() == stair.steps[0].at

    # exploration's climb, out of a fresh copy of the hole: the stair it digs goes west, the magma untouched
    b2, feet2 = _hole_with_one_safe_side()
    assert isinstance(b2, SimBody)
    b2.give("stone_pickaxe", 1)
    b2.run_command(f"/summon sheep {feet2.x + 60} {feet2.y + 4} {feet2.z} {{NoAI:1b}}")  # far out of view
    run_leaf(b2, "explore", {"target": "sheep", "max_ticks": 1_500}, max_ticks=2_000)
    assert b2.block_at(feet2.offset(dx=-1, dy=1)).name == "air"  # the west stair's first step
    assert b2.block_at(feet2.offset(dx=1, dy=1)).name == "dirt"  # the east stair's: never dug


def test_a_stair_that_reaches_the_surface_beats_the_preferred_side_that_does_not() -> None:
    """A shaft four deep by a hill: east, the first side, holds all its steps but ends inside the hill; west
    reaches the surface. A stage of the way out (``partial``) is taken only when no side gets out."""
    feet = BlockPos(0, 10, 0)

    def read(p: BlockPos) -> str:  # stone to y 13, a hill to y 30 east of the shaft
        if (p.x, p.z) == (0, 0) and p.y >= 10:
            return "air"
        return "stone" if p.y < 14 or (p.x > 0 and p.y <= 30) else "air"

    solid = terrain.solid_in(mcdata.load())
    rules = terrain.StairRules(sides=((1, 0), (-1, 0)), max_steps=4)
    stair = terrain.plan_stair(read, solid, feet, rules)
    assert stair is not None and stair.side == (-1, 0) and stair.out and stair.top == BlockPos(-4, 14, 0)
    only_east = terrain.plan_stair(read, solid, feet, terrain.StairRules(sides=((1, 0),), max_steps=4))
    assert only_east is not None and not only_east.out and len(only_east.steps) == 4  # a stage: dig on from there
    whole = terrain.StairRules(sides=((1, 0),), max_steps=4, partial=False)
    assert terrain.plan_stair(read, solid, feet, whole) is None  # the build's way back wants the surface


def _flat_sim() -> Any:
    from craftbt.world.sim.body import SimBody

    b = SimBody(seed=1)  # flat: stone to y=59, dirt, grass at y=63, the bot's feet at y=64
    b.world.rules.do_mob_spawning = False
    return b


def _where(b: Any) -> tuple[bool, bool, bool, bool, bool]:
    """Every room's answer to "where is the bot": the night routines' (also the night watch's and the autonomy
    loop's) walled in / in a hole / underground / sheltered, and exploration's "climb out first"."""
    from craftbt.capabilities.leaves import exploration
    from craftbt.router import routines

    ctx = CapabilityContext(body=b, registry=default_registry())
    return (routines.walled_in(b), routines.in_a_hole(b), routines.underground(b), routines.sheltered(b),
            exploration._must_climb_out(ctx))


def test_sugar_cane_around_and_a_slab_overhead_is_no_shelter_and_no_wall() -> None:
    """The routines judged walls and roofs by their own list of soft blocks: sugar cane (a flower, a fern) was a
    wall, so a bot in a cane patch under one block of stone was walled in and sheltered for the night. One
    notion now (world.terrain: solid in the registry data): the cane keeps no mob out and the bot walks out."""
    b = _flat_sim()
    feet = b.position().block()
    for dx, dz in terrain.CARDINALS:
        for dy in (0, 1):
            b.set_block(tuple(feet.offset(dx, dy, dz)), "sugar_cane")
    b.set_block(tuple(feet.offset(dy=2)), "stone")
    walled, hole, under, sheltered, climb = _where(b)
    assert not walled and not sheltered and not under and not hole and not climb
    b.set_block(tuple(feet.offset(dx=1)), "dirt")
    b.set_block(tuple(feet.offset(dx=1, dy=1)), "dirt")  # one side a wall: still a way out, still no shelter
    assert _where(b)[:4] == (False, False, False, False)


def test_a_quarry_wider_than_the_bot_is_a_pit_for_every_room() -> None:
    """A 3x3 quarry four deep, open to the sky (natural seed 5 spent a day in one): the routines called it a hole
    (their ring three blocks out) while exploration's pit rule (the eight columns beside the feet) did not, so a
    surface search walked its rings from the bottom. One rule: walled two blocks up within PIT_RING columns."""
    b = _flat_sim()
    top = b.position().block()
    for dx in (-1, 0, 1):
        for dz in (-1, 0, 1):
            for dy in range(1, 5):
                b.set_block(tuple(top.offset(dx, -dy, dz)), "air")
    b.advance(40)
    feet = b.position().block()
    assert feet == top.offset(dy=-4)
    walled, hole, under, sheltered, climb = _where(b)
    assert hole and climb and not walled and not under and not sheltered
    read, solid = terrain.body_reader(b), terrain.solid_in(mcdata.load())
    assert not terrain.out_of_hole(read, solid, feet)


def test_an_overhang_is_not_underground_for_any_room() -> None:
    """One block of stone over the head of a bot on open ground: exploration took any roof of ground for
    "underground" and dug up through it before it looked around; the routines counted four blocks of ground.
    One roof scan and one rule now: four blocks of ground over the head, which a mine shaft has."""
    b = _flat_sim()
    feet = b.position().block()
    for dx in (-2, -1, 0, 1, 2):
        for dz in (-2, -1, 0, 1, 2):
            b.set_block(tuple(feet.offset(dx, 3, dz)), "stone")
    assert _where(b) == (False, False, False, False, False)
    for dy in (4, 5, 6):
        b.set_block(tuple(feet.offset(dy=dy)), "stone")
    walled, hole, under, sheltered, climb = _where(b)
    assert under and climb and not walled and not hole and not sheltered


class _HalfLoaded:
    """A body whose cells over ``y_seen`` are not loaded (a real server's unsent chunk section)."""

    def __init__(self, inner: Any, y_seen: int) -> None:
        self.inner, self.y_seen = inner, y_seen

    def block_at(self, pos: BlockPos) -> Any:
        from craftbt.world.body import BodyError, BodyErrorCode

        if pos.y > self.y_seen:
            raise BodyError(BodyErrorCode.OUT_OF_REACH, f"block at {tuple(pos)} is not loaded", retryable=True)
        return self.inner.block_at(pos)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def test_a_cell_the_body_cannot_see_roofs_nothing() -> None:
    """The routines' roof scan read 64 cells up and raised on the first one a server had not sent (the night watch
    runs it on every check); the terrain rules read such a cell as None, and it roofs nothing."""
    b = _flat_sim()
    feet = b.position().block()
    for dy in (2, 3):
        b.set_block(tuple(feet.offset(dy=dy)), "stone")
    half = _HalfLoaded(b, feet.y + 3)
    assert _where(half)[2:] == (False, False, False)  # two blocks of ground seen: not underground, and no raise
    for dy in (4, 5):
        b.set_block(tuple(feet.offset(dy=dy)), "stone")
    assert _where(_HalfLoaded(b, feet.y + 5))[2] is True


def test_a_fern_at_the_feet_is_neither_a_wall_nor_a_floor_for_the_surface() -> None:
    """The routines' surface cell (an exploration walk's goal, a night pit's site) took a fern for a floor, so the
    standing cell of a column with one was the air over the fern; world.terrain's rule stands in the fern."""
    from craftbt.router import routines

    b = _flat_sim()
    col = b.position().block().offset(dx=3)
    b.set_block(tuple(col), "fern")
    assert routines.surface(b, col.x, col.z, col.y + 2) == col
    b.set_block(tuple(col), "magma_block")  # nor is the top of a hazard
    assert routines.surface(b, col.x, col.z, col.y + 2) is None


def test_a_stair_is_not_out_on_a_step_whose_only_way_on_is_over_the_step_it_dug_below() -> None:
    """Natural seed 29 (bread): a stair from a night pit through an old trench ended two steps up, two blocks
    under the surface: judged before digging, the cell over its first step stood on that step's head, a way
    on; dug, it had no floor, and no path led from the trench to the wheat."""
    from craftbt.world.sim.body import SimBody

    b = SimBody(seed=1)  # flat: grass at y=63, feet at y=64
    top = b.position().block()
    b.run_command(f"/fill {top.x} {top.y - 4} {top.z} {top.x} {top.y - 1} {top.z} air")  # the pit
    # an old trench east of it: open from the second step's feet up, and over the first step's head
    b.run_command(f"/fill {top.x + 2} {top.y - 2} {top.z} {top.x + 2} {top.y - 1} {top.z} air")
    b.run_command(f"/setblock {top.x + 1} {top.y - 1} {top.z} air")
    b.advance(2)
    read, solid = (lambda p: b.block_at(p).name), terrain.solid_in(mcdata.load())
    stair = terrain.plan_stair(read, solid, top.offset(dy=-4), terrain.StairRules(sides=((1, 0),)))
    assert stair is not None and stair.out and stair.top == top.offset(dx=4), stair and stair.top


def test_walk_ticks_prices_every_cell_as_the_embedded_pathfinder_walks_to_it() -> None:
    """A fight's escape reads terrain.walk_ticks over any body; on the embedded world the walk it then makes is the
    pathfinder's: the two agree on every cell around three spots of natural seed 0 (a hillside, woods, the spawn)."""
    from craftbt.world.scenarios.loader import world_body
    from craftbt.world.sim.pathfinding import find_path

    body = world_body("natural", 0)
    read, solid = terrain.body_reader(body), terrain.solid_in(body.md)
    for start in (BlockPos(51, 70, -35), BlockPos(41, 72, 32), BlockPos(0, 69, 0)):
        ticks = terrain.walk_ticks(read, solid, start, 6)
        assert len(ticks) > 100
        for cell, t in ticks.items():
            walked = sum(s.ticks for s in find_path(body.world, tuple(start), tuple(cell), 0.0))
            assert walked == pytest.approx(t), (start, cell)



class _SlabBody:
    """The embedded natural world behind the real server's reads: ``chunk_cells`` hands out a chunk's cells in
    one call (x, z, then y), ``block_at`` one cell; both are counted."""

    def __init__(self) -> None:
        from craftbt.world.scenarios.loader import world_body

        self.sim = world_body("natural", 0)
        self.cell_reads = 0
        self.slab_reads = 0

    def block_at(self, pos: BlockPos) -> Any:
        self.cell_reads += 1
        return self.sim.block_at(pos)

    def chunk_cells(self, cx: int, cz: int, y0: int, y1: int) -> list[tuple[str, dict[str, Any]]]:
        self.slab_reads += 1
        return [(self.sim.world.state(x, y, z)[0], {}) for x in range(cx * 16, cx * 16 + 16)
                for z in range(cz * 16, cz * 16 + 16) for y in range(y0, y1)]


def test_a_snapshot_reads_the_real_servers_cells_a_chunk_slab_at_a_time_and_agrees_cell_by_cell() -> None:
    """A fight's escape prices ~600 cells; read one bridge call a cell it took 0.5-0.9 s of a creeper's 1.5 s fuse
    on flying-squid. A snapshot reads whole slabs and gives every cell the name ``block_at`` gives."""
    slab_body = _SlabBody()
    snap = terrain.body_reader(slab_body, snapshot=True)  # type: ignore[arg-type]
    start = BlockPos(51, 70, -35)
    cells = [start.offset(dx, dy, dz) for dx in range(-10, 11) for dy in range(-20, 8) for dz in range(-10, 11)]
    names = [snap(c) for c in cells]
    assert slab_body.cell_reads == 0 and slab_body.slab_reads <= 9 * 3
    assert names == [slab_body.sim.block_at(c).name for c in cells]
    solid = terrain.solid_in(mcdata.load())
    plain = terrain.walk_ticks(terrain.body_reader(slab_body.sim), solid, start, 10)
    assert terrain.walk_ticks(snap, solid, start, 10) == plain
