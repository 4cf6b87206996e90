"""Pieces every leaf family shares: argument types, runner steps, acceptance probes.

Runner steps are generators meant for ``yield from``: they yield body handles
and return either ``None`` (the step worked) or an :class:`ActionResult`
failure the leaf should return as-is.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Generator, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, model_validator

from craftbt.capabilities.contracts import Alias, apply_aliases
from craftbt.capabilities.spec import ActionResult, VerificationResult
from craftbt.world import mcdata, terrain
from craftbt.world.body import (
    FACE_OFFSETS,
    ActionHandle,
    ActionStatus,
    BlockPos,
    BodyError,
    EntityInfo,
    Observation,
)
from craftbt.world.mcdata import McData
from craftbt.world.terrain import LIQUIDS as LIQUIDS  # the terrain rules, re-exported for the leaf families
from craftbt.world.terrain import Read
from craftbt.world.terrain import is_solid as is_solid

if TYPE_CHECKING:
    from craftbt.capabilities.context import CapabilityContext

#: Player reach for dig/place/activate, in blocks from the eyes (vanilla survival).
REACH = 4.5
EYE_HEIGHT = 1.62

Step = Generator[ActionHandle | None, ActionHandle | None, ActionResult | None]


def _seed_alias_schema(schema: dict[str, Any], model: type[BaseModel]) -> None:
    """Publish each seed alias as a property too, so schema validation (trees, LLM output) accepts it."""
    properties = schema.get("properties", {})
    for alias, name in getattr(model, "seed_aliases", {}).items():
        if name in properties:
            properties[alias] = {**properties[name], "description": f"another name for {name}"}


class StrictArgs(BaseModel):
    """Base for every leaf's args: unknown keys are an error, not silently dropped.

    ``seed_aliases`` maps seed 000's argument names (``cropType``) to this project's (``crop``): a
    tree or plan written to the seed's contract validates, and the args model holds the project's name."""

    model_config = ConfigDict(extra="forbid", json_schema_extra=_seed_alias_schema)
    seed_aliases: ClassVar[dict[str, str]] = {}

    @model_validator(mode="before")
    @classmethod
    def _accept_seed_aliases(cls, data: Any) -> Any:
        # The contract's alias rules (capabilities.contracts.apply_aliases): a run already normalized the args
        # before validating them and recorded what changed; this covers a model validated directly.
        if not cls.seed_aliases or not isinstance(data, dict):
            return data
        out, _ = apply_aliases(tuple(Alias(src, dst) for src, dst in cls.seed_aliases.items()), data)
        return out


class Vec3(StrictArgs):
    x: int
    y: int
    z: int

    def as_block_pos(self) -> BlockPos:
        return BlockPos(self.x, self.y, self.z)


class ItemCount(StrictArgs):
    item: str = Field(min_length=1)
    count: int = Field(default=1, ge=1, le=2304)


def failure_from(handle: ActionHandle, **observables: Any) -> ActionResult | None:
    """``None`` if the handle succeeded, else the failure as an ActionResult."""
    status = handle.status()
    if status is ActionStatus.SUCCEEDED:
        return None
    error = handle.error()
    if error is not None:
        return ActionResult.failure(error.code.value, error.detail, retryable=error.retryable, **observables)
    return ActionResult.failure(status.value, f"{handle.kind} ended {status.value}", **observables)


def failure_from_error(error: BodyError, **observables: Any) -> ActionResult:
    return ActionResult.failure(error.code.value, error.detail, retryable=error.retryable, **observables)


def act(start: ActionHandle) -> Step:
    """Yield one body action and return its failure, if any."""
    done = yield start
    assert done is not None
    return failure_from(done)


def perform(start: Callable[[], ActionHandle]) -> Step:
    """Start one body action (``start()``, a call on the body) and wait for it: its failure, if any, a body's
    refusal to start it included. The step of every leaf that issues one command; a leaf adds its own
    observables to the failure it gets back."""
    try:
        handle = start()
    except BodyError as err:
        return failure_from_error(err)
    return (yield from act(handle))


#: Blocks kept between a walk's end and the geofence: a walk to a cell at the fence's edge ends half a block
#: beyond it, at the cell's centre, or further along a path.
FENCE_MARGIN = 2


def inside_fence(fence: Any, pos: BlockPos) -> bool:
    """``pos`` and the cells within :data:`FENCE_MARGIN` of it lie inside ``fence`` (the run's geofence, which
    the executor puts in the leaves' memory as ``geofence``: anything with ``contains(pos)``; None: anywhere)."""
    if fence is None:
        return True
    m = FENCE_MARGIN
    return all(fence.contains(pos.offset(dx, 0, dz)) for dx, dz in ((m, 0), (-m, 0), (0, m), (0, -m)))


def within_reach(ctx: CapabilityContext, target: BlockPos, reach: float = REACH) -> bool:
    pos = ctx.body.position()
    eye = (pos.x, pos.y + EYE_HEIGHT, pos.z)
    centre = (target.x + 0.5, target.y + 0.5, target.z + 0.5)
    return sum((a - b) ** 2 for a, b in zip(eye, centre, strict=True)) <= reach * reach


#: Steps per block along a line of sight: fine enough not to step over a block's corner by more than a tenth.
SIGHT_STEPS_PER_BLOCK = 10


def sees(ctx: CapabilityContext, target: BlockPos) -> bool:
    """A straight line runs from the eyes to the centre of one of ``target``'s open faces through no solid block
    (vanilla breaks only a block the player looks at). A block in reach may lie under the floor or behind a
    wall, open only to a cave the player cannot walk into: dug from above, its drop falls where no path goes."""
    md = registry_data(ctx)
    pos = ctx.body.position()
    eye = (pos.x, pos.y + EYE_HEIGHT, pos.z)
    solid: dict[BlockPos, bool] = {}

    def blocked(cell: BlockPos) -> bool:
        if cell not in solid:
            solid[cell] = is_solid(md, ctx.body.block_at(cell).name)
        return solid[cell]

    for dx, dy, dz in FACE_OFFSETS.values():
        if blocked(target.offset(dx, dy, dz)):
            continue
        aim = (target.x + 0.5 + 0.5 * dx, target.y + 0.5 + 0.5 * dy, target.z + 0.5 + 0.5 * dz)
        steps = max(1, int(math.dist(eye, aim) * SIGHT_STEPS_PER_BLOCK))
        cells = {BlockPos(*(math.floor(a + (b - a) * i / steps) for a, b in zip(eye, aim, strict=True)))
                 for i in range(steps)}
        if not any(blocked(c) for c in cells if c != target):
            return True
    return False


def approach(ctx: CapabilityContext, target: BlockPos, reach: float = REACH) -> Step:
    """Walk until ``target`` is within reach; no-op if it already is."""
    if within_reach(ctx, target, reach):
        return None
    # The body's goto tolerance is measured from the feet, reach from the eyes: a block above the
    # bot's head (a wall's top course, a roof) is aimed at up to two cells lower, or no standable
    # cell lies "within tolerance" of it even though the eyes would reach it from the ground.
    # Any cell within ``reach - 1.5`` of the lowered aim still keeps the eyes within ``reach``.
    lower = max(0, min(2, target.y - ctx.body.position().block().y - 1))
    failure = yield from perform(lambda: ctx.body.goto(target.offset(dy=-lower), tolerance=max(1.0, reach - 1.5)))
    if failure is not None:
        return failure
    if not within_reach(ctx, target, reach):
        return ActionResult.failure("out_of_reach", f"still out of reach of {tuple(target)} after moving")
    return None


def equip(ctx: CapabilityContext, item: str, destination: str = "hand") -> Step:
    held = ctx.body.equipment().get(destination)
    if held is not None and held.name == item:
        return None
    return (yield from perform(lambda: ctx.body.equip(item, destination)))


def count_item(ctx: CapabilityContext, item: str) -> int:
    return sum(stack.count for stack in ctx.body.inventory() if stack.name == item)


def inventory_totals(ctx: CapabilityContext) -> dict[str, int]:
    """What the body holds, item -> count over all its stacks."""
    totals: dict[str, int] = {}
    for stack in ctx.body.inventory():
        totals[stack.name] = totals.get(stack.name, 0) + stack.count
    return totals


#: Filler a dig or a tunnel picks up by the stack, and how many of each a bot keeps when it needs room: a stack
#: of cobblestone (a furnace, a pit's roof), none of the rest. A mine search thins to it as it goes, and a full
#: inventory's repair (``manage_inventory`` ``make_room``) too.
FILLER_KEPT: dict[str, int] = {
    "cobblestone": 64, "cobbled_deepslate": 0, "dirt": 0, "gravel": 0, "andesite": 0, "diorite": 0,
    "granite": 0, "tuff": 0, "sand": 0, "sandstone": 0, "calcite": 0, "flint": 0,
}


def surplus_filler(held: Mapping[str, int], keep: Collection[str] = ()) -> dict[str, int]:
    """How many of each filler item in ``held`` are beyond what :data:`FILLER_KEPT` keeps; ``keep`` is never
    counted surplus."""
    return {name: count - FILLER_KEPT[name] for name, count in held.items()
            if name in FILLER_KEPT and name not in keep and count > FILLER_KEPT[name]}


# -- acceptance helpers ---------------------------------------------------------
def inventory_delta(pre: Observation, post: Observation, item: str) -> int:
    return post.count(item) - pre.count(item)


def expect_gain(pre: Observation, post: Observation, item: str, at_least: int) -> VerificationResult:
    """Verified when the inventory gained ``at_least`` of ``item``; contradicted on none."""
    gained = inventory_delta(pre, post, item)
    evidence = {"item": item, "gained": gained, "expected": at_least}
    if gained >= at_least:
        return VerificationResult.verified(**evidence)
    if gained > 0:
        return VerificationResult.inconclusive(partial=True, **evidence)
    return VerificationResult.contradicted(**evidence)


def expect_block(post: Observation, pos: BlockPos, expected: str) -> VerificationResult:
    """Tri-state probe of a receipt: the block we claim to have placed (or cleared) is there.

    The behaviour probes every receipt position into ``post.blocks`` before
    acceptance runs; an unprobed position is inconclusive, never verified.
    """
    observed = post.block(pos)
    evidence = {"position": list(pos), "expected": expected, "observed": observed}
    if observed is None:
        return VerificationResult.inconclusive(**evidence)
    if observed == expected:
        return VerificationResult.verified(**evidence)
    return VerificationResult.contradicted(**evidence)


def expect_state(post: Observation, pos: BlockPos, block: str | None, **expected: Any) -> VerificationResult:
    """Tri-state probe of a block's state (``powered=True``, ``open=False``, ``age=0``) at a receipt position.

    ``block`` (if given) must match too. Added by the farming/world/construction leaves: the behaviour
    probes receipt positions' states into ``post.block_states`` next to their names.
    """
    name = post.block(pos)
    state = post.block_state(pos)
    evidence: dict[str, Any] = {"position": list(pos), "expected": {"block": block, **expected},
                                "observed": {"block": name, **(state or {})}}
    if name is None or state is None:
        return VerificationResult.inconclusive(**evidence)
    if block is not None and name != block:
        return VerificationResult.contradicted(**evidence)
    if all(state.get(key) == value for key, value in expected.items()):
        return VerificationResult.verified(**evidence)
    return VerificationResult.contradicted(**evidence)


# -- registry facts (minecraft-data) for leaves ---------------------------------------------------
# Added by the movement/interaction/sensing leaves. Everything here is derived from world.mcdata,
# never typed in by hand, so it follows the body's Minecraft version.
def registry_data(ctx: CapabilityContext) -> McData:
    """The minecraft-data registry for the body's version (the shipped default if that one is absent)."""
    return mcdata.load_or_default(str(ctx.body.version))


def drop_names(md: McData, block: str) -> frozenset[str]:
    """Every item breaking ``block`` with an ordinary tool can drop; empty for unknown blocks."""
    return _drop_table(md).get(block, frozenset())


def blocks_dropping(md: McData, item: str) -> frozenset[str]:
    """Every breakable block whose (non-silk-touch) drops include ``item``."""
    return frozenset(b for b, drops in _drop_table(md).items() if item in drops)


_DROP_TABLES: dict[str, dict[str, frozenset[str]]] = {}


def _drop_table(md: McData) -> dict[str, frozenset[str]]:
    table = _DROP_TABLES.get(md.version)
    if table is None:
        table = {}
        for block in md.blocks():
            if not block.breakable:
                continue
            if block.loot:
                # Silk touch is not modelled and shears-only entries need shears: neither is "what it drops".
                names = frozenset(e.item for e in block.loot if e.condition is None)
            else:
                names = frozenset(block.drops)
            table[block.name] = names
        _DROP_TABLES[md.version] = table
    return table


def is_item_entity(entity: EntityInfo) -> bool:
    """A dropped item. Checks the kind as well as the name: the seed's filter missed items by name alone."""
    return entity.kind == "item" or entity.name == "item"


def body_reader(ctx: CapabilityContext, *, snapshot: bool = False) -> Read:
    """The body's block names, as the terrain rules (:mod:`craftbt.world.terrain`) read them (None where the body
    cannot see); ``snapshot``: read once for one decision (:func:`craftbt.world.terrain.body_reader`)."""
    return terrain.body_reader(ctx.body, snapshot=snapshot)


def liquid_near(ctx: CapabilityContext, cell: BlockPos) -> bool:
    """Lava or water in or next to ``cell``: digging it would let the liquid in."""
    return terrain.liquid_near(body_reader(ctx), cell)


class Issued:
    """A finished stand-in for a handle the runner keeps polling itself.

    Yielding ``Issued(handle)`` tells the behaviour a body command went out (its
    first-action hook measures time-to-first-action) without handing it the
    handle to wait on, so runners that watch a walk tick by tick (stuck
    detection, a moving target) still see every tick.
    """

    def __init__(self, handle: ActionHandle) -> None:
        self._handle = handle

    @property
    def kind(self) -> str:
        return self._handle.kind

    def status(self) -> ActionStatus:
        return ActionStatus.SUCCEEDED

    def error(self) -> BodyError | None:
        return None

    def result(self) -> dict[str, Any]:
        return {}

    def cancel(self, reason: str = "cancelled") -> None:
        self._handle.cancel(reason)
