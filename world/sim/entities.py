"""Entities: dropped items (gravity, pickup radius, despawn, merging) and mobs (passive wander, hostile chase).

minecraft-data gives entity names, categories and sizes; it has no combat
stats, so the few numbers mobs need (health, walking speed, melee damage on
normal difficulty) sit in :data:`MOB_STATS`, with vanilla's values.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from craftbt.world.body import EntityInfo, ItemStack, Position

#: Ticks before a dropped item can be picked up: mined blocks, tossed items (vanilla 10 / 40).
PICKUP_DELAY_MINED = 10
PICKUP_DELAY_TOSSED = 40
#: Vanilla despawns an item entity after 5 minutes on the ground.
ITEM_DESPAWN_TICKS = 6000
#: The player's pickup box: its 0.6-wide hitbox grown by 1 block sideways and 0.5 up/down.
PICKUP_REACH_XZ = 1.425
PICKUP_REACH_DOWN = 0.75
PICKUP_REACH_UP = 2.3
#: How often an item entity looks for neighbours to merge with (vanilla ``ItemEntity.tick``:
#: ``tickCount % (moved ? 2 : 40) == 0``, "moved" meaning it changed block this tick).
MERGE_INTERVAL_MOVING = 2
MERGE_INTERVAL_RESTING = 40
#: Vanilla finds merge neighbours in the item's bounding box inflated by 0.5 sideways and 0 vertically.
MERGE_INFLATE_XZ = 0.5
#: Melee reach of the player against entities (vanilla survival: 3 blocks).
ATTACK_REACH = 3.0


@dataclass(frozen=True)
class MobStats:
    health: float
    speed: float  # blocks per tick when moving
    damage: float  # per hit (normal difficulty)
    attack_range: float
    cooldown: int  # ticks between hits


MOB_STATS: dict[str, MobStats] = {
    "zombie": MobStats(20, 0.115, 3, 1.5, 20),
    "husk": MobStats(20, 0.115, 3, 1.5, 20),
    "skeleton": MobStats(20, 0.125, 3, 12.0, 40),
    "spider": MobStats(16, 0.15, 2, 1.5, 20),
    "creeper": MobStats(20, 0.125, 0, 3.0, 30),
    "enderman": MobStats(40, 0.15, 7, 1.5, 20),
    "pig": MobStats(10, 0.05, 0, 0, 0),
    "cow": MobStats(10, 0.05, 0, 0, 0),
    "sheep": MobStats(8, 0.05, 0, 0, 0),
    "chicken": MobStats(4, 0.05, 0, 0, 0),
}
DEFAULT_STATS = MobStats(20, 0.1, 2, 1.5, 20)
#: A creeper's fuse (vanilla 30 ticks) and explosion power (3).
CREEPER_FUSE = 30
CREEPER_POWER = 3.0
#: Mobs notice the player within this distance.
FOLLOW_RANGE = 16.0

#: Melee damage by weapon (minecraft-data has no attack damage); the fist does 1.
WEAPON_DAMAGE: dict[str, float] = {
    "wooden_sword": 4, "golden_sword": 4, "stone_sword": 5, "iron_sword": 6, "diamond_sword": 7,
    "netherite_sword": 8, "wooden_axe": 7, "golden_axe": 7, "stone_axe": 9, "iron_axe": 9,
    "diamond_axe": 9, "netherite_axe": 10,
}


@dataclass
class Entity:
    id: int
    name: str
    kind: str  # hostile | passive | player | item | other
    x: float
    y: float
    z: float
    health: float = 20.0
    item: str | None = None
    count: int = 0
    age: int = 0
    pickup_delay: int = 0
    no_ai: bool = False
    cooldown: int = 0
    fuse: int = -1
    wander: tuple[float, float, int] = (0.0, 0.0, 0)  # direction x, z and ticks left
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def position(self) -> Position:
        return Position(self.x, self.y, self.z)

    def stats(self) -> MobStats:
        return MOB_STATS.get(self.name, DEFAULT_STATS)

    def info(self) -> EntityInfo:
        item = ItemStack(name=self.item, count=self.count) if self.item is not None and self.count > 0 else None
        return EntityInfo(
            id=self.id, name=self.name, kind=self.kind, position=self.position,
            health=None if self.kind == "item" else self.health, item=item, baby=bool(self.extra.get("baby")),
        )

    def distance_to(self, p: Position) -> float:
        return math.sqrt((self.x - p.x) ** 2 + (self.y - p.y) ** 2 + (self.z - p.z) ** 2)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id, "name": self.name, "kind": self.kind, "pos": [self.x, self.y, self.z],
            "health": self.health, "item": self.item, "count": self.count, "age": self.age,
            "pickup_delay": self.pickup_delay, "no_ai": self.no_ai, "cooldown": self.cooldown,
            "fuse": self.fuse, "wander": list(self.wander), "extra": self.extra,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Entity:
        x, y, z = d["pos"]
        wx, wz, wt = d["wander"]
        return cls(
            d["id"], d["name"], d["kind"], x, y, z, d["health"], d["item"], d["count"], d["age"],
            d["pickup_delay"], d["no_ai"], d["cooldown"], d["fuse"], (wx, wz, int(wt)), dict(d["extra"]),
        )


def kind_of(category: str) -> str:
    """minecraft-data's coarse category -> EntityInfo.kind."""
    if category in ("hostile", "passive", "player"):
        return category
    return "other"


def in_pickup_range(e: Entity, p: Position) -> bool:
    return (
        abs(e.x - p.x) <= PICKUP_REACH_XZ
        and abs(e.z - p.z) <= PICKUP_REACH_XZ
        and p.y - PICKUP_REACH_DOWN <= e.y <= p.y + PICKUP_REACH_UP
    )


# -- item merging -----------------------------------------------------------------------------------
ItemBuckets = dict[tuple[str, int, int], list[Entity]]


def merge_items(
    due: Iterable[Entity],
    items: Iterable[Entity],
    stack_size: Callable[[str], int],
    size: tuple[float, float],
) -> list[Entity]:
    """Merge each ``due`` item entity into or with its neighbours among ``items``; returns the emptied ones.

    Follows vanilla Java 1.21 ``ItemEntity.mergeWithNeighbours`` / ``tryToMerge`` / ``merge``, so piles
    of drops collapse into a few stacks instead of one entity per dug block:

    * Only *mergeable* entities take part (``isMergable``): count below the item's max stack size, so a
      full stack takes no more and tools (stack size 1) never merge; not yet despawned.
    * A neighbour is a mergeable entity of the same item (items here carry no components) whose box
      overlaps this one's box inflated by :data:`MERGE_INFLATE_XZ` sideways and 0 vertically. With
      ``size`` = minecraft-data's item entity (0.25 wide, 0.25 high) that is: centres closer than
      0.75 in x and in z, and feet closer than 0.25 in y.
    * Two stacks merge only when the sum fits one stack (``areMergable``): there are no partial moves.
    * The smaller stack goes into the larger (on a tie, into the neighbour). The survivor takes the
      larger pickup delay and the smaller age, so a merge never makes a drop collectable sooner and
      the pile lives as long as its youngest part.

    Neighbours come from buckets keyed by item and block column: the reach (0.75) is under one block,
    so the 3x3 columns around an entity hold every candidate, and a pass is linear in the number of
    items rather than quadratic over the world (only a dense pile of stacks too big to merge with one
    another costs more, as in vanilla).
    Deterministic: entities are visited in the order given (the world's insertion order).
    """
    limits: dict[str, int] = {}
    buckets: ItemBuckets = {}
    for e in items:
        if e.item is None:
            continue
        if e.item not in limits:
            limits[e.item] = stack_size(e.item)
        if _mergeable(e, limits):
            buckets.setdefault((e.item, math.floor(e.x), math.floor(e.z)), []).append(e)
    reach_xz, reach_y = size[0] + MERGE_INFLATE_XZ, size[1]
    emptied: list[Entity] = []
    for a in due:
        if a.item is None or not _mergeable(a, limits):
            continue
        limit = limits[a.item]
        for b in _neighbours(a, a.item, buckets, reach_xz, reach_y):
            if b is a or not _mergeable(b, limits) or a.count + b.count > limit:
                continue
            dest, origin = (a, b) if b.count < a.count else (b, a)
            _absorb(dest, origin)
            emptied.append(origin)
            if origin is a:
                break
    return emptied


def _mergeable(e: Entity, limits: dict[str, int]) -> bool:
    """Vanilla ``isMergable``; an emptied (merged-away) entity has count 0 and so drops out."""
    return e.item is not None and 0 < e.count < limits.get(e.item, 1) and e.age < ITEM_DESPAWN_TICKS


def _neighbours(
    e: Entity, item: str, buckets: ItemBuckets, reach_xz: float, reach_y: float
) -> Iterator[Entity]:
    """Bucketed ``item`` entities whose boxes touch ``e``'s inflated box (strict, as ``AABB.intersects``)."""
    cx, cz = math.floor(e.x), math.floor(e.z)
    for bx in (cx - 1, cx, cx + 1):
        for bz in (cz - 1, cz, cz + 1):
            for o in buckets.get((item, bx, bz), ()):
                if abs(o.x - e.x) < reach_xz and abs(o.z - e.z) < reach_xz and abs(o.y - e.y) < reach_y:
                    yield o


def _absorb(dest: Entity, origin: Entity) -> None:
    """Vanilla ``ItemEntity.merge``: counts add up, pickup delay = max, age = min; the origin is emptied."""
    dest.count += origin.count
    dest.pickup_delay = max(dest.pickup_delay, origin.pickup_delay)
    dest.age = min(dest.age, origin.age)
    origin.count = 0
