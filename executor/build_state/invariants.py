"""Invariant set v0 (seed 001 stage 3): access, footprint, reachability, structural — bounded probes —
plus the cohesion model's storage anchor and interior walkable path (both only once they apply).

Each checker takes the site signature, the witnesses of the modules built so
far and a block reader, and returns an :class:`InvariantResult` plus the
deltas its failure opens. Probe sets are explicit and small: a doorway column
and a 3-cell corridor (access), every witness cell against the bounds and 8
footprint edge cells (footprint), each registered station and the cells around
it (reachability), the witness cells of completed wall/roof/floor modules
(structural). No search, no pathfinding.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from craftbt.capabilities.structures import Anchor, Cell, is_air, rotate
from craftbt.executor.build_state.models import (
    InvariantResult,
    OpenDelta,
    Severity,
    SiteSignature,
    StationEntry,
    Vec,
)
from craftbt.trees.structure_paths import unreached
from craftbt.trees.structure_template import ACCESS_CORRIDOR, STRUCTURAL_TYPES, StructureTemplate
from craftbt.trees.structure_witness import ModuleWitnessV1, scan
from craftbt.world.body import BlockPos

Reader = Callable[[BlockPos], str | None]
CORRIDOR = ACCESS_CORRIDOR
#: The walkable-path search box: the footprint plus this many cells each side (round the walls to the pad).
WALK_MARGIN = 3
REACH_RADIUS = 4
#: Station kinds a structure's utility zone must keep reachable (the chest is storage, tracked but not required).
REQUIRED_STATIONS = ("crafting_table", "furnace")
#: The storage anchor's kind (tracked in the station registry, kept by the storage invariant).
STORAGE = "chest"


@dataclass
class Outcome:
    result: InvariantResult
    deltas: list[OpenDelta]


def _air(read: Reader, pos: BlockPos) -> bool:
    name = read(pos)
    return name is not None and is_air(name)


def access(tpl: StructureTemplate, witnesses: dict[str, ModuleWitnessV1], built: list[str], read: Reader) -> Outcome:
    """Doorway volume (2 high at the entrance) and a 3-long corridor outward must be air."""
    blocked: list[tuple[str, BlockPos]] = []
    probed = 0
    for mid in built:
        entrance = tpl.module(mid).entrance
        if entrance is None:
            continue
        w = witnesses[mid]
        anchor = w.anchor()
        fx, fz = rotate(0, -1, w.facing)  # outward = the front (-z as drawn)
        door = anchor.absolute(Cell(dx=entrance[0], dy=entrance[1], dz=entrance[2]))
        cells = [door, door.offset(dy=1)]
        for step in range(1, CORRIDOR + 1):
            base = door.offset(dx=fx * step, dz=fz * step)
            cells += [base, base.offset(dy=1)]
        for cell in cells:
            probed += 1
            if not _air(read, cell):
                blocked.append((mid, cell))
    if not blocked:
        return Outcome(
            InvariantResult(invariant="access", passed=True, evidence=f"{probed} doorway/corridor cells air"), []
        )
    where = ", ".join(f"{tuple(p)}={read(p)}" for _, p in blocked[:6])
    deltas = [
        OpenDelta(
            module_id=blocked[0][0],
            issue=f"access: doorway or corridor blocked at {where}",
            severity=Severity.BLOCKING,
            cells=[Vec(x=p.x, y=p.y, z=p.z) for _, p in blocked],
        )
    ]
    return Outcome(InvariantResult(invariant="access", passed=False, evidence=f"blocked: {where}"), deltas)


def footprint(site: SiteSignature, witnesses: dict[str, ModuleWitnessV1], built: list[str], read: Reader) -> Outcome:
    """Every witness cell inside the bounds; 8 footprint edge cells hold nothing the build did not put there."""
    b = site.footprint_bounds
    outside = [
        (w.module_id, p)
        for w in witnesses.values()
        for p, _ in w.absolute_placements()
        if not b.contains(p.x, p.y, p.z)
    ]
    owned = {p for w in witnesses.values() for p, _ in w.absolute_placements()}
    y = b.min.y
    xs = (b.min.x, (b.min.x + b.max.x) // 2, b.max.x)
    zs = (b.min.z, (b.min.z + b.max.z) // 2, b.max.z)
    edges = [BlockPos(x, y, z) for x in xs for z in zs if x in (b.min.x, b.max.x) or z in (b.min.z, b.max.z)]
    unexpected = [p for p in edges if p not in owned and not _air(read, p)]
    deltas: list[OpenDelta] = []
    if outside:
        deltas.append(
            OpenDelta(
                module_id=outside[0][0],
                issue=f"footprint: {len(outside)} cells outside the bounds",
                severity=Severity.BLOCKING,
            )
        )
    if unexpected:
        deltas.append(
            OpenDelta(
                module_id=built[-1] if built else "site",
                issue="footprint: unexpected blocks at edge probes "
                + ", ".join(f"{tuple(p)}={read(p)}" for p in unexpected),
                severity=Severity.COSMETIC,
            )
        )
    evidence = f"{len(owned)} cells in bounds, {len(edges)} edge probes, {len(unexpected)} unexpected"
    return Outcome(InvariantResult(invariant="footprint", passed=not outside, evidence=evidence), deltas)


def reachability(
    registry: list[StationEntry], required: tuple[str, ...], read: Reader, standable: Callable[[BlockPos], bool]
) -> Outcome:
    """One registered station per required kind: the block matches and a standable cell lies within 4 blocks."""
    missing: list[str] = []
    for kind in required:
        ok = False
        for entry in registry:
            if entry.kind != kind:
                continue
            pos = BlockPos(entry.pos.x, entry.pos.y, entry.pos.z)
            entry.reachable = read(pos) == kind and _near_standable(pos, standable)
            ok = ok or entry.reachable
        if not ok:
            missing.append(kind)
    if not missing:
        return Outcome(
            InvariantResult(invariant="reachability", passed=True, evidence="reachable: " + ", ".join(required)), []
        )
    return Outcome(
        InvariantResult(invariant="reachability", passed=False, evidence="unreachable: " + ", ".join(missing)),
        [
            OpenDelta(module_id="utility", issue=f"reachability: no reachable {k}", severity=Severity.DEGRADED)
            for k in missing
        ],
    )


def _near_standable(pos: BlockPos, standable: Callable[[BlockPos], bool]) -> bool:
    for r in range(1, REACH_RADIUS + 1):
        for dx in range(-r, r + 1):
            for dz in range(-r, r + 1):
                if max(abs(dx), abs(dz)) != r:
                    continue
                for dy in (-1, 0, 1):
                    if standable(pos.offset(dx, dy, dz)):
                        return True
    return False


def structural(
    tpl: StructureTemplate, witnesses: dict[str, ModuleWitnessV1], built: list[str], read: Reader
) -> Outcome:
    """Completed wall/roof/floor modules: every witness placement present (v0: structure = witness)."""
    broken: list[tuple[str, int]] = []
    checked = 0
    for mid in built:
        if tpl.module(mid).type not in STRUCTURAL_TYPES:
            continue
        diff = scan(witnesses[mid], read)
        checked += len(witnesses[mid].expected_placements)
        gone = len(diff.missing) + len(diff.wrong)
        if gone:
            broken.append((mid, gone))
    if not broken:
        return Outcome(
            InvariantResult(invariant="structural", passed=True, evidence=f"{checked} placements present"), []
        )
    text = ", ".join(f"{m}: {n} missing/wrong" for m, n in broken)
    return Outcome(
        InvariantResult(invariant="structural", passed=False, evidence=text),
        [
            OpenDelta(module_id=m, issue=f"structural: {n} placements missing or wrong", severity=Severity.BLOCKING)
            for m, n in broken
        ],
    )


def storage(tpl: StructureTemplate, built: list[str], registry: list[StationEntry], read: Reader) -> Outcome | None:
    """The storage anchor (seed 001 site utility): a built module with a chest keeps one at a known coordinate."""
    home = next((m for m in built for _, b in tpl.stations(m) if b == STORAGE), None)
    if home is None:
        return None
    kept = [e for e in registry if e.kind == STORAGE and read(BlockPos(e.pos.x, e.pos.y, e.pos.z)) == STORAGE]
    if kept:
        e = kept[0]
        return Outcome(
            InvariantResult(invariant="storage", passed=True, evidence=f"chest at {e.pos.x},{e.pos.y},{e.pos.z}"), []
        )
    return Outcome(
        InvariantResult(invariant="storage", passed=False, evidence="no registered chest present"),
        [OpenDelta(module_id=home, issue=f"storage: no registered {STORAGE}", severity=Severity.DEGRADED)],
    )


def entrance_cells(tpl: StructureTemplate, witnesses: dict[str, ModuleWitnessV1], built: list[str]) -> list[BlockPos]:
    """The doorway bottom cell of every built module that has an entrance."""
    out = []
    for mid in built:
        entrance = tpl.module(mid).entrance
        if entrance is not None:
            out.append(witnesses[mid].anchor().absolute(Cell(dx=entrance[0], dy=entrance[1], dz=entrance[2])))
    return out


def walkable(
    tpl: StructureTemplate,
    site: SiteSignature,
    witnesses: dict[str, ModuleWitnessV1],
    built: list[str],
    registry: list[StationEntry],
    read: Reader,
) -> Outcome | None:
    """Door <-> workstation zone <-> storage zone: a 2-high walk from the doorway reaches every station."""
    doors = entrance_cells(tpl, witnesses, built)
    anchors = [BlockPos(e.pos.x, e.pos.y, e.pos.z) for e in registry]
    anchors = [a for a, e in zip(anchors, registry, strict=True) if read(a) == e.kind]
    if not doors or not anchors:
        return None
    b = site.footprint_bounds
    lo = BlockPos(b.min.x - WALK_MARGIN, b.min.y - 1, b.min.z - WALK_MARGIN)
    hi = BlockPos(b.max.x + WALK_MARGIN, b.max.y + 2, b.max.z + WALK_MARGIN)
    missed = unreached(read, doors[0], anchors, lo, hi)
    if not missed:
        evidence = f"door {tuple(doors[0])} reaches {len(anchors)} station(s) on foot"
        return Outcome(InvariantResult(invariant="walkable", passed=True, evidence=evidence), [])
    where = ", ".join(str(tuple(a)) for a in missed)
    return Outcome(
        InvariantResult(invariant="walkable", passed=False, evidence=f"no 2-high walk from the door to {where}"),
        [OpenDelta(module_id=built[-1], issue=f"walkable: door cut off from {where}", severity=Severity.DEGRADED)],
    )


def required_stations(tpl: StructureTemplate, built: list[str]) -> tuple[str, ...]:
    kinds = {b for m in built for _, b in tpl.stations(m)}
    return tuple(k for k in REQUIRED_STATIONS if k in kinds)


def check_all(
    tpl: StructureTemplate,
    site: SiteSignature,
    witnesses: dict[str, ModuleWitnessV1],
    built: list[str],
    registry: list[StationEntry],
    read: Reader,
    standable: Callable[[BlockPos], bool],
) -> tuple[list[InvariantResult], list[OpenDelta]]:
    outcomes = [
        access(tpl, witnesses, built, read),
        footprint(site, witnesses, built, read),
        reachability(registry, required_stations(tpl, built), read, standable),
        structural(tpl, witnesses, built, read),
    ]
    optional = [storage(tpl, built, registry, read), walkable(tpl, site, witnesses, built, registry, read)]
    outcomes += [o for o in optional if o is not None]
    return [o.result for o in outcomes], [d for o in outcomes for d in o.deltas]


__all__ = ["Anchor", "check_all"]
