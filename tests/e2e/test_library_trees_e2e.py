"""The library's pickaxe trees on flying-squid with craftbt's plugin: logs and stone set down in a plot,
the tree file run by the executor on the server body, the pickaxe in the inventory at the end.

flying-squid's superflat world has no trees or stone near the surface, so each test sets the blocks the
tree needs with ``/setblock``; everything else (digging, picking up, the 2x2 and 3x3 crafts, placing the
table) is the tree's own work on the real protocol.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from craftbt.capabilities.default import default_registry
from craftbt.cli.trees_cmds import load_checked
from craftbt.executor.config import Bounds, ExecutorConfig
from craftbt.executor.executor import Executor
from craftbt.router.priors import PriorsStore
from craftbt.router.router import run_tree
from tests.e2e.squidkit import Arena, McServer, squid_server

pytestmark = pytest.mark.e2e

LIBRARY = Path(__file__).resolve().parents[2] / "trees" / "library"


@pytest.fixture(scope="module")
def mc_server() -> Iterator[McServer]:
    yield from squid_server()


def run_library_tree(arena: Arena, name: str, tmp_path: Path) -> None:
    o = arena.origin
    registry = default_registry()
    definition = load_checked(LIBRARY / name, registry)
    fence = Bounds(min_x=o.x - 14, min_y=o.y - 3, min_z=o.z - 14, max_x=o.x + 14, max_y=o.y + 6, max_z=o.z + 14)
    executor = Executor(registry, arena.body, home=tmp_path,
                        config=ExecutorConfig(geofence=fence, max_ticks=6_000), body_kind="mineflayer")
    run = run_tree(definition, executor, base_dir=LIBRARY, priors=PriorsStore(tmp_path / "p.sqlite"),
                   max_replans=0)
    assert run.ok, (run.attempts, run.stopped)


def test_obtain_wooden_pickaxe_on_the_server(arena: Arena, tmp_path: Path) -> None:
    o = arena.origin
    for dx, dz in ((3, 0), (4, 2), (3, -2)):
        arena.setblock(o.offset(dx=dx, dz=dz), "oak_log")
    run_library_tree(arena, "obtain_wooden_pickaxe.yaml", tmp_path)
    inventory = arena.body.observe().inventory
    assert inventory.get("wooden_pickaxe") == 1
    assert inventory.get("oak_log", 0) == 0 and inventory.get("oak_planks") == 3  # 12 - 4 - 2 - 3


def test_obtain_stone_pickaxe_on_the_server(arena: Arena, tmp_path: Path) -> None:
    o = arena.origin
    for dx, dz in ((3, 0), (4, 2), (3, -2)):
        arena.setblock(o.offset(dx=dx, dz=dz), "oak_log")
    for dx, dz in ((-2, 1), (-2, 2), (-3, 1)):
        arena.setblock(o.offset(dx=dx, dz=dz), "stone")
    run_library_tree(arena, "obtain_stone_pickaxe.yaml", tmp_path)
    inventory = arena.body.observe().inventory
    assert inventory.get("stone_pickaxe") == 1 and inventory.get("wooden_pickaxe") == 1

