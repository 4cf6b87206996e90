"""One build session for the repair/sub-task kill test (``python -m tests.build_crash_worker STATE [TEMPLATE]``).

A fresh state gets a shelter site with work for every recovery path: the
oak planks are missing (a resource sub-task crafts them from logs), four shell
cells hold dirt (the shell's package digs them: a repair), and the corridor in
front of the door is blocked (an access repair at the shell's checkpoint). The
cottage gets the same drift (its corridor belongs to the porch, so the access
repair digs outside the entrance module) and all its materials. A state that
exists is resumed from its world snapshot and database.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from craftbt.capabilities.structures import Anchor, Cell, Facing
from craftbt.executor.build_state.store import BuildStore
from craftbt.router.build.runner import BuildRunner, atomic_sim_persist
from craftbt.router.build.subtasks import SolverAcquirer
from craftbt.trees.structure_template import load_template
from craftbt.world.body import BlockPos
from craftbt.world.sim.body import SimBody
from craftbt.world.sim.snapshot import load_file

AT = BlockPos(3, 64, 3)
TEMPLATE = "shelter"
#: Per template: shell wall cells that start as dirt, and a corridor cell in front of the door, blocked.
DRIFT = {
    "shelter": [(0, 1, 2), (4, 1, 2), (1, 2, 4), (3, 0, 4)],
    "cottage": [(0, 1, 2), (8, 3, 2), (2, 1, 8), (6, 4, 8)],
}
CORRIDOR = {"shelter": (2, 1, -2), "cottage": (4, 2, -2)}
#: Materials a sub-task must make (from logs) instead of being given.
CRAFTED = {"shelter": "oak_planks"}


def fresh_world(template: str, tpl_materials: dict[str, int]) -> SimBody:
    body = SimBody(seed=7)
    crafted = CRAFTED.get(template)
    for item, n in tpl_materials.items():
        if item != crafted:
            body.give(item, n)
    if crafted == "oak_planks":
        body.give("oak_log", (tpl_materials["oak_planks"] + 3) // 4)
    anchor = Anchor(origin=AT, facing=Facing.N)
    for dx, dy, dz in [*DRIFT[template], CORRIDOR[template]]:
        body.set_block(anchor.absolute(Cell(dx=dx, dy=dy, dz=dz)), "dirt")
    return body


def main(state: Path, template: str = TEMPLATE) -> int:
    tpl = load_template(template)
    state.mkdir(parents=True, exist_ok=True)
    snap = state / "world.snap"
    body = load_file(snap) if snap.exists() else fresh_world(template, tpl.materials())
    persist = atomic_sim_persist(body, snap)
    if not snap.exists():
        persist()
    store = BuildStore(state / "build.sqlite")
    try:
        runner = BuildRunner(
            store, body, tpl, AT, "N", persist=persist, home=state / "executor", acquirer=SolverAcquirer()
        )
        meta = runner.run()
        print(json.dumps({"status": meta.status.value, "reason": meta.blocked_reason}))
        return 0 if meta.status.value == "complete" else 1
    finally:
        store.close()


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), *sys.argv[2:3]))
