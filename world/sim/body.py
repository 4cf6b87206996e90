"""SimBody: the Body protocol on the simulated world.

Actions validate their arguments and the world at call time and raise
:class:`BodyError` with nothing changed, or return a handle. The world only
moves inside :meth:`SimBody.advance`: each tick steps the running handles (in
the order they were started), then the world. A handle re-checks its
preconditions when it applies its effect, and applies it all at once or not
at all.

Semantics worth knowing:

* ``craft(item, count, table)``: ``count`` is how many times the recipe is
  applied (mineflayer's ``bot.craft`` semantics); a recipe that needs a 3x3
  grid uses ``table`` or else any crafting table within reach, else ``no_table``.
* ``goto`` plans the whole path at once (``no_path`` is raised at call time);
  one navigation runs at a time and a newer goto cancels the older with
  error code ``preempted``.
* ``inventory()`` lists slots 9..44 (mineflayer numbering); armour and the
  off-hand are in ``equipment()`` only.
"""

from __future__ import annotations

import copy
import math
from array import array
from collections.abc import Callable, Collection, Iterator
from typing import Any

from craftbt.world.body import (
    FACE_OFFSETS,
    ActionHandle,
    BlockInfo,
    BlockPos,
    BodyError,
    BodyErrorCode,
    EntityInfo,
    Face,
    ItemStack,
    Observation,
    Position,
    WindowInfo,
)
from craftbt.world.loot import ANIMAL_USES, MOB_LOOT
from craftbt.world.mcdata import McData, Recipe, load
from craftbt.world.sim import blockstate, commands, pathfinding
from craftbt.world.sim.containers import CHEST_BLOCKS, FURNACE_BLOCKS, Chest, Furnace
from craftbt.world.sim.entities import ATTACK_REACH, PICKUP_DELAY_TOSSED, WEAPON_DAMAGE
from craftbt.world.sim.flags import AIRLIKE, CONTAINER, LIQUID, REPLACEABLE, SOLID
from craftbt.world.sim.generator import FlatGenerator, NaturalGenerator
from craftbt.world.sim.handles import SimHandle, TimedHandle
from craftbt.world.sim.mobs import provoke
from craftbt.world.sim.player import ARMOUR_SLOTS, EQUIP_DESTINATIONS, EYE_HEIGHT, HOTBAR, MAX_FOOD, Inventory, Stack
from craftbt.world.sim.storage import AIR, BlockState, make_state
from craftbt.world.sim.world import World

REACH = 4.5
WINDOW_RANGE = 8.0  # a server closes a container window beyond this distance
EAT_TICKS = 32
SLEEP_TICKS = 101
MAX_CHAT = 256
ALWAYS_EDIBLE = ("golden_apple", "enchanted_golden_apple", "chorus_fruit")
THROWABLE = ("ender_pearl", "snowball", "egg")
ARMOUR_SUFFIXES: dict[str, tuple[str, ...]] = {
    "head": ("_helmet", "carved_pumpkin", "_head", "_skull"),
    "torso": ("_chestplate", "elytra"),
    "legs": ("_leggings",),
    "feet": ("_boots",),
}
BOWL_FOODS = ("mushroom_stew", "beetroot_soup", "rabbit_stew", "suspicious_stew")
VERSION = "1.21.4"


def _err(code: BodyErrorCode, detail: str, *, retryable: bool = False) -> BodyError:
    return BodyError(code, detail, retryable=retryable)


def _sections_by_distance(
    sections: dict[tuple[int, int, int], array[int]], centre: tuple[int, int, int], r2: int
) -> list[tuple[int, tuple[int, int, int], array[int]]]:
    """Sections that hold a cell within ``sqrt(r2)`` of ``centre``, nearest first.

    Each comes with the squared distance to its closest cell: no block inside can be nearer.
    """
    out: list[tuple[int, tuple[int, int, int], array[int]]] = []
    for key, sec in sections.items():
        lower = sum(_gap(c, k * 16) ** 2 for c, k in zip(centre, key, strict=True))
        if lower <= r2:
            out.append((lower, key, sec))
    out.sort(key=lambda e: (e[0], e[1]))
    return out


def _cells(
    sec: array[int], sid: int, key: tuple[int, int, int], centre: tuple[int, int, int]
) -> Iterator[tuple[int, int, int, int]]:
    """``(d2, x, y, z)`` of every cell of section ``key`` holding state ``sid``, ``d2`` squared from ``centre``."""
    ox, oy, oz = key[0] * 16, key[1] * 16, key[2] * 16
    cx, cy, cz = centre
    start = 0
    while True:
        try:
            i = sec.index(sid, start)  # a C scan: far faster than walking the 4096 cells in Python
        except ValueError:
            return
        start = i + 1
        x, z, y = ox + (i >> 8), oz + ((i >> 4) & 15), oy + (i & 15)
        yield (x - cx) ** 2 + (y - cy) ** 2 + (z - cz) ** 2, x, y, z


def _bound(best: dict[str, tuple[int, int, int, int]], name: str, r2: int) -> int:
    """The squared distance a block of ``name`` must not exceed to matter: its best so far, else the radius."""
    hit = best.get(name)
    return r2 if hit is None else hit[0]


def _gap(c: int, start: int) -> int:
    """Distance along one axis from ``c`` to the 16 cells from ``start`` (0 inside)."""
    if c < start:
        return start - c
    return max(0, c - (start + 15))


class GotoHandle(SimHandle):
    """Walks a planned path one step at a time, re-planning (bounded) if the world blocks it."""

    MAX_REPLANS = 3

    def __init__(self, body: SimBody, target: BlockPos, tolerance: float, path: list[pathfinding.Step]) -> None:
        super().__init__("goto", body.now_ticks())
        self.body = body
        self.target = target
        self.tolerance = tolerance
        self.path = path
        self.index = 0
        self.progress = 0.0
        self.replans = 0
        self.walked = 0

    def step(self) -> None:
        self.elapsed += 1
        world = self.body.world
        if self.index >= len(self.path):
            self._arrive()
            return
        self.progress += 1.0
        while self.index < len(self.path) and self.progress >= self.path[self.index].ticks:
            st = self.path[self.index]
            self.progress -= st.ticks
            for cell in st.dig:
                if world.flags(*cell) & SOLID:
                    self.body.break_block(cell, tool=world.player.held)
            x, y, z = st.pos
            if not self.body.standable(x, y, z):
                if not self._replan():
                    return
                continue
            p = world.player.position
            self.body.face_towards(x + 0.5, p.y + EYE_HEIGHT, z + 0.5)
            if y > math.floor(p.y):
                world.player.exhaust(0.05)  # a jump
            world.player.position = Position(x + 0.5, float(y), z + 0.5)
            self.walked += 1
            self.index += 1
        if self.index >= len(self.path):
            self._arrive()

    def _replan(self) -> bool:
        self.replans += 1
        if self.replans > self.MAX_REPLANS:
            self.fail(BodyErrorCode.NO_PATH, "the path kept getting blocked", retryable=True)
            return False
        try:
            self.path = self.body.plan(self.target, self.tolerance)
        except BodyError as err:
            self.fail_with(err)
            return False
        self.index = 0
        self.progress = 0.0
        return True

    def _arrive(self) -> None:
        p = self.body.world.player.position
        self.succeed(position=[p.x, p.y, p.z], blocks_walked=self.walked, replans=self.replans)


class SimBody:
    """The embedded world's body. See the module docstring for the timing model."""

    def __init__(
        self,
        world: World | None = None,
        *,
        seed: int = 0,
        md: McData | None = None,
        realtime: bool = False,
        nav_can_dig: bool = False,
    ) -> None:
        if world is None:
            world = World(md or load(), seed, FlatGenerator(), realtime=realtime)
        world.clock.realtime = realtime or world.clock.realtime
        self.world = world
        self.md = world.md
        self.nav_can_dig = nav_can_dig
        self._active: list[SimHandle] = []
        self._nav: GotoHandle | None = None
        self._dig: SimHandle | None = None
        self._window: tuple[str, BlockPos] | None = None
        self.chat_log: list[str] = []
        self.scenario_name: str | None = None

    # -- identity and time -------------------------------------------------------------------------
    @property
    def name(self) -> str:
        return self.world.player.name

    @property
    def version(self) -> str:
        return VERSION

    def now_ticks(self) -> int:
        return self.world.clock.tick

    def advance(self, ticks: int = 1) -> None:
        if not isinstance(ticks, int) or ticks < 0:
            raise _err(BodyErrorCode.INVALID_ARGUMENT, f"ticks must be a non-negative integer, got {ticks!r}")
        world = self.world
        for _ in range(ticks):
            if self._active:
                for h in list(self._active):
                    if h.running:
                        h.step()
                self._active = [h for h in self._active if h.running]
            world.tick()
            if world.player.health <= 0:
                self._on_death()
            if world.clock.realtime:
                world.clock.pace()

    def _on_death(self) -> None:
        for h in self._active:
            h.fail(BodyErrorCode.DIED, "the player died")
        self._active = []
        self._nav = None
        self._window = None
        self.world.respawn()

    def _start(self, handle: SimHandle) -> SimHandle:
        self._active.append(handle)
        return handle

    # -- observation -------------------------------------------------------------------------------
    def observe(self) -> Observation:
        pl = self.world.player
        return Observation(
            tick=self.world.clock.tick,
            position=pl.position,
            yaw=pl.yaw,
            pitch=pl.pitch,
            health=pl.health,
            food=pl.food,
            saturation=pl.saturation,
            time_of_day=self.world.clock.time_of_day,
            inventory=pl.inventory.totals(),
            held_item=pl.held,
            window=self.open_window(),
            biome=self.world.biome,
        )

    def position(self) -> Position:
        return self.world.player.position

    def block_at(self, pos: BlockPos) -> BlockInfo:
        return self.world.block_info(BlockPos(*pos))

    def block_name(self, pos: BlockPos) -> str:
        """The block's name alone, without building a BlockInfo: for callers that read many cells (CraftScript's
        scans). Not part of the Body protocol; ``block_at(pos).name`` is the same answer on any body."""
        return self.world.name(pos[0], pos[1], pos[2])

    def find_blocks(
        self, names: list[str], radius: int, max_count: int = 16, *, exposed: bool = False
    ) -> list[BlockPos]:
        if radius < 0 or radius > 128 or max_count < 1:
            raise _err(BodyErrorCode.INVALID_ARGUMENT, "radius must be 0..128 and max_count >= 1")
        wanted = {self.md.block(n).name for n in names}
        w = self.world
        cx, cy, cz = self._load_cube(radius)
        ids = [i for i, (n, _) in enumerate(w.palette.states) if n in wanted]
        found: list[tuple[float, BlockPos]] = []
        r2 = radius * radius
        low = ((cx - radius) >> 4, (cy - radius) >> 4, (cz - radius) >> 4)
        high = ((cx + radius) >> 4, (cy + radius) >> 4, (cz + radius) >> 4)
        for (sx, sy, sz), sec in w.store.sections_between(low, high):
            for sid in ids:
                if sid not in sec:
                    continue
                for d2, x, y, z in _cells(sec, sid, (sx, sy, sz), (cx, cy, cz)):
                    if d2 <= r2 and (not exposed or self._has_open_face(x, y, z)):
                        found.append((d2, BlockPos(x, y, z)))
        found.sort()
        return [pos for _, pos in found[:max_count]]

    def nearest_blocks(
        self, names: Collection[str], radius: int, *, exposed: bool = False
    ) -> dict[str, BlockPos]:
        """One pass over the cube for every kind (see ``Body.nearest_blocks``); agrees with ``find_blocks``.

        Sections are visited nearest first, so a kind stops costing anything once
        its best block is closer than the next section can be.
        """
        if radius < 0 or radius > 128:
            raise _err(BodyErrorCode.INVALID_ARGUMENT, "radius must be 0..128")
        # find_blocks raises on a name the registry lacks; here such a kind is simply not nearby
        canonical = {n: self.md.block(n).name for n in names if self.md.has_block(n)}
        centre = self._load_cube(radius)
        wanted = set(canonical.values())
        kind_of = {i: n for i, (n, _) in enumerate(self.world.palette.states) if n in wanted}
        best = self._nearest_by_kind(centre, radius, kind_of, exposed)
        return {n: BlockPos(*best[c][1:]) for n, c in canonical.items() if c in best}

    def _load_cube(self, radius: int) -> tuple[int, int, int]:
        """Generate every chunk the search cube touches (a search must not miss an unvisited chunk).

        Returns the player's block, the centre distances are measured from.
        """
        w = self.world
        p = w.player.position
        cx, cy, cz = math.floor(p.x), math.floor(p.y), math.floor(p.z)
        for chx in range((cx - radius) >> 4, ((cx + radius) >> 4) + 1):
            for chz in range((cz - radius) >> 4, ((cz + radius) >> 4) + 1):
                w.ensure_chunk(chx, chz)
        return cx, cy, cz

    def _nearest_by_kind(
        self, centre: tuple[int, int, int], radius: int, kind_of: dict[int, str], exposed: bool
    ) -> dict[str, tuple[int, int, int, int]]:
        """Per block name, the smallest ``(d2, x, y, z)`` among the matching cells within ``radius``.

        ``(d2, x, y, z)`` orders like find_blocks' ``(d2, BlockPos)``, so the winner is
        the block find_blocks would list first.
        """
        r2 = radius * radius
        best: dict[str, tuple[int, int, int, int]] = {}
        for lower, key, sec in _sections_by_distance(self.world.store.sections, centre, r2):
            # a kind whose best is already closer than anything in this section is done here and,
            # since sections come nearest first, in every later section too
            live = {sid for sid, name in kind_of.items() if lower <= _bound(best, name, r2)}
            if not live:
                break
            for sid in sorted(live.intersection(sec)):
                name = kind_of[sid]
                bound = _bound(best, name, r2)
                if lower > bound:  # another state of the same kind just won in this section
                    continue
                hit = self._nearest_in_section(key, sec, sid, centre, bound, exposed)
                if hit is not None and (name not in best or hit < best[name]):
                    best[name] = hit
        return best

    def _nearest_in_section(
        self,
        key: tuple[int, int, int],
        sec: array[int],
        sid: int,
        centre: tuple[int, int, int],
        bound: int,
        exposed: bool,
    ) -> tuple[int, int, int, int] | None:
        """The smallest ``(d2, x, y, z)`` of state ``sid`` in one section with ``d2 <= bound``.

        Candidates are ranked before the exposure test so that buried cells are only
        probed until the first open one (the probe reads six neighbours).
        """
        near = sorted(cell for cell in _cells(sec, sid, key, centre) if cell[0] <= bound)
        for cand in near:
            if not exposed or self._has_open_face(cand[1], cand[2], cand[3]):
                return cand
        return None

    def _has_open_face(self, x: int, y: int, z: int) -> bool:
        from craftbt.world.sim.flags import SOLID

        flags = self.world.flags
        return any(
            not flags(x + dx, y + dy, z + dz) & SOLID
            for dx, dy, dz in ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1))
        )

    def entities(self, radius: float = 32.0, kind: str | None = None) -> list[EntityInfo]:
        p = self.world.player.position
        near = [(d, e.id, e) for e in self.world.entities.values()
                if (kind is None or e.kind == kind) and (d := e.distance_to(p)) <= radius]
        near.sort(key=lambda t: (t[0], t[1]))
        return [e.info() for _, _, e in near]

    def inventory(self) -> list[ItemStack]:
        return self.world.player.inventory.items()

    def equipment(self) -> dict[str, ItemStack | None]:
        return self.world.player.equipment()

    def time_of_day(self) -> int:
        return self.world.clock.time_of_day

    def light_level(self, pos: BlockPos | None = None) -> int:
        from craftbt.world.sim import light

        if pos is None:
            pos = self.world.player.position.block()
        return light.light_level(self.world, pos.x, pos.y, pos.z)

    def health(self) -> float:
        return self.world.player.health

    def food(self) -> int:
        return self.world.player.food

    def open_window(self) -> WindowInfo | None:
        if self._window is None:
            return None
        kind, pos = self._window
        c = self.world.containers.get((pos.x, pos.y, pos.z))
        slots = c.stacks() if c is not None else {}
        return WindowInfo(kind=kind, pos=pos, slots=slots)

    # -- geometry helpers --------------------------------------------------------------------------
    def eye_distance(self, pos: BlockPos | tuple[int, int, int]) -> float:
        ex, ey, ez = self.world.player.eye()
        return math.sqrt((ex - pos[0] - 0.5) ** 2 + (ey - pos[1] - 0.5) ** 2 + (ez - pos[2] - 0.5) ** 2)

    def _require_reach(self, pos: BlockPos | tuple[int, int, int], what: str, reach: float = REACH) -> None:
        d = self.eye_distance(pos)
        if d > reach:
            raise _err(
                BodyErrorCode.OUT_OF_REACH, f"{what} at {tuple(pos)} is {d:.2f} blocks away (reach {reach})",
                retryable=True,
            )

    def face_towards(self, x: float, y: float, z: float) -> None:
        pl = self.world.player
        ex, ey, ez = pl.eye()
        dx, dy, dz = x - ex, y - ey, z - ez
        if abs(dx) + abs(dz) > 1e-9:
            pl.yaw = math.atan2(-dx, -dz)
        pl.pitch = math.atan2(dy, math.hypot(dx, dz))

    def standable(self, x: int, y: int, z: int) -> bool:
        from craftbt.world.sim.flags import standable

        return standable(self.world.flags, x, y, z)

    def _check_pos(self, pos: object, what: str) -> BlockPos:
        if not (isinstance(pos, tuple) and len(pos) == 3 and all(isinstance(v, int) for v in pos)):
            raise _err(BodyErrorCode.INVALID_ARGUMENT, f"{what} must be three integers, got {pos!r}")
        from craftbt.world.sim.flags import MAX_Y, MIN_Y

        bp = BlockPos(*pos)
        if not MIN_Y <= bp.y <= MAX_Y:
            raise _err(BodyErrorCode.INVALID_ARGUMENT, f"{what} y={bp.y} is outside the world ({MIN_Y}..{MAX_Y})")
        return bp

    def _check_count(self, count: object) -> int:
        if not isinstance(count, int) or isinstance(count, bool) or count < 1:
            raise _err(BodyErrorCode.INVALID_ARGUMENT, f"count must be a positive integer, got {count!r}")
        return count

    def _item(self, item: object) -> str:
        if not isinstance(item, str) or not item:
            raise _err(BodyErrorCode.INVALID_ARGUMENT, f"item must be a non-empty string, got {item!r}")
        return self.md.item(item).name

    def _require_items(self, item: str, count: int) -> None:
        have = self.world.player.inventory.count(item)
        if have < count:
            raise _err(BodyErrorCode.MISSING_ITEM, f"need {count} {item}, have {have}")

    # -- movement ----------------------------------------------------------------------------------
    def plan(self, target: BlockPos, tolerance: float) -> list[pathfinding.Step]:
        p = self.world.player.position.block()
        dig = self._dig_cost if self.nav_can_dig else None
        try:
            return pathfinding.find_path(self.world, tuple(p), tuple(target), tolerance, dig_ticks=dig)  # type: ignore[arg-type]
        except pathfinding.NoPath as np_:
            raise _err(BodyErrorCode.NO_PATH, f"no path to {tuple(target)} within {tolerance}: {np_.reason}",
                       retryable=True) from None

    def _dig_cost(self, name: str) -> int | None:
        if name in CHEST_BLOCKS or name in FURNACE_BLOCKS or self.world.md.block(name).hardness is None:
            return None
        tool = self.md.best_tool(name, self.world.player.inventory.totals())
        return self.md.dig_time_ticks(name, tool)

    def goto(self, target: BlockPos, tolerance: float = 1.0) -> ActionHandle:
        bp = self._check_pos(tuple(target) if isinstance(target, tuple) else target, "target")
        if not isinstance(tolerance, (int, float)) or tolerance < 0 or math.isnan(tolerance):
            raise _err(BodyErrorCode.INVALID_ARGUMENT, f"tolerance must be >= 0, got {tolerance!r}")
        path = self.plan(bp, float(tolerance))
        if self._nav is not None and self._nav.running:
            self._nav.cancel("preempted")
        handle = GotoHandle(self, bp, float(tolerance), path)
        handle.on_finish = self._release_nav
        self._nav = handle
        return self._start(handle)

    def _release_nav(self, handle: SimHandle) -> None:
        if self._nav is handle:
            self._nav = None

    # -- dig ---------------------------------------------------------------------------------------
    def dig(self, pos: BlockPos) -> ActionHandle:
        bp = self._check_pos(tuple(pos) if isinstance(pos, tuple) else pos, "pos")
        w = self.world
        name = w.name(*bp)
        if w.flags(*bp) & (AIRLIKE | LIQUID):
            raise _err(BodyErrorCode.NOT_DIGGABLE, f"{name} at {tuple(bp)} cannot be dug")
        tool = w.player.held
        ticks = self.md.dig_time_ticks(name, tool)
        if ticks is None:
            raise _err(BodyErrorCode.NOT_DIGGABLE, f"{name} is unbreakable")
        self._require_reach(bp, name)
        sid = w.get_id(*bp)

        def check() -> None:
            if w.get_id(*bp) != sid:
                raise _err(BodyErrorCode.NOT_DIGGABLE, f"the block at {tuple(bp)} changed while digging",
                           retryable=True)
            if w.player.held != tool:
                raise _err(BodyErrorCode.CANCELLED, "the held item changed while digging", retryable=True)
            self._require_reach(bp, name)

        def apply() -> dict[str, Any]:
            drops = self.break_block(bp, tool=tool)
            return {"block": name, "pos": list(bp), "drops": [[i, c] for i, c in drops], "tool": tool}

        if self._dig is not None and self._dig.running:
            self._dig.cancel("preempted")
        self.face_towards(bp.x + 0.5, bp.y + 0.5, bp.z + 0.5)
        handle = TimedHandle("dig", self.now_ticks(), ticks, apply, check)
        self._dig = handle
        return self._start(handle)

    def break_block(self, pos: tuple[int, int, int], *, tool: str | None) -> list[tuple[str, int]]:
        """Remove a block as the player would: its drops fall as items at its centre."""
        w = self.world
        name, props = w.state(*pos)
        age = dict(props).get("age")
        drops = self.md.drops(name, tool, w.rng, age=age if isinstance(age, int) else None)
        w.set_block(tuple(pos), AIR)  # type: ignore[arg-type]
        for item, count in drops:
            w.spawn_item(item, count, pos[0] + 0.5, pos[1] + 0.25, pos[2] + 0.5)
        w.player.exhaust(0.005)
        return drops

    # -- place -------------------------------------------------------------------------------------
    def place(self, item: str, against: BlockPos, face: Face) -> ActionHandle:
        name = self._item(item)
        ref = self._check_pos(tuple(against) if isinstance(against, tuple) else against, "against")
        try:
            face = Face(face)
        except ValueError:
            raise _err(BodyErrorCode.INVALID_ARGUMENT, f"face must be one of {[f.value for f in Face]}") from None
        plan = self._place_plan(name, ref, face)

        def apply() -> dict[str, Any]:
            cells = self._place_plan(name, ref, face)
            w = self.world
            w.player.inventory.remove(name, 1)
            for cell, st in cells:
                w.set_block(cell, st)
            return {"item": name, "pos": list(cells[0][0]), "block": cells[0][1][0]}

        del plan
        return self._start(TimedHandle("place", self.now_ticks(), 1, apply))

    def _place_plan(self, item: str, ref: BlockPos, face: Face) -> list[tuple[tuple[int, int, int], BlockState]]:
        w = self.world
        self._require_items(item, 1)
        block = blockstate.SEED_CROPS.get(item, item)
        if not self.md.has_block(block):
            raise _err(BodyErrorCode.NOT_PLACEABLE, f"{item} is not a block")
        if w.flags(*ref) & (AIRLIKE | LIQUID) or (not w.flags(*ref) & SOLID and w.name(*ref) != "farmland"):
            raise _err(BodyErrorCode.NO_REFERENCE_BLOCK, f"{w.name(*ref)} at {tuple(ref)} is not a solid block")
        self._require_reach(ref, f"reference block {w.name(*ref)}")
        d = FACE_OFFSETS[face]
        target = (ref.x + d[0], ref.y + d[1], ref.z + d[2])
        states = self._placed_states(block, target, face)
        for cell, _ in states:
            if not w.flags(*cell) & REPLACEABLE:
                raise _err(BodyErrorCode.OCCUPIED, f"{w.name(*cell)} occupies {cell}")
            if self._intersects_player(cell) and self.md.block(block).solid:
                raise _err(BodyErrorCode.OCCUPIED, f"the player stands in {cell}")
        if block in blockstate.CROPS and w.name(target[0], target[1] - 1, target[2]) != "farmland":
            raise _err(BodyErrorCode.NOT_PLACEABLE, f"{item} must be planted on farmland")
        needs_floor = w.flags_of(w.palette.id_of(states[0][1])) & 32  # NEEDS_SUPPORT
        if needs_floor and face is not Face.UP and not block.endswith(("torch", "lever", "_button")):
            raise _err(BodyErrorCode.NOT_PLACEABLE, f"{block} must be placed on top of a block")
        return states

    def build_up(self, item: str) -> ActionHandle:
        """Jump and place ``item`` in the cell the feet left (a pillar step): the player ends one block higher.

        Sim only (the Body protocol has no jump); CraftScript's ``build_up`` uses it when a body offers it.
        """
        name = self._item(item)
        w = self.world
        feet = w.player.position.block()
        if w.flags(feet.x, feet.y + 2, feet.z) & SOLID:
            raise _err(BodyErrorCode.OCCUPIED, f"{w.name(feet.x, feet.y + 2, feet.z)} above the head: no room to jump")
        self._require_items(name, 1)
        if not self.md.has_block(name) or not self.md.block(name).solid:
            raise _err(BodyErrorCode.NOT_PLACEABLE, f"{name} is not a solid block")
        if not w.flags(*feet) & REPLACEABLE:
            raise _err(BodyErrorCode.OCCUPIED, f"{w.name(*feet)} occupies {tuple(feet)}")

        def apply() -> dict[str, Any]:
            p = w.player.position
            if w.flags(feet.x, feet.y + 2, feet.z) & SOLID:
                raise _err(BodyErrorCode.OCCUPIED, "the cell above the head filled while jumping")
            self._require_items(name, 1)
            w.player.exhaust(0.05)  # a jump
            w.player.position = Position(p.x, float(feet.y + 1), p.z)
            w.player.inventory.remove(name, 1)
            w.set_block(tuple(feet), make_state(name))  # type: ignore[arg-type]
            return {"item": name, "pos": list(feet), "block": name}

        return self._start(TimedHandle("build_up", self.now_ticks(), 6, apply))

    def _placed_states(
        self, block: str, target: tuple[int, int, int], face: Face
    ) -> list[tuple[tuple[int, int, int], BlockState]]:
        yaw_facing = blockstate.facing_from_yaw(self.world.player.yaw)
        opposite = {"north": "south", "south": "north", "east": "west", "west": "east"}[yaw_facing]
        x, y, z = target
        if block.endswith("_door"):
            base = {"facing": yaw_facing, "hinge": "left", "open": False, "powered": False}
            return [(target, make_state(block, {**base, "half": "lower"})),
                    ((x, y + 1, z), make_state(block, {**base, "half": "upper"}))]
        if block.endswith("_bed"):
            d = blockstate.FACING[yaw_facing]
            base = {"facing": yaw_facing, "occupied": False}
            return [(target, make_state(block, {**base, "part": "foot"})),
                    ((x + d[0], y, z + d[2]), make_state(block, {**base, "part": "head"}))]
        if block == "torch" and face not in (Face.UP, Face.DOWN):
            return [(target, make_state("wall_torch", {"facing": face.value}))]
        if block in ("lever",) or block.endswith("_button"):
            where = "floor" if face is Face.UP else "ceiling" if face is Face.DOWN else "wall"
            facing = face.value if where == "wall" else yaw_facing
            return [(target, make_state(block, {"face": where, "facing": facing, "powered": False}))]
        if block.endswith(("_log", "_wood")) or block in ("hay_block",):
            axis = "y" if face in (Face.UP, Face.DOWN) else "x" if face in (Face.EAST, Face.WEST) else "z"
            return [(target, make_state(block, {"axis": axis}))]
        if block in ("furnace", "blast_furnace", "smoker", "chest", "trapped_chest"):
            props: dict[str, Any] = {"facing": opposite}
            if block in FURNACE_BLOCKS:
                props["lit"] = False
            return [(target, make_state(block, props))]
        if block in ("piston", "sticky_piston"):
            return [(target, make_state(block, {"facing": opposite, "extended": False}))]
        if block in blockstate.CROPS:
            return [(target, make_state(block, {"age": 0}))]
        if block == "farmland":
            return [(target, make_state(block, {"moisture": 0}))]
        if block == "redstone_lamp":
            return [(target, make_state(block, {"lit": False}))]
        return [(target, make_state(block))]

    def _intersects_player(self, cell: tuple[int, int, int]) -> bool:
        p = self.world.player.position
        x, y, z = cell
        return (x - 0.3 < p.x < x + 1.3 and z - 0.3 < p.z < z + 1.3 and y - 1.8 < p.y < y + 1)

    # -- equipment ---------------------------------------------------------------------------------
    def equip(self, item: str, destination: str = "hand") -> ActionHandle:
        name = self._item(item)
        if destination not in EQUIP_DESTINATIONS:
            raise _err(BodyErrorCode.INVALID_ARGUMENT, f"destination must be one of {list(EQUIP_DESTINATIONS)}")
        self._equip_check(name, destination)

        def apply() -> dict[str, Any]:
            self._equip_check(name, destination)
            self._equip_apply(name, destination)
            return {"item": name, "destination": destination}

        return self._start(TimedHandle("equip", self.now_ticks(), 1, apply))

    def _equip_check(self, name: str, destination: str) -> None:
        pl = self.world.player
        current = pl.equipment().get(destination)
        if current is not None and current.name == name:
            return
        self._require_items(name, 1)
        if destination in ARMOUR_SLOTS and not name.endswith(ARMOUR_SUFFIXES[destination]) and name not in (
            ARMOUR_SUFFIXES[destination]
        ):
            raise _err(BodyErrorCode.INVALID_ARGUMENT, f"{name} cannot be worn on the {destination}")

    def _equip_apply(self, name: str, destination: str) -> None:
        pl = self.world.player
        inv = pl.inventory
        current = pl.equipment().get(destination)
        if current is not None and current.name == name:
            return
        slot = inv.find(name)
        assert slot is not None
        if destination == "hand":
            if slot in HOTBAR:
                pl.selected = slot
            else:
                held = inv.slots.pop(pl.selected, None)
                inv.slots[pl.selected] = inv.slots.pop(slot)
                if held is not None:
                    inv.slots[slot] = held
            return
        moved = inv.slots.pop(slot) if destination == "off-hand" else Stack(name, 1)
        if destination != "off-hand":
            inv.remove(name, 1)
        old = pl.off_hand if destination == "off-hand" else pl.armour[destination]
        if destination == "off-hand":
            pl.off_hand = moved
        else:
            pl.armour[destination] = moved
        if old is not None:
            inv.add(old.item, old.count)

    # -- crafting ----------------------------------------------------------------------------------
    def craft(self, item: str, count: int = 1, table: BlockPos | None = None) -> ActionHandle:
        name = self._item(item)
        times = self._check_count(count)
        table_pos = self._check_pos(tuple(table), "table") if table is not None else None
        self._craft_plan(name, times, table_pos)

        def apply() -> dict[str, Any]:
            recipe, used_table = self._craft_plan(name, times, table_pos)
            inv = self.world.player.inventory
            used = recipe.fill(times, self._held(recipe))
            for ing, n in sorted(used.items()):
                inv.remove(ing, n)
            inv.add(recipe.result, recipe.count * times)
            return {
                "item": recipe.result, "crafted": recipe.count * times, "times": times,
                "consumed": dict(sorted(used.items())),
                "table": list(used_table) if used_table is not None else None,
            }

        return self._start(TimedHandle("craft", self.now_ticks(), 1, apply))

    def _craft_plan(self, name: str, times: int, table: BlockPos | None) -> tuple[Recipe, BlockPos | None]:
        recipes = self.md.recipes_for(name)
        if not recipes:
            raise _err(BodyErrorCode.NO_RECIPE, f"{name} has no crafting recipe")
        table_at = self._table_in_reach(table)
        usable = [r for r in recipes if not r.needs_table or table_at is not None]
        if not usable:
            where = f"at {tuple(table)}" if table is not None else "within reach"
            raise _err(BodyErrorCode.NO_TABLE, f"{name} needs a crafting table {where}")
        inv = self.world.player.inventory
        best_missing: dict[str, int] | None = None
        for r in usable:
            missing = dict(sorted(r.shortfall(times, self._held(r)).items()))
            if missing:
                if best_missing is None or sum(missing.values()) < sum(best_missing.values()):
                    best_missing = missing
                continue
            trial = Inventory(inv._stack_size)
            trial.slots = copy.deepcopy(inv.slots)
            for i, n in r.fill(times, self._held(r)).items():
                trial.remove(i, n)
            if trial.add(r.result, r.count * times):
                raise _err(BodyErrorCode.INVENTORY_FULL, f"no room for {r.count * times} {r.result}")
            return r, (table_at if r.needs_table else None)
        assert best_missing is not None
        detail = ", ".join(f"{n} more {i}" for i, n in best_missing.items())
        raise _err(BodyErrorCode.MISSING_ITEM, f"crafting {times}x {name} needs {detail}")

    def _held(self, recipe: Recipe) -> dict[str, int]:
        """How many of each item ``recipe`` accepts the player holds (a slot may mix its options)."""
        inv = self.world.player.inventory
        return {i: inv.count(i) for i in recipe.inputs}

    def _table_in_reach(self, table: BlockPos | None) -> BlockPos | None:
        w = self.world
        if table is not None:
            if w.name(*table) != "crafting_table" or self.eye_distance(table) > REACH:
                return None
            return table
        for pos in self.find_blocks(["crafting_table"], 6, 8):
            if self.eye_distance(pos) <= REACH:
                return pos
        return None

    # -- containers --------------------------------------------------------------------------------
    def open_container(self, pos: BlockPos) -> ActionHandle:
        bp = self._check_pos(tuple(pos) if isinstance(pos, tuple) else pos, "pos")
        kind = self._container_kind(bp)
        self._require_reach(bp, kind)

        def apply() -> dict[str, Any]:
            k = self._container_kind(bp)
            self._require_reach(bp, k)
            self._window = (k, bp)
            return {"kind": k, "pos": list(bp)}

        return self._start(TimedHandle("open_container", self.now_ticks(), 1, apply))

    def _container_kind(self, bp: BlockPos) -> str:
        name = self.world.name(*bp)
        if name == "crafting_table":
            return "crafting_table"
        if not self.world.flags(*bp) & CONTAINER:
            raise _err(BodyErrorCode.NOT_A_CONTAINER, f"{name} at {tuple(bp)} is not a container")
        return "furnace" if name in FURNACE_BLOCKS else "chest"

    def _window_container(self) -> tuple[str, BlockPos, Chest | Furnace | None]:
        if self._window is None:
            raise _err(BodyErrorCode.WINDOW_CLOSED, "no container window is open")
        kind, pos = self._window
        w = self.world
        c = w.containers.get((pos.x, pos.y, pos.z))
        gone = w.name(*pos) != "crafting_table" if kind == "crafting_table" else c is None
        if gone or self.eye_distance(pos) > WINDOW_RANGE:
            self._window = None
            raise _err(BodyErrorCode.WINDOW_CLOSED, f"the {kind} window at {tuple(pos)} was closed")
        return kind, pos, c

    def _furnace_slot(self, slot: str, item: str, putting: bool) -> str:
        if slot == "any":
            if not putting:
                return "output"
            if self.md.smelting_result(item) is not None:
                return "input"
            if self.md.fuel_ticks(item):
                return "fuel"
            raise _err(BodyErrorCode.INVALID_ARGUMENT, f"{item} neither smelts nor burns")
        if slot not in ("input", "fuel", "output"):
            raise _err(BodyErrorCode.INVALID_ARGUMENT, f"furnace slot must be input, fuel, output or any, got {slot!r}")
        if putting and slot == "output":
            raise _err(BodyErrorCode.INVALID_ARGUMENT, "cannot put items into the furnace output")
        if putting and slot == "fuel" and not self.md.fuel_ticks(item):
            raise _err(BodyErrorCode.INVALID_ARGUMENT, f"{item} is not a fuel")
        return slot

    def container_put(self, item: str, count: int, slot: str = "any") -> ActionHandle:
        name = self._item(item)
        n = self._check_count(count)
        self._put_check(name, n, slot)

        def apply() -> dict[str, Any]:
            c, where = self._put_check(name, n, slot)
            self.world.player.inventory.remove(name, n)
            if isinstance(c, Furnace):
                s = c.get(where)
                c.put(where, Stack(name, (s.count if s else 0) + n))
            else:
                c.add(name, n, self.world.stack_size(name))
            return {"item": name, "count": n, "slot": where}

        return self._start(TimedHandle("container_put", self.now_ticks(), 1, apply))

    def _put_check(self, name: str, n: int, slot: str) -> tuple[Chest | Furnace, str]:
        kind, _, c = self._window_container()
        if c is None:
            raise _err(BodyErrorCode.INVALID_ARGUMENT, f"a {kind} window holds no items")
        self._require_items(name, n)
        size = self.world.stack_size(name)
        if isinstance(c, Furnace):
            where = self._furnace_slot(slot, name, True)
            s = c.get(where)
            if (s is not None and (s.item != name or s.count + n > size)) or n > size:
                raise _err(BodyErrorCode.WINDOW_FULL, f"the furnace {where} slot cannot take {n} {name}")
            return c, where
        if slot != "any":
            raise _err(BodyErrorCode.INVALID_ARGUMENT, f"chest slot must be 'any', got {slot!r}")
        if c.room_for(name, size) < n:
            raise _err(BodyErrorCode.WINDOW_FULL, f"the {kind} has no room for {n} {name}")
        return c, "any"

    def container_take(self, item: str, count: int, slot: str = "any") -> ActionHandle:
        name = self._item(item)
        n = self._check_count(count)
        self._take_check(name, n, slot)

        def apply() -> dict[str, Any]:
            c, where = self._take_check(name, n, slot)
            if isinstance(c, Furnace):
                s = c.get(where)
                assert s is not None
                c.put(where, Stack(s.item, s.count - n))
            else:
                c.remove(name, n)
            self.world.player.inventory.add(name, n)
            return {"item": name, "count": n, "slot": where}

        return self._start(TimedHandle("container_take", self.now_ticks(), 1, apply))

    def _take_check(self, name: str, n: int, slot: str) -> tuple[Chest | Furnace, str]:
        kind, _, c = self._window_container()
        if c is None:
            raise _err(BodyErrorCode.INVALID_ARGUMENT, f"a {kind} window holds no items")
        if isinstance(c, Furnace):
            where = self._furnace_slot(slot, name, False)
            s = c.get(where)
            have = s.count if s is not None and s.item == name else 0
        else:
            if slot != "any":
                raise _err(BodyErrorCode.INVALID_ARGUMENT, f"chest slot must be 'any', got {slot!r}")
            where, have = "any", c.count(name)
        if have < n:
            raise _err(BodyErrorCode.MISSING_ITEM, f"the {kind} {where} slot has {have} {name}, not {n}")
        if self.world.player.inventory.room_for(name) < n:
            raise _err(BodyErrorCode.INVENTORY_FULL, f"no room for {n} {name}")
        return c, where

    def close_container(self) -> ActionHandle:
        was = self._window

        def apply() -> dict[str, Any]:
            self._window = None
            return {"closed": was is not None}

        return self._start(TimedHandle("close_container", self.now_ticks(), 1, apply))

    # -- consume, attack, activate, use, sleep ---------------------------------------------------
    def consume(self, item: str) -> ActionHandle:
        name = self._item(item)
        self._consume_check(name)

        def check() -> None:
            self._require_items(name, 1)

        def apply() -> dict[str, Any]:
            food = self._consume_check(name)
            pl = self.world.player
            pl.inventory.remove(name, 1)
            if name in BOWL_FOODS:
                pl.inventory.add("bowl", 1)
            pl.food = min(MAX_FOOD, pl.food + food.food_points)
            pl.saturation = min(float(pl.food), pl.saturation + food.saturation)
            return {"item": name, "food": pl.food, "saturation": pl.saturation}

        return self._start(TimedHandle("consume", self.now_ticks(), EAT_TICKS, apply, check))

    def _consume_check(self, name: str) -> Any:
        food = self.md.food(name)
        if food is None:
            raise _err(BodyErrorCode.NOT_EDIBLE, f"{name} is not food")
        self._require_items(name, 1)
        if self.world.player.food >= MAX_FOOD and name not in ALWAYS_EDIBLE:
            raise _err(BodyErrorCode.NOT_HUNGRY, "food is full (20/20)")
        return food

    def attack(self, entity_id: int) -> ActionHandle:
        if not isinstance(entity_id, int) or isinstance(entity_id, bool):
            raise _err(BodyErrorCode.INVALID_ARGUMENT, f"entity_id must be an integer, got {entity_id!r}")
        self._attack_target(entity_id)

        def apply() -> dict[str, Any]:
            e = self._attack_target(entity_id)
            held = self.world.player.held
            damage = WEAPON_DAMAGE.get(held or "", 1.0)
            e.health -= damage
            provoke(e)  # a neutral mob hit by the player fights back
            self.world.player.exhaust(0.1)
            killed = e.health <= 0
            if killed:
                del self.world.entities[e.id]
                self.world.note({"event": "mob_died", "entity": e.name, "id": e.id})
                for item, lo, hi in () if e.extra.get("baby") else MOB_LOOT.get(e.name, ()):  # a calf drops none
                    n = self.world.rng.randint(lo, hi)
                    if n > 0:
                        self.world.spawn_item(item, n, e.x, e.y + 0.5, e.z, delay=10)
            return {"entity": e.name, "id": e.id, "damage": damage, "target_health": max(0.0, e.health),
                    "killed": killed}

        return self._start(TimedHandle("attack", self.now_ticks(), 1, apply))

    def _attack_target(self, entity_id: int) -> Any:
        e = self.world.entities.get(entity_id)
        if e is None or e.kind == "item":
            raise _err(BodyErrorCode.UNKNOWN_ENTITY, f"no living entity with id {entity_id}")
        p = self.world.player.position
        d = math.sqrt((e.x - p.x) ** 2 + (e.z - p.z) ** 2 + (e.y - p.y) ** 2)
        if d > ATTACK_REACH + 0.5:
            raise _err(BodyErrorCode.OUT_OF_REACH, f"{e.name} is {d:.2f} blocks away", retryable=True)
        self.face_towards(e.x, e.y + 1.0, e.z)
        return e

    def activate_block(self, pos: BlockPos) -> ActionHandle:
        bp = self._check_pos(tuple(pos) if isinstance(pos, tuple) else pos, "pos")
        name = self.world.name(*bp)
        if self.world.flags(*bp) & CONTAINER or name == "crafting_table":
            return self.open_container(bp)
        if not blockstate.activatable(name):
            raise _err(BodyErrorCode.NOT_ACTIVATABLE, f"{name} at {tuple(bp)} does nothing when activated")
        self._require_reach(bp, name)
        sid = self.world.get_id(*bp)

        def apply() -> dict[str, Any]:
            if self.world.get_id(*bp) != sid:
                raise _err(BodyErrorCode.NOT_ACTIVATABLE, f"the block at {tuple(bp)} changed", retryable=True)
            self._require_reach(bp, name)
            state = blockstate.activate(self.world, tuple(bp))  # type: ignore[arg-type]
            return {"block": name, "pos": list(bp), "state": state}

        return self._start(TimedHandle("activate_block", self.now_ticks(), 1, apply))

    def use_on_entity(self, entity_id: int, item: str) -> ActionHandle:
        if not isinstance(entity_id, int) or isinstance(entity_id, bool):
            raise _err(BodyErrorCode.INVALID_ARGUMENT, f"entity_id must be an integer, got {entity_id!r}")
        name = self._item(item)
        self._entity_use(entity_id, name)

        def apply() -> dict[str, Any]:
            e, gives = self._entity_use(entity_id, name)
            inv = self.world.player.inventory
            inv.remove(name, 1)
            if inv.add(gives, 1):  # vanilla: the milk goes to a free slot, or is dropped at the feet
                p = self.world.player.position
                self.world.spawn_item(gives, 1, p.x, p.y, p.z, delay=PICKUP_DELAY_TOSSED)
            return {"entity": e.name, "id": e.id, "item": name, "gave": gives}

        return self._start(TimedHandle("use_on_entity", self.now_ticks(), 1, apply))

    def _entity_use(self, entity_id: int, name: str) -> tuple[Any, str]:
        """The entity in reach and what using ``name`` on it gives in place of ``name``; refused otherwise."""
        self._require_items(name, 1)
        e = self.world.entities.get(entity_id)
        if e is None or e.kind == "item":
            raise _err(BodyErrorCode.UNKNOWN_ENTITY, f"no living entity with id {entity_id}")
        gives = ANIMAL_USES.get((e.name, name))
        if gives is None:
            raise _err(BodyErrorCode.NOT_ACTIVATABLE, f"using {name} on a {e.name} does nothing")
        if e.extra.get("baby"):
            raise _err(BodyErrorCode.NOT_ACTIVATABLE, f"the {e.name} is a calf: only an adult gives milk")
        return self._attack_target(entity_id), gives  # in reach (retryable when not), faced

    def use_item(self, item: str | None = None, target: BlockPos | None = None) -> ActionHandle:
        pl = self.world.player
        name = self._item(item) if item is not None else pl.held
        if name is None:
            raise _err(BodyErrorCode.INVALID_ARGUMENT, "no item given and nothing held")
        tgt = self._check_pos(tuple(target), "target") if target is not None else None
        if tgt is None and self.md.food(name) is not None:
            return self.consume(name)
        effect = self._use_plan(name, tgt)

        def apply() -> dict[str, Any]:
            action = self._use_plan(name, tgt)
            return {"item": name, "effect": action(), "target": list(tgt) if tgt else None}

        del effect
        return self._start(TimedHandle("use_item", self.now_ticks(), 1, apply))

    def _use_plan(self, name: str, tgt: BlockPos | None) -> Callable[[], str]:
        w = self.world
        inv = w.player.inventory
        self._require_items(name, 1)
        if tgt is None:
            if name in THROWABLE:

                def throw() -> str:
                    inv.remove(name, 1)
                    return "thrown"

                return throw
            return lambda: "item_activated"
        self._require_reach(tgt, w.name(*tgt))
        block = w.name(*tgt)
        above = (tgt.x, tgt.y + 1, tgt.z)
        if name.endswith("_hoe"):
            if block not in blockstate.TILLABLE or not w.flags(*above) & AIRLIKE:
                raise _err(BodyErrorCode.INVALID_ARGUMENT, f"{block} at {tuple(tgt)} cannot be tilled")
            def till() -> str:
                w.set_block((tgt.x, tgt.y, tgt.z), make_state("farmland", {"moisture": 0}))
                return "tilled"

            return till
        if name in blockstate.SEED_CROPS:
            crop = blockstate.SEED_CROPS[name]
            soil, cell = (tgt, above) if block == "farmland" else ((tgt.x, tgt.y - 1, tgt.z), tuple(tgt))
            if w.name(*soil) != "farmland" or not w.flags(*cell) & AIRLIKE:
                raise _err(BodyErrorCode.NOT_PLACEABLE, f"{name} needs empty farmland at {tuple(tgt)}")

            def plant() -> str:
                inv.remove(name, 1)
                w.set_block(cell, make_state(crop, {"age": 0}))  # type: ignore[arg-type]
                return "planted"

            return plant
        if name == "bone_meal":
            if block not in blockstate.CROPS:
                raise _err(BodyErrorCode.INVALID_ARGUMENT, f"bone meal does nothing to {block}")
            st = w.state(*tgt)

            def fertilise() -> str:
                inv.remove(name, 1)
                top = blockstate.crop_max_age(w, block)
                age = min(top, int(dict(st[1]).get("age", 0)) + w.rng.randint(2, 5))
                w.set_block(tuple(tgt), blockstate.with_props(st, age=age))  # type: ignore[arg-type]
                return "grown"

            return fertilise
        if name == "water_bucket":
            if not w.flags(*above) & REPLACEABLE:
                raise _err(BodyErrorCode.OCCUPIED, f"{w.name(*above)} occupies {above}")

            def pour() -> str:
                inv.remove(name, 1)
                inv.add("bucket", 1)
                w.set_block(above, make_state("water", {"level": 0}))
                return "poured"

            return pour
        if name == "bucket" and block == "water":

            def fill() -> str:
                inv.remove(name, 1)
                inv.add("water_bucket", 1)
                w.set_block(tuple(tgt), AIR)  # type: ignore[arg-type]
                return "filled"

            return fill
        return lambda: "item_activated"

    def sleep(self, bed: BlockPos) -> ActionHandle:
        bp = self._check_pos(tuple(bed) if isinstance(bed, tuple) else bed, "bed")
        self._sleep_check(bp)
        w = self.world

        def check() -> None:
            if not w.player.sleeping:
                raise _err(BodyErrorCode.NOT_SLEEPABLE, "woken up before morning", retryable=True)

        def apply() -> dict[str, Any]:
            w.player.sleeping = False
            w.clock.set_time_of_day(0)
            w.clock.day_time += 24000  # the next morning
            return {"bed": list(bp), "slept": True, "time_of_day": w.clock.time_of_day}

        w.player.sleeping = True
        w.spawn = Position(bp.x + 0.5, float(bp.y + 1), bp.z + 0.5)
        return self._start(TimedHandle("sleep", self.now_ticks(), SLEEP_TICKS, apply, check))

    def _sleep_check(self, bp: BlockPos) -> None:
        w = self.world
        name = w.name(*bp)
        if not name.endswith("_bed"):
            raise _err(BodyErrorCode.NOT_SLEEPABLE, f"{name} at {tuple(bp)} is not a bed")
        self._require_reach(bp, name, 3.5)
        if not w.clock.is_night():
            raise _err(BodyErrorCode.NOT_SLEEPABLE, f"can only sleep at night (time {w.clock.time_of_day})",
                       retryable=True)
        p = w.player.position
        for e in w.entities.values():
            if e.kind == "hostile" and abs(e.x - p.x) <= 8 and abs(e.y - p.y) <= 5 and abs(e.z - p.z) <= 8:
                raise _err(BodyErrorCode.NOT_SLEEPABLE, f"monsters nearby ({e.name})", retryable=True)

    # -- chat and toss ----------------------------------------------------------------------------
    def chat(self, message: str) -> ActionHandle:
        if not isinstance(message, str) or not message.strip():
            raise _err(BodyErrorCode.INVALID_ARGUMENT, "message must be a non-empty string")
        if len(message) > MAX_CHAT:
            raise _err(BodyErrorCode.INVALID_ARGUMENT, f"message is {len(message)} characters (max {MAX_CHAT})")
        if message.startswith("/") and not self.world.player.operator:
            # as on a server: a player who is not an operator gets no command (the console still does)
            raise _err(BodyErrorCode.PERMISSION_DENIED,
                       f"{self.name} is not a server operator: {message.split()[0]} refused")
        run = commands.parse(self, message) if message.startswith("/") else None

        def apply() -> dict[str, Any]:
            self.chat_log.append(f"<{self.name}> {message}")
            if run is None:
                return {"message": message}
            output = run()
            self.chat_log.append(output)
            return {"message": message, "output": output}

        return self._start(TimedHandle("chat", self.now_ticks(), 1, apply))

    def chat_messages(self, since: int = 0) -> tuple[int, list[str]]:
        """Chat and command lines since index ``since``; returns (next index, lines) like the real body."""
        return len(self.chat_log), self.chat_log[since:]

    def run_command(self, command: str) -> str:
        """Run a command as the server console right away (scenarios and tests; no operator rights needed);
        raises BodyError if it is bad."""
        return commands.parse(self, command if command.startswith("/") else "/" + command)()

    def toss(self, item: str, count: int) -> ActionHandle:
        name = self._item(item)
        n = self._check_count(count)
        self._require_items(name, n)

        def apply() -> dict[str, Any]:
            self._require_items(name, n)
            pl = self.world.player
            pl.inventory.remove(name, n)
            p = pl.position
            fx, fz = -math.sin(pl.yaw), -math.cos(pl.yaw)
            e = self.world.spawn_item(name, n, p.x + fx * 1.5, p.y + 1.3, p.z + fz * 1.5,
                                      delay=PICKUP_DELAY_TOSSED, jitter=False)
            return {"item": name, "count": n, "entity": e.id}

        return self._start(TimedHandle("toss", self.now_ticks(), 1, apply))

    # -- optional observations (not part of the protocol) ----------------------------------------
    # Added for control_environment (capabilities/leaves/mechanisms.py), which asks a body
    # for these when it has them: the weather to verify /weather, operator rights for its guard.
    def weather(self) -> str:
        return self.world.weather

    def is_operator(self) -> bool:
        return self.world.player.operator  # only when the scenario says so (player.operator, /op)

    # -- operator helpers (not part of the protocol) ---------------------------------------------
    def give(self, item: str, count: int = 1) -> int:
        """Add items straight to the inventory; returns how many did not fit."""
        return self.world.player.inventory.add(self._item(item), self._check_count(count))

    def set_block(self, pos: BlockPos | tuple[int, int, int], name: str, state: dict[str, Any] | None = None) -> None:
        self.world.set_block(tuple(pos), make_state(self.md.block(name).name, state))  # type: ignore[arg-type]

    def teleport(self, pos: Position) -> None:
        self.world.player.position = Position(*pos)
        if self._nav is not None:
            self._nav.cancel("preempted")

    def running_handles(self) -> list[SimHandle]:
        return list(self._active)


def new_world(
    seed: int = 0, *, generator: str = "flat", md: McData | None = None, realtime: bool = False
) -> World:
    gen: FlatGenerator | NaturalGenerator = NaturalGenerator(seed) if generator == "natural" else FlatGenerator()
    return World(md or load(), seed, gen, realtime=realtime)
