"""Workstations as a capability (seed 001 "Workstation semantics"): ensure_workstation and the utility zone.

:func:`ensure_workstation` makes one station of a kind usable for the build:
it hands the ``place_workstation`` leaf the build's station registry (reuse
first, walking to it), then the utility zone (:func:`utility_zone`: the
template's own cell for that kind, then fallback spots around the utility
module, a bounded list), and writes what happened back to the registry —
provenance ``found`` when it reused a station the registry did not know,
``placed`` when it put one down. A station it lacks the item for is acquired
first through the build's resource sub-task path.

The runner calls it on resume for registered stations that are gone or cannot
be reached, after a reachability (utility) failure at a checkpoint, and before
a sub-task's craft or smelt steps so they reuse the build's station instead of
placing a second one next to the bot.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from craftbt.capabilities.leaves.crafting import REUSE_RADIUS, SPOT_BUDGET
from craftbt.capabilities.structures import Cell, is_air, is_replaceable
from craftbt.executor.build_state.invariants import _near_standable
from craftbt.executor.build_state.models import BuildMetadata, Provenance, StationEntry, Vec
from craftbt.planners.building.decompose import BuildStep, StepKind
from craftbt.trees.model import LeafNode, TreeDefinition
from craftbt.trees.structure_template import ModuleType, opening_cells
from craftbt.world.body import BlockPos

if TYPE_CHECKING:
    from craftbt.router.build.runner import BuildRunner

#: Station kinds ``place_workstation`` handles (the chest is storage: restored by its module's repair).
WORKSTATION_KINDS = ("crafting_table", "furnace", "smoker", "blast_furnace", "anvil")
STATION_MODULE_PREFIX = "station:"
#: How far around the utility module the zone looks for fallback spots (nearest first).
ZONE_MARGIN = 7


def home_module(runner: BuildRunner, kind: str) -> tuple[str, BlockPos | None]:
    """The module whose template cell holds ``kind`` (the utility module when none does) and that cell."""
    for mid in runner.plan.order:
        for cell, block in runner.template.stations(mid):
            if block == kind:
                return mid, runner.witnesses[mid].anchor().absolute(cell)
    utility = [m.id for m in runner.template.modules if m.type is ModuleType.UTILITY]
    return (utility[0] if utility else runner.plan.order[0]), None


def reserved_cells(runner: BuildRunner) -> set[BlockPos]:
    """Cells a station must never take: every witness cell and every doorway/corridor cell."""
    out: set[BlockPos] = set()
    for mid, w in runner.witnesses.items():
        out |= {p for p, _ in w.absolute_placements()} | set(w.absolute_empty())
        entrance = runner.template.module(mid).entrance
        if entrance is not None:
            anchor = w.anchor()
            out |= {anchor.absolute(Cell(dx=c[0], dy=c[1], dz=c[2])) for c in opening_cells(entrance)}
    return out


def utility_zone(runner: BuildRunner, kind: str) -> list[BlockPos]:
    """The template's cell for ``kind`` first, then free cells on solid ground around the utility module."""
    mid, own = home_module(runner, kind)
    spots: list[BlockPos] = [own] if own is not None else []
    cells = [p for p, _ in runner.witnesses[mid].absolute_placements()] or [runner.origin]
    centre = own or cells[0]
    reserved = reserved_cells(runner)
    lo_x, hi_x = min(p.x for p in cells) - ZONE_MARGIN, max(p.x for p in cells) + ZONE_MARGIN
    lo_z, hi_z = min(p.z for p in cells) - ZONE_MARGIN, max(p.z for p in cells) + ZONE_MARGIN
    candidates = [
        BlockPos(x, y, z)
        for x in range(lo_x, hi_x + 1)
        for z in range(lo_z, hi_z + 1)
        for y in (centre.y, centre.y - 1, centre.y + 1)
    ]
    candidates.sort(key=lambda p: (abs(p.x - centre.x) + abs(p.z - centre.z) + 2 * abs(p.y - centre.y), tuple(p)))
    for p in candidates:
        if len(spots) >= SPOT_BUDGET:
            break
        if p in reserved or p in spots:
            continue
        below = runner.read(p.offset(dy=-1)) or "air"
        # free, on solid ground, and with somewhere to stand next to it (else the station is useless)
        if is_air(runner.read(p) or "stone") and not is_replaceable(below) and _near_standable(p, runner.standable):
            spots.append(p)
    return spots


def station_tree(runner: BuildRunner, kind: str, known: list[BlockPos], spots: list[BlockPos]) -> TreeDefinition:
    def vec(p: BlockPos) -> dict[str, int]:
        return {"x": p.x, "y": p.y, "z": p.z}

    if known:
        # A registered station stands: walk to it (place_workstation's own precondition is holding one,
        # which a reuse does not need, so the feasibility gate would refuse it here).
        root = LeafNode(
            name=f"ensure_workstation {kind}: reach the registered one",
            capability="move_to",
            args={"pos": vec(known[0]), "goal": "near", "range": 3.0},
        )
    else:
        root = LeafNode(
            name=f"ensure_workstation {kind}",
            capability="place_workstation",
            args={"workstation": kind, "known": [vec(p) for p in known], "spots": [vec(p) for p in spots]},
        )
    return TreeDefinition(
        tree=f"build_{runner.template.template}_ensure_{kind}",
        description=f"ensure a usable {kind} for the build (registry first, then the utility zone)",
        root=root,
        source=f"planner:building:{runner.template.template}",
    )


def ensure_workstation(runner: BuildRunner, meta: BuildMetadata, kind: str) -> StationEntry | None:
    """Reuse, find or place one ``kind`` station; the registry records it. None when no station could be had."""
    known = [BlockPos(e.pos.x, e.pos.y, e.pos.z) for e in meta.station_registry if e.kind == kind]
    # A registered station counts only when it is there and can be stood next to; one walled in is left
    # in the registry (flagged unreachable) and a usable one is placed in the utility zone instead.
    present = [p for p in known if runner.read(p) == kind and _near_standable(p, runner.standable)]
    spots = utility_zone(runner, kind)
    mid, _ = home_module(runner, kind)
    # Reuse first: a registered station, else one already standing within reuse radius of the bot (found).
    near = (
        []
        if present
        else [p for p in runner.raw_body.find_blocks([kind], REUSE_RADIUS, 4) if _near_standable(p, runner.standable)]
    )
    reuse = present or near
    if not reuse and runner.inventory().get(kind, 0) < 1:
        anchor = spots[0] if spots else runner.origin
        status, reason = meta.status, meta.blocked_reason
        if not runner.ensure_materials(meta, [BuildStep(StepKind.PLACE, mid, anchor, kind)]):
            # A station is utility, not layout: its failed sub-task is recorded, the build is not blocked by it.
            meta.status, meta.blocked_reason = status, reason
            runner.save(meta)
            runner.store.emit(runner.build_id, "ensure_workstation", {"kind": kind, "ok": False, "why": "no_item"})
            return None
    had = {p for p in spots if runner.read(p) == kind}  # a spot already holding one was not placed now
    runner.body.module_id = STATION_MODULE_PREFIX + kind  # journaled: a crash mid-placement is reconciled
    outcome = runner.executor().run(station_tree(runner, kind, reuse, spots), task_id=f"{runner.build_id}:{kind}")
    runner.outcomes.append(outcome)
    runner.body.flush()
    where: BlockPos | None
    if reuse:
        where, source = reuse[0], ("registry" if present else "found")
    else:
        where, source = next((p for p in spots if p not in had and runner.read(p) == kind), None), "placed"
        if where is None and outcome.ok:  # no spots took it: the leaf put it next to the bot
            found = runner.raw_body.find_blocks([kind], REUSE_RADIUS, 1)
            where = found[0] if found else None
    runner.store.emit(
        runner.build_id,
        "ensure_workstation",
        {"kind": kind, "ok": where is not None, "source": source, "pos": list(where) if where else None},
    )
    if where is None:
        return None
    return register(runner, meta, kind, where, "found" if source == "found" else "placed", mid)


def register(
    runner: BuildRunner, meta: BuildMetadata, kind: str, pos: BlockPos, source: str, module_id: str
) -> StationEntry:
    """Record a usable station; entries of the same kind whose block is gone are dropped (no stale anchors)."""
    standable = runner.standable
    entry = next((e for e in meta.station_registry if (e.pos.x, e.pos.y, e.pos.z) == tuple(pos)), None)
    now = runner.raw_body.now_ticks()
    if entry is None:
        meta.station_registry = [
            e
            for e in meta.station_registry
            if e.kind != kind or runner.read(BlockPos(e.pos.x, e.pos.y, e.pos.z)) == kind
        ]
        entry = StationEntry(
            kind=kind,  # type: ignore[arg-type]  # only station kinds reach here
            pos=Vec(x=pos.x, y=pos.y, z=pos.z),
            reachable=True,
            last_verified_at=now,
            provenance=Provenance(
                source=source,  # type: ignore[arg-type]
                module_index=meta.module_order.index(module_id) if module_id in meta.module_order else 0,
                step_id=f"ensure_workstation:{kind}:{pos.x},{pos.y},{pos.z}",
            ),
        )
        meta.station_registry.append(entry)
    entry.reachable = runner.read(pos) == kind and _near_standable(pos, standable)
    entry.last_verified_at = now
    runner.save(meta)
    return entry


def adopt_journaled(runner: BuildRunner, meta: BuildMetadata, rows: list[dict[str, object]]) -> int:
    """Crash reconciliation for stations: a settled station placement the registry lacks is registered."""
    n = 0
    for row in rows:
        module = str(row.get("module_id") or "")
        if not module.startswith(STATION_MODULE_PREFIX) or row.get("status") != "done":
            continue
        kind = module[len(STATION_MODULE_PREFIX) :]
        pos = BlockPos(int(row["x"]), int(row["y"]), int(row["z"]))  # type: ignore[call-overload]
        if runner.read(pos) == kind and all((e.pos.x, e.pos.y, e.pos.z) != tuple(pos) for e in meta.station_registry):
            register(runner, meta, kind, pos, "placed", home_module(runner, kind)[0])
            n += 1
    return n


def station_kinds(tree: TreeDefinition) -> set[str]:
    """Station kinds a plan's craft and smelt steps rely on (reachability is checked before them)."""
    kinds: set[str] = set()

    def walk(node: object) -> None:
        if isinstance(node, LeafNode):
            cap = node.capability.split("@")[0]
            if cap == "place_workstation":
                kinds.add(str(node.args.get("workstation")))
            elif cap == "smelt":
                kinds.add("furnace")
        for child in getattr(node, "children", None) or []:
            walk(child)
        child = getattr(node, "child", None)
        if child is not None:
            walk(child)

    walk(tree.root)
    return kinds
