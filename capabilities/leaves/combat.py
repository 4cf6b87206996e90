"""Combat leaves (seed 000): attack_entity, equip_weapon, retreat_from_threat, use_item, equip_tool.

Tool and weapon choice reads minecraft-data through ``world.mcdata``: the best harvest tool for a block
is :meth:`McData.best_tool` (dig time and harvestability), a tool's tier is :meth:`McData.tool_tier`.
minecraft-data carries no attack damage, so weapons rank by tier in the seed's priority order.
"""

from __future__ import annotations

import math
from functools import partial
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field, model_validator

from craftbt.capabilities.leaves.blocks import (
    AIR,
    combine,
    item_missing,
    place_one,
    placement_reference,
    weakest_tool,
)
from craftbt.capabilities.leaves.blockwork import standable
from craftbt.capabilities.leaves.common import (
    Step,
    StrictArgs,
    Vec3,
    act,
    body_reader,
    count_item,
    equip,
    expect_block,
    failure_from_error,
    inside_fence,
    inventory_totals,
    perform,
    registry_data,
)
from craftbt.capabilities.leaves.movement import SAFE_LIGHT
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
    TICKS_PER_SECOND,
    BlockPos,
    BodyError,
    BodyErrorCode,
    EntityInfo,
    Observation,
    Position,
)
from craftbt.world.nature import FUSE_OUT
from craftbt.world.terrain import solid_in, walk_ticks

if TYPE_CHECKING:
    from craftbt.capabilities.context import CapabilityContext
    from craftbt.world.mcdata import McData

#: The seed's tier priority (netherite > diamond > iron > stone > golden > wooden), weakest first.
TIER_PRIORITY: tuple[str, ...] = ("wooden", "golden", "stone", "iron", "diamond", "netherite")
TOOL_KINDS: tuple[str, ...] = ("pickaxe", "axe", "shovel", "hoe", "sword", "shears")
WEAPON_KINDS: tuple[str, ...] = ("sword", "axe")
#: Melee reach used to decide when to close in (vanilla survival attack reach is 3 blocks).
ATTACK_REACH = 3.0
#: Ticks between swings; without attack-speed data a sword's 0.625 s cooldown is the reference.
SWING_TICKS = 13
#: How far from where a killed target stood its drops and a look-alike are looked for when verifying.
DROP_RADIUS = 3.0
#: Blocks a fight backs off from its target (at low health, or out of a creeper's fuse).
BACK_OFF = 8.0



def _kind(name: str) -> str | None:
    if name == "shears":
        return "shears"
    _, _, kind = name.partition("_")
    return kind if kind in TOOL_KINDS else None


def _rank(md: McData, name: str) -> int:
    tier = md.tool_tier(name) if md.has_item(name) else None
    return TIER_PRIORITY.index(tier) if tier in TIER_PRIORITY else -1


def _held(ctx: CapabilityContext, destination: str = "hand") -> str | None:
    stack = ctx.body.equipment().get(destination)
    return stack.name if stack is not None else None


def accept_held(pre: Observation, post: Observation, args: object, result: ActionResult) -> VerificationResult:
    """Equip leaves: the chosen item is in hand afterwards (or, for the bare hand, nothing was chosen)."""
    chosen = result.observables.get("equipped")
    if chosen is None:
        return VerificationResult.verified(equipped=None, hand=True, held=post.held_item)
    if post.held_item == chosen:
        return VerificationResult.verified(equipped=chosen, held=post.held_item)
    return VerificationResult.contradicted(equipped=chosen, held=post.held_item)


# == equip_weapon ===================================================================================
class EquipWeaponArgs(StrictArgs):
    preferredType: Literal["sword", "axe", "any"] = Field(  # the seed's argument name
        default="any", description="Weapon kind to prefer; any ranks swords before axes of the same tier"
    )
    fallbackToHand: bool = Field(  # the seed's argument name
        default=True, description="Succeed bare-handed when there is no weapon"
    )


def best_weapon(ctx: CapabilityContext, preferred: str) -> str | None:
    md = registry_data(ctx)
    weapons = [n for n in inventory_totals(ctx) if _kind(n) in WEAPON_KINDS]
    if preferred != "any" and any(_kind(n) == preferred for n in weapons):
        weapons = [n for n in weapons if _kind(n) == preferred]
    if not weapons:
        return None
    return max(weapons, key=lambda n: (_rank(md, n), _kind(n) == "sword", n))


def guard_equip_weapon(ctx: CapabilityContext, args: EquipWeaponArgs) -> GuardResult:
    if not args.fallbackToHand and best_weapon(ctx, args.preferredType) is None:
        return GuardResult.deny("precond_missing:weapon", "no sword or axe in the inventory")
    return GuardResult.allow()


def run_equip_weapon(ctx: CapabilityContext, args: EquipWeaponArgs) -> RunnerGen:
    weapon = best_weapon(ctx, args.preferredType)
    if weapon is None:
        return ActionResult.success(equipped=None, hand=True)
    failure = yield from equip(ctx, weapon)
    if failure is not None:
        return failure
    return ActionResult.success(equipped=weapon, tier=registry_data(ctx).tool_tier(weapon))


# == equip_tool =====================================================================================
class EquipToolArgs(StrictArgs):
    tool: str | None = Field(default=None, min_length=1, description="This exact item")
    block: str | None = Field(default=None, min_length=1, description="The best harvest tool for this block")
    toolType: Literal["pickaxe", "axe", "shovel", "hoe", "sword", "shears"] | None = Field(  # seed name
        default=None, description="The highest-tier tool of this kind"
    )
    material: str | None = Field(  # the seed's argument name
        default=None, min_length=1, description="A block name, a material tag (mineable/axe) or word (wood)"
    )
    fallbackToHand: bool = Field(  # the seed's argument name
        default=True, description="Succeed bare-handed when no tool fits (or the hand is as good)"
    )

    @model_validator(mode="after")
    def _one_selector(self) -> EquipToolArgs:
        if not any((self.tool, self.block, self.toolType, self.material)):
            raise ValueError("give one of tool, block, toolType or material")
        return self


class ToolChoice(StrictArgs):
    tool: str | None = None
    why: str = ""
    #: when nothing carried fits: the cheapest tool that would (what a repair obtains)
    lacking: str | None = None


def _kind_for_material(md: McData, material: str) -> tuple[str | None, str | None]:
    """``material`` -> (block, tool kind): a block name, a ``mineable/<kind>`` tag or a word like ``wood``."""
    if md.has_block(material):
        return material, None
    if material.startswith("mineable/"):
        return None, material.split("/", 1)[1]
    for block in md.blocks():
        if block.name.endswith("_" + material) and block.material.startswith("mineable/"):
            return block.name, None
    return None, None


def choose_tool(ctx: CapabilityContext, args: EquipToolArgs) -> ToolChoice:
    md = registry_data(ctx)
    inventory = inventory_totals(ctx)
    if args.tool is not None:
        return ToolChoice(tool=args.tool if inventory.get(args.tool) else None, why=f"{args.tool} not in inventory")
    block: str | None = args.block
    kind: str | None = args.toolType
    if block is None and kind is None and args.material is not None:
        block, kind = _kind_for_material(md, args.material)
        if block is None and kind is None:
            return ToolChoice(why=f"no block or tool kind matches material {args.material!r}")
    if block is not None:
        if not md.has_block(block):
            return ToolChoice(why=f"unknown block {block!r}")
        tools = [n for n in inventory if _kind(n) is not None]
        best = md.best_tool(block, tools)
        if best is None and md.block(block).harvest_tools and not md.can_harvest(block, None):
            return ToolChoice(why=f"nothing in the inventory harvests {block}", lacking=weakest_tool(md, block))
        return ToolChoice(tool=best, why="hand is as good" if best is None else "fastest harvest")
    candidates = [n for n in inventory if _kind(n) == kind]
    if not candidates:
        return ToolChoice(why=f"no {kind} in the inventory", lacking=kind if kind == "shears" else f"wooden_{kind}")
    return ToolChoice(tool=max(candidates, key=lambda n: (_rank(md, n), n)), why="highest tier")


def guard_equip_tool(ctx: CapabilityContext, args: EquipToolArgs) -> GuardResult:
    choice = choose_tool(ctx, args)
    if choice.tool is None and not args.fallbackToHand and choice.why != "hand is as good":
        return GuardResult.deny("precond_missing:tool", choice.why,
                                missing={choice.lacking: 1} if choice.lacking else None)
    if args.tool is not None and choice.tool is None:
        return GuardResult.deny(f"precond_missing:item:{args.tool}", choice.why)
    return GuardResult.allow()


def run_equip_tool(ctx: CapabilityContext, args: EquipToolArgs) -> RunnerGen:
    choice = choose_tool(ctx, args)
    if choice.tool is None:
        return ActionResult.success(equipped=None, hand=True, why=choice.why)
    failure = yield from equip(ctx, choice.tool)
    if failure is not None:
        return failure
    return ActionResult.success(equipped=choice.tool, why=choice.why)


# == use_item =======================================================================================
class UseItemArgs(StrictArgs):
    item: str = Field(min_length=1, description="Item to use (right-click)")
    quantity: int = Field(default=1, ge=1, le=64, description="How many times to use it")
    hand: Literal["main", "off"] = Field(default="main", description="Hand to hold it in")
    target: Vec3 | None = Field(default=None, description="Block to use it on; default: the air ahead")


def guard_use_item(ctx: CapabilityContext, args: UseItemArgs) -> GuardResult:
    have = inventory_totals(ctx).get(args.item, 0)
    if have < 1:
        return GuardResult.deny(f"precond_missing:item:{args.item}", "not in the inventory")
    return GuardResult.allow()


def run_use_item(ctx: CapabilityContext, args: UseItemArgs) -> RunnerGen:
    destination = "hand" if args.hand == "main" else "off-hand"
    target: BlockPos | None = args.target.as_block_pos() if args.target is not None else None
    used = 0
    for _ in range(args.quantity):
        if inventory_totals(ctx).get(args.item, 0) < 1:
            break
        failure = yield from equip(ctx, args.item, destination)
        if failure is not None:
            return failure
        failure = yield from perform(lambda: ctx.body.use_item(args.item, target))
        if failure is not None:
            failure.observables["used"] = used
            return failure
        used += 1
    if used == 0:
        return ActionResult.failure(f"precond_missing:item:{args.item}", "ran out before the first use")
    return ActionResult.success(item=args.item, used=used)


def accept_use_item(
    pre: Observation, post: Observation, args: UseItemArgs, result: ActionResult
) -> VerificationResult:
    spent = pre.count(args.item) - post.count(args.item)
    used = int(result.observables.get("used", 0))
    if spent > 0:
        return VerificationResult.verified(used=used, consumed=spent)
    # Using a stick or a sword consumes nothing: the use is not observable in the inventory.
    return VerificationResult.inconclusive(used=used, consumed=0)


# == retreat_from_threat ============================================================================
class RetreatArgs(StrictArgs):
    retreatDistance: float = Field(default=12.0, ge=1, le=64, description="How far to move away")  # seed name
    safeRadius: float = Field(default=16.0, ge=2, le=64, description="Hostiles within this count")  # seed name
    useSprint: bool = Field(  # the seed's argument name
        default=True, description="Accepted for the seed's contract; bodies path at their own pace"
    )


def _hostiles(ctx: CapabilityContext, radius: float) -> list[EntityInfo]:
    return ctx.body.entities(radius, kind="hostile")


def _centre(points: list[Position]) -> Position:
    n = len(points)
    return Position(sum(p.x for p in points) / n, sum(p.y for p in points) / n, sum(p.z for p in points) / n)


def _flat_distance(a: Position, b: Position) -> float:
    return math.hypot(a.x - b.x, a.z - b.z)


#: A retreat's target is moved this far up or down its column onto the ground.
GROUND_SEARCH_DY = 6


def _ground_near(ctx: CapabilityContext, cell: BlockPos) -> BlockPos | None:
    """The standable cell in ``cell``'s column nearest its height: on a hillside the cell at the feet's height
    twelve blocks off is inside the hill or in the air (natural seed 8: every direction failed ``no standable
    cell`` and the bot died mining logs at night)."""
    for dy in sorted(range(-GROUND_SEARCH_DY, GROUND_SEARCH_DY + 1), key=lambda d: (abs(d), d)):
        if standable(ctx, cell.offset(dy=dy)):
            return cell.offset(dy=dy)
    return None


def walk_away(ctx: CapabilityContext, threat: Position, distance: float) -> Step:
    """Walk ``distance`` blocks away from ``threat``: straight away first, then fanning out (a wall behind is
    common, a dead end on all sides is not), the ways that stay inside the geofence before those that leave it
    (the executor stops a walk at the fence: natural seed 1's crossbow, a night's shelter by the fence, retreated
    from the morning's creepers across it three times and stood still among them). None when the bot got away,
    else the last failure. One walk for a retreat from hostiles and a fight's backing off."""
    here = ctx.body.position()
    away = math.atan2(here.z - threat.z, here.x - threat.x) if _flat_distance(here, threat) > 1e-6 else 0.0
    fence = ctx.memory.get("geofence")
    targets = [BlockPos(math.floor(here.x + math.cos(angle) * distance), math.floor(here.y),
                        math.floor(here.z + math.sin(angle) * distance))
               for angle in (away + turn * math.pi / 4 for turn in (0, 1, -1, 2, -2, 3, -3, 4))]
    targets.sort(key=lambda target: not inside_fence(fence, target))  # stable: straight away first on each side
    last_error: ActionResult | None = None
    for target in targets:
        goal = _ground_near(ctx, target) or target  # no ground near: the body's own refusal says why
        failure = yield from perform(partial(ctx.body.goto, goal, tolerance=2.0))
        if failure is None:
            return None
        last_error = failure
    assert last_error is not None
    return last_error


def run_retreat(ctx: CapabilityContext, args: RetreatArgs) -> RunnerGen:
    threats = _hostiles(ctx, args.safeRadius)
    here = ctx.body.position()
    if not threats:
        return ActionResult.success(retreated=False, threats=0, position=list(here))
    centre = _centre([e.position for e in threats])
    failure = yield from walk_away(ctx, centre, args.retreatDistance)
    if failure is not None:
        failure.observables["threats"] = len(threats)
        return failure
    now = ctx.body.position()
    return ActionResult.success(
        retreated=True, threats=len(threats), threat_centre=list(centre), position=list(now),
        distance_before=_flat_distance(here, centre), distance_after=_flat_distance(now, centre),
    )


def accept_retreat(
    pre: Observation, post: Observation, args: RetreatArgs, result: ActionResult
) -> VerificationResult:
    if not result.observables.get("retreated"):
        return VerificationResult.verified(retreated=False, reason="no hostiles within safeRadius")
    centre = Position(*result.observables["threat_centre"])
    before, after = _flat_distance(pre.position, centre), _flat_distance(post.position, centre)
    evidence = {
        "distance_before": round(before, 2), "distance_after": round(after, 2), "safe_radius": args.safeRadius
    }
    if after >= min(before + args.retreatDistance / 2, args.safeRadius):
        return VerificationResult.verified(**evidence)
    if after > before:
        return VerificationResult.inconclusive(**evidence)
    return VerificationResult.contradicted(**evidence)


# == attack_entity ==================================================================================
class AttackEntityArgs(StrictArgs):
    entityId: int | None = Field(default=None, description="Target entity id")  # the seed's argument name
    entityType: str | None = Field(  # type-based targeting, e.g. zombie
        default=None, min_length=1, description="Nearest entity of this type (default: nearest hostile)"
    )
    radius: float = Field(default=16.0, ge=1, le=64, description="Search radius")
    duration: int = Field(default=30_000, ge=1000, le=120_000, description="Give up after this many ms")
    retreatHealth: float = Field(  # the seed's argument name
        default=6.0, ge=0, le=20, description="Break off and back away when own health falls to this"
    )


#: Mobs that light a fuse beside the player and blow up (vanilla's creeper: it swells within 3 blocks and its fuse
#: goes out beyond FUSE_OUT, 30 ticks to the blast). A fight with one backs off out of the fuse after every swing,
#: and first of all when one stands within FUSE_OUT as the fight begins (its fuse may be burning already).
FUSED = frozenset({"creeper"})
#: A fused mob lights its fuse this near the player (vanilla's creeper: 3 blocks), with half a block to spare for
#: the step it takes while the fight looks.
FUSE_LIGHTS = 3.5
#: Within this many blocks a fight waits (up to FUSE_WAIT_TICKS) for a fused mob to walk into reach.
FUSE_WAIT, FUSE_WAIT_TICKS = 5.0, 40
#: Memory key: the entities this run found no path to. A type-based attack turns to the next one of the type,
#: and skips any standing in a cell the goal run could not reach (natural seed 13: a sheep with no standable
#: cell near it was chosen by three runs in a row).
UNREACHED_KEY = "attack_unreached"


def find_target(ctx: CapabilityContext, args: AttackEntityArgs, radius: float) -> EntityInfo | None:
    return _pick_target(ctx, args, ctx.body.entities(radius), ctx.body.position())


def _pick_target(ctx: CapabilityContext, args: AttackEntityArgs, seen: list[EntityInfo],
                here: Position) -> EntityInfo | None:
    """The target among the entities ``seen`` from ``here``: ``entityId``, else the nearest of ``entityType``
    (else the nearest hostile), none the run found no path to."""
    entities = [e for e in seen if e.kind not in ("item", "player")]
    if args.entityId is not None:
        return next((e for e in entities if e.id == args.entityId), None)
    unreached: set[int] = ctx.memory.get(UNREACHED_KEY, set())
    entities = [e for e in entities if e.id not in unreached and e.position.block() not in ctx.unreachable]
    if args.entityType is not None:
        entities = [e for e in entities if e.name == args.entityType]
    else:
        entities = [e for e in entities if e.kind == "hostile"]
    return min(entities, key=lambda e: e.position.distance_to(here), default=None)


def guard_attack(ctx: CapabilityContext, args: AttackEntityArgs) -> GuardResult:
    """Refuses a fight at or below ``retreatHealth`` with a mob that hits back; an animal does not, and a bot worn
    down hunts one for the food it heals with (natural seed 1's fishing rod: one health point, nothing to eat)."""
    target = find_target(ctx, args, args.radius)
    if ctx.body.health() <= args.retreatHealth and (target is None or fights_back(target)):
        return GuardResult.deny("low_health", f"health {ctx.body.health()} <= retreatHealth {args.retreatHealth}")
    if target is None:
        return GuardResult.deny("no_target", f"no matching entity within {args.radius} blocks")
    return GuardResult.allow()


def fights_back(target: EntityInfo) -> bool:
    """A hostile mob hits back; a passive animal does not."""
    return target.kind == "hostile"


def run_attack(ctx: CapabilityContext, args: AttackEntityArgs) -> RunnerGen:
    target = find_target(ctx, args, args.radius)
    if target is None:
        return ActionResult.failure("no_target", "the target left before the fight")
    target_id, name = target.id, target.name
    fused = name in FUSED
    radius = args.radius * 2  # how far the fight keeps sight of its target
    if fused and _within(ctx, target_id, FUSE_OUT, radius):
        # natural seed 0: a creeper that walked up during the search blew up 0.4 s into the fight
        away = yield from _out_of_fuse(ctx, _fuses_near(ctx, target.position))
        if away is not None:
            away.observables.update(target=target_id, hits=0)
            return away
    deadline = ctx.body.now_ticks() + args.duration * TICKS_PER_SECOND // 1000
    hits, last_health, last_seen, waited = 0, target.health, target.position, 0
    outlived_swing = False  # seen alive (health known, above 0) after our last swing
    bot_health = ctx.body.health()
    while True:
        seen, here = ctx.body.entities(radius), ctx.body.position()  # one look a tick for every rule below
        current = next((e for e in seen if e.id == target_id), None)
        health = ctx.body.health()
        hurt, bot_health = health < bot_health, health
        if current is None and fused and (outlived_swing or hurt):
            # gone with no killing blow of ours since, or with a blast that hurt the bot as it went: it blew itself
            # up (or despawned), and a creeper's blast drops nothing, so the record must not say "killed"
            # (natural seed 0's firework rocket said so twice)
            return ActionResult.failure("target_gone", f"the {name} is gone, not killed: it exploded or despawned",
                                        retryable=True, target=target_id, hits=hits, last_health=last_health)
        if current is None and hits == 0:
            # never struck: it walked out of sight, burned or despawned; whatever it was, not our kill
            return ActionResult.failure("target_gone", f"the {name} is gone before a swing", retryable=True,
                                        target=target_id, hits=0, last_health=last_health)
        if current is None:
            # the verifier lists the entities again: the target must be gone, and what it dropped is evidence
            receipt = Receipt(extra={"probe_entities": radius, "last_seen": list(last_seen)})
            return ActionResult.success(receipt, target=target_id, name=name, killed=True, hits=hits,
                                        last_health=last_health)
        last_health, last_seen = current.health, current.position
        if health <= args.retreatHealth and (fights_back(current) or hurt):  # an animal's hunt, until something hurts
            yield from _back_off(ctx, current.position)
            return ActionResult.failure(
                "low_health", f"health {ctx.body.health()} at or below {args.retreatHealth}; backed off",
                retryable=True, target=target_id, hits=hits,
            )
        if ctx.body.now_ticks() >= deadline:
            return ActionResult.failure(
                "target_alive", f"{name} still alive after {args.duration} ms", retryable=True,
                target=target_id, hits=hits, last_health=last_health,
            )
        if fused:
            # two creepers walk up together (natural seed 1's firework rocket): the nearer is the one swung at, and
            # one that comes within its fuse's reach while the one fought is out of reach is walked away from (in
            # reach, the swing comes first: the walk after it leaves both behind)
            nearer = _nearer_of_its_kind(ctx, args, current, seen, here)
            if nearer is not None:
                target_id, current, hits, outlived_swing, waited = nearer.id, nearer, 0, False, 0
                last_health, last_seen = current.health, current.position
            in_reach = current.position.distance_to(here) <= ATTACK_REACH
            if not in_reach and _another_fuse_lights(seen, target_id, here):
                away = yield from _out_of_fuse(ctx, _fuses_near(ctx, current.position))
                if away is not None:
                    away.observables.update(target=target_id, hits=hits)
                    return away
                continue
        if fused and current.position.distance_to(here) <= FUSE_WAIT and waited < FUSE_WAIT_TICKS:
            # a creeper walks up to the player: swung at as it comes into reach, the bot is as far from it as a
            # swing allows (a chase's last step lands a block nearer), so the walk out of its fuse is shortest
            if current.position.distance_to(here) > ATTACK_REACH:
                waited += 1
                yield None
                continue
        elif current.position.distance_to(here) > ATTACK_REACH:
            try:
                handle = ctx.body.goto(current.position.block(), tolerance=ATTACK_REACH - 1)
            except BodyError as err:
                other = _another_target(ctx, args, current, err)
                if other is None:
                    return failure_from_error(err, target=target_id, hits=hits)
                target_id, name, last_health = other.id, other.name, other.health
                continue
            # Chase in short legs: the target moves, so re-aim every second. A creeper is not chased into reach
            # (it walks up itself): a step closer is a step more to back off out of its fuse.
            leg_start = ctx.body.now_ticks()
            chase_until = leg_start + TICKS_PER_SECOND
            # ... nor past the edge of reach once the wait is over: its fuse lights within 3 blocks, and each block
            # nearer is one more to walk back out (natural seed 0: a creeper stuck 4.7 blocks off was walked up to
            # 1.7 blocks, and blew up while the bot backed off)
            while ctx.body.now_ticks() < chase_until and handle.status().value == "running" \
                    and not (fused and _within(ctx, target_id, FUSE_WAIT if waited < FUSE_WAIT_TICKS else ATTACK_REACH,
                                               radius)):
                yield None
            handle.cancel("re-aim")
            if ctx.body.now_ticks() == leg_start:
                yield None  # a leg that ended at once: the next look is a tick later, not a loop within this tick
            continue
        try:
            swing = ctx.body.attack(target_id)
        except BodyError as err:
            return failure_from_error(err, target=target_id, hits=hits)
        failure = yield from act(swing)
        if failure is not None:
            if failure.error is not None and failure.error.code in ("unknown_entity", "out_of_reach"):
                continue  # died or stepped away between our look and the swing
            return failure
        hits += 1
        waited = 0
        after = next((e for e in ctx.body.entities(radius) if e.id == target_id), None)
        outlived_swing = after is not None and after.health is not None and after.health > 0
        if fused and after is not None:  # still listed within sight (the list above): not yet dead
            # out of the fuse before it burns down, then in again for the next swing: a creeper that blows up
            # drops nothing (and its blast killed the bot: natural seed 0's firework rocket)
            away = yield from _out_of_fuse(ctx, _fuses_near(ctx, current.position))
            if away is not None:
                away.observables.update(target=target_id, hits=hits)
                return away
        cooldown = ctx.body.now_ticks() + SWING_TICKS
        while ctx.body.now_ticks() < cooldown:
            yield None


def _nearer_of_its_kind(ctx: CapabilityContext, args: AttackEntityArgs, current: EntityInfo,
                        seen: list[EntityInfo], here: Position) -> EntityInfo | None:
    """In a fight for any mob of a type: the one :func:`_pick_target` picks among those ``seen`` (the nearest, none
    the run found no path to) when it is another, a quarter block or more nearer than the one fought; else None."""
    nearest = _pick_target(ctx, args, seen, here)
    if nearest is None or nearest.id == current.id or nearest.name != current.name:
        return None
    return nearest if nearest.position.distance_to(here) < current.position.distance_to(here) - 0.25 else None


def _another_fuse_lights(seen: list[EntityInfo], target_id: int, here: Position) -> bool:
    """A fused mob other than the one fought stands within :data:`FUSE_LIGHTS` of the bot."""
    return any(e.name in FUSED and e.id != target_id and e.position.distance_to(here) <= FUSE_LIGHTS
               for e in seen)


def _fuses_near(ctx: CapabilityContext, fought: Position) -> list[Position]:
    """Where the fused mobs a walk out of the fuse must leave behind stand: the one fought, and every other within
    :data:`FUSE_NEAR` of the bot (natural seed 1's firework rocket: a second creeper walked up while the first was
    fought, the walk out of the first one's fuse went past it, and its blast took both creepers and 9 health)."""
    here = ctx.body.position()
    others = [e.position for e in ctx.body.entities(FUSE_NEAR) if e.name in FUSED
              and e.position.distance_to(here) <= FUSE_NEAR and e.position.distance_to(fought) > 0.5]
    return [fought, *others]


def _out_of_fuse(ctx: CapabilityContext, fused: list[Position]) -> Step:
    """Walk out of the fused mobs' reach by the cell beyond all of them the bot walks to soonest
    (:func:`escape_cell`), else straight away from where they stand: at least BACK_OFF, and far enough to end
    (within the walk's 2-block tolerance) a block beyond FUSE_OUT. None when away, else the walk's failure.

    Straight away is no race on natural ground: a walk up a slope or round a tree took 27 of the fuse's 30 ticks to
    reach 7.0 blocks, and the creeper blew up (natural seed 0's firework rocket; 11 of 24 fights on its hills)."""
    cell = escape_cell(ctx, fused, FUSE_OUT + ESCAPE_MARGIN)
    if cell is not None:
        failure = yield from perform(partial(ctx.body.goto, cell, tolerance=0.0))
        if failure is None or (failure.error is not None and failure.error.code in ("died", "cancelled")):
            return failure
    centre = _centre(fused)
    distance = max(BACK_OFF, FUSE_OUT + 3.0 - ctx.body.position().distance_to(centre))
    return (yield from walk_away(ctx, centre, distance))


#: An escape cell stands this far beyond FUSE_OUT from the creeper (the walk ends on the cell's centre), and is
#: looked for this many blocks across around the bot.
ESCAPE_MARGIN, ESCAPE_RADIUS = 0.75, 10
#: Another fused mob this near the bot is escaped with the one fought (it walks up while the fight goes on).
FUSE_NEAR = FUSE_OUT + 2.0


def escape_cell(ctx: CapabilityContext, threats: list[Position], beyond: float) -> BlockPos | None:
    """The standable cell more than ``beyond`` blocks from every one of ``threats`` that the bot walks to in the
    fewest ticks (``world.terrain.walk_ticks``: slopes, steps, trees and drops priced as the pathfinder prices
    them); None when none is within :data:`ESCAPE_RADIUS`."""
    def out(cell: BlockPos) -> bool:
        centre = Position(cell.x + 0.5, cell.y, cell.z + 0.5)
        return all(centre.distance_to(threat) > beyond for threat in threats)

    read, solid = body_reader(ctx, snapshot=True), solid_in(registry_data(ctx))
    ticks = walk_ticks(read, solid, ctx.body.position().block(), ESCAPE_RADIUS, until=out)
    last = next(reversed(ticks), None)  # the walk stopped at the first cell out of the fuse, if any
    return last if last is not None and out(last) else None


def _within(ctx: CapabilityContext, target_id: int, distance: float, radius: float) -> bool:
    """The entity ``target_id`` is listed within ``radius`` and stands at most ``distance`` from the bot."""
    here = ctx.body.position()
    return any(e.id == target_id and e.position.distance_to(here) <= distance for e in ctx.body.entities(radius))


def _another_target(ctx: CapabilityContext, args: AttackEntityArgs, unreached: EntityInfo,
                    err: BodyError) -> EntityInfo | None:
    """After no path to the target: the next one of its type (remembering this one for the run), or None."""
    if err.code is not BodyErrorCode.NO_PATH or args.entityId is not None:
        return None
    ctx.memory.setdefault(UNREACHED_KEY, set()).add(unreached.id)
    ctx.unreachable.add(unreached.position.block())  # for the goal run's later searches and attacks: it may stay
    return find_target(ctx, args, args.radius)


def _back_off(ctx: CapabilityContext, threat: Position) -> RunnerGen:
    failure = yield from walk_away(ctx, threat, BACK_OFF)
    return failure or ActionResult.success()


def accept_attack(
    pre: Observation, post: Observation, args: AttackEntityArgs, result: ActionResult
) -> VerificationResult:
    """The entities are listed again: the target must be gone (its id, and no other of its kind where it stood).

    The drops lying where it fell are evidence only (a zombie may drop nothing); a runner's ``killed`` is not.
    """
    evidence: dict[str, Any] = {k: result.observables.get(k) for k in ("target", "name", "hits", "last_health")}
    receipt = result.receipt
    if not result.observables.get("killed") or receipt is None or "last_seen" not in receipt.extra:
        return VerificationResult.inconclusive(killed=False, **evidence)
    if post.entities is None:
        return VerificationResult.inconclusive(reason="the entities could not be listed again", **evidence)
    fell = Position(*receipt.extra["last_seen"])
    if any(e.id == evidence["target"] for e in post.entities):
        return VerificationResult.contradicted(reason="the target is still there", **evidence)
    near = [e for e in post.entities if e.position.distance_to(fell) <= DROP_RADIUS]
    evidence["drops"] = sorted(e.item.name for e in near if e.kind == "item" and e.item is not None)
    if any(e.name == evidence["name"] for e in near):
        return VerificationResult.inconclusive(reason=f"a {evidence['name']} stands where the target fell", **evidence)
    return VerificationResult.verified(killed=True, **evidence)


# == registration ===================================================================================
# -- retreat_and_block ---------------------------------------------------------------------
class RetreatAndBlockArgs(StrictArgs):
    retreatDistance: int = Field(default=5, ge=2, le=16, description="How far to move away from the nearest hostile")
    blockType: str = Field(default="cobblestone", min_length=1, description="Block to wall off the way back with")
    checkLight: bool = Field(default=False, description=f"Prefer retreat spots with light >= {SAFE_LIGHT}")


#: Hostiles further than this are not a threat to retreat from.
THREAT_RADIUS = 16.0


def nearest_hostile(ctx: CapabilityContext) -> Position | None:
    me = ctx.body.position()
    hostiles = [e.position for e in ctx.body.entities(THREAT_RADIUS, kind="hostile")]
    hostiles = [p for p in hostiles if p.distance_to(me) <= THREAT_RADIUS]
    return min(hostiles, key=lambda p: p.distance_to(me)) if hostiles else None


def retreat_spot(ctx: CapabilityContext, threat: Position, args: RetreatAndBlockArgs) -> BlockPos | None:
    """A standable block about retreatDistance away from the threat, straight away from it if possible."""
    me = ctx.body.position()
    away = math.atan2(me.z - threat.z, me.x - threat.x)
    feet_y = math.floor(me.y)
    fallback: BlockPos | None = None
    for distance in range(args.retreatDistance, 1, -1):
        for turn in (0, 30, -30, 60, -60, 90, -90):
            angle = away + math.radians(turn)
            x = math.floor(me.x + distance * math.cos(angle))
            z = math.floor(me.z + distance * math.sin(angle))
            for dy in (0, 1, -1, 2, -2):
                cell = BlockPos(x, feet_y + dy, z)
                if Position(x + 0.5, cell.y, z + 0.5).distance_to(threat) <= me.distance_to(threat):
                    continue
                if not standable(ctx, cell):
                    continue
                if not args.checkLight or ctx.body.light_level(cell) >= SAFE_LIGHT:
                    return cell
                fallback = fallback or cell
    return fallback


def guard_retreat_and_block(ctx: CapabilityContext, args: RetreatAndBlockArgs) -> GuardResult:
    md = registry_data(ctx)
    if not md.has_block(args.blockType) or not md.block(args.blockType).solid:
        return GuardResult.deny("not_placeable", f"{args.blockType} is not a solid block")
    if count_item(ctx, args.blockType) < 1:
        return item_missing(args.blockType)
    if nearest_hostile(ctx) is None:
        return GuardResult.deny("no_threat", f"no hostile within {THREAT_RADIUS:g} blocks")
    return GuardResult.allow()


def run_retreat_and_block(ctx: CapabilityContext, args: RetreatAndBlockArgs) -> RunnerGen:
    md = registry_data(ctx)
    threat = nearest_hostile(ctx)
    if threat is None:
        return ActionResult.failure("no_threat", "the threat is gone")
    spot = retreat_spot(ctx, threat, args)
    if spot is None:
        return ActionResult.failure("no_retreat", "no standable spot away from the threat")
    failure = yield from perform(lambda: ctx.body.goto(spot, tolerance=0.5))
    if failure is not None:
        return failure
    # Wall the cell between us and the threat, feet and head high, so it cannot walk (or jump) through.
    here = ctx.body.position()
    dx, dz = threat.x - here.x, threat.z - here.z
    step = (1 if dx > 0 else -1, 0) if abs(dx) >= abs(dz) else (0, 1 if dz > 0 else -1)
    wall = here.block().offset(dx=step[0], dz=step[1])
    placed: list[BlockPos] = []
    for cell in (wall, wall.offset(dy=1)):
        if count_item(ctx, args.blockType) < 1:
            break
        if ctx.body.block_at(cell).name not in AIR:
            continue
        reference = placement_reference(md, ctx, cell)
        if reference is None:
            continue
        outcome = yield from place_one(ctx, args.blockType, cell, *reference)
        if outcome.ok:
            placed.append(cell)
    moved = round(here.distance_to(threat), 2)
    if not placed:
        return ActionResult.failure(
            "not_blocked", "retreated but could not place a block behind", distanceFromThreat=moved
        )
    return ActionResult.success(
        receipt=Receipt(positions=placed, block=args.blockType),
        retreatedTo=[spot.x, spot.y, spot.z],
        distanceFromThreat=moved,
        blocksPlaced=len(placed),
    )


def accept_retreat_and_block(
    pre: Observation, post: Observation, args: RetreatAndBlockArgs, result: ActionResult
) -> VerificationResult:
    receipt = result.receipt
    if receipt is None or not receipt.positions:
        return VerificationResult.inconclusive(reason="no receipt")
    moved = round(post.position.distance_to(pre.position), 2)
    checks = [expect_block(post, p, args.blockType) for p in receipt.positions]
    if moved < 1:
        checks.append(VerificationResult.contradicted(reason="did not move away", moved=moved))
    return combine(checks, moved=moved)


#: What this module registers (a built-in plugin: see :data:`capabilities.default.BUILTIN_PLUGINS`).
SPECS: tuple[CapabilitySpec, ...] = (
    CapabilitySpec(
        name="attack_entity", version="1.1.0", family=Family.COMBAT, args_model=AttackEntityArgs,
        runner=run_attack, acceptance=accept_attack, guard=guard_attack,
        permissions=frozenset({Permission.MOVEMENT, Permission.COMBAT}), timeout_ms=60_000, retries=3,
        preconditions=("safe",), meta={"reverses": True},  # backs off and closes in: no pathfinding flap
        description=(
            "Close in on an entity (entityId, else the nearest entityType, else the nearest hostile within "
            "radius) and swing until it is gone; backs off and fails low_health at retreatHealth (from an "
            "animal, which does not hit back, only when something hurts the bot). Refuses no_target / low_health "
            "(a mob that hits back). (The seed lists [movement, dig]; combat is the permission it uses.)"
        ),
    ),
    CapabilitySpec(
        name="equip_weapon", version="1.0.0", family=Family.COMBAT, args_model=EquipWeaponArgs,
        runner=run_equip_weapon, acceptance=accept_held, guard=guard_equip_weapon,
        permissions=frozenset({Permission.CONTAINER_READ, Permission.INVENTORY}), timeout_ms=5_000, retries=1,
        idempotent=True,
        description=(
            "Hold the best sword or axe (tier priority netherite > diamond > iron > stone > golden > wooden; "
            "minecraft-data has no attack damage). Bare hand when none and fallbackToHand."
        ),
    ),
    CapabilitySpec(
        name="retreat_from_threat", version="1.0.0", family=Family.COMBAT, args_model=RetreatArgs,
        runner=run_retreat, acceptance=accept_retreat,
        permissions=frozenset({Permission.MOVEMENT}), timeout_ms=30_000, retries=2, effects=("safe",),
        description=(
            "Walk retreatDistance away from the centre of hostiles within safeRadius (fanning out if the way "
            "is blocked); no hostiles is success with retreated=false. Verified by the distance gained."
        ),
    ),
    CapabilitySpec(
        name="use_item", version="1.0.0", family=Family.COMBAT, args_model=UseItemArgs,
        runner=run_use_item, acceptance=accept_use_item, guard=guard_use_item,
        permissions=frozenset({Permission.CONTAINER_READ, Permission.INTERACT}), timeout_ms=10_000, retries=1,
        preconditions=("has:{item}",),
        description=(
            "Hold an item in the main or off hand and use it quantity times, optionally on a target block. "
            "Verified when it was consumed; a use that consumes nothing is inconclusive."
        ),
    ),
    CapabilitySpec(
        name="equip_tool", version="1.0.0", family=Family.COMBAT, args_model=EquipToolArgs,
        runner=run_equip_tool, acceptance=accept_held, guard=guard_equip_tool,
        permissions=frozenset({Permission.CONTAINER_READ, Permission.INVENTORY}), timeout_ms=5_000, retries=1,
        idempotent=True, effects=("equipped:{tool}",),
        description=(
            "Hold the right tool: an exact tool, the fastest harvester of a block (minecraft-data best_tool), "
            "the highest tier of a toolType, or by material (a block, mineable/<kind>, or a word like wood)."
        ),
    ),
    CapabilitySpec(
        name="retreat_and_block",
        version="1.0.0",
        family=Family.INTERACTION,
        args_model=RetreatAndBlockArgs,
        runner=run_retreat_and_block,
        acceptance=accept_retreat_and_block,
        guard=guard_retreat_and_block,
        permissions=frozenset({Permission.MOVEMENT, Permission.PLACE}),
        timeout_ms=15_000,
        retries=1,
        preconditions=("has:{blockType}",),
        effects=("safe",),
        description=(
            "Walk retreatDistance away from the nearest hostile, then wall the block toward it (feet and head "
            "high) with blockType."
        ),
    ),
)
