"""Micro plans: per-block ``place_block_at`` / ``dig_block_at`` steps for one module, as a tree.

Seed 001 "Path A": a module becomes one step per block, each independently
checkpointable, followed by a synthetic ``verify_module`` checkpoint leaf that
carries the module's witness digest. A micro plan is always computed from the
current delta: a fresh module gets every placement in build order; a repair
gets only the diff (dig what is wrong or obstructs, place what is missing).

Workstation mapping rule (seed 001 "Workstation semantics"): a ``place`` of a
workstation-class block *with* coordinates inside a building module is a
structural placement (``place_block_at``); without coordinates it is a
capability placement (``place_workstation``, reuse-first). :func:`leaf_for`
is that boundary.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from craftbt.capabilities.structures import ModuleWitness
from craftbt.trees.model import LeafNode, Node, SequenceNode, TreeDefinition
from craftbt.trees.structure_witness import ModuleWitnessV1
from craftbt.world.body import BlockPos

#: Blackboard key of a package's step meta (leaf name -> ``{domain, leaf, moduleId, templateId, ...}``).
STEP_META_KEY = "/build/step_meta"
WORKSTATION_BLOCKS = frozenset({"crafting_table", "furnace", "smoker", "blast_furnace", "anvil"})


class StepKind(StrEnum):
    PLACE = "place"
    DIG = "dig"


@dataclass(frozen=True)
class BuildStep:
    """One block of work; ``step_id`` is content-addressed (stable across sessions and replans)."""

    kind: StepKind
    module_id: str
    pos: BlockPos
    block: str  # the block to place, or for a dig the block expected there

    @property
    def step_id(self) -> str:
        return f"{self.module_id}:{self.kind.value}:{self.pos.x},{self.pos.y},{self.pos.z}:{self.block}"

    def meta(self, template_id: str) -> dict[str, Any]:
        """The seed's step meta tags: ``{domain, leaf, moduleId, templateId, position, blockId}``."""
        return {
            "domain": "building",
            "leaf": self.leaf(template_id).capability,
            "moduleId": self.module_id,
            "templateId": template_id,
            "position": {"x": self.pos.x, "y": self.pos.y, "z": self.pos.z},
            "blockId": self.block,
            "stepId": self.step_id,
        }

    def leaf(self, template_id: str) -> LeafNode:
        p = {"x": self.pos.x, "y": self.pos.y, "z": self.pos.z}
        if self.kind is StepKind.PLACE:
            return LeafNode(
                name=f"place {self.block} @{self.pos.x},{self.pos.y},{self.pos.z}",
                capability=leaf_for(self.block, has_position=True),
                args={"position": p, "block": self.block},
            )
        return LeafNode(
            name=f"dig {self.block} @{self.pos.x},{self.pos.y},{self.pos.z}",
            capability="dig_block_at",
            args={"position": p, "expect": self.block},
        )


def leaf_for(block: str, *, has_position: bool) -> str:
    """The mapping boundary: structural placement with coordinates, capability placement without."""
    if has_position:
        return "place_block_at"
    if block in WORKSTATION_BLOCKS:
        return "place_workstation"
    return "place_block"


def module_steps(witness: ModuleWitnessV1) -> list[BuildStep]:
    """Every placement of the module in build order (a fresh module, or a replan of a destroyed one)."""
    return [BuildStep(StepKind.PLACE, witness.module_id, pos, block) for pos, block in witness.absolute_placements()]


def repair_steps(witness: ModuleWitnessV1, diff: ModuleWitness) -> list[BuildStep]:
    """Apply the diff: dig wrong blocks, place missing and wrong ones (build order), dig obstructions."""
    out: list[BuildStep] = [BuildStep(StepKind.DIG, witness.module_id, c.position, c.observed) for c in diff.wrong]
    todo = {c.position for c in (*diff.missing, *diff.wrong)}
    out += [
        BuildStep(StepKind.PLACE, witness.module_id, pos, block)
        for pos, block in witness.absolute_placements()
        if pos in todo
    ]
    out += [
        BuildStep(StepKind.DIG, witness.module_id, c.position, c.observed)
        for c in diff.obstructed
        if c.observed not in ("unknown",)
    ]
    return out


def materials_for(steps: list[BuildStep]) -> dict[str, int]:
    need: dict[str, int] = {}
    for s in steps:
        if s.kind is StepKind.PLACE:
            need[s.block] = need.get(s.block, 0) + 1
    return dict(sorted(need.items()))


def verify_leaf(witness: ModuleWitnessV1, template_id: str) -> LeafNode:
    o = witness.ref_corner
    return LeafNode(
        name=f"checkpoint: verify module {witness.module_id}",
        capability="verify_module",
        args={
            "module": witness.spec().model_dump(mode="json"),
            "origin": {"x": o.x, "y": o.y, "z": o.z},
            "facing": witness.facing.value,
        },
    )


def checkpoint_meta(witness: ModuleWitnessV1, template_id: str) -> dict[str, Any]:
    """The synthetic checkpoint step's meta (seed 001 stage 1 step 3)."""
    return {
        "domain": "building",
        "leaf": "verify_module",
        "moduleId": witness.module_id,
        "templateId": template_id,
        "isCheckpoint": True,
        "moduleWitnessDigest": witness.witness_digest,
    }


def step_meta(parts: list[tuple[ModuleWitnessV1, list[BuildStep], str]], template_id: str) -> dict[str, Any]:
    """Leaf name -> the seed's meta tags, for every step of a package (kept on the tree's blackboard)."""
    out: dict[str, Any] = {}
    for witness, steps, _ in parts:
        for s in steps:
            out[str(s.leaf(template_id).name)] = s.meta(template_id)
        out[str(verify_leaf(witness, template_id).name)] = checkpoint_meta(witness, template_id)
    return out


def module_node(witness: ModuleWitnessV1, steps: list[BuildStep], template_id: str, label: str = "module") -> Node:
    children: list[Node] = [s.leaf(template_id) for s in steps]
    children.append(verify_leaf(witness, template_id))
    return SequenceNode(name=f"{label} {witness.module_id}", memory=True, children=children)


def package_tree(
    tree_name: str,
    description: str,
    parts: list[tuple[ModuleWitnessV1, list[BuildStep], str]],
    template_id: str,
    meta: dict[str, Any] | None = None,
) -> TreeDefinition:
    """A work package (one or more modules, each ending in its checkpoint) as a tree definition."""
    nodes = [module_node(w, steps, template_id, label) for w, steps, label in parts]
    root: Node = nodes[0] if len(nodes) == 1 else SequenceNode(name=f"build {template_id}", memory=True, children=nodes)
    return TreeDefinition(
        tree=tree_name,
        description=description,
        # Step meta tags ride on the blackboard: leaf args are the capabilities' strict contracts.
        blackboard={**(meta or {}), STEP_META_KEY: step_meta(parts, template_id)},
        root=root,
        source=f"planner:building:{template_id}",
    )
