"""A Body proxy that records every actuator command: the action trace and the stuckness signal.

Leaves talk to the Body protocol; the executor hands them this proxy so every
action call (goto, dig, place, craft, ...) is seen with the tick it was issued
on, and the handles it returned can be checked for in-flight work. In shadow
mode it refuses every action as a last line of defence (the pipeline already
keeps shadow leaves from dispatching); likewise it refuses a server command
(a chat line starting with ``/``) that ``command_gate`` does not allow, so a
plugin leaf that calls ``body.chat("/op ...")`` itself gets no further than one
that declares its command.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any

from craftbt.world.body import (
    ActionHandle,
    ActionStatus,
    BlockInfo,
    BlockPos,
    Body,
    BodyError,
    BodyErrorCode,
    EntityInfo,
    Face,
    ItemStack,
    Observation,
    Position,
    WindowInfo,
)

ActionListener = Callable[[str, dict[str, Any], int], None]


class MonitoredBody:
    """Delegates to ``inner``; calls ``listener(kind, args, tick)`` on every actuator command."""

    def __init__(self, inner: Body, listener: ActionListener | None = None) -> None:
        self.inner = inner
        self.listener = listener
        self.shadow = False
        #: why a server command may not run (None: it may); unset: no command runs at all
        self.command_gate: Callable[[str], str | None] = lambda line: "no command policy configured"
        self.last_command_tick: int | None = None
        self.last_busy_tick: int | None = None
        self.commands = 0
        self._in_flight: list[ActionHandle] = []

    # -- bookkeeping ------------------------------------------------------------
    def in_flight(self) -> bool:
        """Whether a command is still running; a running command counts as actuator activity."""
        self._in_flight = [h for h in self._in_flight if h.status() is ActionStatus.RUNNING]
        if self._in_flight:
            self.last_busy_tick = self.inner.now_ticks()
        return bool(self._in_flight)

    def _act(self, kind: str, args: dict[str, Any], call: Callable[[], ActionHandle]) -> ActionHandle:
        if self.shadow:
            raise BodyError(BodyErrorCode.UNSUPPORTED, f"shadow mode: {kind} not dispatched")
        tick = self.inner.now_ticks()
        handle = call()
        self.last_command_tick = tick
        self.commands += 1
        if handle.status() is ActionStatus.RUNNING:
            self._in_flight.append(handle)
            if len(self._in_flight) > 64:  # bounded: finished handles are dropped on the next check
                self.in_flight()
        if self.listener is not None:
            self.listener(kind, args, tick)
        return handle

    # -- identity and time -------------------------------------------------------
    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def version(self) -> str:
        return self.inner.version

    def now_ticks(self) -> int:
        return self.inner.now_ticks()

    def advance(self, ticks: int = 1) -> None:
        self.inner.advance(ticks)

    # -- observation ----------------------------------------------------------------
    def observe(self) -> Observation:
        return self.inner.observe()

    def position(self) -> Position:
        return self.inner.position()

    def block_at(self, pos: BlockPos) -> BlockInfo:
        return self.inner.block_at(pos)

    def find_blocks(
        self, names: list[str], radius: int, max_count: int = 16, *, exposed: bool = False
    ) -> list[BlockPos]:
        return self.inner.find_blocks(names, radius, max_count, exposed=exposed)

    def nearest_blocks(
        self, names: Collection[str], radius: int, *, exposed: bool = False
    ) -> dict[str, BlockPos]:
        return self.inner.nearest_blocks(names, radius, exposed=exposed)

    def entities(self, radius: float = 32.0, kind: str | None = None) -> list[EntityInfo]:
        return self.inner.entities(radius, kind)

    def inventory(self) -> list[ItemStack]:
        return self.inner.inventory()

    def equipment(self) -> dict[str, ItemStack | None]:
        return self.inner.equipment()

    def time_of_day(self) -> int:
        return self.inner.time_of_day()

    def light_level(self, pos: BlockPos | None = None) -> int:
        return self.inner.light_level(pos)

    def health(self) -> float:
        return self.inner.health()

    def food(self) -> int:
        return self.inner.food()

    def open_window(self) -> WindowInfo | None:
        return self.inner.open_window()

    # -- actions ----------------------------------------------------------------------
    def goto(self, target: BlockPos, tolerance: float = 1.0) -> ActionHandle:
        return self._act("goto", {"target": list(target), "tolerance": tolerance},
                         lambda: self.inner.goto(target, tolerance))

    def dig(self, pos: BlockPos) -> ActionHandle:
        return self._act("dig", {"pos": list(pos)}, lambda: self.inner.dig(pos))

    def build_up(self, item: str) -> ActionHandle:
        """A body extension (jump-place; sim and mineflayer have it), monitored and shadow-refused like any action."""
        build: Callable[[str], ActionHandle] | None = getattr(self.inner, "build_up", None)
        if build is None:
            raise BodyError(BodyErrorCode.UNSUPPORTED, "this body has no jump-place")
        return self._act("build_up", {"item": item}, lambda: build(item))

    def place(self, item: str, against: BlockPos, face: Face) -> ActionHandle:
        return self._act("place", {"item": item, "against": list(against), "face": face.value},
                         lambda: self.inner.place(item, against, face))

    def equip(self, item: str, destination: str = "hand") -> ActionHandle:
        return self._act("equip", {"item": item, "destination": destination},
                         lambda: self.inner.equip(item, destination))

    def craft(self, item: str, count: int = 1, table: BlockPos | None = None) -> ActionHandle:
        return self._act("craft", {"item": item, "count": count, "table": list(table) if table else None},
                         lambda: self.inner.craft(item, count, table))

    def open_container(self, pos: BlockPos) -> ActionHandle:
        return self._act("open_container", {"pos": list(pos)}, lambda: self.inner.open_container(pos))

    def container_put(self, item: str, count: int, slot: str = "any") -> ActionHandle:
        return self._act("container_put", {"item": item, "count": count, "slot": slot},
                         lambda: self.inner.container_put(item, count, slot))

    def container_take(self, item: str, count: int, slot: str = "any") -> ActionHandle:
        return self._act("container_take", {"item": item, "count": count, "slot": slot},
                         lambda: self.inner.container_take(item, count, slot))

    def close_container(self) -> ActionHandle:
        return self._act("close_container", {}, self.inner.close_container)

    def consume(self, item: str) -> ActionHandle:
        return self._act("consume", {"item": item}, lambda: self.inner.consume(item))

    def attack(self, entity_id: int) -> ActionHandle:
        return self._act("attack", {"entity_id": entity_id}, lambda: self.inner.attack(entity_id))

    def activate_block(self, pos: BlockPos) -> ActionHandle:
        return self._act("activate_block", {"pos": list(pos)}, lambda: self.inner.activate_block(pos))

    def use_on_entity(self, entity_id: int, item: str) -> ActionHandle:
        return self._act("use_on_entity", {"entity_id": entity_id, "item": item},
                         lambda: self.inner.use_on_entity(entity_id, item))

    def use_item(self, item: str | None = None, target: BlockPos | None = None) -> ActionHandle:
        return self._act("use_item", {"item": item, "target": list(target) if target else None},
                         lambda: self.inner.use_item(item, target))

    def sleep(self, bed: BlockPos) -> ActionHandle:
        return self._act("sleep", {"bed": list(bed)}, lambda: self.inner.sleep(bed))

    def chat(self, message: str) -> ActionHandle:
        if isinstance(message, str) and message.lstrip().startswith("/"):
            refusal = self.command_gate(message)
            if refusal is not None:
                raise BodyError(BodyErrorCode.PERMISSION_DENIED, refusal)
        return self._act("chat", {"message": message}, lambda: self.inner.chat(message))

    def toss(self, item: str, count: int) -> ActionHandle:
        return self._act("toss", {"item": item, "count": count}, lambda: self.inner.toss(item, count))

    def __getattr__(self, name: str) -> Any:
        # Body extensions (e.g. the simulator's fork/snapshot) pass through untouched.
        return getattr(self.inner, name)
