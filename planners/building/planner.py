"""The building planner: template + site -> macro plan, witnesses and a tree definition.

``BuildingPlanner.plan_build`` is the whole seed-001 solver output: the
linearized module order (content-addressed nodes), one ``ModuleWitnessV1`` per
module, the material deficit against an inventory, and the tree (every module's
``place_block_at`` steps followed by its ``verify_module`` checkpoint). The
tree validates, renders and runs like any other plan. ``work_package`` is the
micro planner the build runner calls on every module start and every resume.

As a :class:`~planners.base.Planner` (the router's ``building`` planner) it
handles ``build <template>`` intents; the site comes from ``intent.context``
(``at: [x, y, z]``, ``facing``), else :func:`site_near` the surveyed position:
the nearest origin whose footprint leaves the bot's own column free.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from craftbt.capabilities.structures import Facing, ModuleWitness
from craftbt.planners.base import PlanningFailure, PlanningState, PlanResult
from craftbt.planners.building.decompose import BuildStep, materials_for, module_steps, package_tree, repair_steps
from craftbt.planners.building.order import MacroPlan, macro_plan
from craftbt.planners.intent import GoalVerb, Intent
from craftbt.trees.model import TreeDefinition
from craftbt.trees.structure_template import StructureTemplate, anchor_for, load_template
from craftbt.trees.structure_witness import ModuleWitnessV1, make_witness
from craftbt.world.body import BlockPos

if TYPE_CHECKING:
    from craftbt.capabilities.registry import Registry


@dataclass
class BuildPlan:
    template: StructureTemplate
    origin: BlockPos
    facing: Facing
    macro: MacroPlan
    witnesses: dict[str, ModuleWitnessV1]
    tree: TreeDefinition
    deficits: dict[str, int] = field(default_factory=dict)

    @property
    def order(self) -> list[str]:
        return self.macro.order


def witnesses_for(tpl: StructureTemplate, origin: BlockPos, facing: Facing) -> dict[str, ModuleWitnessV1]:
    anchor = anchor_for(origin, facing)
    return {mid: make_witness(spec, anchor) for mid, spec in tpl.specs().items()}


def deficits(need: dict[str, int], inventory: dict[str, int]) -> dict[str, int]:
    return {b: n - inventory.get(b, 0) for b, n in sorted(need.items()) if inventory.get(b, 0) < n}


#: how far from the bot :func:`site_near` looks for a footprint that leaves the bot standing free
SITE_SEARCH = 24


def site_near(tpl: StructureTemplate, position: BlockPos, facing: Facing | str) -> BlockPos:
    """The origin nearest ``position`` (same height) whose footprint, one block around, misses the bot."""
    for d in range(2, SITE_SEARCH + 1):
        for dx, dz in ((d, 0), (0, d), (-d, 0), (0, -d)):
            origin = position.offset(dx=dx, dz=dz)
            lo, hi = tpl.footprint(anchor_for(origin, facing))
            if not (lo.x - 1 <= position.x <= hi.x + 1 and lo.z - 1 <= position.z <= hi.z + 1):
                return origin
    raise PlanningFailure("no_site", f"no site within {SITE_SEARCH} blocks leaves the bot outside the footprint")


def tree_name(tpl: StructureTemplate, suffix: str = "") -> str:
    return f"build_{tpl.template}{suffix}"


class BuildingPlanner:
    name = "building"

    def available(self) -> bool:
        return True

    def can_handle(self, intent: Intent) -> bool:
        return intent.goal.verb is GoalVerb.BUILD

    def emittable_verbs(self) -> frozenset[str]:
        return frozenset({"place_block_at", "dig_block_at", "verify_module", "place_workstation"})

    def plan_build(
        self, tpl: StructureTemplate, origin: BlockPos, facing: Facing | str, inventory: dict[str, int] | None = None
    ) -> BuildPlan:
        facing = Facing(facing)
        macro = macro_plan(tpl)
        if not macro.feasible:
            first = macro.problems[0]
            raise PlanningFailure(first.code, f"{first.module_id}: {first.detail}")
        witnesses = witnesses_for(tpl, origin, facing)
        parts = [(witnesses[mid], module_steps(witnesses[mid]), "module") for mid in macro.order]
        all_steps = [s for _, steps, _ in parts for s in steps]
        tree = package_tree(
            tree_name(tpl),
            f"Build {tpl.template} ({tpl.block_count()} blocks, "
            f"{len(tpl.modules)} modules) at {tuple(origin)} facing {facing.value}",
            parts,
            tpl.template,
            meta={"/build/template_digest": tpl.digest},
        )
        return BuildPlan(
            template=tpl,
            origin=origin,
            facing=facing,
            macro=macro,
            witnesses=witnesses,
            tree=tree,
            deficits=deficits(materials_for(all_steps), inventory or {}),
        )

    def plan(self, intent: Intent, state: PlanningState, registry: Registry) -> PlanResult:
        tpl = load_template(intent.goal.target)
        at = intent.context.get("at")
        facing = intent.context.get("facing", "N")
        if at is not None:
            origin = BlockPos(int(at[0]), int(at[1]), int(at[2]))
        elif state.position is not None:
            origin = site_near(tpl, state.position, facing)
        else:
            raise PlanningFailure("no_site", "no build site: give context.at or survey a position")
        plan = self.plan_build(tpl, origin, facing, state.inventory)
        return PlanResult(
            planner=self.name,
            tree=plan.tree,
            estimated_cost=float(tpl.block_count() * 20),
            confidence=0.9 if not plan.deficits else 0.6,
            explanation=f"{tpl.template} at {tuple(origin)} facing {Facing(facing).value}: "
            f"{len(plan.order)} modules in order {', '.join(plan.order)}; "
            f"{tpl.block_count()} blocks" + (f"; short of {plan.deficits}" if plan.deficits else ""),
            steps=tpl.block_count() + len(plan.order),
            method="per_block_modules",
            needs=dict(plan.deficits),
        )


def work_package(
    tpl: StructureTemplate, witness: ModuleWitnessV1, diff: ModuleWitness | None, label: str
) -> tuple[TreeDefinition, list[BuildStep]]:
    """The micro plan for one module: every placement (``diff`` None) or only the diff, then its checkpoint."""
    steps = module_steps(witness) if diff is None else repair_steps(witness, diff)
    tree = package_tree(
        tree_name(tpl, f"_{witness.module_id}_{label}"),
        f"{label} {witness.module_id} of {tpl.template}: {len(steps)} steps",
        [(witness, steps, label)],
        tpl.template,
    )
    return tree, steps
