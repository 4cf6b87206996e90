"""The tech tree on the test server serving craftbt's own terrain (``FlyingSquid(world=..., seed=...)``).

Each test gets a server of its own (the first bot digs the trees it needs), started with the embedded world
for a fixed seed, and one bot in the stated spawn cell; nothing is set down with ``/setblock`` or ``/give``:
the trees, the stone and the ore are the generator's.

- the library's ``obtain_wooden_pickaxe.yaml`` on natural seed 1 (an oak within the tree's 24 blocks);
- the library's ``obtain_stone_pickaxe.yaml`` on the starter world (natural terrain plus a stone outcrop):
  on the natural world that tree cannot succeed, even embedded, because it asks for exposed stone within 24
  blocks and the natural world covers its stone with dirt (seeds 1-40 tried); the goal runs dig for it;
- the goal runs ``obtain stone_pickaxe`` and ``obtain iron_pickaxe`` on natural seed 1, as
  ``craftbt eval --body mineflayer`` runs them (slow: real-time digging).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from craftbt.capabilities.default import default_registry
from craftbt.cli.trees_cmds import load_checked
from craftbt.evaluation.episode import EpisodeBody, EpisodeSpec, WorldKind, run_episode
from craftbt.executor.config import Bounds, ExecutorConfig
from craftbt.executor.executor import Executor
from craftbt.router.priors import PriorsStore
from craftbt.router.router import run_tree
from craftbt.world.mineflayer.body import MineflayerBody
from craftbt.world.mineflayer.node_env import BODY_PACKAGES, SERVER_PACKAGES
from craftbt.world.mineflayer.server import DEFAULT_VERSION, FlyingSquid
from tests.e2e.squidkit import McServer, connect, skip_without_node

pytestmark = pytest.mark.e2e

LIBRARY = Path(__file__).resolve().parents[2] / "trees" / "library"
REACH = 100  # the fence around the spawn cell: inside the served region (radius 8 chunks)


def fence(server: FlyingSquid) -> Bounds:
    assert server.spawn is not None
    x, _, z = server.spawn
    return Bounds(min_x=x - REACH, min_y=-64, min_z=z - REACH, max_x=x + REACH, max_y=200, max_z=z + REACH)


def serve(world: str, seed: int) -> Iterator[tuple[FlyingSquid, MineflayerBody]]:
    skip_without_node(BODY_PACKAGES + SERVER_PACKAGES)
    server = FlyingSquid(world=world, seed=seed).start()
    body = None
    try:
        body = connect(McServer(server.host, server.port, DEFAULT_VERSION, "flying-squid", server.workdir))
        yield server, body
    finally:
        if body is not None:
            body.close()
        server.stop()


@pytest.fixture
def natural_1() -> Iterator[tuple[FlyingSquid, MineflayerBody]]:
    yield from serve("natural", 1)


@pytest.fixture
def starter_0() -> Iterator[tuple[FlyingSquid, MineflayerBody]]:
    yield from serve("starter", 0)


def run_library_tree(server: FlyingSquid, body: MineflayerBody, name: str, tmp_path: Path) -> None:
    registry = default_registry()
    executor = Executor(registry, body, home=tmp_path,
                        config=ExecutorConfig(geofence=fence(server), max_ticks=6_000), body_kind="mineflayer")
    run = run_tree(load_checked(LIBRARY / name, registry), executor, base_dir=LIBRARY,
                   priors=PriorsStore(tmp_path / "p.sqlite"), max_replans=0)
    assert run.ok, (run.attempts, run.stopped)


def test_obtain_wooden_pickaxe_tree_on_natural_terrain(natural_1: tuple[FlyingSquid, MineflayerBody],
                                                       tmp_path: Path) -> None:
    server, body = natural_1
    assert body.observe().inventory == {}
    run_library_tree(server, body, "obtain_wooden_pickaxe.yaml", tmp_path)
    assert body.observe().inventory.get("wooden_pickaxe") == 1


def test_obtain_stone_pickaxe_tree_on_the_served_starter_world(starter_0: tuple[FlyingSquid, MineflayerBody],
                                                               tmp_path: Path) -> None:
    server, body = starter_0
    run_library_tree(server, body, "obtain_stone_pickaxe.yaml", tmp_path)
    inventory = body.observe().inventory
    assert inventory.get("stone_pickaxe") == 1 and inventory.get("wooden_pickaxe") == 1


def run_goal_episode(goal: str, seed: int, tmp_path: Path) -> None:
    """The goal as ``craftbt eval --body mineflayer`` runs it: a server of its own serving natural ``seed`` (the
    embedded world's fence, the time of day fixed at 1000), one bot, the router's goal run."""
    skip_without_node(BODY_PACKAGES + SERVER_PACKAGES)
    spec = EpisodeSpec(goal=goal, seed=seed, world=WorldKind.NATURAL, body=EpisodeBody.MINEFLAYER)
    result = run_episode(spec, tmp_path)
    assert result.ok, (result.status, result.reason)
    assert result.world == "natural@server" and result.dispatches > 0


@pytest.mark.slow
def test_goal_stone_pickaxe_on_natural_terrain(tmp_path: Path) -> None:
    run_goal_episode("obtain stone_pickaxe", 1, tmp_path)  # about 90 s


@pytest.mark.long  # 10-15 minutes of game on the server; bench/eval_server.py measures it across seeds
@pytest.mark.slow
def test_goal_iron_pickaxe_on_natural_terrain(tmp_path: Path) -> None:
    run_goal_episode("obtain iron_pickaxe", 1, tmp_path)  # about 14 minutes: it digs hundreds of blocks
