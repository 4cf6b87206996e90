"""The way back from a resource sub-task: it ends with the bot where it left the build (S001-46).

A sub-task that mines goes down explore's staircase, then ``acquire_material`` takes the stone nearest
the bot, which includes that staircase's lowest steps and the floor under its feet: the bot ends in a
pit. The build's own walks (``place_block_at`` approaching a cell) neither dig nor climb, on purpose: a
path that digs could take a block the build placed, and the build would place it a second time. So the
sub-task brings the bot back itself, as a player fetching stone would:

1. walk back to the departure point (``move_to``), which works whenever a standable route exists;
2. else dig a staircase up from the feet: world.terrain's way out of a hole (the one stair geometry, floor
   and "out" rule), in the cardinal direction heading most toward the departure point among those that
   stay out of the site (footprint and the ground under it, the stations) and inside the geofence; then
   walk back.

Both are executor runs on the build's journaling body, so every dig is journalled in flight before it is
sent, and the stair places nothing: the "no block placed twice" guarantee is untouched. The departure
point is the sub-task's first progress entry, written before the sub-task starts (durable), and a return
a crash interrupted runs again on resume: cells already dug are skipped, a bot already back walks nowhere.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from craftbt.capabilities.structures import is_air
from craftbt.trees.model import LeafNode, SequenceNode, TreeDefinition
from craftbt.world import mcdata
from craftbt.world.body import BlockPos
from craftbt.world.terrain import CARDINALS, StairRules, plan_stair, solid_in

if TYPE_CHECKING:
    from craftbt.router.build.runner import BuildRunner

#: Arrival distance at the departure point (the build's own leaves walk the rest, into reach of a cell).
RETURN_RANGE = 2.0
DEPART = "depart"
#: A stair climbs at least to the departure point's level, and at most this many steps beyond it to come
#: out under open sky (a pit dug under a hill).
EXTRA_STEPS = 8

Read = Callable[[BlockPos], str]
Allowed = Callable[[BlockPos], bool]


def record_departure(runner: BuildRunner, task_id: str) -> None:
    """Write where the bot stands as the sub-task's departure point, once (before anything moves it)."""
    task = runner.store.task(task_id)
    if task is not None and departure(task) is None:
        runner.store.task_progress(task_id, {"phase": DEPART, "at": list(runner.raw_body.position().block())})


def departure(task: dict[str, Any]) -> BlockPos | None:
    for entry in task.get("progress") or []:
        if entry.get("phase") == DEPART:
            x, y, z = entry["at"]
            return BlockPos(int(x), int(y), int(z))
    return None


def stair_up(
    read: Read,
    feet: BlockPos,
    goal: BlockPos,
    *,
    allowed: Allowed,
    breakable: Callable[[str], bool],
) -> list[tuple[BlockPos, list[BlockPos]]] | None:
    """A walkable staircase up from ``feet``: (step, cells to dig before stepping on it) per step; None if none.

    world.terrain's way out of a hole (:func:`~craftbt.world.terrain.plan_stair`), with the build's constraints:
    the sides heading nearest the departure point first, no cell the site, its stations or the geofence keep
    (``allowed``), at least up to the departure point's level, and only a stair that ends out of the hole.
    """
    rise = max(1, goal.y - feet.y)

    def heading(d: tuple[int, int]) -> int:
        return -(d[0] * (goal.x - feet.x) + d[1] * (goal.z - feet.z))

    rules = StairRules(sides=sorted(CARDINALS, key=heading), min_steps=rise, max_steps=rise + EXTRA_STEPS,
                       avoid=lambda c: not allowed(c), breakable=breakable, partial=False)
    stair = plan_stair(read, solid_in(mcdata.load()), feet, rules)
    if stair is None:
        return None
    dug: list[BlockPos] = []
    steps: list[tuple[BlockPos, list[BlockPos]]] = []
    for step in stair.steps:
        cells = [c for c in step.cells if c not in dug and not is_air(read(c))]
        dug += cells
        steps.append((step.at, cells))
    return steps


def return_to_site(runner: BuildRunner, task: dict[str, Any]) -> bool:
    """Bring the bot back to the sub-task's departure point (walk, else a dug stair and walk); True when back."""
    current = runner.store.task(task["task_id"]) or task
    goal = departure(current) or runner.origin
    if _back(runner, goal):
        return True
    task_id = task["task_id"]
    feet = runner.raw_body.position().block()
    runner.store.task_progress(task_id, {"phase": "return", "from": list(feet), "to": list(goal)})
    module_id, runner.body.module_id = runner.body.module_id, None  # the stair is no module's
    try:
        runner.executor().run(walk_tree(runner, goal), task_id=task_id)
        stair: list[tuple[BlockPos, list[BlockPos]]] | None = []
        if not _back(runner, goal):
            feet = runner.raw_body.position().block()
            stair = stair_up(_reader(runner), feet, goal, allowed=_allowed(runner), breakable=_breakable)
            if stair is not None:
                runner.executor().run(stair_tree(runner, stair, goal), task_id=task_id)
    finally:
        runner.body.module_id = module_id
        runner.body.flush()  # the dug stair is saved before the sub-task's checkpoint says the bot is back
    back = _back(runner, goal)
    runner.store.task_progress(
        task_id,
        {
            "phase": "returned" if back else "return",
            "at": list(runner.raw_body.position().block()),
            "stair": None if stair is None else len(stair),
            **({} if back else {"error": "no_way_back" if stair is None else "stair_failed"}),
        },
    )
    return back


def walk_tree(runner: BuildRunner, goal: BlockPos) -> TreeDefinition:
    return _tree(runner, "return", f"walk back to {tuple(goal)}", [_walk(goal)])


def stair_tree(runner: BuildRunner, stair: list[tuple[BlockPos, list[BlockPos]]], goal: BlockPos) -> TreeDefinition:
    leaves: list[LeafNode] = []
    for k, (step, cells) in enumerate(stair, start=1):
        leaves += [
            LeafNode(name=f"stair {k}: dig {tuple(c)}", capability="dig_block_at", args={"position": _vec(c)})
            for c in cells
        ]
        leaves.append(
            LeafNode(name=f"stair {k}: step up", capability="move_to", args={"pos": _vec(step), "goal": "block"})
        )
    leaves.append(_walk(goal))
    return _tree(runner, "stair", f"dig a {len(stair)}-step stair up and walk back to {tuple(goal)}", leaves)


def _tree(runner: BuildRunner, suffix: str, description: str, leaves: list[LeafNode]) -> TreeDefinition:
    name = runner.template.template
    return TreeDefinition(
        tree=f"build_{name}_subtask_{suffix}",
        description=description,
        root=SequenceNode(name=description, memory=True, children=list(leaves)),
        source=f"planner:building:{name}",
    )


def _walk(goal: BlockPos) -> LeafNode:
    return LeafNode(
        name=f"walk back to {tuple(goal)}",
        capability="move_to",
        args={"pos": _vec(goal), "goal": "near", "range": RETURN_RANGE},
    )


def _vec(p: BlockPos) -> dict[str, int]:
    return {"x": p.x, "y": p.y, "z": p.z}


def _back(runner: BuildRunner, goal: BlockPos) -> bool:
    return runner.raw_body.position().block().distance_to(goal) <= RETURN_RANGE


def _reader(runner: BuildRunner) -> Read:
    return lambda p: runner.read(p) or "air"  # a cell the body cannot see counts as open: no floor, no sky roof


def _breakable(name: str) -> bool:
    md = mcdata.load()
    return md.has_block(name) and md.block(name).breakable


def _allowed(runner: BuildRunner) -> Allowed:
    """Cells a stair may dig: inside the geofence, outside the site (its footprint one block around, down to
    two layers of ground under it) and off every registered station and the block it stands on."""
    b = runner.site.footprint_bounds
    registry = runner.meta.station_registry if runner.meta is not None else []
    stations = set(_with_support(BlockPos(e.pos.x, e.pos.y, e.pos.z) for e in registry))
    fence = runner.config.geofence

    def allowed(p: BlockPos) -> bool:
        on_site = b.min.x - 1 <= p.x <= b.max.x + 1 and b.min.z - 1 <= p.z <= b.max.z + 1 and p.y >= b.min.y - 2
        return not on_site and p not in stations and (fence is None or fence.contains(p))

    return allowed


def _with_support(cells: Iterable[BlockPos]) -> Iterable[BlockPos]:
    for p in cells:
        yield p
        yield p.offset(dy=-1)
