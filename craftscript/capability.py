"""The ``run_script`` and ``call_function`` capabilities: CraftScript as tree leaves.

They join the default registry as a plugin (the ``craftbt.capabilities`` entry point in pyproject.toml),
because craftscript sits above capabilities in the layers. Each command the script issues runs as
its own capability leaf under :class:`~craftbt.craftscript.dispatch.NestedHooks`: the enclosing run's
admission stages (geofence, registry, permissions, command allowlist, guard), as for a tree leaf. The leaf
declares every permission a script may need, so the executor's pipeline refuses the whole leaf under a
narrower profile before it starts.

CraftScript's ``build_up`` command dispatches the built-in ``build_up`` leaf (capabilities.leaves.construction).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from craftbt.capabilities.context import CapabilityContext
from craftbt.capabilities.leaves.movement import ARRIVAL_SLACK
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
from craftbt.craftscript.checker import Checker
from craftbt.craftscript.dispatch import Dispatcher, nested_context
from craftbt.craftscript.errors import ScriptError
from craftbt.craftscript.functions import FunctionStore
from craftbt.craftscript.interp import Interpreter, Limits, ScriptOutcome
from craftbt.craftscript.macros import core_macros
from craftbt.craftscript.parser import parse
from craftbt.world.body import BlockPos, Observation, Position

if TYPE_CHECKING:
    from craftbt.capabilities.registry import Registry

SCRIPT_PERMISSIONS = frozenset({Permission.MOVEMENT, Permission.DIG, Permission.PLACE, Permission.CRAFT,
                                Permission.CONTAINER_READ, Permission.CONTAINER_WRITE, Permission.INVENTORY,
                                Permission.CONSUME, Permission.SENSE})


class RunScriptArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    source: str = Field(min_length=1, max_length=200_000, description="CraftScript text")
    max_ops: int = Field(default=10_000, ge=1, le=1_000_000, description="Op cap")
    waypoints: dict[str, list[int]] = Field(default_factory=dict, description="name -> [x, y, z]")


class CallFunctionArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=r"^[a-z_][a-z0-9_]*$", description="Stored function (this bot's library)")
    args: dict[str, int | bool | str] = Field(default_factory=dict, description="Named arguments")
    max_ops: int = Field(default=10_000, ge=1, le=1_000_000)


def _store(ctx: CapabilityContext) -> FunctionStore:
    store = ctx.memory.get("craftscript_store")
    if not isinstance(store, FunctionStore) or store.bot != ctx.body.name:
        store = FunctionStore(ctx.body.name)
        ctx.memory["craftscript_store"] = store
    return store


def _compile_errors(source: str, store: FunctionStore) -> list[ScriptError]:
    try:
        program = parse(source, source="run_script")
    except ScriptError as err:
        return [err]
    return Checker(program, core_macros=core_macros(), functions=store.signatures()).check()


def guard_run_script(ctx: CapabilityContext, args: RunScriptArgs) -> GuardResult:
    errors = _compile_errors(args.source, _store(ctx))
    if errors:
        return GuardResult.deny("compile_error", errors[0].render())
    return GuardResult.allow()


def guard_call_function(ctx: CapabilityContext, args: CallFunctionArgs) -> GuardResult:
    if _store(ctx).latest(args.name) is None:
        return GuardResult.deny("unknown_function", f"no function {args.name!r} for bot {ctx.body.name!r}")
    return GuardResult.allow()


#: At most this many changed cells are read again by the verifier (the last ones the script changed).
PROBED_CHANGES = 64


def _result(ctx: CapabilityContext, outcome: ScriptOutcome) -> ActionResult:
    obs: dict[str, Any] = {"ops": outcome.ops, "status": outcome.status, "block_changes": outcome.block_changes,
                           "logs": [entry for entry in outcome.logs if entry["kind"] in ("log", "block_info")][-100:]}
    if outcome.ok:
        # what the script left behind, for the verifier to compare with the world: the cells it changed (read
        # again through the receipt), where the bot ended and what it carried then
        cells = list(dict.fromkeys(BlockPos(*c["pos"]) for c in reversed(outcome.block_changes)))[:PROBED_CHANGES]
        here = ctx.body.position()
        carried: dict[str, int] = {}
        for stack in ctx.body.inventory():
            carried[stack.name] = carried.get(stack.name, 0) + stack.count
        return ActionResult.success(Receipt(positions=cells), ended_at=[here.x, here.y, here.z], carried=carried,
                                    **obs)
    err = outcome.error or {}
    return ActionResult.failure(str(err.get("error", "script_failed")), str(err.get("message", "")), script_error=err,
                                **obs)


def run_run_script(ctx: CapabilityContext, args: RunScriptArgs) -> RunnerGen:
    program = parse(args.source, source="run_script")
    nested = nested_context(ctx)
    waypoints = {k: (v[0], v[1], v[2]) for k, v in args.waypoints.items() if len(v) == 3}
    interp = Interpreter(program, ctx.body, Dispatcher(nested), functions=_store(ctx), waypoints=waypoints,
                         limits=Limits(max_ops=args.max_ops), core_macros=core_macros())
    outcome = yield from interp.run()
    return _result(ctx, outcome)


def run_call_function(ctx: CapabilityContext, args: CallFunctionArgs) -> RunnerGen:
    named = ", ".join(f"{k}: {_literal(v)}" for k, v in sorted(args.args.items()))
    program = parse(f"{args.name}({named});", source=f"call_function:{args.name}")
    interp = Interpreter(program, ctx.body, Dispatcher(nested_context(ctx)), functions=_store(ctx),
                         limits=Limits(max_ops=args.max_ops), core_macros=core_macros())
    outcome = yield from interp.run()
    return _result(ctx, outcome)


def _literal(v: int | bool | str) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    return '"' + v.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def accept_script(pre: Observation, post: Observation, args: Any, result: ActionResult) -> VerificationResult:
    """Each command was verified by its own capability's acceptance; here the world is read again: the
    reported block changes hold now (receipt probe), the bot stands where the script left it and carries
    what it carried then. A change that could not be read again, or an inventory that moved since, is
    inconclusive; the script's word alone is no evidence."""
    changes = result.observables.get("block_changes", [])
    final = {f"{c['pos'][0]},{c['pos'][1]},{c['pos'][2]}": c["after"].removeprefix("minecraft:") for c in changes}
    probed = {key: post.blocks[key] for key in final if key in post.blocks}
    mismatched = [{"pos": key, "after": final[key], "observed": seen} for key, seen in probed.items()
                  if seen != final[key]]
    evidence: dict[str, Any] = {"ops": result.observables.get("ops"), "changes": len(changes)}
    if mismatched:
        return VerificationResult.contradicted(reason="a reported block change does not hold", changed=mismatched[:5])
    ended = result.observables.get("ended_at")
    if ended is not None:
        away = round(post.position.distance_to(Position(*ended)), 2)
        if away > ARRIVAL_SLACK:
            return VerificationResult.contradicted(reason="the bot is not where the script left it", away=away)
    if result.receipt is not None and len(probed) < len(result.receipt.positions):
        return VerificationResult.inconclusive(reason="a changed block could not be read again", **evidence)
    carried = result.observables.get("carried")
    if carried is not None and {n: c for n, c in post.inventory.items() if c} != carried:
        return VerificationResult.inconclusive(reason="the inventory is not what the script left", **evidence)
    return VerificationResult.verified(**evidence)


def register(registry: Registry) -> None:
    for name in ("run_script", "call_function"):
        if registry.has(name):
            return  # registered already (a second plugin load)
    common: dict[str, Any] = {"version": "1.0.0", "family": Family.WORLD, "permissions": SCRIPT_PERMISSIONS,
                              "timeout_ms": 600_000, "acceptance": accept_script, "awaits_world": True}
    registry.register(CapabilitySpec(
        name="run_script", args_model=RunScriptArgs, runner=run_run_script, guard=guard_run_script,
        description="Run a CraftScript script; each command runs as its own capability under the same guards",
        **common))
    registry.register(CapabilitySpec(
        name="call_function", args_model=CallFunctionArgs, runner=run_call_function, guard=guard_call_function,
        description="Run the latest version of a stored CraftScript function with named arguments", **common))
