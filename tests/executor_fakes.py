"""A small deterministic Body and test capabilities for the executor tests.

The real embedded world (``world.sim``) is preferred where a test needs real
physics; these fakes let the executor's pipeline, supervisor and detectors be
driven into exact situations (a flaky leaf, a leaf that never acts, a bot that
zig-zags) that a world would only produce by accident.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from craftbt.capabilities.checks import register as register_checks
from craftbt.capabilities.context import CapabilityContext
from craftbt.capabilities.registry import Registry
from craftbt.capabilities.spec import (
    ActionResult,
    CapabilitySpec,
    Family,
    GuardResult,
    Permission,
    Receipt,
    RunnerGen,
    VerificationResult,
)
from craftbt.world.body import (
    FACE_OFFSETS,
    ActionHandle,
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
    def __init__(self, body: FakeBody, kind: str, ticks: int, effect: Any = None,
                 error: BodyError | None = None) -> None:
        self.body = body
        self._kind = kind
        self.done_at = body.tick + ticks
        self.effect = effect
        self._error = error
        self._status = ActionStatus.RUNNING
        self._result: dict[str, Any] = {}
        body.handles.append(self)
        self._settle()

    @property
    def kind(self) -> str:
        return self._kind

    def _settle(self) -> None:
        if self._status is ActionStatus.RUNNING and self.body.tick >= self.done_at:
            if self._error is not None:
                self._status = ActionStatus.FAILED
            else:
                if self.effect is not None:
                    self._result = self.effect() or {}
                self._status = ActionStatus.SUCCEEDED

    def status(self) -> ActionStatus:
        self._settle()
        return self._status

    def error(self) -> BodyError | None:
        return self._error if self._status is ActionStatus.FAILED else None

    def result(self) -> dict[str, Any]:
        return self._result

    def cancel(self, reason: str = "cancelled") -> None:
        if self._status is ActionStatus.RUNNING:
            self._status = ActionStatus.CANCELLED
            self.body.cancelled.append(self._kind)


class FakeBody:
    """Flat world: stone at y<=63, air above; the bot stands at (0, 64, 0)."""

    def __init__(self, inventory: dict[str, int] | None = None) -> None:
        self.tick = 0
        self.pos = Position(0.5, 64.0, 0.5)
        self.inv: dict[str, int] = dict(inventory or {})
        self.blocks: dict[BlockPos, str] = {}
        self.hp = 20.0
        self.food_level = 20
        self.mobs: list[EntityInfo] = []
        self.handles: list[FakeHandle] = []
        self.cancelled: list[str] = []
        self.placed: list[BlockPos] = []
        #: scripted per-tick position offsets (for the pathfinding-flap test)
        self.wobble: list[tuple[float, float]] = []
        #: chunks the fake pretends are not loaded: block_at reports "unknown" there
        self.unloaded: set[BlockPos] = set()
        self.goto_ticks = 5
        self.place_ticks = 1

    # identity/time
    @property
    def name(self) -> str:
        return "sim"

    @property
    def version(self) -> str:
        return "fake"

    def now_ticks(self) -> int:
        return self.tick

    def advance(self, ticks: int = 1) -> None:
        for _ in range(ticks):
            self.tick += 1
            if self.wobble:
                dx, dz = self.wobble.pop(0)
                self.pos = Position(self.pos.x + dx, self.pos.y, self.pos.z + dz)

    # observation
    def observe(self) -> Observation:
        return Observation(tick=self.tick, position=self.pos, health=self.hp, food=self.food_level,
                           time_of_day=1000, inventory={k: v for k, v in self.inv.items() if v > 0})

    def position(self) -> Position:
        return self.pos

    def block_at(self, pos: BlockPos) -> BlockInfo:
        if pos in self.unloaded:
            return BlockInfo(name="unknown", pos=pos)
        if pos in self.blocks:
            return BlockInfo(name=self.blocks[pos], pos=pos)
        return BlockInfo(name="stone" if pos.y <= 63 else "air", pos=pos)

    def find_blocks(
        self, names: list[str], radius: int, max_count: int = 16, *, exposed: bool = False
    ) -> list[BlockPos]:
        return [p for p, n in self.blocks.items() if n in names][:max_count]

    def nearest_blocks(
        self, names: Collection[str], radius: int, *, exposed: bool = False
    ) -> dict[str, BlockPos]:
        """Per name, the first ``find_blocks`` hit (this fake ignores distance there too)."""
        return {n: hits[0] for n in names if (hits := self.find_blocks([n], radius, 1, exposed=exposed))}

    def entities(self, radius: float = 32.0, kind: str | None = None) -> list[EntityInfo]:
        return [e for e in self.mobs if e.position.distance_to(self.pos) <= radius and kind in (None, e.kind)]

    def inventory(self) -> list[ItemStack]:
        return [ItemStack(name=k, count=v) for k, v in self.inv.items() if v > 0]

    def equipment(self) -> dict[str, ItemStack | None]:
        return {"hand": None}

    def time_of_day(self) -> int:
        return 1000

    def light_level(self, pos: BlockPos | None = None) -> int:
        return 15

    def health(self) -> float:
        return self.hp

    def food(self) -> int:
        return self.food_level

    def open_window(self) -> WindowInfo | None:
        return None

    # actions
    def goto(self, target: BlockPos, tolerance: float = 1.0) -> ActionHandle:
        def arrive() -> dict[str, Any]:
            self.pos = Position(target.x + 0.5, float(target.y), target.z + 0.5)
            return {"arrived": True}
        return FakeHandle(self, "goto", self.goto_ticks, arrive)

    def dig(self, pos: BlockPos) -> ActionHandle:
        def broken() -> dict[str, Any]:
            name = self.block_at(pos).name
            self.blocks[pos] = "air"
            self.inv[name] = self.inv.get(name, 0) + 1
            return {"block": name}
        return FakeHandle(self, "dig", 3, broken)

    def place(self, item: str, against: BlockPos, face: Face) -> ActionHandle:
        if self.inv.get(item, 0) < 1:
            raise BodyError(BodyErrorCode.MISSING_ITEM, f"no {item}")
        dx, dy, dz = FACE_OFFSETS[face]
        target = against.offset(dx, dy, dz)
        if self.block_at(target).name not in ("air", "unknown"):
            raise BodyError(BodyErrorCode.OCCUPIED, f"{target} is occupied")

        def put() -> dict[str, Any]:
            self.inv[item] -= 1
            self.blocks[target] = item
            self.placed.append(target)
            return {"position": list(target), "block": item}
        return FakeHandle(self, "place", self.place_ticks, put)

    def equip(self, item: str, destination: str = "hand") -> ActionHandle:
        return FakeHandle(self, "equip", 1)

    def craft(self, item: str, count: int = 1, table: BlockPos | None = None) -> ActionHandle:
        def made() -> dict[str, Any]:
            self.inv[item] = self.inv.get(item, 0) + count
            return {}
        return FakeHandle(self, "craft", 2, made)

    def open_container(self, pos: BlockPos) -> ActionHandle:
        return FakeHandle(self, "open_container", 1)

    def container_put(self, item: str, count: int, slot: str = "any") -> ActionHandle:
        return FakeHandle(self, "container_put", 1)

    def container_take(self, item: str, count: int, slot: str = "any") -> ActionHandle:
        return FakeHandle(self, "container_take", 1)

    def close_container(self) -> ActionHandle:
        return FakeHandle(self, "close_container", 1)

    def consume(self, item: str) -> ActionHandle:
        def eat() -> dict[str, Any]:
            self.inv[item] -= 1
            self.food_level = 20
            return {}
        return FakeHandle(self, "consume", 2, eat)

    def attack(self, entity_id: int) -> ActionHandle:
        return FakeHandle(self, "attack", 1)

    def activate_block(self, pos: BlockPos) -> ActionHandle:
        return FakeHandle(self, "activate_block", 1)

    def use_item(self, item: str | None = None, target: BlockPos | None = None) -> ActionHandle:
        return FakeHandle(self, "use_item", 1)

    def sleep(self, bed: BlockPos) -> ActionHandle:
        return FakeHandle(self, "sleep", 1)

    def chat(self, message: str) -> ActionHandle:
        return FakeHandle(self, "chat", 0)

    def toss(self, item: str, count: int) -> ActionHandle:
        return FakeHandle(self, "toss", 1)


# -- test capabilities -----------------------------------------------------------------------
class Vec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    x: int
    y: int
    z: int


class MoveArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    pos: Vec


def run_move(ctx: CapabilityContext, args: MoveArgs) -> RunnerGen:
    handle = yield ctx.body.goto(BlockPos(args.pos.x, args.pos.y, args.pos.z))
    assert handle is not None
    err = handle.error()
    if err is not None:
        return ActionResult.failure(err.code.value, err.detail, retryable=err.retryable)
    return ActionResult.success(arrived=True)


def accept_move(pre: Observation, post: Observation, args: MoveArgs, result: ActionResult) -> VerificationResult:
    d = post.position.distance_to(Position(args.pos.x + 0.5, args.pos.y, args.pos.z + 0.5))
    return VerificationResult.verified(distance=d) if d <= 1.5 else VerificationResult.contradicted(distance=d)


class PlaceArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    item: str = Field(min_length=1)
    position: Vec


def run_place(ctx: CapabilityContext, args: PlaceArgs) -> RunnerGen:
    target = BlockPos(args.position.x, args.position.y, args.position.z)
    handle = yield ctx.body.place(args.item, target.offset(dy=-1), Face.UP)
    assert handle is not None
    err = handle.error()
    if err is not None:
        return ActionResult.failure(err.code.value, err.detail, retryable=err.retryable)
    ctx.memory["probe_body"] = ctx.body
    return ActionResult.success(receipt=Receipt(position=target, block=args.item))


def make_place_acceptance(body: FakeBody) -> Any:
    def accept(pre: Observation, post: Observation, args: PlaceArgs, result: ActionResult) -> VerificationResult:
        assert result.receipt is not None and result.receipt.position is not None
        seen = body.block_at(result.receipt.position).name
        if seen == "unknown":
            return VerificationResult.inconclusive(reason="chunk not loaded")
        if seen == args.item:
            return VerificationResult.verified(block=seen)
        return VerificationResult.contradicted(block=seen, expected=args.item)
    return accept


class NoArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CountArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    n: int = 1
    label: str = "x"


def verified(pre: Observation, post: Observation, args: Any, result: ActionResult) -> VerificationResult:
    return VerificationResult.verified()


def make_registry(body: FakeBody, *, flaky_failures: int = 0) -> Registry:
    """A registry of test capabilities bound to ``body`` (acceptance probes it like a receipt check)."""
    reg = Registry()
    register_checks(reg)
    state = {"flaky": flaky_failures, "busy": 2}

    def run_flaky(ctx: CapabilityContext, args: CountArgs) -> RunnerGen:
        handle = yield ctx.body.equip("stick")
        assert handle is not None
        if state["flaky"] > 0:
            state["flaky"] -= 1
            return ActionResult.failure("no_path", "flaky", retryable=True)
        return ActionResult.success()

    def run_silent(ctx: CapabilityContext, args: NoArgs) -> RunnerGen:
        while True:  # never issues an actuator command: TTFA and stuckness must catch it
            yield None

    def run_fatal(ctx: CapabilityContext, args: NoArgs) -> RunnerGen:
        handle = yield ctx.body.equip("stick")
        assert handle is not None
        return ActionResult.failure("not_diggable", "bedrock", retryable=False)

    def run_preempted(ctx: CapabilityContext, args: NoArgs) -> RunnerGen:
        raise BodyError(BodyErrorCode.PREEMPTED, "pathfinder preempted")
        yield None  # pragma: no cover

    def run_busy(ctx: CapabilityContext, args: NoArgs) -> RunnerGen:
        raise BodyError(BodyErrorCode.NAV_BUSY, "already navigating")
        yield None  # pragma: no cover

    def run_busy_then_free(ctx: CapabilityContext, args: NoArgs) -> RunnerGen:
        if state["busy"] > 0:
            state["busy"] -= 1
            raise BodyError(BodyErrorCode.NAV_BUSY, "already navigating")
        handle = yield ctx.body.equip("stick")
        assert handle is not None
        return ActionResult.success()

    def run_eat(ctx: CapabilityContext, args: NoArgs) -> RunnerGen:
        handle = yield ctx.body.consume("bread")
        assert handle is not None
        return ActionResult.success()

    def run_tap(ctx: CapabilityContext, args: CountArgs) -> RunnerGen:
        handle = yield ctx.body.equip("stick")
        assert handle is not None
        return ActionResult.success(n=args.n)

    def needs_table(ctx: CapabilityContext, args: NoArgs) -> GuardResult:
        return GuardResult.deny("no_table", "no crafting table nearby")

    def spec(name: str, runner: Any, args_model: Any = NoArgs, **kw: Any) -> None:
        kw.setdefault("acceptance", verified)
        kw.setdefault("family", Family.WORLD)
        kw.setdefault("retries", 2)  # the seed's local budget; tests of declared retries override it
        reg.register(CapabilitySpec(name=name, version=kw.pop("version", "1.0.0"), args_model=args_model,
                                    runner=runner, **kw))

    spec("move", run_move, MoveArgs, family=Family.MOVEMENT, permissions=frozenset({Permission.MOVEMENT}),
         acceptance=accept_move, timeout_ms=10_000)
    spec("place", run_place, PlaceArgs, family=Family.INTERACTION, permissions=frozenset({Permission.PLACE}),
         acceptance=make_place_acceptance(body), preconditions=("has:{item}",),
         effects=("block:{position.x},{position.y},{position.z}={item}",))
    spec("flaky", run_flaky, CountArgs, permissions=frozenset({Permission.INVENTORY}))
    spec("flaky_once", run_flaky, CountArgs, permissions=frozenset({Permission.INVENTORY}), retries=1)
    spec("flaky_never", run_flaky, CountArgs, permissions=frozenset({Permission.INVENTORY}), retries=0)
    spec("tap", run_tap, CountArgs, permissions=frozenset({Permission.INVENTORY}), effects=("tapped:{label}",))
    spec("silent", run_silent, timeout_ms=20_000)
    spec("fatal", run_fatal)
    spec("preempted_nav", run_preempted, family=Family.MOVEMENT)
    spec("busy_nav", run_busy, family=Family.MOVEMENT)
    spec("busy_then_free", run_busy_then_free, family=Family.MOVEMENT)
    spec("guarded", run_tap, NoArgs, guard=needs_table)
    spec("consume_food", run_eat, family=Family.SENSING, permissions=frozenset({Permission.CONSUME}))
    spec("retreat_from_threat", run_tap, CountArgs, family=Family.MOVEMENT,
         permissions=frozenset({Permission.MOVEMENT}))
    spec("redstone_thing", run_tap, CountArgs, permissions=frozenset({Permission.REDSTONE}))
    return reg
