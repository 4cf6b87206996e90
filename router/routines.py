"""Built-in routines: small trees the router has no planner for (a night shelter, leaving it, eating, going somewhere).

Each routine is a function from the body's current state to a validated-shape
:class:`~craftbt.trees.model.TreeDefinition` of registered capabilities only, so it
runs through the executor's gate, geofence and journal like any planned tree.

The shelter is a pit: four blocks dug under the feet and a roof placed in the
old ground level, one free cell over the head. Standing four blocks below any
mob on the surface or on the roof puts the bot out of a zombie's and a spider's
reach, below a skeleton's line of fire and beyond a creeper's 3-block trigger
(measured on the embedded world's mob rules). Leaving it in the morning digs the
roof and a three-step stair out, then walks up.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from craftbt.capabilities.leaves.blocks import PLANTED_CROPS
from craftbt.executor.config import Bounds
from craftbt.trees import model as m
from craftbt.world import mcdata, terrain
from craftbt.world.body import BlockPos, Body

#: blocks the routines place (roof, stair fill), most plentiful first at run time; no sand or gravel: a roof of
#: them falls in on the bot (natural seed 27, a pit dug in a beach)
BUILDING_BLOCKS = ("dirt", "cobblestone", "cobbled_deepslate", "stone", "oak_planks", "birch_planks",
                   "spruce_planks", "netherrack", "granite", "diorite", "andesite", "coarse_dirt", "rooted_dirt")
#: ground that a bare hand digs into a building block: a pit dug there roofs itself over with what it yields
DUG_BY_HAND_INTO_A_BUILDING_BLOCK = frozenset({"dirt", "grass_block", "podzol", "mycelium", "coarse_dirt",
                                               "rooted_dirt", "dirt_path", "farmland"})
#: blocks that do not keep mobs out or hold the bot (dug anyway, never counted as a roof)
SOFT = frozenset({"air", "cave_air", "water", "lava", "short_grass", "tall_grass", "snow", "torch"})
PIT_DEPTH = 4
#: the most steps one stair stage digs (a stage out of a mine shaft; a pit's stair ends at the surface)
MAX_STAIR = 8
#: the last step of a stair may drop the bot this far to the ground beyond it (a fall of 4 or more hurts)
MAX_DROP_OUT = 3
#: how far a bot looks for ground it can dig its night pit into, when it cannot here
PIT_SEARCH_RADIUS = 6
#: how many sites the evening weighs for a way out clear of trees (each plans a stair: a server's block reads)
CLEAR_SITES_TRIED = 12
#: a pit is not dug into these (its cells or the floor under it): the bot would fall out of its walls
OPEN_BELOW = frozenset({"air", "cave_air", "water", "lava"})
#: the roof sits in the old ground level: this many blocks over the pit floor's feet cell
ROOF_ABOVE_FEET = PIT_DEPTH - 1
STEPS = ((1, 0), (-1, 0), (0, 1), (0, -1))
#: a farm's blocks: a night's pit keeps FARM_CLEARANCE columns off them, and its stair out goes another way
FARM_BLOCKS = frozenset({"farmland", *PLANTED_CROPS})
FARM_CLEARANCE = 2
MAX_FARM_CELLS = 512
#: hostiles this near (a creeper follows from 16 blocks) turn the stair out of a pit away from them
HOSTILE_SCAN = 16.0
#: a bot refused a fight for its health rests until it is above this (a spider hits for 2-3; a fight backs off
#: at 6)
RESTED_HEALTH = 14
#: vanilla heals a point of health every 4 s while the food bar holds at least this
REGEN_FOOD = 18
#: a rest waits in slices of this, at most this many (long enough to heal from 1 to RESTED_HEALTH and eat between)
REST_SLICE_MS, REST_SLICES = 10_000, 12


def _vec(p: BlockPos) -> dict[str, int]:
    return {"x": p.x, "y": p.y, "z": p.z}


def _tree(name: str, description: str, leaves: list[m.LeafNode]) -> m.TreeDefinition:
    return m.TreeDefinition(tree=name, description=description, source=f"routine:{name}",
                            root=m.SequenceNode(name=name, children=list(leaves)))


def building_block(body: Body) -> str | None:
    inv = body.observe().inventory
    have = [(inv.get(b, 0), b) for b in BUILDING_BLOCKS if inv.get(b, 0) > 0]
    return max(have)[1] if have else None


def settle(body: Body, max_ticks: int = 40) -> None:
    """Let the world run until the bot stops falling (after digging under its own feet)."""
    last = body.position()
    for _ in range(max_ticks):
        body.advance(1)
        now = body.position()
        if now == last:
            return
        last = now


def _where(body: Body) -> tuple[terrain.Read, terrain.Solid, BlockPos]:
    """The body as world.terrain's rules read it: its block names, the registry's solidity, and its feet."""
    return terrain.body_reader(body), terrain.solid_in(mcdata.load_or_default(str(body.version))), \
        body.position().block()


def sheltered(body: Body) -> bool:
    """A roofed pit: a solid roof within two blocks over the head, solid walls at the feet and head on four sides
    (:func:`craftbt.world.terrain.enclosed`)."""
    return terrain.enclosed(*_where(body))


def walled_in(body: Body) -> bool:
    """No side to walk or step up to (:func:`craftbt.world.terrain.walled_in`: a hole a planner dug, a pit), so
    digging a stair is the way out. On open ground a walk that found no path failed for a reason a stair does not
    mend (a target beyond water or cliffs)."""
    return terrain.walled_in(*_where(body))


def in_a_hole(body: Body) -> bool:
    """Walled higher than a step on most sides (:func:`craftbt.world.terrain.in_a_pit`): a pit or a quarry a
    planner dug for stone, wider than one block (so not ``walled_in``) but no way out on foot."""
    return terrain.in_a_pit(*_where(body))


def shut_in(body: Body) -> bool:
    """No way out on foot by world.terrain's signs: walled in, in a hole, or under ground. A walk from here that
    found no path is mended by a stair up (:func:`leave_shelter`), in the autonomy loop and in a goal run."""
    return walled_in(body) or in_a_hole(body) or underground(body)


def underground(body: Body) -> bool:
    """Ground over the head (:func:`craftbt.world.terrain.underground`): a mine shaft or a cave a planner left the
    bot in, not a pit under its one-block roof."""
    return terrain.underground(*_where(body))


def farm_near(body: Body, radius: int = PIT_SEARCH_RADIUS + MAX_STAIR) -> frozenset[BlockPos]:
    """The farmland and planted crops within ``radius``: ground a shelter must not dig into."""
    return frozenset(body.find_blocks([*FARM_BLOCKS], radius, max_count=MAX_FARM_CELLS))


def _spoils_farm(cell: BlockPos, farm: frozenset[BlockPos], clearance: int = 0) -> bool:
    """Digging ``cell`` cuts into the farm: a farm block within ``clearance`` columns of it, from one below
    to one above (a cell under farmland leaves it over a hole; one beside it a trench along the crops)."""
    return any(abs(f.x - cell.x) <= clearance and abs(f.z - cell.z) <= clearance and -1 <= f.y - cell.y <= 1
               for f in farm)


def dig_pit(body: Body) -> m.TreeDefinition | None:
    """Dig PIT_DEPTH blocks down under the feet; None when the ground there cannot be dug, when nothing carried
    or dug would roof the pit (an open pit is a trap, not a shelter), or when the pit would cut into a farm."""
    cells = _pit_cells(body, body.position().block(), farm_near(body, FARM_CLEARANCE + 1))
    if cells is None:
        return None
    leaves = [m.LeafNode(name=f"dig pit {i}", capability="dig_block_at", args={"position": _vec(cell)},
                         timeout_ms=20_000) for i, cell in enumerate(cells, start=1)]
    return _tree("dig_pit", f"dig a {PIT_DEPTH}-deep pit for the night", leaves) if leaves else None


def _pit_cells(body: Body, feet: BlockPos, farm: frozenset[BlockPos] = frozenset()) -> list[BlockPos] | None:
    """The cells a pit under ``feet`` digs, or None when no shelter can be dug there (or only into ``farm``)."""
    if any(_spoils_farm(feet.offset(dy=-i), farm, FARM_CLEARANCE) for i in range(0, PIT_DEPTH + 1)):
        return None  # bread: a pit dug each night at the bot's feet beside the crops turned the farm into trenches
    ground = [body.block_at(feet.offset(dy=-i)).name for i in range(1, PIT_DEPTH + 2)]
    if building_block(body) is None and not DUG_BY_HAND_INTO_A_BUILDING_BLOCK.intersection(ground[:PIT_DEPTH]):
        return None
    if OPEN_BELOW.intersection(ground) or "bedrock" in ground[:PIT_DEPTH]:
        return None  # a cave or a pocket under the pit: the bot drops out of its shelter (natural seed 4)
    return [feet.offset(dy=-i) for i in range(1, PIT_DEPTH + 1) if ground[i - 1] not in SOFT]


def pit_site(body: Body, radius: int = PIT_SEARCH_RADIUS, *, clear: bool = False) -> BlockPos | None:
    """The nearest cell within ``radius`` (and PIT_DEPTH + 2 up or down) that a bot can stand in and dig a pit
    under, when not here (natural seed 4: the bot stood on a birch's canopy at sunset two nights running); if
    ``clear``, one on this level (one block up or down) with a way out clear of trees too
    (:func:`clear_way_out`), among the CLEAR_SITES_TRIED nearest sites."""
    feet = body.position().block()
    farm = farm_near(body, radius + FARM_CLEARANCE + 1)
    columns = sorted(((dx, dz) for dx in range(-radius, radius + 1) for dz in range(-radius, radius + 1)
                      if (dx, dz) != (0, 0)), key=lambda d: abs(d[0]) + abs(d[1]))
    tried = 0
    read = terrain.body_reader(body, snapshot=True) if clear else None  # one look for every site weighed
    for dx, dz in columns:
        # a site clear of trees is only worth a walk on this level: one up a cliff has no path to it
        cell = surface(body, feet.x + dx, feet.z + dz, feet.y, span=1 if clear else PIT_DEPTH + 2)
        if cell is None or not _pit_cells(body, cell, farm):
            continue
        if read is None or clear_way_out(body, cell, read):
            return cell
        tried += 1
        if tried >= CLEAR_SITES_TRIED:
            break
    return None


def roof_over(body: Body) -> m.TreeDefinition | None:
    """Place the roof in the old ground level (a second stage: the gate only counts what is carried now)."""
    feet = body.position().block()
    roof = feet.offset(dy=ROOF_ABOVE_FEET)
    if body.block_at(roof).name not in SOFT:
        return None
    block = building_block(body)
    if block is None:
        return None
    return _tree("roof_over", "roof the pit over", [
        m.LeafNode(name="roof over", capability="place_block_at", args={"position": _vec(roof), "block": block},
                   timeout_ms=20_000)])


def seal_walls(body: Body) -> m.TreeDefinition | None:
    """Fill the pit's open sides at the feet and head (a third stage): a pit dug beside a tunnel (a search's stair
    up from its mine, natural seed 1's cake) is open on that side, and the night was worked through among the
    creepers. None when the walls are whole, or nothing is carried to fill them with."""
    read, solid, feet = _where(body)
    gaps = [cell for dy in (0, 1) for dx, dz in terrain.CARDINALS
            if (name := read(cell := feet.offset(dx, dy, dz))) is not None and not solid(name)]
    block = building_block(body)
    if not gaps or block is None:
        return None
    return _tree("seal_walls", "fill the pit's open sides", [  # the feet's first: the head's rests on it
        m.LeafNode(name=f"fill side {i}", capability="place_block_at", args={"position": _vec(cell), "block": block},
                   timeout_ms=20_000) for i, cell in enumerate(gaps, start=1)])


#: a routine is stages, each built from the body as it is when the stage starts
Stage = Callable[[Body], m.TreeDefinition | None]
SHELTER: tuple[Stage, ...] = (dig_pit, roof_over, seal_walls)
#: stages with nothing to do in most places: None from one of them is no reason to stop (whole walls to seal)
MAYBE_NOTHING: frozenset[Stage] = frozenset({seal_walls})


def leave_shelter(body: Body) -> m.TreeDefinition:
    """Dig the roof and a stair, world.terrain's way out of a hole (:func:`_exit_stair`), and walk up.

    From the pit's floor (feet at y) step k stands at (k, y+k); each step's feet, head and jump headroom
    cells are dug. The stair ends at the first step out of the hole: the surface, PIT_DEPTH blocks out and up
    on level ground, further where the ground rises that way (natural seed 1: a stair of four ended two blocks
    under a hillside, and the bread's farm was out of reach), at most MAX_STAIR steps a stage.
    """
    feet = body.position().block()
    leaves: list[m.LeafNode] = []
    found = _stair_start(body, feet)
    if found is None:
        stair = _fallback_stair(body, feet)
    else:
        start, stair = found
        if start != feet:
            # in a hole wider than the bot no first step has a floor from the middle: start from the side (a
            # cave, a quarry a planner dug; natural seed 5 spent a day at the bottom of one)
            leaves.append(m.LeafNode(name="walk to the side", capability="move_to",
                                     args={"pos": _vec(start), "range": 0.5}, timeout_ms=20_000))
            feet = start
    cells = [feet.offset(dy=dy) for dy in range(2, ROOF_ABOVE_FEET + 1)]
    cells += [c for c in stair.cells() if c not in cells]  # the last step keeps its roof: no jump from it is dug
    for i, cell in enumerate(cells):
        if body.block_at(cell).name not in SOFT:
            leaves.append(m.LeafNode(name=f"dig exit {i}", capability="dig_block_at",
                                     args={"position": _vec(cell)}, timeout_ms=20_000))
    leaves.append(m.LeafNode(name="walk out", capability="move_to",
                             args={"pos": _vec(_walk_out_cell(body, stair.top)), "range": 1.0},
                             timeout_ms=30_000))
    return _tree("leave_shelter", "dig out of the night shelter and walk up to the surface", leaves)


def _walk_out_cell(body: Body, step: BlockPos) -> BlockPos:
    """Where the bot stands after the last step: the step, or the ground it drops to when the step is open
    below (a stair over the starter world's outcrop ended in the air beyond it)."""
    read, solid, _ = _where(body)
    if terrain.ground(read(step.offset(dy=-1)), solid):
        return step
    return surface(body, step.x, step.z, step.y, span=MAX_DROP_OUT) or step


def _exit_stair(
    body: Body, feet: BlockPos, read: terrain.Read | None = None, sides: list[tuple[int, int]] | None = None
) -> terrain.Stair | None:
    """world.terrain's way out of a hole from ``feet``, with the night exit's constraints: the sides leading
    away from the hostiles first (a creeper by the pit), the shortest stair out (a hillside's downhill side:
    natural seed 6 climbed eight steps into a hill and was left in a trench), a stair cutting into a farm only
    when no other holds, MAX_STAIR steps a stage. A stair through a tree (its leaves or logs) is spared like one
    through the farm, and none ends standing on a tree: on a crown the pathfinder, which does not dig leaves,
    finds no way down (natural seed 24, bread: the second stage out climbed into an oak's crown, and every
    harvest after it failed `no_path` to the wheat ten blocks off). ``read`` and ``sides`` stand in for the
    body's blocks and the hostiles' (the evening's look at a pit not dug yet)."""
    md = mcdata.load_or_default(str(body.version))
    name_at = read or (lambda p: body.block_at(p).name)
    farm: list[frozenset[BlockPos]] = []  # looked up once a step holds (a server call), not for every cell tried

    def spoils(cell: BlockPos) -> bool:
        if terrain.foliage(name_at(cell) or ""):
            return True
        if not farm:
            farm.append(farm_near(body, MAX_STAIR + 2))
        return _spoils_farm(cell, farm[0])

    rules = terrain.StairRules(sides=sides or _away_from_hostiles(body, feet), max_steps=MAX_STAIR, spare=spoils,
                               shortest=True, on_trees=False,
                               breakable=lambda name: md.has_block(name) and md.block(name).breakable)
    return terrain.plan_stair(name_at, terrain.solid_in(md), feet, rules)


def clear_way_out(body: Body, top: BlockPos, read: terrain.Read | None = None) -> bool:
    """A pit dug under ``top`` tonight has a stair out in the morning (:func:`_exit_stair`, or its first stage up a
    hillside) that cuts through no tree: a pit in a thicket or under a crown resting on a slope climbs out into
    the leaves (natural seed 24, bread). A stage that is not out yet is no reason to move (natural seed 21: the
    night walked off towards a site six blocks up a cliff, found no path, and the day's runs diverged). ``read``:
    the body's blocks as read for this decision (:func:`pit_site` weighs several sites with one)."""
    read = read or terrain.body_reader(body, snapshot=True)
    pit = {top.offset(dy=-i) for i in range(1, PIT_DEPTH + 1)}
    stair = _exit_stair(body, top.offset(dy=-PIT_DEPTH), lambda p: "air" if p in pit else read(p), list(STEPS))
    return stair is not None and not any(terrain.foliage(read(c) or "") for c in stair.cells())


def _fallback_stair(body: Body, feet: BlockPos) -> terrain.Stair:
    """No side holds a stair: one step the first way is still tried (the walk out fails, and the loop walks home)."""
    return terrain.Stair(STEPS[0], (terrain.stair_up_step(feet, STEPS[0], 1),), out=False)


def _away_from_hostiles(body: Body, feet: BlockPos) -> list[tuple[int, int]]:
    """The four sides, the one leading farthest from the hostiles near first (a creeper waits all night by the
    pit: natural seed 25 climbed out beside one). With none near, the fixed order."""
    near = body.entities(HOSTILE_SCAN, kind="hostile")
    if not near:
        return list(STEPS)

    def closest(side: tuple[int, int]) -> float:
        out = feet.offset(dx=PIT_DEPTH * side[0], dy=PIT_DEPTH, dz=PIT_DEPTH * side[1])
        return min((e.position.x - out.x) ** 2 + (e.position.z - out.z) ** 2 for e in near)

    return sorted(STEPS, key=closest, reverse=True)


def _stair_start(body: Body, feet: BlockPos) -> tuple[BlockPos, terrain.Stair] | None:
    """Where a stair can start, and the stair from there (:func:`_exit_stair`, planned once): here, else the
    nearest cell within 2 blocks on this level that the bot can stand in and from which some side holds one."""
    here = _exit_stair(body, feet)
    if here is not None:
        return feet, here
    cells = sorted(((dx, dz) for dx in range(-2, 3) for dz in range(-2, 3) if (dx, dz) != (0, 0)),
                   key=lambda d: abs(d[0]) + abs(d[1]))
    read, solid, _ = _where(body)
    for dx, dz in cells:
        cell = feet.offset(dx=dx, dz=dz)
        if not terrain.on_ground(read, solid, cell):
            continue
        there = _exit_stair(body, cell)
        if there is not None:
            return cell, there
    return None


def flee(distance: float = 16.0) -> m.TreeDefinition:
    """Run from the hostiles near (retreat_from_threat): out of a creeper's fuse range and its reach."""
    return _tree("flee", "run from the hostiles near", [
        m.LeafNode(name="run", capability="retreat_from_threat",
                   args={"retreatDistance": distance, "safeRadius": 12.0}, timeout_ms=30_000)])


def eat(food: str | None = None) -> m.TreeDefinition:
    args: dict[str, Any] = {"until_saturation": False}
    if food:
        args["food_type"] = food
    return _tree("eat", "eat the best food carried", [
        m.LeafNode(name="eat", capability="consume_food", args=args, timeout_ms=10_000)])


def rest() -> m.TreeDefinition:
    """Eat and wait until the health is above RESTED_HEALTH, in REST_SLICES slices of REST_SLICE_MS: vanilla
    heals a point every 4 s while the food bar holds REGEN_FOOD, and each point healed costs 1.5 food, so each
    slice eats first when the bar has fallen below it. A rest that runs out of food or slices ends as a success
    all the same: the step that wanted the health judges it (natural seed 1's fishing rod: the bot worn to one
    health point was refused every fight, and the goal run ended so)."""
    fed = m.SelectorNode(name="fed", memory=True, children=[  # the meal ends when the bar is full, not at 18
        m.ConditionNode(name="food bar full enough to heal", check="food_above", args={"value": REGEN_FOOD - 1}),
        m.LeafNode(name="eat", capability="consume_food", args={"until_saturation": True}, timeout_ms=20_000)])
    rested = m.ConditionNode(name="rested", check="health_above", args={"value": RESTED_HEALTH})
    slice_ = m.SequenceNode(name="rest a while", children=[
        fed, m.LeafNode(name="rest", capability="wait", args={"ms": REST_SLICE_MS}, timeout_ms=REST_SLICE_MS * 2),
        rested])
    until_rested = m.SelectorNode(name="until rested", children=[
        rested, m.DecoratorNode(decorator=m.DecoratorKind.RETRY, params={"attempts": REST_SLICES}, child=slice_)])
    return m.TreeDefinition(tree="rest", description="eat and rest until healed", source="routine:rest",
                            root=m.DecoratorNode(name="rest", decorator=m.DecoratorKind.FAILURE_IS_SUCCESS,
                                                 child=until_rested))


def surface(body: Body, x: int, z: int, around_y: int, span: int = 12) -> BlockPos | None:
    """The standing cell at column x, z nearest ``around_y`` (:func:`craftbt.world.terrain.on_ground`: a fern or a
    flower at the feet is no wall, and no floor); None if there is none."""
    read, solid, _ = _where(body)
    for dy in sorted(range(-span, span + 1), key=abs):
        if terrain.on_ground(read, solid, cell := BlockPos(x, around_y + dy, z)):
            return cell
    return None


#: How far inside the geofence a walk back in ends: the fence stops a walk the moment it crosses, a step beyond.
FENCE_RETURN_MARGIN = 6
#: How much further in a walk back looks for ground when the first cell has none to stand on (a lake by the fence)
FENCE_RETURN_SEARCH = 16


def back_inside(body: Body, fence: Bounds) -> m.TreeDefinition | None:
    """A walk back inside ``fence`` to the ground nearest the bot, :data:`FENCE_RETURN_MARGIN` in, or further
    in (up to :data:`FENCE_RETURN_SEARCH` blocks more) when that cell has no ground to stand on (natural seed 1's
    cake: the first cell in was a lake's, no walk back was planned, and every later step was refused out there);
    None when the bot is inside or no ground is found. Outside, the pipeline lets a bot only walk (every step
    that changes the world is refused there), so a goal run whose bot ended beyond the fence (a walk stopped as
    it crossed; a night's stair dug out past it) walks back first."""
    here = body.position()
    if fence.contains(here):
        return None
    for margin in range(FENCE_RETURN_MARGIN, FENCE_RETURN_MARGIN + FENCE_RETURN_SEARCH + 1):
        x = min(max(math.floor(here.x), fence.min_x + margin), fence.max_x - margin)
        z = min(max(math.floor(here.z), fence.min_z + margin), fence.max_z - margin)
        cell = surface(body, x, z, math.floor(here.y))
        if cell is not None and fence.contains(cell):
            return _tree("back_inside", f"walk back inside the geofence to {cell.x},{cell.y},{cell.z}", [
                m.LeafNode(name="walk back inside the fence", capability="move_to",
                           args={"pos": _vec(cell), "range": 2.0}, timeout_ms=60_000)])
    return None


def go_to(target: BlockPos, range_: float = 2.0) -> m.TreeDefinition:
    return _tree("go_to", f"walk to {target.x},{target.y},{target.z}", [
        m.LeafNode(name="walk", capability="move_to", args={"pos": _vec(target), "range": range_},
                   timeout_ms=60_000)])
