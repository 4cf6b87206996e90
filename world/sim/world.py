"""The simulated world: blocks, block entities, entities, the player, the clock and the per-tick update.

One :class:`World` owns everything that changes. Its single ``random.Random``
(seeded from the world seed) is the only source of randomness at run time;
generation draws on per-chunk generators derived from the same seed, so a
world is the same whichever order its chunks are generated in. Every
collection that is iterated during a tick is iterated in a sorted or
insertion order, never a hash order.
"""

from __future__ import annotations

import heapq
import math
import random
from dataclasses import dataclass, field
from typing import Any

from craftbt.world.body import BlockInfo, BlockPos, Position
from craftbt.world.mcdata import McData
from craftbt.world.sim import blockstate, mobs
from craftbt.world.sim.clock import SimClock
from craftbt.world.sim.containers import Container, Furnace, new_container
from craftbt.world.sim.entities import (
    ITEM_DESPAWN_TICKS,
    MERGE_INTERVAL_MOVING,
    MERGE_INTERVAL_RESTING,
    PICKUP_DELAY_MINED,
    Entity,
    in_pickup_range,
    merge_items,
)
from craftbt.world.sim.flags import (
    AIRLIKE,
    CONTAINER,
    GRAVITY,
    LAVA,
    LIQUID,
    MAX_Y,
    MIN_Y,
    NEEDS_SUPPORT,
    REPLACEABLE,
    SOLID,
)
from craftbt.world.sim.generators import AnyGenerator
from craftbt.world.sim.player import MAX_FOOD, MAX_HEALTH, Player
from craftbt.world.sim.storage import AIR, BlockState, BlockStore, make_state

AIR_NAMES = ("air", "cave_air", "void_air")
OPENABLE_SUFFIXES = ("_door", "_fence_gate", "_trapdoor")
RANDOM_TICK_SPEED = 3  # vanilla gamerule default


@dataclass
class GameRules:
    random_tick_speed: int = RANDOM_TICK_SPEED
    do_mob_spawning: bool = True
    do_daylight_cycle: bool = True

    def to_json(self) -> dict[str, Any]:
        return {"random_tick_speed": self.random_tick_speed, "do_mob_spawning": self.do_mob_spawning,
                "do_daylight_cycle": self.do_daylight_cycle}


@dataclass(order=True)
class Timer:
    tick: int
    seq: int
    kind: str = field(compare=False)
    pos: tuple[int, int, int] = field(compare=False)


class World:
    def __init__(
        self,
        md: McData,
        seed: int,
        generator: AnyGenerator,
        *,
        time_of_day: int = 1000,
        realtime: bool = False,
        player_name: str = "Sterling",
        merge_items: bool = True,
    ) -> None:
        self.md = md
        # Vanilla merges nearby drops of the same item; off only to measure what merging saves (bench).
        self.merge_items = merge_items
        self.seed = seed
        self.rng = random.Random(seed)
        self.generator = generator
        self.store = BlockStore()
        self.palette = self.store.palette
        self.generated: set[tuple[int, int]] = set()
        self.clock = SimClock(time_of_day, realtime=realtime)
        self.rules = GameRules()
        self.weather = "clear"
        #: the embedded world has one biome everywhere; a scenario names it
        self.biome = "plains"
        self._flags: list[int] = []
        self._filter: list[int] = []
        self.containers: dict[tuple[int, int, int], Container] = {}
        self.light_sources: dict[tuple[int, int, int], int] = {}
        self.timers: list[Timer] = []
        self.random_pending: set[tuple[int, int, int]] = set()
        self._timer_seq = 0
        self.gravity_queue: list[tuple[int, int, int]] = []
        self.entities: dict[int, Entity] = {}
        self.next_entity_id = 1
        self.events: list[dict[str, Any]] = []  # recent notable events (explosions, deaths), capped
        spawn_y = generator.surface_y(0, 0) + 1
        self.spawn = Position(0.5, float(spawn_y), 0.5)
        self.player = Player(player_name, self.spawn, self.stack_size)
        self.player_id = self._new_id()

    # -- registry helpers --------------------------------------------------------------------------
    def stack_size(self, item: str) -> int:
        return self.md.item(item).stack_size

    def _compute_flags(self, state: BlockState) -> tuple[int, int]:
        name, props = state
        if name in AIR_NAMES:
            return AIRLIKE | REPLACEABLE, 0
        b = self.md.block(name)
        flags = 0
        p = dict(props)
        solid = b.solid
        if name.endswith(OPENABLE_SUFFIXES) and p.get("open") is True:
            solid = False
        if solid:
            flags |= SOLID
        if name in ("water", "lava", "bubble_column"):
            flags |= LIQUID | REPLACEABLE
        if name == "lava":
            flags |= LAVA
        if not b.solid and not flags & LIQUID:
            if b.hardness == 0 and b.material.startswith("plant") and b.max_state == 0:
                flags |= REPLACEABLE
            flags |= NEEDS_SUPPORT
        if name.endswith("_door") or name.endswith("_bed"):
            flags |= NEEDS_SUPPORT
        if b.gravity:
            flags |= GRAVITY
        if new_container(name) is not None:
            flags |= CONTAINER
        return flags, b.filter_light

    def flags_of(self, state_id: int) -> int:
        while state_id >= len(self._flags):
            f, fl = self._compute_flags(self.palette.state(len(self._flags)))
            self._flags.append(f)
            self._filter.append(fl)
        return self._flags[state_id]

    # -- block access ------------------------------------------------------------------------------
    def ensure_chunk(self, cx: int, cz: int) -> None:
        if (cx, cz) not in self.generated:
            self.generated.add((cx, cz))
            self.generator.generate_chunk(self.store, cx, cz)
            # natural worlds place passive animals with the chunk, as vanilla does at generation
            animals = getattr(self.generator, "animals", None)
            if animals is not None:
                for name, x, y, z in animals(cx, cz):
                    self.spawn_mob(name, x, y, z)

    def get_id(self, x: int, y: int, z: int) -> int:
        if (x >> 4, z >> 4) not in self.generated:
            self.ensure_chunk(x >> 4, z >> 4)
        return self.store.get(x, y, z)

    def flags(self, x: int, y: int, z: int) -> int:
        sid = self.get_id(x, y, z)
        if sid < len(self._flags):
            return self._flags[sid]
        return self.flags_of(sid)

    def state(self, x: int, y: int, z: int) -> BlockState:
        return self.palette.state(self.get_id(x, y, z))

    def name(self, x: int, y: int, z: int) -> str:
        return self.palette.state(self.get_id(x, y, z))[0]

    def props(self, x: int, y: int, z: int) -> dict[str, Any]:
        return dict(self.palette.state(self.get_id(x, y, z))[1])

    def block_info(self, pos: BlockPos) -> BlockInfo:
        name, props = self.state(*pos)
        return BlockInfo(name=name, pos=pos, state=dict(props))

    def is_solid(self, x: int, y: int, z: int) -> bool:
        return bool(self.flags(x, y, z) & SOLID)

    def filter_light(self, x: int, y: int, z: int) -> int:
        sid = self.get_id(x, y, z)
        self.flags_of(sid)
        return self._filter[sid]

    def top_y(self, x: int, z: int) -> int:
        """The highest y that may hold a block in this column (top of its highest section)."""
        self.ensure_chunk(x >> 4, z >> 4)
        top = self.store.top_section.get((x >> 4, z >> 4))
        return MIN_Y if top is None else max(MIN_Y, top * 16 + 15)

    def highest_solid(self, x: int, z: int) -> int:
        for y in range(self.top_y(x, z), MIN_Y - 1, -1):
            if self.flags(x, y, z) & (SOLID | LIQUID):
                return y
        return MIN_Y

    def set_block(self, pos: tuple[int, int, int], state: BlockState, *, drop_contents: bool = True) -> None:
        """Change one block and run every consequence (block entities, light, support, gravity, power)."""
        x, y, z = pos
        if not MIN_Y <= y <= MAX_Y:
            raise ValueError(f"y={y} is outside the world ({MIN_Y}..{MAX_Y})")
        self.ensure_chunk(x >> 4, z >> 4)
        new_id = self.palette.id_of(state)
        old_id = self.store.set(x, y, z, new_id)
        if old_id == new_id:
            return
        old_name = self.palette.state(old_id)[0]
        key = (x, y, z)
        if old_name != state[0]:
            old_container = self.containers.pop(key, None)
            if old_container is not None and drop_contents:
                for s in old_container.contents():
                    self.spawn_item(s.item, s.count, x + 0.5, y + 0.5, z + 0.5)
            created = new_container(state[0])
            if created is not None:
                self.containers[key] = created
        emit = blockstate.emitted_light(self, state)
        if emit:
            self.light_sources[key] = emit
        else:
            self.light_sources.pop(key, None)
        blockstate.on_changed(self, key, self.palette.state(old_id), state)
        self.gravity_queue.append(key)
        self.gravity_queue.append((x, y + 1, z))

    # -- timers ------------------------------------------------------------------------------------
    def schedule(self, delay: int, kind: str, pos: tuple[int, int, int]) -> None:
        self._timer_seq += 1
        heapq.heappush(self.timers, Timer(self.clock.tick + max(1, delay), self._timer_seq, kind, pos))

    def random_tick_delay(self) -> int:
        """Ticks until a block's next random tick (vanilla: speed/4096 chance per game tick)."""
        speed = self.rules.random_tick_speed
        if speed <= 0:
            return 1 << 30
        p = min(1.0, speed / 4096.0)
        if p >= 1.0:
            return 1
        u = self.rng.random()
        return 1 + int(math.log(1.0 - u) / math.log(1.0 - p))

    # -- entities ----------------------------------------------------------------------------------
    def _new_id(self) -> int:
        eid = self.next_entity_id
        self.next_entity_id += 1
        return eid

    def spawn_item(
        self, item: str, count: int, x: float, y: float, z: float, *, delay: int = PICKUP_DELAY_MINED,
        jitter: bool = True,
    ) -> Entity:
        if jitter:
            x += (self.rng.random() - 0.5) * 0.5
            z += (self.rng.random() - 0.5) * 0.5
        e = Entity(self._new_id(), "item", "item", x, y, z, health=5.0, item=item, count=count,
                   pickup_delay=delay)
        self.entities[e.id] = e
        return e

    def spawn_mob(self, name: str, x: float, y: float, z: float, *, no_ai: bool = False) -> Entity:
        data = self.md.entity(name)
        kind = mobs.kind_for(data.category)
        e = Entity(self._new_id(), data.name, kind, x, y, z, no_ai=no_ai)
        e.health = e.stats().health
        self.entities[e.id] = e
        return e

    def note(self, event: dict[str, Any]) -> None:
        self.events.append({"tick": self.clock.tick, **event})
        del self.events[:-100]

    # -- the tick ----------------------------------------------------------------------------------
    def tick(self) -> None:
        self.clock.step()
        if not self.rules.do_daylight_cycle:
            self.clock.day_time -= 1
        now = self.clock.tick
        while self.timers and self.timers[0].tick <= now:
            t = heapq.heappop(self.timers)
            blockstate.on_timer(self, t.kind, t.pos)
        if self.gravity_queue:
            queue, self.gravity_queue = self.gravity_queue, []
            blockstate.settle_gravity(self, queue)
        for key in sorted(self.containers):
            c = self.containers[key]
            if isinstance(c, Furnace) and c.active():
                was_lit = c.lit
                c.tick(self.md)
                if c.lit != was_lit:
                    blockstate.set_prop(self, key, "lit", c.lit)
        self._tick_items()
        mobs.tick_mobs(self)
        self._tick_player()

    def _tick_items(self) -> None:
        p = self.player.position
        inv = self.player.inventory
        # Items that change block look for merges every MERGE_INTERVAL_MOVING ticks: note them on those ticks.
        note_moves = self.merge_items and self.clock.tick % MERGE_INTERVAL_MOVING == 0
        moved: list[Entity] = []
        gone: list[int] = []
        for eid, e in self.entities.items():
            if e.kind != "item":
                continue
            e.age += 1
            if e.age >= ITEM_DESPAWN_TICKS:
                gone.append(eid)
                continue
            fx, fz = math.floor(e.x), math.floor(e.z)
            if not self.flags(fx, math.floor(e.y - 0.01), fz) & SOLID and e.y > MIN_Y:
                ny = e.y - 0.5
                if self.flags(fx, math.floor(ny), fz) & SOLID:
                    ny = math.floor(ny) + 1.0
                if note_moves and math.floor(ny) != math.floor(e.y):
                    moved.append(e)
                e.y = ny
            if e.pickup_delay > 0:
                e.pickup_delay -= 1
                continue
            if e.item is not None and in_pickup_range(e, p) and self.player.health > 0:
                left = inv.add(e.item, e.count)
                if left:
                    e.count = left
                else:
                    gone.append(eid)
        for eid in gone:
            del self.entities[eid]
        if self.merge_items:
            self._merge_items(moved)

    def _merge_items(self, moved: list[Entity]) -> None:
        """Run vanilla's item merge check (see :func:`~world.sim.entities.merge_items`) for the items due now.

        Vanilla phases each item's check by its own tick count; here every item shares the world clock, so
        resting items are all checked together on every MERGE_INTERVAL_RESTING-th tick and the neighbour
        buckets are built once per pass. ``moved`` are the items that changed block this tick (collected
        only on MERGE_INTERVAL_MOVING ticks); ones picked up meanwhile are no longer in the world.
        """
        resting_pass = self.clock.tick % MERGE_INTERVAL_RESTING == 0
        if not resting_pass and not moved:
            return
        items = [e for e in self.entities.values() if e.kind == "item"]
        due = items if resting_pass else [e for e in moved if e.id in self.entities]
        box = self.md.entity("item")
        for e in merge_items(due, items, self.stack_size, (box.width, box.height)):
            del self.entities[e.id]

    def _tick_player(self) -> None:
        pl = self.player
        if pl.health <= 0:
            return
        blockstate.apply_player_gravity(self)
        if pl.hunger_effect_until > self.clock.tick:
            pl.exhaust(0.005 * (pl.hunger_effect_level + 1))
        pl.regen_timer += 1
        if pl.food >= 18 and pl.health < MAX_HEALTH and pl.regen_timer >= 80:
            pl.regen_timer = 0
            pl.health = min(MAX_HEALTH, pl.health + 1)
            pl.exhaust(6.0)
        elif pl.food == 0 and pl.regen_timer >= 80:
            pl.regen_timer = 0
            if pl.health > 10:  # normal difficulty: starvation stops at half health
                self.damage_player(1.0, "starvation")
        elif pl.regen_timer >= 80:
            pl.regen_timer = 0

    def damage_player(self, amount: float, cause: str) -> None:
        pl = self.player
        if pl.health <= 0 or amount <= 0:
            return
        pl.sleeping = False
        pl.health = max(0.0, pl.health - amount)
        pl.exhaust(0.1)
        if pl.health <= 0:
            self.note({"event": "player_died", "cause": cause})
            px, py, pz = pl.position
            for slot in sorted(pl.inventory.slots):
                s = pl.inventory.slots[slot]
                self.spawn_item(s.item, s.count, px, py + 0.5, pz, delay=40)
            pl.inventory.slots.clear()
            pl.deaths += 1

    def respawn(self) -> None:
        pl = self.player
        pl.health, pl.food, pl.saturation, pl.exhaustion = MAX_HEALTH, MAX_FOOD, 5.0, 0.0
        pl.position = self.spawn
        pl.fall_start = None


def air() -> BlockState:
    return AIR


def state(name: str, props: dict[str, Any] | None = None) -> BlockState:
    return make_state(name, props)
