"""CapabilityBehaviour and CheckBehaviour lifecycles against the in-memory FakeBody."""

from __future__ import annotations

from typing import Any

import py_trees
import pytest
from py_trees.common import Status
from pydantic import BaseModel, ConfigDict

from craftbt.capabilities.behaviour import PROBE_TICKS, CapabilityBehaviour, CheckBehaviour
from craftbt.capabilities.checks import CHECKS
from craftbt.capabilities.context import CapabilityContext
from craftbt.capabilities.leaves import sensing
from craftbt.capabilities.registry import Registry
from craftbt.capabilities.spec import (
    ActionResult,
    CapabilitySpec,
    Family,
    GuardResult,
    RunnerGen,
    Verdict,
    VerificationResult,
)
from craftbt.world.body import BlockPos, BodyError, BodyErrorCode
from tests.fakes import FakeBody, FakeHandle


class TicksArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    ticks: int = 100
    verdict: Verdict = Verdict.VERIFIED
    fail_start: bool = False


def run_ticks(ctx: CapabilityContext, args: TicksArgs) -> RunnerGen:
    body = ctx.body
    assert isinstance(body, FakeBody)
    if args.fail_start:
        raise BodyError(BodyErrorCode.NO_PATH, "nowhere to go", retryable=True)
    handle = yield body.start("ticks", args.ticks)
    assert handle is not None and handle.error() is None
    return ActionResult.success(ticks=args.ticks)


def accept_ticks(pre: Any, post: Any, args: TicksArgs, result: ActionResult) -> VerificationResult:
    return VerificationResult(verdict=args.verdict)


def deny_big(ctx: CapabilityContext, args: TicksArgs) -> GuardResult:
    return GuardResult.deny("too_long", "over 1000 ticks") if args.ticks > 1000 else GuardResult.allow()


TICKS = CapabilitySpec(name="ticks", version="1.0.0", family=Family.WORLD, args_model=TicksArgs,
                       runner=run_ticks, acceptance=accept_ticks, guard=deny_big, timeout_ms=60_000)


@pytest.fixture
def body() -> FakeBody:
    return FakeBody(blocks={BlockPos(1, 64, 0): "oak_log"}, inventory={"oak_log": 2})


@pytest.fixture
def ctx(body: FakeBody) -> CapabilityContext:
    registry = Registry()
    for spec in sensing.SPECS:
        registry.register(spec)
    registry.register(TICKS)
    for check in CHECKS:
        registry.register_check(check)
    return CapabilityContext(body=body, registry=registry)


def status(node: py_trees.behaviour.Behaviour) -> Status:
    """The node's status, read fresh (keeps mypy from narrowing across ticks)."""
    return node.status  # type: ignore[no-any-return]


def tick_until_done(node: py_trees.behaviour.Behaviour, body: FakeBody, limit: int = 500) -> tuple[Status, int]:
    for n in range(1, limit):
        node.tick_once()
        if node.status != Status.RUNNING:
            return node.status, n
        body.advance(1)
    raise AssertionError("never finished")


def leaf(ctx: CapabilityContext, ref: str, args: dict[str, Any], **kw: Any) -> CapabilityBehaviour:
    return CapabilityBehaviour("node", ctx.registry.get(ref), args, ctx, **kw)


def test_wait_runs_for_its_game_time_and_records_the_result(ctx: CapabilityContext, body: FakeBody) -> None:
    node = leaf(ctx, "wait", {"ms": 500})  # 10 ticks
    status, ticks = tick_until_done(node, body)
    assert status == Status.SUCCESS and ticks == 11
    assert node.result is not None and node.result.ok
    assert node.result.verification is not None and node.result.verification.verdict is Verdict.VERIFIED
    assert (node.result.started_tick, node.result.ended_tick) == (0, 10)
    storage = py_trees.blackboard.Blackboard.storage
    assert storage["/results/node"] is node.result and storage["/last_result"] is node.result


def test_chat_waits_for_its_handle(ctx: CapabilityContext, body: FakeBody) -> None:
    body.chat_ticks = 3
    node = leaf(ctx, "chat", {"message": "hi"})
    status, ticks = tick_until_done(node, body)
    assert (status, ticks, body.said) == (Status.SUCCESS, 4, ["hi"])


def test_get_block_at_reports_the_block(ctx: CapabilityContext, body: FakeBody) -> None:
    node = leaf(ctx, "get_block_at", {"position": {"x": 1, "y": 64, "z": 0}})
    assert tick_until_done(node, body)[0] == Status.SUCCESS
    assert node.result is not None and node.result.observables["block"] == "oak_log"


def test_interrupting_a_running_leaf_cancels_the_body_action(ctx: CapabilityContext, body: FakeBody) -> None:
    node = leaf(ctx, "ticks", {"ticks": 50})
    node.tick_once()
    body.advance(1)
    node.tick_once()
    assert status(node) == Status.RUNNING
    node.stop(Status.INVALID)
    handle = body.handles[-1]
    assert handle.cancelled == "interrupted"
    assert node.result is None


def test_timeout_fails_and_cancels(ctx: CapabilityContext, body: FakeBody) -> None:
    node = leaf(ctx, "ticks", {"ticks": 500}, timeout_ms=1000)  # 20 ticks
    status, ticks = tick_until_done(node, body)
    assert status == Status.FAILURE and ticks == 22
    assert node.result is not None and node.result.error is not None
    assert (node.result.error.code, node.result.error.retryable) == ("timeout", True)
    assert body.handles[-1].cancelled == "timeout"


def test_guard_denial_fails_before_anything_moves(ctx: CapabilityContext, body: FakeBody) -> None:
    node = leaf(ctx, "ticks", {"ticks": 5000})
    node.tick_once()
    assert status(node) == Status.FAILURE and body.handles == []
    assert node.result is not None and node.result.error is not None
    assert node.result.error.code == "guard_failed:too_long"


def test_body_error_at_start_is_a_structured_failure(ctx: CapabilityContext, body: FakeBody) -> None:
    node = leaf(ctx, "ticks", {"fail_start": True})
    node.tick_once()
    assert status(node) == Status.FAILURE
    assert node.result is not None and node.result.error is not None
    assert (node.result.error.code, node.result.error.retryable) == ("no_path", True)


def test_contradicted_acceptance_fails(ctx: CapabilityContext, body: FakeBody) -> None:
    node = leaf(ctx, "ticks", {"ticks": 1, "verdict": "contradicted"})
    assert tick_until_done(node, body)[0] == Status.FAILURE
    assert node.result is not None and node.result.error is not None
    assert node.result.error.code == "verification_contradicted"


#: the re-probe budget as documented (half a second of game time: ten ticks after the first look), written out
#: here so that a change to the constant, or a budget of zero, is a failing test and not a silent one
DOCUMENTED_PROBE_TICKS = 10


def test_inconclusive_is_probed_then_accepted(ctx: CapabilityContext, body: FakeBody) -> None:
    node = leaf(ctx, "ticks", {"ticks": 0, "verdict": "inconclusive"})
    status, ticks = tick_until_done(node, body)
    assert PROBE_TICKS == DOCUMENTED_PROBE_TICKS
    assert status == Status.SUCCESS and ticks == DOCUMENTED_PROBE_TICKS + 1
    assert len(body.handles) == 1  # probed, never re-dispatched
    assert node.result is not None and node.result.verification is not None
    assert node.result.verification.evidence["accepted_on_probe_timeout"] is True


def test_blackboard_references_are_resolved_at_start(ctx: CapabilityContext, body: FakeBody) -> None:
    node = leaf(ctx, "chat", {"message": "{greeting}, {who}"})
    node.tick_once()
    assert status(node) == Status.FAILURE and node.result is not None and node.result.error is not None
    assert node.result.error.code == "unknown_blackboard_key"
    py_trees.blackboard.Blackboard.set("/greeting", "hello")
    py_trees.blackboard.Blackboard.set("/who", "steve")
    node.tick_once()
    assert status(node) == Status.SUCCESS and body.said == ["hello, steve"]
    typed = leaf(ctx, "wait", {"ms": "{greeting}"})
    typed.tick_once()
    assert typed.result is not None and typed.result.error is not None
    assert typed.result.error.code == "invalid_args"


def test_the_leaf_reruns_after_completion(ctx: CapabilityContext, body: FakeBody) -> None:
    node = leaf(ctx, "chat", {"message": "again"})
    tick_until_done(node, body)
    tick_until_done(node, body)
    assert body.said == ["again", "again"]


def test_check_behaviour(ctx: CapabilityContext, body: FakeBody) -> None:
    has = CheckBehaviour("c", ctx.registry.get_check("has_item"), {"item": "oak_log", "count": 2}, ctx)
    has.tick_once()
    assert status(has) == Status.SUCCESS
    body.items["oak_log"] = 1
    has.tick_once()
    assert status(has) == Status.FAILURE
    ref = CheckBehaviour("r", ctx.registry.get_check("has_item"), {"item": "{wanted}"}, ctx)
    ref.tick_once()
    assert status(ref) == Status.FAILURE and "cannot evaluate" in ref.feedback_message
    py_trees.blackboard.Blackboard.set("/wanted", "oak_log")
    ref.tick_once()
    assert status(ref) == Status.SUCCESS


def test_fake_handle_lifecycle(body: FakeBody) -> None:
    handle = FakeHandle(body, "x", 2)
    assert handle.status().value == "running"
    handle.cancel("stop")
    assert handle.status().value == "cancelled" and handle.error() is not None
    done = body.start("y", 0, error=BodyError(BodyErrorCode.MISSING_ITEM, "none"))
    assert done.status().value == "failed" and done.error() is not None
