"""A small in-memory Body for unit tests and benchmarks.

It implements the :class:`world.body.Body` protocol far enough for the sensing
leaves (wait, chat, get_block_at), the condition checks and hand-written test
capabilities: a tick clock moved by :meth:`FakeBody.advance`, a dict of
blocks, an inventory, health/food/time, and action handles that finish after
a configurable number of ticks and can be cancelled. Actions it does not model
return a handle that fails with ``unsupported``.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any

from craftbt.world.body import (
    FACE_OFFSETS,
    ActionStatus,
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


class FakeHandle:
    """Finishes ``ticks`` ticks after it was started (0 = already done when returned).

    On finishing it runs ``effect`` once (what the action does to the fake world) and keeps what
    the effect returns as its result; or it fails with ``error``.
    """

    def __init__(
        self,
        body: FakeBody,
        kind: str,
        ticks: int = 0,
        effect: Callable[[], dict[str, Any] | None] | None = None,
        *,
        error: BodyError | None = None,
        result: dict[str, Any] | None = None,
    ) -> None:
        self._body = body
        self._kind = kind
        self._done_at = body.now_ticks() + ticks
        self._effect = effect
        self._error = error
        self._result = result or {}
        self._cancelled: str | None = None
        body.handles.append(self)
        self._settle()

    @property
    def kind(self) -> str:
        return self._kind

    @property
    def cancelled(self) -> str | None:
        return self._cancelled

    def _settle(self) -> None:
        if self._effect is not None and self._error is None and self._cancelled is None \
                and self._body.now_ticks() >= self._done_at:
            effect, self._effect = self._effect, None
            self._result = effect() or {}

    def status(self) -> ActionStatus:
        if self._cancelled is not None:
            return ActionStatus.CANCELLED
        if self._body.now_ticks() < self._done_at:
            return ActionStatus.RUNNING
        self._settle()
        return ActionStatus.FAILED if self._error is not None else ActionStatus.SUCCEEDED

    def error(self) -> BodyError | None:
        if self._cancelled is not None:
            return BodyError(BodyErrorCode.CANCELLED, self._cancelled)
        return self._error if self.status() is ActionStatus.FAILED else None

    def result(self) -> dict[str, Any]:
        return self._result

    def cancel(self, reason: str = "cancelled") -> None:
        if self.status() is ActionStatus.RUNNING:
            self._cancelled = reason
            self._body.cancelled.append(self._kind)


class FakeBody:
    """Deterministic, instantaneous, and only as rich as the tests need."""

    def __init__(
        self,
        *,
        blocks: dict[BlockPos, str] | None = None,
        inventory: dict[str, int] | None = None,
        chat_ticks: int = 0,
    ) -> None:
        self.blocks: dict[BlockPos, str] = dict(blocks or {})
        self.items: dict[str, int] = dict(inventory or {})
        self.tick = 0
        self.pos = Position(0.5, 64.0, 0.5)
        self.hp = 20.0
        self.hunger = 20
        self.day_time = 1000
        self.chat_ticks = chat_ticks
        self.said: list[str] = []
        self.handles: list[FakeHandle] = []
        #: kinds of the actions that were cancelled while running, in order
        self.cancelled: list[str] = []
        #: entities ``entities()`` reports (the bot's distance and the kind filter apply)
        self.mobs: list[EntityInfo] = []

    # -- identity and time ----------------------------------------------------------
    @property
    def name(self) -> str:
        return "fake"

    @property
    def version(self) -> str:
        return "1.21.4"

    def now_ticks(self) -> int:
        return self.tick

    def advance(self, ticks: int = 1) -> None:
        self.tick += ticks
        self.day_time = (self.day_time + ticks) % 24_000

    # -- observation ----------------------------------------------------------------
    def observe(self) -> Observation:
        return Observation(
            tick=self.tick, position=self.pos, health=self.hp, food=self.hunger,
            time_of_day=self.day_time, inventory=dict(self.items),
        )

    def position(self) -> Position:
        return self.pos

    def block_at(self, pos: BlockPos) -> BlockInfo:
        pos = BlockPos(*pos)
        return BlockInfo(name=self.blocks.get(pos, self.ground(pos)), pos=pos)

    def ground(self, pos: BlockPos) -> str:
        """What is at ``pos`` when nothing was put there: air everywhere in this fake."""
        return "air"

    def find_blocks(
        self, names: list[str], radius: int, max_count: int = 16, *, exposed: bool = False
    ) -> list[BlockPos]:
        here = self.pos.block()
        found = [
            p for p, n in self.blocks.items()
            if n in names and p.distance_to(here) <= radius and (not exposed or self._open(p))
        ]
        return sorted(found, key=lambda p: p.distance_to(here))[:max_count]

    def nearest_blocks(
        self, names: Collection[str], radius: int, *, exposed: bool = False
    ) -> dict[str, BlockPos]:
        """Per name, the first ``find_blocks`` hit (the fake's own meaning of nearest)."""
        return {n: hits[0] for n in names if (hits := self.find_blocks([n], radius, 1, exposed=exposed))}

    def _open(self, pos: BlockPos) -> bool:
        return any(
            self.block_at(pos.offset(*d)).name == "air"
            for d in ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1))
        )

    def entities(self, radius: float = 32.0, kind: str | None = None) -> list[EntityInfo]:
        return [e for e in self.mobs if e.position.distance_to(self.pos) <= radius and kind in (None, e.kind)]

    def inventory(self) -> list[ItemStack]:
        return [ItemStack(name=n, count=c) for n, c in sorted(self.items.items()) if c > 0]

    def equipment(self) -> dict[str, ItemStack | None]:
        return {"hand": None}

    def time_of_day(self) -> int:
        return self.day_time

    def light_level(self, pos: BlockPos | None = None) -> int:
        return 15

    def health(self) -> float:
        return self.hp

    def food(self) -> int:
        return self.hunger

    def open_window(self) -> WindowInfo | None:
        return None

    # -- actions ----------------------------------------------------------------------
    def chat(self, message: str) -> FakeHandle:
        if not message:
            raise BodyError(BodyErrorCode.INVALID_ARGUMENT, "empty chat message")
        self.said.append(message)
        return FakeHandle(self, "chat", self.chat_ticks)

    def chat_messages(self, since: int = 0) -> tuple[int, list[str]]:
        """The server's echo of what was said (chat acceptance reads it)."""
        lines = [f"<fake> {m}" for m in self.said]
        return len(lines), lines[since:]

    def start(
        self,
        kind: str,
        ticks: int,
        effect: Callable[[], dict[str, Any] | None] | None = None,
        *,
        error: BodyError | None = None,
    ) -> FakeHandle:
        """A generic action: finishes after ``ticks`` (running ``effect`` on the fake world then), or fails."""
        return FakeHandle(self, kind, ticks, effect, error=error)

    def _unsupported(self, kind: str) -> FakeHandle:
        return FakeHandle(self, kind, 0, error=BodyError(BodyErrorCode.UNSUPPORTED, f"fake body cannot {kind}"))

    def goto(self, target: BlockPos, tolerance: float = 1.0) -> FakeHandle:
        return self._unsupported("goto")

    def dig(self, pos: BlockPos) -> FakeHandle:
        return self._unsupported("dig")

    def place(self, item: str, against: BlockPos, face: Face) -> FakeHandle:
        return self._unsupported("place")

    def equip(self, item: str, destination: str = "hand") -> FakeHandle:
        return self._unsupported("equip")

    def craft(self, item: str, count: int = 1, table: BlockPos | None = None) -> FakeHandle:
        return self._unsupported("craft")

    def open_container(self, pos: BlockPos) -> FakeHandle:
        return self._unsupported("open_container")

    def container_put(self, item: str, count: int, slot: str = "any") -> FakeHandle:
        return self._unsupported("container_put")

    def container_take(self, item: str, count: int, slot: str = "any") -> FakeHandle:
        return self._unsupported("container_take")

    def close_container(self) -> FakeHandle:
        return self._unsupported("close_container")

    def consume(self, item: str) -> FakeHandle:
        return self._unsupported("consume")

    def attack(self, entity_id: int) -> FakeHandle:
        return self._unsupported("attack")

    def activate_block(self, pos: BlockPos) -> FakeHandle:
        return self._unsupported("activate_block")

    def use_on_entity(self, entity_id: int, item: str) -> FakeHandle:
        return self._unsupported("use_on_entity")

    def use_item(self, item: str | None = None, target: BlockPos | None = None) -> FakeHandle:
        return self._unsupported("use_item")

    def sleep(self, bed: BlockPos) -> FakeHandle:
        return self._unsupported("sleep")

    def toss(self, item: str, count: int) -> FakeHandle:
        return self._unsupported("toss")


class FlatFakeBody(FakeBody):
    """A flat world whose actions work: stone at y <= 63, air above, the bot at (0, 64, 0).

    The executor tests drive the pipeline, supervisor and detectors into exact situations with it
    (a walk that zig-zags, a chunk that is not loaded, an action cancelled mid-way) that the
    embedded world would produce only by accident. Actions finish after a few ticks and change
    the fake world as the real ones would.
    """

    def __init__(self, *, blocks: dict[BlockPos, str] | None = None, inventory: dict[str, int] | None = None) -> None:
        super().__init__(blocks=blocks, inventory=inventory)
        self.placed: list[BlockPos] = []
        #: scripted per-tick position offsets (for the pathfinding-flap test)
        self.wobble: list[tuple[float, float]] = []
        #: positions the fake pretends are in unloaded chunks: block_at reports "unknown" there
        self.unloaded: set[BlockPos] = set()
        self.goto_ticks = 5
        self.place_ticks = 1

    @property
    def name(self) -> str:
        return "sim"

    def advance(self, ticks: int = 1) -> None:
        for _ in range(ticks):
            super().advance(1)
            if self.wobble:
                dx, dz = self.wobble.pop(0)
                self.pos = Position(self.pos.x + dx, self.pos.y, self.pos.z + dz)

    def block_at(self, pos: BlockPos) -> BlockInfo:
        if BlockPos(*pos) in self.unloaded:
            return BlockInfo(name="unknown", pos=BlockPos(*pos))
        return super().block_at(pos)

    def ground(self, pos: BlockPos) -> str:
        return "stone" if pos.y <= 63 else "air"

    def goto(self, target: BlockPos, tolerance: float = 1.0) -> FakeHandle:
        def arrive() -> dict[str, Any]:
            self.pos = Position(target.x + 0.5, float(target.y), target.z + 0.5)
            return {"arrived": True}
        return self.start("goto", self.goto_ticks, arrive)

    def dig(self, pos: BlockPos) -> FakeHandle:
        def broken() -> dict[str, Any]:
            name = self.block_at(pos).name
            self.blocks[pos] = "air"
            self.items[name] = self.items.get(name, 0) + 1
            return {"block": name}
        return self.start("dig", 3, broken)

    def place(self, item: str, against: BlockPos, face: Face) -> FakeHandle:
        if self.items.get(item, 0) < 1:
            raise BodyError(BodyErrorCode.MISSING_ITEM, f"no {item}")
        dx, dy, dz = FACE_OFFSETS[face]
        target = against.offset(dx, dy, dz)
        if self.block_at(target).name not in ("air", "unknown"):
            raise BodyError(BodyErrorCode.OCCUPIED, f"{target} is occupied")

        def put() -> dict[str, Any]:
            self.items[item] -= 1
            self.blocks[target] = item
            self.placed.append(target)
            return {"position": list(target), "block": item}
        return self.start("place", self.place_ticks, put)

    def equip(self, item: str, destination: str = "hand") -> FakeHandle:
        return self.start("equip", 1)

    def craft(self, item: str, count: int = 1, table: BlockPos | None = None) -> FakeHandle:
        def made() -> dict[str, Any]:
            self.items[item] = self.items.get(item, 0) + count
            return {}
        return self.start("craft", 2, made)

    def open_container(self, pos: BlockPos) -> FakeHandle:
        return self.start("open_container", 1)

    def container_put(self, item: str, count: int, slot: str = "any") -> FakeHandle:
        return self.start("container_put", 1)

    def container_take(self, item: str, count: int, slot: str = "any") -> FakeHandle:
        return self.start("container_take", 1)

    def close_container(self) -> FakeHandle:
        return self.start("close_container", 1)

    def consume(self, item: str) -> FakeHandle:
        def eat() -> dict[str, Any]:
            self.items[item] -= 1
            self.hunger = 20
            return {}
        return self.start("consume", 2, eat)

    def attack(self, entity_id: int) -> FakeHandle:
        return self.start("attack", 1)

    def activate_block(self, pos: BlockPos) -> FakeHandle:
        return self.start("activate_block", 1)

    def use_on_entity(self, entity_id: int, item: str) -> FakeHandle:
        return self.start("use_on_entity", 1)

    def use_item(self, item: str | None = None, target: BlockPos | None = None) -> FakeHandle:
        return self.start("use_item", 1)

    def sleep(self, bed: BlockPos) -> FakeHandle:
        return self.start("sleep", 1)

    def toss(self, item: str, count: int) -> FakeHandle:
        return self.start("toss", 1)
