"""Shared helpers for the build-protocol tests: a runner on a fresh embedded world, a world check."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from craftbt.executor.build_state.store import BuildStore
from craftbt.router.build.runner import BuildRunner, atomic_sim_persist
from craftbt.trees.structure_template import LIBRARY_DIR, load_template
from craftbt.trees.structure_witness import scan
from craftbt.world.body import BlockPos
from craftbt.world.sim.body import SimBody

AT = BlockPos(3, 64, 3)
HELD_OUT = Path(__file__).resolve().parent / "structures" / "lookout.yaml"
SHIPPED = sorted(p.stem for p in LIBRARY_DIR.glob("*.yaml"))


def make_runner(
    tmp: Path,
    template: str | Path = "hut",
    *,
    body: Any = None,
    give: bool = True,
    facing: str = "N",
    acquirer: Any = None,
) -> tuple[BuildRunner, Any, BuildStore]:
    tpl = load_template(template)
    if body is None:
        body = SimBody(seed=1)
        if give:
            for item, n in tpl.materials().items():
                body.give(item, n)
    store = BuildStore(tmp / "build.sqlite")
    runner = BuildRunner(
        store,
        body,
        tpl,
        AT,
        facing,
        persist=atomic_sim_persist(body, tmp / "world.snap"),
        home=tmp / "executor",
        acquirer=acquirer,
    )
    return runner, body, store


def world_matches(runner: BuildRunner, body: Any) -> bool:
    read = lambda p: body.block_at(p).name  # noqa: E731
    return all(scan(w, read).complete for w in runner.witnesses.values())
