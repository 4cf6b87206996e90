"""Test capabilities for the executor tests, bound to a :class:`tests.fakes.FlatFakeBody`.

The real embedded world (``world.sim``) is preferred where a test needs real
physics; these capabilities let the executor's pipeline, supervisor and detectors be
driven into exact situations (a flaky leaf, a leaf that never acts, a nav that is
busy) that a world would only produce by accident.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from craftbt.capabilities.checks import CHECKS
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
    BlockPos,
    BodyError,
    BodyErrorCode,
    Face,
    Observation,
    Position,
)
from tests.fakes import FlatFakeBody


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


def make_place_acceptance(body: FlatFakeBody) -> Any:
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


def make_registry(body: FlatFakeBody, *, flaky_failures: int = 0) -> Registry:
    """A registry of test capabilities bound to ``body`` (acceptance probes it like a receipt check)."""
    reg = Registry()
    for check in CHECKS:
        reg.register_check(check)
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
