"""Sensing leaves: read the world or talk, never change blocks.

wait, chat, get_block_at, sense_hostiles, get_light_level, find_resource (seed 000, "Sensing Leaves").
Two of them can publish what they saw to the blackboard (``store_as``) so that later
leaves read it through ``{key}`` references.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

import py_trees
from pydantic import BaseModel, ConfigDict, Field

from craftbt.capabilities.leaves.common import EYE_HEIGHT, StrictArgs, registry_data
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
from craftbt.world.body import TICKS_PER_SECOND, BlockPos, BodyError, Observation, Position, block_key

if TYPE_CHECKING:
    from craftbt.capabilities.context import CapabilityContext


class Vec3Args(BaseModel):
    model_config = ConfigDict(extra="forbid")

    x: int
    y: int
    z: int

    def as_block_pos(self) -> BlockPos:
        return BlockPos(self.x, self.y, self.z)


# -- wait ---------------------------------------------------------------------
MAX_WAIT_MS = 300_000


class WaitArgs(StrictArgs):
    seed_aliases: ClassVar[dict[str, str]] = {"checkAbort": "check_abort"}

    #: seed 000: "max 5 min"
    ms: int = Field(default=1000, ge=0, le=MAX_WAIT_MS, description="How long to wait, in milliseconds (at most 5 min)")
    check_abort: bool = Field(default=True, description="Stop early when the executor interrupts the wait "
                              "(always so here: an interrupted leaf is cancelled)")


def run_wait(ctx: CapabilityContext, args: WaitArgs) -> RunnerGen:
    # whole ticks, rounded up: a wait of 1 or 75 ms is at least that long (the acceptance check's terms)
    until = ctx.body.now_ticks() + -(-args.ms * TICKS_PER_SECOND // 1000)
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


def _chat_index(ctx: CapabilityContext) -> int | None:
    """Where the body's chat log ends now (None: this body keeps none)."""
    heard = getattr(ctx.body, "chat_messages", None)
    if not callable(heard):
        return None
    try:
        return int(heard(0)[0])
    except BodyError:
        return None


def run_chat(ctx: CapabilityContext, args: ChatArgs) -> RunnerGen:
    since = _chat_index(ctx)
    handle = yield ctx.body.chat(args.message)
    assert handle is not None
    error = handle.error()
    if error is not None:
        return ActionResult.failure(error.code.value, error.detail, retryable=error.retryable)
    extra: dict[str, Any] = {} if since is None else {"probe_chat_since": since}
    return ActionResult.success(receipt=Receipt(extra=extra), message=args.message)


def chat_effects(args: dict[str, Any]) -> tuple[str, ...]:
    """``/give <target> <item> [count]`` makes ``has:<item>`` true, so a tree that gives itself
    materials passes the feasibility gate."""
    words = str(args.get("message", "")).split()
    if len(words) >= 3 and words[0] == "/give":
        return (f"has:{words[2].removeprefix('minecraft:')}",)
    return ()


def chat_command(args: dict[str, Any]) -> str | None:
    """A message that starts with ``/`` is a server command, not chat."""
    message = str(args.get("message", ""))
    return message if message.lstrip().startswith("/") else None


def accept_chat(pre: Observation, post: Observation, args: ChatArgs, result: ActionResult) -> VerificationResult:
    """Verified when the chat log shows the message (a server echoes it back); a command, when the log
    shows any answer. Not heard yet: inconclusive (probed again); a body with no chat log: inconclusive."""
    if post.chat is None:
        return VerificationResult.inconclusive(reason="the body keeps no chat log", message=args.message)
    if chat_command(args.model_dump()) is not None:
        if post.chat:
            return VerificationResult.verified(command=args.message, answer=post.chat[-1])
        return VerificationResult.inconclusive(reason="no answer to the command yet", command=args.message)
    if any(args.message in line for line in post.chat):
        return VerificationResult.verified(message=args.message, heard=True)
    return VerificationResult.inconclusive(reason="the message was not heard in the chat yet", message=args.message)


# -- get_block_at -------------------------------------------------------------
class GetBlockAtArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    position: Vec3Args


def run_get_block_at(ctx: CapabilityContext, args: GetBlockAtArgs) -> RunnerGen:
    info = ctx.body.block_at(args.position.as_block_pos())
    return ActionResult.success(receipt=Receipt(position=info.pos, block=info.name), block=info.name,
                                state=info.state, position=list(info.pos))
    yield  # pragma: no cover - makes this a generator


def accept_get_block_at(pre: Observation, post: Observation, args: GetBlockAtArgs,
                        result: ActionResult) -> VerificationResult:
    """The verifier reads the block again: the same name is verified, another contradicts the reading."""
    pos = args.position.as_block_pos()
    seen = post.block(pos)
    evidence = {"position": list(pos), "reported": result.observables.get("block"), "probed": seen}
    if seen is None:
        return VerificationResult.inconclusive(reason="the block could not be read again", **evidence)
    if seen == result.observables.get("block"):
        return VerificationResult.verified(**evidence)
    return VerificationResult.contradicted(**evidence)

# -- shared: publishing to the blackboard ------------------------------------------
#: A blackboard key a leaf may write; the same shape ``{key}`` references accept.
BLACKBOARD_KEY = r"^/?[A-Za-z_][A-Za-z0-9_/]*$"


def publish(key: str | None, value: Any) -> None:
    if key is not None:
        py_trees.blackboard.Blackboard.set(key if key.startswith("/") else "/" + key, value)


def _distance(a: Position, b: Position) -> float:
    return round(a.distance_to(b), 2)


# -- sense_hostiles -------------------------------------------------------------
class SenseHostilesArgs(StrictArgs):
    radius: float = Field(default=16.0, gt=0, le=64, description="Scan radius around the player, in blocks")
    includePassive: bool = Field(default=False, description="Also report passive mobs (under observables.passive)")
    store_as: str | None = Field(
        default=None,
        pattern=BLACKBOARD_KEY,
        description="Blackboard key that receives the hostile list (nearest first); not written when absent",
    )


def run_sense_hostiles(ctx: CapabilityContext, args: SenseHostilesArgs) -> RunnerGen:
    me = ctx.body.position()
    hostiles: list[dict[str, Any]] = []
    passive: list[dict[str, Any]] = []
    for entity in ctx.body.entities(args.radius):
        distance = _distance(me, entity.position)
        if distance > args.radius:
            continue
        entry = {
            "id": entity.id,
            "name": entity.name,
            "distance": distance,
            "position": {"x": entity.position.x, "y": entity.position.y, "z": entity.position.z},
        }
        if entity.kind == "hostile":
            hostiles.append(entry)
        elif args.includePassive and entity.kind == "passive":
            passive.append(entry)
    hostiles.sort(key=lambda e: e["distance"])
    passive.sort(key=lambda e: e["distance"])
    publish(args.store_as, hostiles)
    observables: dict[str, Any] = {
        "hostiles": hostiles,
        "count": len(hostiles),
        "nearestDistance": hostiles[0]["distance"] if hostiles else -1,
    }
    if args.includePassive:
        observables["passive"] = passive
    return ActionResult.success(receipt=Receipt(extra={"probe_entities": args.radius}), **observables)
    yield  # pragma: no cover - makes this a generator


#: a mob moves at most about this far in the tick between the reading and the verifier's own look
HOSTILE_SLACK = 1.5


def accept_sense_hostiles(pre: Observation, post: Observation, args: SenseHostilesArgs,
                          result: ActionResult) -> VerificationResult:
    """The verifier looks again: every hostile well inside the radius must have been reported (a miss
    contradicts the reading); a reported one that is gone (killed, despawned) is inconclusive."""
    if post.entities is None:
        return VerificationResult.inconclusive(reason="the entities could not be listed again")
    reported = {h["id"] for h in result.observables.get("hostiles", [])}
    if result.observables.get("count") != len(reported):
        return VerificationResult.contradicted(reason="count does not match the list", count=len(reported))
    me = post.position
    near = {e.id: e for e in post.entities if e.kind == "hostile"}
    missed = [e.name for i, e in near.items()
              if i not in reported and _distance(me, e.position) <= args.radius - HOSTILE_SLACK]
    evidence = {"reported": len(reported), "probed": len(near), "missed": missed}
    if missed:
        return VerificationResult.contradicted(**evidence)
    if not reported <= set(near):
        return VerificationResult.inconclusive(reason="a reported hostile is gone", **evidence)
    return VerificationResult.verified(**evidence)


# -- get_light_level -------------------------------------------------------------
#: Seed 000: a position with light below this is "unsafe" (mobs may spawn, place a torch).
SAFE_LIGHT = 8


class GetLightLevelArgs(StrictArgs):
    position: Vec3Args | None = Field(default=None, description="Block to read; the player's feet block when absent")


def run_get_light_level(ctx: CapabilityContext, args: GetLightLevelArgs) -> RunnerGen:
    pos = args.position.as_block_pos() if args.position is not None else ctx.body.position().block()
    level = ctx.body.light_level(pos)
    return ActionResult.success(receipt=Receipt(position=pos, extra={"probe_light": True}), lightLevel=level,
                                isSafe=level >= SAFE_LIGHT, position=list(pos))
    yield  # pragma: no cover - makes this a generator


def accept_get_light_level(pre: Observation, post: Observation, args: GetLightLevelArgs,
                           result: ActionResult) -> VerificationResult:
    """The verifier reads the light again: equal is verified; one level apart (dusk, a torch placed
    meanwhile) is inconclusive; further apart contradicts the reading, and so does a wrong isSafe."""
    receipt = result.receipt
    level = result.observables.get("lightLevel")
    if receipt is None or receipt.position is None or not isinstance(level, int):
        return VerificationResult.contradicted(reason="no reading to check")
    probed = post.light_levels.get(block_key(receipt.position))
    evidence = {"position": list(receipt.position), "reported": level, "probed": probed}
    if result.observables.get("isSafe") != (level >= SAFE_LIGHT) or not 0 <= level <= 15:
        return VerificationResult.contradicted(reason="isSafe or the level is malformed", **evidence)
    if probed is None:
        return VerificationResult.inconclusive(reason="the light could not be read again", **evidence)
    if probed == level:
        return VerificationResult.verified(**evidence)
    if abs(probed - level) == 1:
        return VerificationResult.inconclusive(**evidence)
    return VerificationResult.contradicted(**evidence)


# -- find_resource ---------------------------------------------------------------
class FindResourceArgs(StrictArgs):
    blockType: str = Field(min_length=1, description="Block name (e.g. oak_log), or a fragment with partialMatch")
    radius: int = Field(default=16, ge=1, le=64, description="Search radius around the player, in blocks")
    maxResults: int = Field(default=10, ge=1, le=64, description="At most this many positions, nearest first")
    partialMatch: bool = Field(
        default=False, description="Match every block whose name contains blockType (e.g. '_log' finds all logs)"
    )
    store_as: str | None = Field(
        default=None,
        pattern=BLACKBOARD_KEY,
        description="Blackboard key that receives the nearest position as {x, y, z} (for move_to/get_block_at)",
    )


def resource_names(ctx: CapabilityContext, args: FindResourceArgs) -> list[str]:
    md = registry_data(ctx)
    if args.partialMatch:
        return sorted(b.name for b in md.blocks() if args.blockType in b.name)
    return [md.block(args.blockType).name] if md.has_block(args.blockType) else []


def guard_find_resource(ctx: CapabilityContext, args: FindResourceArgs) -> GuardResult:
    if not resource_names(ctx, args):
        how = "contains" if args.partialMatch else "is"
        return GuardResult.deny("unknown_block", f"no block name {how} {args.blockType!r}")
    return GuardResult.allow()


def run_find_resource(ctx: CapabilityContext, args: FindResourceArgs) -> RunnerGen:
    names = resource_names(ctx, args)
    me = ctx.body.position()
    eye = Position(me.x, me.y + EYE_HEIGHT, me.z)
    # The body's own search may return candidates in scan order; ask for a few more and sort here.
    found = ctx.body.find_blocks(names, args.radius, max_count=min(4 * args.maxResults, 256))
    found = sorted(found, key=lambda p: eye.distance_to(Position(p.x + 0.5, p.y + 0.5, p.z + 0.5)))
    found = found[: args.maxResults]
    if not found:
        return ActionResult.failure(
            "not_found", f"no {args.blockType} within {args.radius} blocks", count=0, positions=[]
        )
    positions = [
        {
            "x": p.x,
            "y": p.y,
            "z": p.z,
            "distance": round(eye.distance_to(Position(p.x + 0.5, p.y + 0.5, p.z + 0.5)), 2),
            "name": names[0] if len(names) == 1 else ctx.body.block_at(p).name,
        }
        for p in found
    ]
    nearest = {"x": found[0].x, "y": found[0].y, "z": found[0].z}
    publish(args.store_as, nearest)
    return ActionResult.success(
        receipt=Receipt(positions=found),
        positions=positions, count=len(positions), nearest=nearest, nearestDistance=positions[0]["distance"]
    )
    yield  # pragma: no cover - makes this a generator


def accept_find_resource(pre: Observation, post: Observation, args: FindResourceArgs,
                         result: ActionResult) -> VerificationResult:
    """The verifier reads every reported position again: each must hold a block of the kind asked for."""
    wanted = args.blockType.removeprefix("minecraft:")
    checked: list[dict[str, Any]] = []
    unread = 0
    for entry in result.observables.get("positions", []):
        seen = post.block(BlockPos(entry["x"], entry["y"], entry["z"]))
        if seen is None:
            unread += 1
            continue
        match = wanted in seen if args.partialMatch else seen == wanted
        checked.append({"position": [entry["x"], entry["y"], entry["z"]], "probed": seen, "match": match})
    wrong = [c for c in checked if not c["match"]]
    evidence = {"probed": len(checked), "unread": unread, "wrong": wrong[:5]}
    if wrong:
        return VerificationResult.contradicted(**evidence)
    if not checked:
        return VerificationResult.inconclusive(reason="no reported position could be read again", **evidence)
    return VerificationResult.verified(**evidence)


#: What this module registers (a built-in plugin: see :data:`capabilities.default.BUILTIN_PLUGINS`).
SPECS: tuple[CapabilitySpec, ...] = (
    CapabilitySpec(
        name="wait",
        version="1.0.0",
        awaits_world=True,
        family=Family.SENSING,
        args_model=WaitArgs,
        runner=run_wait,
        acceptance=accept_wait,
        timeout_ms=MAX_WAIT_MS + 5_000,  # the longest wait plus the verifier's probes
        idempotent=True,
        description="Let the world run for a number of milliseconds of game time.",
    ),
    CapabilitySpec(
        name="chat",
        version="1.0.0",
        family=Family.SENSING,
        args_model=ChatArgs,
        runner=run_chat,
        acceptance=accept_chat,
        permissions=frozenset({Permission.CHAT}),
        timeout_ms=5_000,
        effects_of=chat_effects,
        command_of=chat_command,
        description=(
            "Send a chat message. A message starting with / is a server command (/give, /setblock, ...): it "
            "needs the command permission (--profile operator) and the command on the allowlist."
        ),
    ),
    CapabilitySpec(
        name="get_block_at",
        version="1.0.0",
        family=Family.SENSING,
        args_model=GetBlockAtArgs,
        runner=run_get_block_at,
        acceptance=accept_get_block_at,
        permissions=frozenset({Permission.SENSE}),
        timeout_ms=5_000,
        idempotent=True,
        description="Read the block at a position; the name is in observables.block.",
    ),
    CapabilitySpec(
        name="sense_hostiles",
        version="1.0.0",
        family=Family.SENSING,
        args_model=SenseHostilesArgs,
        runner=run_sense_hostiles,
        acceptance=accept_sense_hostiles,
        permissions=frozenset({Permission.SENSE}),
        timeout_ms=2_000,
        idempotent=True,
        effects=("sensed:hostiles",),
        description=(
            "List hostile mobs within radius, nearest first (observables.hostiles, count, nearestDistance; "
            "-1 when none); optionally writes the list to the blackboard key store_as."
        ),
    ),
    CapabilitySpec(
        name="get_light_level",
        version="1.0.0",
        family=Family.SENSING,
        args_model=GetLightLevelArgs,
        runner=run_get_light_level,
        acceptance=accept_get_light_level,
        permissions=frozenset({Permission.SENSE}),
        timeout_ms=1_000,
        idempotent=True,
        description=f"Read the light level at a position (the player's by default); isSafe when >= {SAFE_LIGHT}.",
    ),
    CapabilitySpec(
        name="find_resource",
        version="1.0.0",
        family=Family.SENSING,
        args_model=FindResourceArgs,
        runner=run_find_resource,
        acceptance=accept_find_resource,
        guard=guard_find_resource,
        permissions=frozenset({Permission.SENSE}),
        timeout_ms=5_000,
        idempotent=True,
        effects=("near:{blockType}",),
        description=(
            "Positions of the nearest blocks of a type, nearest first (observables.positions, nearest); "
            "fails not_found when there are none within radius. Unknown block names are refused."
        ),
    ),
)
