"""Sensing leaves: read the world or talk, never change blocks."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from capabilities.spec import (
    ActionResult,
    CapabilitySpec,
    Family,
    Permission,
    RunnerGen,
    VerificationResult,
)
from world.body import TICKS_PER_SECOND, BlockPos, Observation

if TYPE_CHECKING:
    from capabilities.context import CapabilityContext
    from capabilities.registry import Registry


class Vec3Args(BaseModel):
    model_config = ConfigDict(extra="forbid")

    x: int
    y: int
    z: int

    def as_block_pos(self) -> BlockPos:
        return BlockPos(self.x, self.y, self.z)


# -- wait ---------------------------------------------------------------------
class WaitArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    ms: int = Field(default=1000, ge=0, le=60_000, description="How long to wait, in milliseconds")


def run_wait(ctx: CapabilityContext, args: WaitArgs) -> RunnerGen:
    until = ctx.body.now_ticks() + args.ms * TICKS_PER_SECOND // 1000
    while ctx.body.now_ticks() < until:
        yield None
    return ActionResult.success(waited_ms=args.ms)


def accept_wait(pre: Observation, post: Observation, args: WaitArgs, result: ActionResult) -> VerificationResult:
    elapsed = (post.tick - pre.tick) * 1000 // TICKS_PER_SECOND
    if elapsed >= args.ms:
        return VerificationResult.verified(elapsed_ms=elapsed)
    return VerificationResult.contradicted(elapsed_ms=elapsed, expected_ms=args.ms)


# -- chat ---------------------------------------------------------------------
class ChatArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    message: str = Field(min_length=1, max_length=256)


def run_chat(ctx: CapabilityContext, args: ChatArgs) -> RunnerGen:
    handle = yield ctx.body.chat(args.message)
    assert handle is not None
    error = handle.error()
    if error is not None:
        return ActionResult.failure(error.code.value, error.detail, retryable=error.retryable)
    return ActionResult.success(message=args.message)


def accept_chat(pre: Observation, post: Observation, args: ChatArgs, result: ActionResult) -> VerificationResult:
    if result.observables.get("message") == args.message:
        return VerificationResult.verified(message=args.message)
    return VerificationResult.inconclusive(reason="no echo of the message")


# -- get_block_at -------------------------------------------------------------
class GetBlockAtArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    position: Vec3Args


def run_get_block_at(ctx: CapabilityContext, args: GetBlockAtArgs) -> RunnerGen:
    info = ctx.body.block_at(args.position.as_block_pos())
    return ActionResult.success(block=info.name, state=info.state, position=list(info.pos))
    yield  # pragma: no cover - makes this a generator


def accept_read_only(pre: Observation, post: Observation, args: object, result: ActionResult) -> VerificationResult:
    return VerificationResult.verified(read_only=True)


def register(registry: Registry) -> None:
    registry.register(
        CapabilitySpec(
            name="wait",
            version="1.0.0",
            family=Family.SENSING,
            args_model=WaitArgs,
            runner=run_wait,
            acceptance=accept_wait,
            timeout_ms=65_000,
            idempotent=True,
            description="Let the world run for a number of milliseconds of game time.",
        )
    )
    registry.register(
        CapabilitySpec(
            name="chat",
            version="1.0.0",
            family=Family.SENSING,
            args_model=ChatArgs,
            runner=run_chat,
            acceptance=accept_chat,
            permissions=frozenset({Permission.CHAT}),
            timeout_ms=5_000,
            description="Send a chat message.",
        )
    )
    registry.register(
        CapabilitySpec(
            name="get_block_at",
            version="1.0.0",
            family=Family.SENSING,
            args_model=GetBlockAtArgs,
            runner=run_get_block_at,
            acceptance=accept_read_only,
            permissions=frozenset({Permission.SENSE}),
            timeout_ms=5_000,
            idempotent=True,
            description="Read the block at a position; the name is in observables.block.",
        )
    )
