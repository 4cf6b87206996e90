"""Construction leaves: per-block placement and digging, structure modules, features, verification.

The seed's construction leaves were stubs; these mutate the world. The
structure model (modules, anchoring, build order, witnesses) lives in
:mod:`capabilities.structures`; the block steps in
:mod:`capabilities.leaves.blockwork`.

* ``place_block_at`` / ``dig_block_at``: one block at an exact position,
  idempotent (already there / already air succeeds without acting).
* ``build_module``: every missing placement of a module, bottom-up and
  support-first, skipping what already stands (a re-run resumes).
* ``prepare_site``: clear a footprint (a box or a module's bounds), optionally
  fill the floor under it.
* ``place_feature``: a door, window, torch or ladder at a position.
* ``verify_module``: read-only witness scan; verified only when every cell
  matches, contradicted with the diff otherwise (the build protocol's checkpoint).

A module is given inline (``module``: a :class:`ModuleSpec`) or by
``module_id``: the blackboard key ``/build/modules/<id>`` (where a planner
stores the modules it emits) is looked up first, then the built-in
:data:`capabilities.structures.LIBRARY`.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from typing import TYPE_CHECKING, Any

import py_trees
from pydantic import Field, ValidationError, model_validator

from craftbt.capabilities.leaves.blockwork import (
    OPPOSITE,
    REFERENCE_ORDER,
    can_place_against,
    dig_step,
    place_step,
    reference_for,
)
from craftbt.capabilities.leaves.common import (
    StrictArgs,
    Vec3,
    count_item,
    expect_block,
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
    VerificationResult,
)
from craftbt.capabilities.structures import (
    LIBRARY,
    Anchor,
    Cell,
    Facing,
    ModuleSpec,
    absolute_empty,
    build_order,
    footprint,
    is_air,
    is_replaceable,
    scan_module,
)
from craftbt.world.body import BlockPos, Face, Observation, block_key

if TYPE_CHECKING:
    from craftbt.capabilities.context import CapabilityContext

#: Blackboard namespace for modules a planner emits; ``module_id`` resolves here first.
MODULE_KEY_PREFIX = "/build/modules/"
#: Largest box prepare_site clears in one run (cells).
MAX_SITE_CELLS = 4096


# -- module resolution -----------------------------------------------------------------------------
class ModuleArgs(StrictArgs):
    """A module inline or by id, anchored at an origin with a facing."""

    module: ModuleSpec | None = Field(default=None, description="The module spec inline")
    module_id: str | None = Field(
        default=None,
        min_length=1,
        description="A module by id: blackboard /build/modules/<id>, else the built-in library",
    )
    origin: Vec3 = Field(description="World position of the module's reference corner (offset 0,0,0)")
    facing: Facing = Field(default=Facing.N, description="Which way the module's front looks: N, E, S or W")

    @model_validator(mode="after")
    def _one_module(self) -> ModuleArgs:
        if self.module is None and self.module_id is None:
            raise ValueError("give module (inline) or module_id")
        if self.module is not None and self.module_id is not None and self.module_id != self.module.module_id:
            raise ValueError(f"module_id {self.module_id!r} does not match the inline module {self.module.module_id!r}")
        return self

    def anchor(self) -> Anchor:
        return Anchor(origin=self.origin.as_block_pos(), facing=self.facing)


class UnknownModule(LookupError):
    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason
        self.detail = detail


def resolve_module(args: ModuleArgs) -> ModuleSpec:
    """The module ``args`` names; :class:`UnknownModule` if the id resolves nowhere or to junk."""
    if args.module is not None:
        return args.module
    assert args.module_id is not None
    stored = py_trees.blackboard.Blackboard.storage.get(MODULE_KEY_PREFIX + args.module_id)
    if stored is not None:
        try:
            return stored if isinstance(stored, ModuleSpec) else ModuleSpec.model_validate(stored)
        except ValidationError as exc:
            raise UnknownModule(
                f"invalid_module:{args.module_id}", f"blackboard module {args.module_id!r} is invalid: {exc}"
            ) from None
    found = LIBRARY.get(args.module_id)
    if found is None:
        raise UnknownModule(
            f"unknown_module:{args.module_id}",
            f"no module {args.module_id!r} on the blackboard ({MODULE_KEY_PREFIX}<id>) or in the library",
        )
    return found


def _guard_module(ctx: CapabilityContext, args: ModuleArgs) -> tuple[ModuleSpec | None, GuardResult]:
    try:
        module = resolve_module(args)
    except UnknownModule as err:
        return None, GuardResult.deny(err.reason, err.detail)
    md = registry_data(ctx)
    for block in module.materials():
        if not md.has_block(block):
            return None, GuardResult.deny(f"unknown_block:{block}", f"module {module.module_id} uses {block!r}")
    return module, GuardResult.allow()


def expect_cells(post: Observation, expected: dict[str, str]) -> VerificationResult:
    """Every probed cell holds its expected block ("air" accepts any air); unprobed cells are inconclusive."""
    wrong: list[list[Any]] = []
    unprobed: list[str] = []
    for key, block in sorted(expected.items()):
        seen = post.blocks.get(key)
        if seen is None:
            unprobed.append(key)
        elif not (seen == block or (block == "air" and is_air(seen))):
            wrong.append([key, block, seen])
    evidence: dict[str, Any] = {"checked": len(expected), "wrong": wrong[:32], "wrong_count": len(wrong)}
    if wrong:
        return VerificationResult.contradicted(**evidence)
    if unprobed:
        return VerificationResult.inconclusive(unprobed=unprobed[:32], **evidence)
    return VerificationResult.verified(**evidence)


def _receipt(expected: dict[BlockPos, str], **extra: Any) -> Receipt:
    return Receipt(
        positions=sorted(expected),
        extra={"expected": {block_key(p): b for p, b in sorted(expected.items())}, **extra},
    )


def accept_expected_cells(pre: Observation, post: Observation, args: Any, result: ActionResult) -> VerificationResult:
    receipt = result.receipt
    if receipt is None:
        return VerificationResult.contradicted(reason="no receipt")
    expected: dict[str, str] = receipt.extra.get("expected", {})
    if not expected:
        return VerificationResult.verified(checked=0, reason="nothing to change")
    return expect_cells(post, expected)


# -- build_module --------------------------------------------------------------------------------
class BuildModuleArgs(ModuleArgs):
    clear_obstructions: bool = Field(
        default=True,
        description="Dig blocks standing where the module needs another block or air (else fail occupied:<block>)",
    )


def _missing_materials(ctx: CapabilityContext, module: ModuleSpec, anchor: Anchor) -> dict[str, int]:
    need: dict[str, int] = {}
    for pos, block in build_order(module, anchor):
        if ctx.body.block_at(pos).name != block:
            need[block] = need.get(block, 0) + 1
    return {b: n - count_item(ctx, b) for b, n in sorted(need.items()) if count_item(ctx, b) < n}


def guard_build_module(ctx: CapabilityContext, args: BuildModuleArgs) -> GuardResult:
    module, verdict = _guard_module(ctx, args)
    if module is None:
        return verdict
    md = registry_data(ctx)
    for block in module.materials():
        if not md.has_item(block):
            return GuardResult.deny(f"not_placeable:{block}", f"{block!r} has no item of the same name")
    short = _missing_materials(ctx, module, args.anchor())
    if short:
        block = next(iter(short))
        return GuardResult.lacking(block, short[block], f"short of {short}", missing=short)
    if not args.clear_obstructions:
        witness = scan_module(module, args.anchor(), lambda p: ctx.body.block_at(p).name)
        blocked = witness.wrong + witness.obstructed
        if blocked:
            return GuardResult.deny(f"occupied:{blocked[0].observed}", f"{len(blocked)} cells need digging first")
    return GuardResult.allow()


def run_build_module(ctx: CapabilityContext, args: BuildModuleArgs) -> RunnerGen:
    module = resolve_module(args)
    anchor = args.anchor()
    order = build_order(module, anchor)
    keep_clear = frozenset(absolute_empty(module, anchor))
    placed: list[list[int]] = []
    present = 0
    cleared: list[list[int]] = []

    def progress(**more: Any) -> dict[str, Any]:
        return {"module_id": module.module_id, "digest": module.digest, "placed": placed,
                "already_present": present, "cleared": cleared, **more}

    for pos, block in order:
        current = ctx.body.block_at(pos).name
        if current == block:
            present += 1
            continue
        if not is_replaceable(current):
            if not args.clear_obstructions:
                return ActionResult.failure(f"occupied:{current}", f"{tuple(pos)} holds {current}", **progress())
            failure = yield from dig_step(ctx, pos)
            if failure is not None:
                failure.observables.update(progress(at=list(pos)))
                return failure
            cleared.append(list(pos))
        failure = yield from place_step(ctx, pos, block, keep_clear=keep_clear)
        if failure is not None:
            failure.observables.update(progress(at=list(pos)))
            return failure
        placed.append(list(pos))
    for pos in sorted(keep_clear):
        if is_air(ctx.body.block_at(pos).name):
            continue
        if not args.clear_obstructions:
            name = ctx.body.block_at(pos).name
            return ActionResult.failure(f"occupied:{name}", f"{tuple(pos)} must be empty", **progress())
        failure = yield from dig_step(ctx, pos)
        if failure is not None:
            failure.observables.update(progress(at=list(pos)))
            return failure
        cleared.append(list(pos))
    expected = {pos: block for pos, block in order} | {pos: "air" for pos in keep_clear}
    return ActionResult.success(_receipt(expected, module_id=module.module_id, digest=module.digest), **progress())


def accept_build_module(
    pre: Observation, post: Observation, args: BuildModuleArgs, result: ActionResult
) -> VerificationResult:
    module = resolve_module(args)
    return _witness_verdict(module, args.anchor(), post)


def _witness_verdict(module: ModuleSpec, anchor: Anchor, post: Observation) -> VerificationResult:
    witness = scan_module(module, anchor, post.block)
    summary = witness.summary()
    if any(c.observed == "unknown" for c in (*witness.missing, *witness.obstructed)):
        return VerificationResult.inconclusive(witness=summary)
    if witness.complete:
        return VerificationResult.verified(witness=summary)
    return VerificationResult.contradicted(witness=summary)


# -- verify_module -------------------------------------------------------------------------------
def guard_verify_module(ctx: CapabilityContext, args: ModuleArgs) -> GuardResult:
    return _guard_module(ctx, args)[1]


def run_verify_module(ctx: CapabilityContext, args: ModuleArgs) -> RunnerGen:
    module = resolve_module(args)
    anchor = args.anchor()
    witness = scan_module(module, anchor, lambda p: ctx.body.block_at(p).name)
    cells = [c.position for c in (*witness.matched, *witness.missing, *witness.wrong, *witness.obstructed)]
    receipt = Receipt(positions=sorted(cells), extra={"module_id": module.module_id, "digest": module.digest})
    return ActionResult.success(
        receipt,
        witness=witness.model_dump(mode="json"),
        postconditions_met=witness.complete,
        module_id=module.module_id,
        digest=module.digest,
        evidence_digest=witness.evidence_digest,
    )
    yield  # pragma: no cover - makes this a generator


def accept_verify_module(
    pre: Observation, post: Observation, args: ModuleArgs, result: ActionResult
) -> VerificationResult:
    return _witness_verdict(resolve_module(args), args.anchor(), post)


# -- prepare_site --------------------------------------------------------------------------------
class Size(StrictArgs):
    dx: int = Field(ge=1, le=32)
    dy: int = Field(ge=1, le=16)
    dz: int = Field(ge=1, le=32)


class PrepareSiteArgs(StrictArgs):
    origin: Vec3 = Field(description="Reference corner of the site (the module's origin)")
    size: Size | None = Field(default=None, description="Box to clear from the origin, as drawn facing north")
    module: ModuleSpec | None = Field(default=None, description="Clear this module's bounding box instead")
    module_id: str | None = Field(default=None, min_length=1, description="Module by id (blackboard, then library)")
    facing: Facing = Field(default=Facing.N, description="Facing the box or module is anchored with")
    clear: bool = Field(default=True, description="Dig every block in the site that the module does not keep")
    floor: str | None = Field(
        default=None, min_length=1, description="Fill holes in the layer under the site with this block"
    )

    @model_validator(mode="after")
    def _one_shape(self) -> PrepareSiteArgs:
        by_module = self.module is not None or self.module_id is not None
        if by_module == (self.size is not None):
            raise ValueError("give either size or a module (module or module_id), not both or neither")
        if self.module is not None and self.module_id is not None and self.module_id != self.module.module_id:
            raise ValueError(f"module_id {self.module_id!r} does not match the inline module {self.module.module_id!r}")
        return self


def site_cells(args: PrepareSiteArgs) -> tuple[list[BlockPos], dict[BlockPos, str]]:
    """The site's cells (top layer first) and, for a module, the placements already allowed to stand."""
    anchor = Anchor(origin=args.origin.as_block_pos(), facing=args.facing)
    keep: dict[BlockPos, str] = {}
    if args.size is not None:
        cells = [
            anchor.absolute(Cell(dx=dx, dy=dy, dz=dz))
            for dx in range(args.size.dx)
            for dy in range(args.size.dy)
            for dz in range(args.size.dz)
        ]
    else:
        module = resolve_module(
            ModuleArgs(module=args.module, module_id=args.module_id, origin=args.origin, facing=args.facing)
        )
        keep = {anchor.absolute(p): p.block for p in module.placements}
        lo, hi = footprint([*keep, *absolute_empty(module, anchor)])
        cells = [
            BlockPos(x, y, z)
            for x in range(lo.x, hi.x + 1)
            for y in range(lo.y, hi.y + 1)
            for z in range(lo.z, hi.z + 1)
        ]
    return sorted(cells, key=lambda p: (-p.y, p.x, p.z)), keep


def _floor_cells(cells: Iterable[BlockPos]) -> list[BlockPos]:
    bottom = min(p.y for p in cells)
    return sorted({BlockPos(p.x, bottom - 1, p.z) for p in cells})


def _site_work(ctx: CapabilityContext, args: PrepareSiteArgs) -> tuple[list[BlockPos], list[BlockPos]]:
    """(cells to dig, floor cells to fill) as the world stands now."""
    cells, keep = site_cells(args)
    dig: list[BlockPos] = []
    if args.clear:
        for pos in cells:
            name = ctx.body.block_at(pos).name
            if is_air(name) or keep.get(pos) == name:
                continue
            dig.append(pos)
    fill: list[BlockPos] = []
    if args.floor is not None:
        fill = [p for p in _floor_cells(cells) if is_replaceable(ctx.body.block_at(p).name)]
    return dig, fill


def guard_prepare_site(ctx: CapabilityContext, args: PrepareSiteArgs) -> GuardResult:
    if args.module is not None or args.module_id is not None:
        margs = ModuleArgs(module=args.module, module_id=args.module_id, origin=args.origin, facing=args.facing)
        module, verdict = _guard_module(ctx, margs)
        if module is None:
            return verdict
    cells, _ = site_cells(args)
    if len(cells) > MAX_SITE_CELLS:
        return GuardResult.deny("site_too_large", f"{len(cells)} cells > {MAX_SITE_CELLS}")
    md = registry_data(ctx)
    floor = args.floor.removeprefix("minecraft:") if args.floor else None
    if floor is not None and not (md.has_block(floor) and md.has_item(floor) and md.block(floor).solid):
        return GuardResult.deny(f"not_placeable:{floor}", f"{floor!r} is not a solid placeable block")
    dig, fill = _site_work(ctx, args)
    for pos in dig:
        name = ctx.body.block_at(pos).name
        if name not in ("water", "lava") and not (md.has_block(name) and md.block(name).breakable):
            return GuardResult.deny(f"not_diggable:{name}", f"{name} at {tuple(pos)} cannot be cleared")
    if floor is not None and fill and count_item(ctx, floor) < len(fill):
        held = count_item(ctx, floor)
        return GuardResult.lacking(floor, len(fill) - held, f"the floor needs {len(fill)} {floor}, have {held}")
    return GuardResult.allow()


def run_prepare_site(ctx: CapabilityContext, args: PrepareSiteArgs) -> RunnerGen:
    dig, fill = _site_work(ctx, args)
    floor = args.floor.removeprefix("minecraft:") if args.floor else None
    expected: dict[BlockPos, str] = {}
    cleared: list[list[int]] = []
    skipped_fluids: list[list[int]] = []
    for pos in dig:
        name = ctx.body.block_at(pos).name
        if is_air(name):
            continue  # fell or was dug with a neighbour
        if name in ("water", "lava"):
            skipped_fluids.append(list(pos))  # fluids are not dug; a floor or a module placement displaces them
            continue
        failure = yield from dig_step(ctx, pos)
        if failure is not None:
            failure.observables.update(cleared=cleared, at=list(pos))
            return failure
        cleared.append(list(pos))
        expected[pos] = "air"
    floored: list[list[int]] = []
    if floor is not None:
        # Re-read: digging may have opened holes (or gravel may have filled some).
        holes = [p for p in _floor_cells(site_cells(args)[0]) if is_replaceable(ctx.body.block_at(p).name)]
        fill = sorted({*fill, *holes})
        for pos in fill:
            failure = yield from place_step(ctx, pos, floor, directions=REFERENCE_ORDER)
            if failure is not None:
                failure.observables.update(cleared=cleared, floored=floored, at=list(pos))
                return failure
            floored.append(list(pos))
            expected[pos] = floor
    return ActionResult.success(
        _receipt(expected), cleared=cleared, floored=floored, skipped_fluids=skipped_fluids
    )


# -- place_feature -------------------------------------------------------------------------------
class Feature(StrEnum):
    DOOR = "door"
    WINDOW = "window"
    TORCH = "torch"
    LADDER = "ladder"


#: Default item per feature; ``material`` overrides it (``spruce_door``, ``glass``, ``soul_torch``, ...).
FEATURE_DEFAULT_ITEM: dict[Feature, str] = {
    Feature.DOOR: "oak_door",
    Feature.WINDOW: "glass_pane",
    Feature.TORCH: "torch",
    Feature.LADDER: "ladder",
}

_FACING_FACE: dict[Facing, Face] = {
    Facing.N: Face.NORTH,
    Facing.E: Face.EAST,
    Facing.S: Face.SOUTH,
    Facing.W: Face.WEST,
}
_SIDE_FACES = (Face.NORTH, Face.SOUTH, Face.WEST, Face.EAST)


class PlaceFeatureArgs(StrictArgs):
    feature: Feature = Field(description="door | window | torch | ladder")
    position: Vec3 = Field(description="The cell the feature occupies (a door's lower half)")
    facing: Facing | None = Field(
        default=None, description="Ladder/wall torch: the way it faces (its wall is behind it); default: any wall"
    )
    material: str | None = Field(
        default=None, min_length=1, pattern=r"^[a-z0-9_]+$", description="Item to use instead of the default"
    )
    module_id: str | None = Field(default=None, description="The module this feature belongs to (recorded only)")

    @property
    def item(self) -> str:
        return self.material or FEATURE_DEFAULT_ITEM[self.feature]


FeaturePlan = tuple[tuple[Face, ...], dict[BlockPos, str]]


def feature_plan(ctx: CapabilityContext, args: PlaceFeatureArgs) -> FeaturePlan | GuardResult:
    """(directions to look for a reference block, {cell: expected block}) or a refusal."""
    pos = args.position.as_block_pos()
    item = args.item
    if args.feature is Feature.DOOR:
        if not item.endswith("_door"):
            return GuardResult.deny(f"not_a_feature:{item}", "a door feature needs a *_door item")
        if not can_stand_on(ctx, pos.offset(dy=-1)):
            return GuardResult.deny("no_reference_block", "a door needs a solid block under it")
        return (Face.DOWN,), {pos: item, pos.offset(dy=1): item}
    if args.feature is Feature.WINDOW:
        return REFERENCE_ORDER, {pos: item}
    if args.feature is Feature.LADDER:
        walls = _wall_directions(args.facing)
        if not any(reference_for(ctx, pos, (d,)) for d in walls):
            return GuardResult.deny("no_reference_block", "a ladder needs a solid wall behind it")
        return walls, {pos: item}
    # torch: standing on the block below if it is solid, else on a wall.
    if args.facing is None and can_stand_on(ctx, pos.offset(dy=-1)):
        return (Face.DOWN,), {pos: item}
    walls = _wall_directions(args.facing)
    if not any(reference_for(ctx, pos, (d,)) for d in walls):
        return GuardResult.deny("no_reference_block", "a torch needs a solid block under it or behind it")
    return walls, {pos: "wall_" + item if item.endswith("torch") else item}


def _wall_directions(facing: Facing | None) -> tuple[Face, ...]:
    """Where the supporting wall is: behind a thing facing ``facing``, or any side."""
    if facing is None:
        return _SIDE_FACES
    return (OPPOSITE[_FACING_FACE[facing]],)


def can_stand_on(ctx: CapabilityContext, pos: BlockPos) -> bool:
    return can_place_against(ctx, ctx.body.block_at(pos).name)


def guard_place_feature(ctx: CapabilityContext, args: PlaceFeatureArgs) -> GuardResult:
    md = registry_data(ctx)
    if not md.has_item(args.item) or not md.has_block(args.item):
        return GuardResult.deny(f"not_placeable:{args.item}", f"{args.item!r} is not a placeable item")
    plan = feature_plan(ctx, args)
    if isinstance(plan, GuardResult):
        return plan
    _, cells = plan
    if all(ctx.body.block_at(p).name == b for p, b in cells.items()):
        return GuardResult.allow()  # already there
    for p in cells:
        name = ctx.body.block_at(p).name
        if not is_replaceable(name):
            return GuardResult.deny(f"occupied:{name}", f"{tuple(p)} holds {name}")
    if count_item(ctx, args.item) < 1:
        return GuardResult.deny(f"precond_missing:item:{args.item}", f"no {args.item} in the inventory")
    return GuardResult.allow()


def run_place_feature(ctx: CapabilityContext, args: PlaceFeatureArgs) -> RunnerGen:
    plan = feature_plan(ctx, args)
    if isinstance(plan, GuardResult):
        return ActionResult.failure(plan.reason or "refused", plan.detail or "")
    directions, cells = plan
    pos = args.position.as_block_pos()
    receipt = _receipt(cells, feature=args.feature.value, item=args.item, module_id=args.module_id)
    receipt.position = pos
    receipt.block = cells[pos]
    if all(ctx.body.block_at(p).name == b for p, b in cells.items()):
        return ActionResult.success(receipt, already_present=True, feature=args.feature.value, item=args.item)
    failure = yield from place_step(ctx, pos, args.item, directions=directions, keep_clear=frozenset(cells))
    if failure is not None:
        return failure
    return ActionResult.success(receipt, already_present=False, feature=args.feature.value, item=args.item)


def accept_place_feature(
    pre: Observation, post: Observation, args: PlaceFeatureArgs, result: ActionResult
) -> VerificationResult:
    verdict = accept_expected_cells(pre, post, args, result)
    if verdict.verdict.value == "verified" and not result.observables.get("already_present"):
        spent = pre.count(args.item) - post.count(args.item)
        if spent < 1:
            return VerificationResult.inconclusive(**verdict.evidence, item_spent=spent)
    return verdict


# -- registration --------------------------------------------------------------------------------
# -- build_up: the pillar step ------------------------------------------------------
class BuildUpArgs(StrictArgs):
    item: str = Field(pattern=r"^(minecraft:)?[a-z0-9_]+$", description="A solid block item to place under the feet")


def guard_build_up(ctx: CapabilityContext, args: BuildUpArgs) -> GuardResult:
    if not callable(getattr(ctx.body, "build_up", None)):
        return GuardResult.deny("unsupported", "this body has no jump-place")
    item = args.item.removeprefix("minecraft:")
    if not any(s.name == item and s.count > 0 for s in ctx.body.inventory()):
        return GuardResult.deny("precond_missing:item", f"no {item} in the inventory", missing={item: 1})
    return GuardResult.allow()


def run_build_up(ctx: CapabilityContext, args: BuildUpArgs) -> RunnerGen:
    item = args.item.removeprefix("minecraft:")
    feet = ctx.body.position().block()
    failure = yield from perform(lambda: ctx.body.build_up(item))  # type: ignore[attr-defined]  # a body extension, checked by the guard
    if failure is not None:
        return failure
    return ActionResult.success(Receipt(position=feet, block=item), item=item, position=list(feet))


def accept_build_up(pre: Observation, post: Observation, args: BuildUpArgs, result: ActionResult) -> VerificationResult:
    """The block is in the cell the feet left, and the bot stands at least one block higher."""
    feet = pre.position.block()
    probe = expect_block(post, feet, args.item.removeprefix("minecraft:"))
    if probe.verdict.value != "verified":
        return probe
    rose = post.position.y - pre.position.y
    if rose < 0.99:
        return VerificationResult.contradicted(**probe.evidence, rose=rose)
    return VerificationResult.verified(**probe.evidence, rose=rose)


#: What this module registers (a built-in plugin: see :data:`capabilities.default.BUILTIN_PLUGINS`).
SPECS: tuple[CapabilitySpec, ...] = (
    CapabilitySpec(
        name="build_module",
        args_model=BuildModuleArgs,
        runner=run_build_module,
        acceptance=accept_build_module,
        guard=guard_build_module,
        permissions=frozenset({Permission.MOVEMENT, Permission.PLACE, Permission.DIG}),
        timeout_ms=600_000,
        retries=1,
        idempotent=True,
        preconditions=("has_materials:{module_id}",),
        effects=("module:{module_id}",),
        description=(
            "Build a structure module at an origin and facing: every missing block, bottom-up and "
            "support-first, skipping blocks already present (a re-run resumes). Obstructions are dug unless "
            "clear_obstructions=false. Acceptance scans the module witness (all placements and required-"
            "empty cells)."
        ),
        family=Family.CONSTRUCTION,
        version="1.0.0",
    ),
    CapabilitySpec(
        name="prepare_site",
        args_model=PrepareSiteArgs,
        runner=run_prepare_site,
        acceptance=accept_expected_cells,
        guard=guard_prepare_site,
        permissions=frozenset({Permission.MOVEMENT, Permission.DIG, Permission.PLACE}),
        timeout_ms=600_000,
        retries=1,
        idempotent=True,
        effects=("site_clear:{origin.x},{origin.y},{origin.z}",),
        description=(
            "Clear a building site: dig every block in a box (size) or a module's bounding box (keeping blocks "
            "the module already has in place), top layer first; with floor, fill holes in the layer under it."
        ),
        family=Family.CONSTRUCTION,
        version="1.0.0",
    ),
    CapabilitySpec(
        name="place_feature",
        args_model=PlaceFeatureArgs,
        runner=run_place_feature,
        acceptance=accept_place_feature,
        guard=guard_place_feature,
        permissions=frozenset({Permission.MOVEMENT, Permission.PLACE}),
        timeout_ms=20_000,
        retries=2,
        idempotent=True,
        effects=("feature:{feature}@{position.x},{position.y},{position.z}",),
        description=(
            "Place a feature: door (two cells, on a solid block), window (glass_pane), torch (on the floor, or "
            "on a wall as wall_torch), ladder (against the wall behind its facing). material overrides the item."
        ),
        family=Family.CONSTRUCTION,
        version="1.0.0",
    ),
    CapabilitySpec(
        name="verify_module",
        args_model=ModuleArgs,
        runner=run_verify_module,
        acceptance=accept_verify_module,
        guard=guard_verify_module,
        permissions=frozenset({Permission.SENSE}),
        timeout_ms=5_000,
        retries=0,
        idempotent=True,
        description=(
            "Read-only checkpoint: scan every placement and required-empty cell of a module and return the "
            "witness (matched/missing/wrong/obstructed, digest, evidence_digest) in observables.witness. "
            "Verified only if every cell matches; contradicted with the diff as evidence otherwise."
        ),
        family=Family.CONSTRUCTION,
        version="1.0.0",
    ),
    CapabilitySpec(
        name="build_up", version="1.0.0", family=Family.CONSTRUCTION, args_model=BuildUpArgs,
        runner=run_build_up, guard=guard_build_up, acceptance=accept_build_up,
        permissions=frozenset({Permission.MOVEMENT, Permission.PLACE}), timeout_ms=10_000,
        description="Jump and place a block under the feet (a pillar step): the bot ends one block higher",
    ),
)
