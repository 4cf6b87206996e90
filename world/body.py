"""The Body protocol: the only surface a capability may touch.

Two implementations exist: the embedded simulated world (``world.sim``) and a
real server through mineflayer (``world.mineflayer``). Observation calls return
immediately. Action calls are non-blocking: they validate their arguments,
either raise :class:`BodyError` at once (nothing in the world has changed) or
return an :class:`ActionHandle` that the caller polls on every tree tick until
it leaves ``RUNNING``.

Time is measured in game ticks (20 per second). ``Body.advance(ticks)`` lets
the world run: the simulator steps its clock, a real server body sleeps.
"""

from __future__ import annotations

import math
from collections.abc import Collection
from enum import StrEnum
from typing import Any, NamedTuple, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

TICKS_PER_SECOND = 20
TICKS_PER_DAY = 24_000


class BlockPos(NamedTuple):
    """Integer block coordinates."""

    x: int
    y: int
    z: int

    def offset(self, dx: int = 0, dy: int = 0, dz: int = 0) -> BlockPos:
        return BlockPos(self.x + dx, self.y + dy, self.z + dz)

    def distance_to(self, other: BlockPos | Position) -> float:
        return float(
            ((self.x - other.x) ** 2 + (self.y - other.y) ** 2 + (self.z - other.z) ** 2) ** 0.5
        )


class Position(NamedTuple):
    """Continuous entity coordinates (feet position)."""

    x: float
    y: float
    z: float

    def block(self) -> BlockPos:
        return BlockPos(math.floor(self.x), math.floor(self.y), math.floor(self.z))

    def distance_to(self, other: BlockPos | Position) -> float:
        return float(
            ((self.x - other.x) ** 2 + (self.y - other.y) ** 2 + (self.z - other.z) ** 2) ** 0.5
        )


class Face(StrEnum):
    """The face of a reference block that a new block is placed against."""

    UP = "up"
    DOWN = "down"
    NORTH = "north"  # -z
    SOUTH = "south"  # +z
    WEST = "west"  # -x
    EAST = "east"  # +x


FACE_OFFSETS: dict[Face, tuple[int, int, int]] = {
    Face.UP: (0, 1, 0),
    Face.DOWN: (0, -1, 0),
    Face.NORTH: (0, 0, -1),
    Face.SOUTH: (0, 0, 1),
    Face.WEST: (-1, 0, 0),
    Face.EAST: (1, 0, 0),
}


class BodyErrorCode(StrEnum):
    """Why a body refused or failed an action. Stable strings: they are recorded."""

    NO_PATH = "no_path"
    OUT_OF_REACH = "out_of_reach"
    NOT_DIGGABLE = "not_diggable"
    MISSING_ITEM = "missing_item"
    NO_TABLE = "no_table"
    NO_RECIPE = "no_recipe"
    WINDOW_CLOSED = "window_closed"
    WINDOW_FULL = "window_full"
    INVENTORY_FULL = "inventory_full"
    NOT_A_CONTAINER = "not_a_container"
    NOT_PLACEABLE = "not_placeable"
    OCCUPIED = "occupied"
    NO_REFERENCE_BLOCK = "no_reference_block"
    UNKNOWN_ITEM = "unknown_item"
    UNKNOWN_BLOCK = "unknown_block"
    UNKNOWN_ENTITY = "unknown_entity"
    NOT_EDIBLE = "not_edible"
    NOT_HUNGRY = "not_hungry"
    NOT_SLEEPABLE = "not_sleepable"
    NOT_ACTIVATABLE = "not_activatable"
    INVALID_ARGUMENT = "invalid_argument"
    PREEMPTED = "preempted"
    NAV_BUSY = "nav_busy"
    CANCELLED = "cancelled"
    TIMEOUT = "timeout"
    BODY_DISCONNECTED = "body_disconnected"
    UNSUPPORTED = "unsupported"
    DIED = "died"
    #: the server (or craftbt's command policy) refused a server command
    PERMISSION_DENIED = "permission_denied"
    #: the server does not implement what the action needs (flying-squid without craftbt's plugin opens
    #: no crafting, furnace or chest window): refused at once, and no retry or replan can change it
    SERVER_UNSUPPORTED = "server_unsupported"


class BodyError(Exception):
    """A structured refusal or failure from a body."""

    def __init__(self, code: BodyErrorCode, detail: str, *, retryable: bool = False) -> None:
        super().__init__(f"{code.value}: {detail}")
        self.code = code
        self.detail = detail
        self.retryable = retryable


class ActionStatus(StrEnum):
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    CANCELLED = "cancelled"


class ItemStack(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    count: int = Field(ge=1)
    slot: int | None = None


class BlockInfo(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    pos: BlockPos
    state: dict[str, Any] = Field(default_factory=dict)

    @property
    def is_air(self) -> bool:
        return self.name in ("air", "cave_air", "void_air")


class EntityInfo(BaseModel):
    model_config = ConfigDict(frozen=True)

    id: int
    name: str  # minecraft-data entity name: "zombie", "item", "player", ...
    kind: str  # "hostile" | "passive" | "player" | "item" | "other"
    position: Position
    health: float | None = None
    item: ItemStack | None = None  # for dropped items
    #: a young animal (vanilla's negative Age): it gives no milk and drops no loot
    baby: bool = False


class WindowInfo(BaseModel):
    """An open container window (chest, furnace, crafting table)."""

    kind: str  # "chest" | "furnace" | "crafting_table" | ...
    pos: BlockPos
    slots: dict[str, list[ItemStack]] = Field(default_factory=dict)


def yaw_from_notch(degrees: float) -> float:
    """Notch yaw (degrees: 0 south, 90 west, 180 north) -> :attr:`Observation.yaw` (radians, 0 north)."""
    return math.radians((180.0 - degrees) % 360.0)


def pitch_from_notch(degrees: float) -> float:
    """Notch pitch (degrees, positive looking down) -> :attr:`Observation.pitch` (radians, positive up)."""
    return -math.radians(degrees)


class Observation(BaseModel):
    """A snapshot used by guards and acceptance checks (pre and post)."""

    tick: int
    position: Position
    #: radians, mineflayer's convention on every body: 0 faces north (-z), pi/2 west (-x), counter-clockwise
    yaw: float = 0.0
    #: radians, positive looking up (the embedded world's ``atan2(dy, horizontal)``)
    pitch: float = 0.0
    #: the biome at the player's feet (``plains``, ``taiga``), when the body knows it; priors learn per biome
    biome: str | None = None
    health: float
    food: int
    saturation: float = 0.0
    time_of_day: int
    inventory: dict[str, int]
    held_item: str | None = None
    window: WindowInfo | None = None
    dimension: str = "overworld"
    #: blocks probed for a receipt, keyed by ``"x,y,z"``; filled by the verifier, not the body.
    blocks: dict[str, str] = Field(default_factory=dict)
    #: block states (age, powered, open, ...) of the same probed positions, keyed like ``blocks``.
    block_states: dict[str, dict[str, Any]] = Field(default_factory=dict)
    #: light levels probed for a receipt (``extra.probe_light``), keyed like ``blocks``; filled by the verifier.
    light_levels: dict[str, int] = Field(default_factory=dict)
    #: entities probed for a receipt (``extra.probe_entities`` = radius); None when not probed.
    entities: list[EntityInfo] | None = None
    #: chat lines heard since a receipt's ``extra.probe_chat_since``; None when the body keeps no chat log.
    chat: list[str] | None = None
    #: the weather read for a receipt's ``extra.probe_weather``; None when not probed or the body cannot tell.
    weather: str | None = None

    def count(self, item: str) -> int:
        return self.inventory.get(item, 0)

    def block(self, pos: BlockPos) -> str | None:
        """The probed block name at ``pos``, or None if it was not probed."""
        return self.blocks.get(block_key(pos))

    def block_state(self, pos: BlockPos) -> dict[str, Any] | None:
        """The probed block state at ``pos``, or None if it was not probed."""
        return self.block_states.get(block_key(pos))


def block_key(pos: BlockPos) -> str:
    return f"{pos.x},{pos.y},{pos.z}"


@runtime_checkable
class ActionHandle(Protocol):
    """A running body action. Poll ``status()`` each tick; ``cancel`` is idempotent."""

    @property
    def kind(self) -> str: ...

    def status(self) -> ActionStatus: ...

    def error(self) -> BodyError | None: ...

    def result(self) -> dict[str, Any]: ...

    def cancel(self, reason: str = "cancelled") -> None: ...


@runtime_checkable
class Body(Protocol):
    """What every leaf talks to. See the module docstring for the timing model."""

    # -- identity and time --------------------------------------------------
    @property
    def name(self) -> str: ...

    @property
    def version(self) -> str: ...

    def now_ticks(self) -> int: ...

    def advance(self, ticks: int = 1) -> None: ...

    # -- observation ---------------------------------------------------------
    def observe(self) -> Observation: ...

    def position(self) -> Position: ...

    def block_at(self, pos: BlockPos) -> BlockInfo: ...

    def find_blocks(
        self, names: list[str], radius: int, max_count: int = 16, *, exposed: bool = False
    ) -> list[BlockPos]:
        """Blocks named ``names`` within ``radius``, nearest first.

        ``exposed`` keeps only blocks with a face open to a non-solid cell: what a
        player can see and reach without tunnelling (the buried stone under the
        feet would otherwise crowd every exposed block out of ``max_count``).
        """
        ...

    def nearest_blocks(
        self, names: Collection[str], radius: int, *, exposed: bool = False
    ) -> dict[str, BlockPos]:
        """The nearest block of each kind in ``names`` within ``radius``, keyed by the name as given.

        Exactly what ``find_blocks([name], radius, max_count=1, exposed=exposed)`` returns
        first (same distance, same tie-break, same ``exposed``), for every name at once.
        It exists because a survey wants the nearest block of many kinds: one capped
        query over all of them lets abundant stone crowd out rare ore, and one query
        per kind scans the same cube once per kind. A body answers here in one pass
        (or one bridge call). A name with no such block in range, or one this version
        does not know, is absent from the result rather than an error: it is nowhere near.
        """
        ...

    def entities(self, radius: float = 32.0, kind: str | None = None) -> list[EntityInfo]:
        """Entities within ``radius`` of the player, nearest first; ``kind`` keeps one kind only
        (``hostile``, ``passive``, ``item``, ``player``), filtered before anything is built (the
        executor's safety poll asks for hostiles every 250 ms among all the dropped items)."""
        ...

    def inventory(self) -> list[ItemStack]: ...

    def equipment(self) -> dict[str, ItemStack | None]: ...

    def time_of_day(self) -> int: ...

    def light_level(self, pos: BlockPos | None = None) -> int: ...

    def health(self) -> float: ...

    def food(self) -> int: ...

    def open_window(self) -> WindowInfo | None: ...

    # -- actions (non-blocking) ---------------------------------------------
    def goto(self, target: BlockPos, tolerance: float = 1.0) -> ActionHandle: ...

    def dig(self, pos: BlockPos) -> ActionHandle: ...

    def place(self, item: str, against: BlockPos, face: Face) -> ActionHandle: ...

    def equip(self, item: str, destination: str = "hand") -> ActionHandle: ...

    def craft(self, item: str, count: int = 1, table: BlockPos | None = None) -> ActionHandle:
        """Run ``item``'s recipe ``count`` times (so ``craft("stick", 1)`` makes 4 sticks).

        3x3 recipes need ``table`` or a crafting table within reach (``no_table``).
        """
        ...

    def open_container(self, pos: BlockPos) -> ActionHandle: ...

    def container_put(self, item: str, count: int, slot: str = "any") -> ActionHandle: ...

    def container_take(self, item: str, count: int, slot: str = "any") -> ActionHandle: ...

    def close_container(self) -> ActionHandle: ...

    def consume(self, item: str) -> ActionHandle: ...

    def attack(self, entity_id: int) -> ActionHandle: ...

    def activate_block(self, pos: BlockPos) -> ActionHandle: ...

    def use_on_entity(self, entity_id: int, item: str) -> ActionHandle:
        """Hold ``item`` and use it on a living entity in reach (vanilla's interact): an empty bucket on an
        adult cow or mooshroom becomes a milk bucket, the animal unharmed. A use that does nothing to that
        entity is refused (``not_activatable``)."""
        ...

    def use_item(self, item: str | None = None, target: BlockPos | None = None) -> ActionHandle: ...

    def sleep(self, bed: BlockPos) -> ActionHandle: ...

    def chat(self, message: str) -> ActionHandle: ...

    def toss(self, item: str, count: int) -> ActionHandle: ...
