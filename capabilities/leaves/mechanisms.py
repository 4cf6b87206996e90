"""World-interaction leaves (seed 000): interact_with_block, operate_piston, control_redstone, control_environment.

Activatable blocks are recognised by their block family and their states
(minecraft-data names): doors, trapdoors and fence gates toggle ``open``;
levers toggle ``powered``; buttons set ``powered`` for a moment. Iron doors
and iron trapdoors only answer to redstone, so they are refused.

Pistons are operated through the redstone source that powers them: a lever
touching the piston, or touching a solid block that touches it (the strong
power the embedded world and vanilla share). The leaf flips that lever so its
``powered`` state matches the wanted piston state, then waits for ``extended``
to follow. Buttons cannot hold a piston in a state, so they are refused for
``operate_piston`` and for the held actions of ``control_redstone``.

``control_environment`` issues operator commands (``/time set``,
``/weather``) through chat; it needs operator rights (or cheats). The guard
asks the body's ``is_operator()`` when the body offers it and refuses
``precond_missing:operator`` on False; acceptance verifies time changes by the
observed time of day, and weather changes by the body's ``weather()`` when it
has one (inconclusive otherwise).
"""

from __future__ import annotations

from collections.abc import Generator
from enum import StrEnum
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import Field, model_validator

from craftbt.capabilities.leaves.blockwork import use_on_step
from craftbt.capabilities.leaves.common import (
    Step,
    StrictArgs,
    Vec3,
    expect_state,
    perform,
    registry_data,
)
from craftbt.capabilities.spec import (
    ActionResult,
    CapabilitySpec,
    Family,
    GuardResult,
    Permission,
    Receipt,
    RunnerGen,
    Verdict,
    VerificationResult,
)
from craftbt.world.body import TICKS_PER_DAY, ActionHandle, BlockPos, Observation

if TYPE_CHECKING:
    from craftbt.capabilities.context import CapabilityContext

#: How long a flipped source may take to move its device (vanilla pistons: 2 game ticks).
SETTLE_TICKS = 10

Wait = Generator[ActionHandle | None, ActionHandle | None, bool]


class BlockKind(StrEnum):
    OPENABLE = "openable"  # doors, trapdoors, fence gates: toggle ``open``
    LEVER = "lever"  # toggles ``powered``
    BUTTON = "button"  # sets ``powered`` for 10-30 ticks
    REDSTONE_ONLY = "redstone_only"  # iron door / iron trapdoor
    CONTAINER = "container"
    OTHER = "other"


_CONTAINERS = ("chest", "trapped_chest", "barrel", "furnace", "smoker", "blast_furnace", "crafting_table")


def kind_of(name: str) -> BlockKind:
    if name in ("iron_door", "iron_trapdoor"):
        return BlockKind.REDSTONE_ONLY
    if name.endswith(("_door", "_trapdoor", "_fence_gate")):
        return BlockKind.OPENABLE
    if name == "lever":
        return BlockKind.LEVER
    if name.endswith("_button"):
        return BlockKind.BUTTON
    if name in _CONTAINERS or name.endswith("shulker_box"):
        return BlockKind.CONTAINER
    return BlockKind.OTHER


def activatable_names(ctx: CapabilityContext) -> list[str]:
    """Every block name the leaf can activate, from the registry (for searching)."""
    md = registry_data(ctx)
    kinds = (BlockKind.OPENABLE, BlockKind.LEVER, BlockKind.BUTTON)
    return sorted(b.name for b in md.blocks() if kind_of(b.name) in kinds)


def _state_flag(state: dict[str, Any], key: str) -> bool:
    value = state.get(key)
    return value is True or value == "true"


# -- interact_with_block ---------------------------------------------------------------------------
class InteractArgs(StrictArgs):
    seed_aliases: ClassVar[dict[str, str]] = {"interactionType": "interaction_type"}
    position: Vec3 | None = Field(default=None, description="The block to activate; default: the nearest one")
    interaction_type: Literal["auto", "toggle", "press"] = Field(
        default="auto", description="toggle: doors/trapdoors/gates/levers; press: buttons; auto: by block"
    )
    radius: int = Field(default=16, ge=1, le=32, description="Search radius when no position is given")


def _interact_target(ctx: CapabilityContext, args: InteractArgs) -> tuple[BlockPos, str] | GuardResult:
    if args.position is None:
        found = ctx.body.find_blocks(activatable_names(ctx), args.radius, max_count=64)
        here = ctx.body.position()
        found = [p for p in found if _type_fits(args, kind_of(ctx.body.block_at(p).name))]
        if not found:
            return GuardResult.deny("no_target", f"no interactive blocks found within {args.radius} blocks")
        pos = min(found, key=lambda p: (p.distance_to(here), p))
        return pos, ctx.body.block_at(pos).name
    pos = args.position.as_block_pos()
    name = ctx.body.block_at(pos).name
    kind = kind_of(name)
    if name in ("air", "cave_air", "void_air"):
        return GuardResult.deny("no_target", f"nothing at {tuple(pos)}")
    if kind is BlockKind.REDSTONE_ONLY:
        return GuardResult.deny(f"not_interactable:{name}", f"{name} opens only by redstone (use control_redstone)")
    if kind is BlockKind.CONTAINER:
        return GuardResult.deny(f"not_interactable:{name}", f"{name} is a container: use open_container")
    if kind is BlockKind.OTHER:
        return GuardResult.deny(f"not_interactable:{name}", f"{name} does nothing when used")
    if not _type_fits(args, kind):
        kind_name = args.interaction_type
        return GuardResult.deny(f"wrong_interaction:{kind_name}", f"{name} does not take interaction {kind_name}")
    return pos, name


def _type_fits(args: InteractArgs, kind: BlockKind) -> bool:
    if args.interaction_type == "press":
        return kind is BlockKind.BUTTON
    if args.interaction_type == "toggle":
        return kind in (BlockKind.OPENABLE, BlockKind.LEVER)
    return kind in (BlockKind.OPENABLE, BlockKind.LEVER, BlockKind.BUTTON)


def guard_interact(ctx: CapabilityContext, args: InteractArgs) -> GuardResult:
    target = _interact_target(ctx, args)
    return target if isinstance(target, GuardResult) else GuardResult.allow()


def expected_after_activation(name: str, state: dict[str, Any]) -> dict[str, bool]:
    """The state an activation should leave: open/powered flipped, a button pressed."""
    kind = kind_of(name)
    if kind is BlockKind.OPENABLE:
        return {"open": not _state_flag(state, "open")}
    if kind is BlockKind.LEVER:
        return {"powered": not _state_flag(state, "powered")}
    return {"powered": True}


def run_interact(ctx: CapabilityContext, args: InteractArgs) -> RunnerGen:
    target = _interact_target(ctx, args)
    if isinstance(target, GuardResult):
        return ActionResult.failure(target.reason or "no_target", target.detail or "")
    pos, name = target
    before = dict(ctx.body.block_at(pos).state)
    expected = expected_after_activation(name, before)
    failure = yield from use_on_step(ctx, pos)
    if failure is not None:
        return failure
    after = dict(ctx.body.block_at(pos).state)
    receipt = Receipt(position=pos, block=name, extra={"expected_state": expected, "kind": kind_of(name).value})
    return ActionResult.success(receipt, position=list(pos), block=name, before=before, after=after)


def accept_interact(
    pre: Observation, post: Observation, args: InteractArgs, result: ActionResult
) -> VerificationResult:
    receipt = result.receipt
    if receipt is None or receipt.position is None:
        return VerificationResult.contradicted(reason="no receipt")
    expected: dict[str, bool] = receipt.extra.get("expected_state", {})
    verdict = expect_state(post, receipt.position, receipt.block, **expected)
    if (
        verdict.verdict is Verdict.CONTRADICTED
        and receipt.extra.get("kind") == BlockKind.BUTTON.value
        and post.block(receipt.position) == receipt.block
        and _state_flag(result.observables.get("after", {}), "powered")
    ):
        # A button springs back after 10-30 ticks; the runner saw it pressed, the probe came late.
        return VerificationResult.inconclusive(**verdict.evidence, released=True)
    return verdict


# -- power sources ---------------------------------------------------------------------------------
def powering_levers(ctx: CapabilityContext, device: BlockPos) -> list[BlockPos]:
    """Levers that can power ``device``: touching it first, then through one solid block, nearest first."""
    md = registry_data(ctx)
    direct: list[BlockPos] = []
    indirect: list[BlockPos] = []
    sides = ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1))
    for dx, dy, dz in sides:
        n = device.offset(dx, dy, dz)
        name = ctx.body.block_at(n).name
        if name == "lever":
            direct.append(n)
        elif md.has_block(name) and md.block(name).solid:
            for ex, ey, ez in sides:
                m = n.offset(ex, ey, ez)
                if m != device and ctx.body.block_at(m).name == "lever" and m not in indirect:
                    indirect.append(m)
    return direct + [p for p in indirect if p not in direct]


def flip_lever(ctx: CapabilityContext, lever: BlockPos) -> Step:
    return (yield from use_on_step(ctx, lever))


def wait_for(ctx: CapabilityContext, pos: BlockPos, key: str, value: bool) -> Wait:
    """Wait up to SETTLE_TICKS for a block state to reach ``value``; returns whether it did."""
    for _ in range(SETTLE_TICKS):
        if _state_flag(ctx.body.block_at(pos).state, key) == value:
            return True
        yield None
    return _state_flag(ctx.body.block_at(pos).state, key) == value


# -- operate_piston --------------------------------------------------------------------------------
class OperatePistonArgs(StrictArgs):
    seed_aliases: ClassVar[dict[str, str]] = {"powerSource": "power_source"}
    position: Vec3 = Field(description="The piston (or sticky piston)")
    action: Literal["extend", "retract"] = Field(default="extend", description="The state to leave the piston in")
    power_source: Vec3 | None = Field(
        default=None, description="The lever powering it; default: a lever touching the piston or its neighbour"
    )


def _piston_plan(ctx: CapabilityContext, args: OperatePistonArgs) -> tuple[BlockPos, BlockPos | None] | GuardResult:
    pos = args.position.as_block_pos()
    name = ctx.body.block_at(pos).name
    if name not in ("piston", "sticky_piston"):
        if name in ("air", "cave_air", "void_air"):
            return GuardResult.deny("no_target", f"nothing at {tuple(pos)}")
        return GuardResult.deny(f"not_a_piston:{name}", f"{tuple(pos)} holds {name}")
    extended = _state_flag(ctx.body.block_at(pos).state, "extended")
    if extended == (args.action == "extend"):
        return pos, None  # already there
    if args.power_source is not None:
        lever = args.power_source.as_block_pos()
        source = ctx.body.block_at(lever).name
        if source.endswith("_button"):
            return GuardResult.deny(f"unsupported_power_source:{source}", "a button cannot hold a piston state")
        if source != "lever":
            return GuardResult.deny("precond_missing:power_source", f"{tuple(lever)} holds {source}, not a lever")
        if lever not in powering_levers(ctx, pos):
            return GuardResult.deny("precond_missing:power_source", f"the lever at {tuple(lever)} cannot reach it")
        return pos, lever
    levers = powering_levers(ctx, pos)
    if not levers:
        return GuardResult.deny("precond_missing:power_source", f"no lever powers the piston at {tuple(pos)}")
    want_on = args.action == "extend"
    # Prefer a lever whose flip moves the piston: one currently in the other state.
    for lever in levers:
        if _state_flag(ctx.body.block_at(lever).state, "powered") != want_on:
            return pos, lever
    if want_on:
        return GuardResult.deny("piston_blocked", "its lever is on but the piston is retracted (too much to push?)")
    return GuardResult.deny("powered_elsewhere", "its levers are off but something else keeps it extended")


def guard_operate_piston(ctx: CapabilityContext, args: OperatePistonArgs) -> GuardResult:
    plan = _piston_plan(ctx, args)
    return plan if isinstance(plan, GuardResult) else GuardResult.allow()


def run_operate_piston(ctx: CapabilityContext, args: OperatePistonArgs) -> RunnerGen:
    plan = _piston_plan(ctx, args)
    if isinstance(plan, GuardResult):
        return ActionResult.failure(plan.reason or "refused", plan.detail or "")
    pos, lever = plan
    want = args.action == "extend"
    receipt = Receipt(position=pos, block=ctx.body.block_at(pos).name, extra={"extended": want})
    if lever is None:
        return ActionResult.success(receipt, already=True, extended=want)
    receipt.positions.append(lever)
    failure = yield from flip_lever(ctx, lever)
    if failure is not None:
        return failure
    moved = yield from wait_for(ctx, pos, "extended", want)
    if not moved:
        # Put the lever back: a failed leaf leaves no half-changed state behind.
        restored = (yield from flip_lever(ctx, lever)) is None
        return ActionResult.failure(
            "piston_blocked",
            f"the piston did not {args.action} after its lever was flipped",
            lever=list(lever),
            lever_restored=restored,
        )
    return ActionResult.success(receipt, already=False, extended=want, lever=list(lever))


def accept_operate_piston(
    pre: Observation, post: Observation, args: OperatePistonArgs, result: ActionResult
) -> VerificationResult:
    return expect_state(post, args.position.as_block_pos(), None, extended=args.action == "extend")


# -- control_redstone ------------------------------------------------------------------------------
class ControlRedstoneArgs(StrictArgs):
    seed_aliases: ClassVar[dict[str, str]] = {"powerSource": "power_source", "targetPosition": "target_position"}
    action: Literal["power_on", "power_off", "toggle", "pulse"] = Field(
        description="power_on/power_off/toggle a lever; pulse: press a button, or a lever on then off"
    )
    power_source: Vec3 | None = Field(default=None, description="The lever or button to use")
    target_position: Vec3 | None = Field(
        default=None, description="The device it drives (lamp, piston, door); checked after the change"
    )
    radius: int = Field(default=8, ge=1, le=32, description="Search radius for a lever when none is given")
    pulse_ticks: int = Field(default=10, ge=1, le=200, description="How long a lever pulse stays on")


def _redstone_source(ctx: CapabilityContext, args: ControlRedstoneArgs) -> BlockPos | GuardResult:
    if args.power_source is not None:
        pos = args.power_source.as_block_pos()
        name = ctx.body.block_at(pos).name
        if name == "lever":
            return pos
        if name.endswith("_button"):
            if args.action != "pulse":
                detail = f"a button can only pulse, not {args.action}"
                return GuardResult.deny(f"unsupported_power_source:{name}", detail)
            return pos
        return GuardResult.deny("precond_missing:power_source", f"{tuple(pos)} holds {name}, not a lever or button")
    if args.target_position is not None:
        levers = powering_levers(ctx, args.target_position.as_block_pos())
        if levers:
            return levers[0]
        return GuardResult.deny("precond_missing:power_source", "no lever powers the target")
    found = ctx.body.find_blocks(["lever"], args.radius, max_count=16)
    if not found:
        return GuardResult.deny("precond_missing:power_source", f"no lever within {args.radius}")
    here = ctx.body.position()
    return min(found, key=lambda p: (p.distance_to(here), p))


def guard_control_redstone(ctx: CapabilityContext, args: ControlRedstoneArgs) -> GuardResult:
    source = _redstone_source(ctx, args)
    return source if isinstance(source, GuardResult) else GuardResult.allow()


#: The state key that shows a device is powered, by device family.
def device_key(name: str) -> str | None:
    if name == "redstone_lamp":
        return "lit"
    if name in ("piston", "sticky_piston"):
        return "extended"
    if name.endswith(("_door", "_trapdoor", "_fence_gate")):
        return "open"
    return None


def run_control_redstone(ctx: CapabilityContext, args: ControlRedstoneArgs) -> RunnerGen:
    source = _redstone_source(ctx, args)
    if isinstance(source, GuardResult):
        return ActionResult.failure(source.reason or "refused", source.detail or "")
    name = ctx.body.block_at(source).name
    was_on = _state_flag(ctx.body.block_at(source).state, "powered")
    target = args.target_position.as_block_pos() if args.target_position is not None else None
    seen_on: bool | None = None
    if args.action == "pulse":
        final = was_on if name == "lever" else False
        failure = yield from flip_lever(ctx, source)
        if failure is not None:
            return failure
        if target is not None:
            key = device_key(ctx.body.block_at(target).name)
            if key is not None:
                seen_on = yield from wait_for(ctx, target, key, not was_on)
        if name == "lever":
            for _ in range(args.pulse_ticks):
                yield None
            failure = yield from flip_lever(ctx, source)
            if failure is not None:
                return failure
    else:
        final = {"power_on": True, "power_off": False, "toggle": not was_on}[args.action]
        if final != was_on:
            failure = yield from flip_lever(ctx, source)
            if failure is not None:
                return failure
    receipt = Receipt(position=source, block=name, extra={"source_powered": final, "source_block": name})
    extra = receipt.extra  # the model holds its own copy: write to that one
    device: dict[str, Any] = {}
    if target is not None and args.action != "pulse":
        key = device_key(ctx.body.block_at(target).name)
        if key is not None:
            reached = yield from wait_for(ctx, target, key, final)
            device = {"target": list(target), "key": key, "expected": final, "reached": reached}
            receipt.positions.append(target)
            extra["target_key"] = key
            extra["target"] = list(target)
    return ActionResult.success(
        receipt, source=list(source), was_on=was_on, powered=final, flipped=final != was_on or args.action == "pulse",
        device=device, pulse_seen=seen_on,
    )


def accept_control_redstone(
    pre: Observation, post: Observation, args: ControlRedstoneArgs, result: ActionResult
) -> VerificationResult:
    receipt = result.receipt
    if receipt is None or receipt.position is None:
        return VerificationResult.contradicted(reason="no receipt")
    final = bool(receipt.extra.get("source_powered"))
    source = expect_state(post, receipt.position, receipt.block, powered=final)
    button = receipt.block is not None and receipt.block.endswith("_button") and args.action == "pulse"
    if button and source.verdict is Verdict.CONTRADICTED and post.block(receipt.position) == receipt.block:
        return VerificationResult.inconclusive(**source.evidence, note="button still pressed")
    if source.verdict is not Verdict.VERIFIED or "target_key" not in receipt.extra:
        return source
    target = BlockPos(*receipt.extra["target"])
    device = expect_state(post, target, None, **{receipt.extra["target_key"]: final})
    if device.verdict is Verdict.VERIFIED:
        return VerificationResult.verified(source=source.evidence, device=device.evidence)
    return VerificationResult(verdict=device.verdict, evidence={"source": source.evidence, "device": device.evidence})


# -- control_environment ---------------------------------------------------------------------------
TIME_NAMES: dict[str, int] = {"day": 1000, "noon": 6000, "sunset": 12000, "night": 13000, "midnight": 18000}


class ControlEnvironmentArgs(StrictArgs):
    action: Literal["set_time", "set_weather"] = Field(description="set_time (/time set) or set_weather (/weather)")
    time: int | Literal["day", "noon", "sunset", "night", "midnight"] | None = Field(
        default=None, description="For set_time: a tick of the day 0..23999 or a name"
    )
    weather: Literal["clear", "rain", "thunder"] | None = Field(default=None, description="For set_weather")

    @model_validator(mode="after")
    def _needs_value(self) -> ControlEnvironmentArgs:
        if self.action == "set_time":
            if self.time is None:
                raise ValueError("set_time needs time")
            if isinstance(self.time, int) and not 0 <= self.time < TICKS_PER_DAY:
                raise ValueError("time must be in 0..23999")
        if self.action == "set_weather" and self.weather is None:
            raise ValueError("set_weather needs weather")
        return self

    @property
    def target_tick(self) -> int | None:
        if self.time is None:
            return None
        return self.time if isinstance(self.time, int) else TIME_NAMES[self.time]

    def command(self) -> str:
        if self.action == "set_time":
            return f"/time set {self.target_tick}"
        return f"/weather {self.weather}"


def _operator(ctx: CapabilityContext) -> bool | None:
    """The body's answer to "may I run operator commands?", or None when it cannot tell."""
    probe = getattr(ctx.body, "is_operator", None)
    if callable(probe):
        answer = probe()
        return None if answer is None else bool(answer)
    return None


def guard_control_environment(ctx: CapabilityContext, args: ControlEnvironmentArgs) -> GuardResult:
    if _operator(ctx) is False:
        return GuardResult.deny("precond_missing:operator", f"{args.command()} needs operator rights (op the bot)")
    return GuardResult.allow()


def _weather(ctx: CapabilityContext) -> str | None:
    probe = getattr(ctx.body, "weather", None)
    if callable(probe):
        value = probe()
        return str(value) if value is not None else None
    return None


def run_control_environment(ctx: CapabilityContext, args: ControlEnvironmentArgs) -> RunnerGen:
    command = args.command()
    failure = yield from perform(lambda: ctx.body.chat(command))
    if failure is not None:
        return failure
    # a server applies the command on its next tick, and its answer crosses the connection: wait (bounded)
    # until the clock or the weather shows it, so acceptance reads the world after the change
    for _ in range(COMMAND_SETTLE_TICKS):
        yield None
        if _command_shows(ctx, args):
            break
    observed: dict[str, Any] = {"time_of_day": ctx.body.time_of_day(), "weather": _weather(ctx)}
    # the verifier reads the weather again rather than trusting what this runner saw
    return ActionResult.success(Receipt(extra={"probe_weather": True}), command=command,
                                target_tick=args.target_tick, weather=args.weather, observed=observed)


#: How long (ticks) the runner waits for a server's answer to its command before acceptance judges.
COMMAND_SETTLE_TICKS = 40


def _command_shows(ctx: CapabilityContext, args: ControlEnvironmentArgs) -> bool:
    if args.action == "set_time":
        return (ctx.body.time_of_day() - (args.target_tick or 0)) % TICKS_PER_DAY <= COMMAND_SETTLE_TICKS + 20
    return _weather(ctx) in (None, args.weather)


def accept_control_environment(
    pre: Observation, post: Observation, args: ControlEnvironmentArgs, result: ActionResult
) -> VerificationResult:
    command = result.observables.get("command")
    if args.action == "set_time":
        target = args.target_tick or 0
        elapsed = max(0, post.tick - pre.tick)
        # The day clock keeps running after the command: allow what elapsed since it was sent.
        drift = (post.time_of_day - target) % TICKS_PER_DAY
        evidence = {"command": command, "target": target, "time_of_day": post.time_of_day, "drift": drift}
        if drift <= elapsed + 20:
            return VerificationResult.verified(**evidence)
        return VerificationResult.contradicted(hint="no operator rights?", **evidence)
    seen = post.weather
    evidence = {"command": command, "weather": args.weather, "observed": seen}
    if seen is None:
        return VerificationResult.inconclusive(reason="the body does not report weather", **evidence)
    if seen == args.weather:
        return VerificationResult.verified(**evidence)
    return VerificationResult.contradicted(hint="no operator rights?", **evidence)


# -- registration ----------------------------------------------------------------------------------
#: What this module registers (a built-in plugin: see :data:`capabilities.default.BUILTIN_PLUGINS`).
SPECS: tuple[CapabilitySpec, ...] = (
    CapabilitySpec(
        name="interact_with_block",
        version="1.0.0",
        family=Family.WORLD,
        args_model=InteractArgs,
        runner=run_interact,
        acceptance=accept_interact,
        guard=guard_interact,
        permissions=frozenset({Permission.MOVEMENT, Permission.INTERACT}),
        timeout_ms=10_000,
        retries=3,
        effects=("activated:{position.x},{position.y},{position.z}",),
        description=(
            "Activate a door, trapdoor, fence gate, lever or button (the given position, or the nearest within "
            "radius). Acceptance probes the block state: open/powered flipped, a button pressed. Iron doors and "
            "containers are refused (redstone / open_container)."
        ),
    ),
    CapabilitySpec(
        name="operate_piston",
        version="1.0.0",
        family=Family.WORLD,
        args_model=OperatePistonArgs,
        runner=run_operate_piston,
        acceptance=accept_operate_piston,
        guard=guard_operate_piston,
        permissions=frozenset({Permission.MOVEMENT, Permission.INTERACT, Permission.REDSTONE}),
        timeout_ms=15_000,
        retries=3,
        idempotent=True,
        effects=("piston:{position.x},{position.y},{position.z}={action}",),
        description=(
            "Extend or retract a piston by flipping the lever that powers it (touching it or a solid block "
            "touching it). Already in the wanted state: success without acting. Acceptance probes extended."
        ),
    ),
    CapabilitySpec(
        name="control_redstone",
        version="1.0.0",
        family=Family.WORLD,
        args_model=ControlRedstoneArgs,
        runner=run_control_redstone,
        acceptance=accept_control_redstone,
        guard=guard_control_redstone,
        permissions=frozenset({Permission.MOVEMENT, Permission.INTERACT, Permission.REDSTONE}),
        timeout_ms=20_000,
        retries=3,
        effects=("powered:{action}",),
        description=(
            "Drive a redstone source: power_on/power_off/toggle a lever, or pulse (press a button, or a lever "
            "on for pulse_ticks then off). With target_position, the device (lamp lit, piston extended, door "
            "open) must follow."
        ),
    ),
    CapabilitySpec(
        name="control_environment",
        version="1.0.0",
        family=Family.WORLD,
        args_model=ControlEnvironmentArgs,
        runner=run_control_environment,
        acceptance=accept_control_environment,
        guard=guard_control_environment,
        permissions=frozenset({Permission.MOVEMENT, Permission.CHAT}),
        timeout_ms=10_000,
        retries=2,
        idempotent=True,
        preconditions=("operator",),
        command_of=lambda args: ControlEnvironmentArgs.model_validate(args).command(),
        description=(
            "Set the time of day or the weather with operator commands (/time set, /weather); needs operator "
            "rights or cheats (guard: precond_missing:operator when the body says it has none). Verified by "
            "the observed time of day / weather."
        ),
    ),
)
