"""Read-only predicates for ``condition`` nodes. Each names the fact it tests."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from craftbt.capabilities.spec import CheckSpec
from craftbt.world import mcdata, terrain
from craftbt.world.body import BlockPos

if TYPE_CHECKING:
    from craftbt.capabilities.context import CapabilityContext


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid")


class HasItemArgs(_Args):
    item: str = Field(min_length=1)
    count: int = Field(default=1, ge=1)


class PositionArgs(_Args):
    x: int
    y: int
    z: int

    def as_block_pos(self) -> BlockPos:
        return BlockPos(self.x, self.y, self.z)


class BlockIsArgs(PositionArgs):
    block: str = Field(min_length=1)


class HealthAboveArgs(_Args):
    value: float = Field(ge=0, le=20)


class FoodAboveArgs(_Args):
    value: int = Field(ge=0, le=20)


class TimeBetweenArgs(_Args):
    start: int = Field(ge=0, lt=24_000)
    end: int = Field(ge=0, lt=24_000)


class BlockNearbyArgs(_Args):
    block: str = Field(min_length=1)
    radius: int = Field(default=8, ge=1, le=64)


def has_item(ctx: CapabilityContext, args: HasItemArgs) -> bool:
    return sum(s.count for s in ctx.body.inventory() if s.name == args.item) >= args.count


def is_air(ctx: CapabilityContext, args: PositionArgs) -> bool:
    return ctx.body.block_at(args.as_block_pos()).is_air


def block_is(ctx: CapabilityContext, args: BlockIsArgs) -> bool:
    return ctx.body.block_at(args.as_block_pos()).name == args.block


def can_stand(ctx: CapabilityContext, args: PositionArgs) -> bool:
    """A player can stand at the position safely: the terrain rule every leaf uses (world.terrain)."""
    body = ctx.body
    solid = terrain.solid_in(mcdata.load_or_default(str(body.version)))
    return terrain.standable(lambda p: body.block_at(p).name, solid, args.as_block_pos())


def health_above(ctx: CapabilityContext, args: HealthAboveArgs) -> bool:
    return ctx.body.health() > args.value


def food_above(ctx: CapabilityContext, args: FoodAboveArgs) -> bool:
    return ctx.body.food() > args.value


def time_between(ctx: CapabilityContext, args: TimeBetweenArgs) -> bool:
    now = ctx.body.time_of_day() % 24_000
    if args.start <= args.end:
        return args.start <= now <= args.end
    return now >= args.start or now <= args.end  # wraps past midnight


def block_nearby(ctx: CapabilityContext, args: BlockNearbyArgs) -> bool:
    return bool(ctx.body.find_blocks([args.block], args.radius, max_count=1))


CHECKS = (
    CheckSpec("has_item", HasItemArgs, has_item, "Inventory holds at least count of item", "has:{item}"),
    CheckSpec("is_air", PositionArgs, is_air, "The block at x,y,z is air", "air:{x},{y},{z}"),
    CheckSpec("block_is", BlockIsArgs, block_is, "The block at x,y,z has this name", "block:{x},{y},{z}={block}"),
    CheckSpec("can_stand", PositionArgs, can_stand, "A player can stand at x,y,z"),
    CheckSpec("health_above", HealthAboveArgs, health_above, "Health is above value"),
    CheckSpec("food_above", FoodAboveArgs, food_above, "Food is above value"),
    CheckSpec("time_between", TimeBetweenArgs, time_between, "Time of day within [start, end], wrapping"),
    CheckSpec("block_nearby", BlockNearbyArgs, block_nearby, "A block of this name within radius", "near:{block}"),
)
