"""``ModuleWitnessV1`` (seed 001): the expected end state of one module, content-addressed.

The witness is a by-product of decomposition: ``expected_placements`` is
exactly the module's ``place_block_at`` steps in build order, ``required_empty``
its doorway/interior cells. ``witness_digest`` hashes the sorted placements
and empty cells, so it equals :attr:`capabilities.structures.ModuleSpec.digest`
(the ``verify_module`` leaf's digest): one content address for both.

:func:`scan` is the one code path that checks a witness against a world
(``verify_module`` at checkpoint time and the resume scan both use it), and
:func:`classify` turns the diff into the seed's resume classes.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from craftbt.capabilities.structures import (
    Anchor,
    Cell,
    Facing,
    ModuleSpec,
    ModuleWitness,
    Placement,
    build_order,
    scan_module,
)
from craftbt.world.body import BlockPos

#: Seed 001: a diff covering more than this share of the placements means the module was destroyed.
DESTROYED_SHARE = 0.8


class Offset(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    dx: int
    dy: int
    dz: int


class Corner(BaseModel):
    """An absolute block position, the seed's ``refCorner {x, y, z}``."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    x: int
    y: int
    z: int


class ExpectedPlacement(Offset):
    block_id: str
    model_config = ConfigDict(
        frozen=True, extra="forbid", alias_generator=to_camel, validate_by_name=True, validate_by_alias=True
    )


class ModuleWitnessV1(BaseModel):
    """Seed field names are the aliases (``moduleId``, ``expectedPlacements``, ...)."""

    model_config = ConfigDict(
        frozen=True, extra="forbid", alias_generator=to_camel, validate_by_name=True, validate_by_alias=True
    )

    module_id: str
    ref_corner: Corner = Field(description="absolute x/y/z of the reference corner")
    facing: Facing
    expected_placements: list[ExpectedPlacement]
    required_empty: list[Offset]
    witness_digest: str

    def anchor(self) -> Anchor:
        return Anchor(origin=BlockPos(self.ref_corner.x, self.ref_corner.y, self.ref_corner.z), facing=self.facing)

    def spec(self) -> ModuleSpec:
        return ModuleSpec(
            module_id=self.module_id,
            placements=[Placement(dx=p.dx, dy=p.dy, dz=p.dz, block=p.block_id) for p in self.expected_placements],
            required_empty=[Cell(dx=c.dx, dy=c.dy, dz=c.dz) for c in self.required_empty],
        )

    def absolute_placements(self) -> list[tuple[BlockPos, str]]:
        a = self.anchor()
        return [(a.absolute(Cell(dx=p.dx, dy=p.dy, dz=p.dz)), p.block_id) for p in self.expected_placements]

    def absolute_empty(self) -> list[BlockPos]:
        a = self.anchor()
        return [a.absolute(Cell(dx=c.dx, dy=c.dy, dz=c.dz)) for c in self.required_empty]

    def to_seed(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True)


def make_witness(spec: ModuleSpec, anchor: Anchor) -> ModuleWitnessV1:
    """The witness of ``spec`` anchored at ``anchor``; placements in build (step) order."""
    rel = {anchor.absolute(p): p for p in spec.placements}
    ordered = [rel[pos] for pos, _ in build_order(spec, anchor)]
    o = anchor.origin
    return ModuleWitnessV1(
        module_id=spec.module_id,
        ref_corner=Corner(x=o.x, y=o.y, z=o.z),
        facing=anchor.facing,
        expected_placements=[ExpectedPlacement(dx=p.dx, dy=p.dy, dz=p.dz, block_id=p.block) for p in ordered],
        required_empty=[Offset(dx=c.dx, dy=c.dy, dz=c.dz) for c in spec.required_empty],
        witness_digest=spec.digest,
    )


class ModuleState(StrEnum):
    #: Not started: none of its placements stands and nothing wrong is in its cells (a resume report word,
    #: never the result of :func:`classify`, which judges a module that was built or begun).
    PENDING = "pending"
    COMPLETED = "completed"
    PARTIALLY_COMPLETED = "partially_completed"
    DRIFTED = "drifted"
    DESTROYED = "destroyed"


def scan(witness: ModuleWitnessV1, read: Callable[[BlockPos], str | None]) -> ModuleWitness:
    """Check only the witness's declared cells (a bounded scan, never the whole footprint)."""
    return scan_module(witness.spec(), witness.anchor(), read)


def classify(witness: ModuleWitnessV1, diff: ModuleWitness) -> ModuleState:
    """Seed 001 resume step 4: empty diff, subset of placements, wrong blocks, or mostly gone."""
    total = max(1, len(witness.expected_placements))
    if diff.complete:
        return ModuleState.COMPLETED
    if len(diff.missing) + len(diff.wrong) > DESTROYED_SHARE * total and total >= 5:
        return ModuleState.DESTROYED
    if diff.wrong or diff.obstructed:
        return ModuleState.DRIFTED
    return ModuleState.PARTIALLY_COMPLETED
