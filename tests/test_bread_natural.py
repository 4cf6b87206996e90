"""Bread on natural worlds: the morning's way out of the night pit and the harvest's pick-up (natural seeds 24, 27)."""

from __future__ import annotations

from craftbt.router.routines import PIT_DEPTH, leave_shelter
from craftbt.trees.model import LeafNode
from craftbt.trees.validate import walk
from craftbt.world.body import BlockPos
from craftbt.world.sim.body import SimBody


def test_the_stair_out_of_a_night_pit_goes_round_a_tree_not_up_into_its_crown() -> None:
    """Natural seed 24: the stair out climbed through an oak's leaves and logs and ended in its crown; the
    pathfinder, which does not dig leaves, found no way down, and every harvest after it failed ``no_path``."""
    body = SimBody(seed=1)  # flat: grass at y=63, feet at y=64
    top = body.position().block()
    # leaves over the east side's steps (east is the first side tried, and as short as any on flat ground): the
    # stair would dig through them to its last step, out under the open sky
    body.run_command(f"/fill {top.x + 1} {top.y + 1} {top.z - 1} {top.x + 3} {top.y + 1} {top.z + 1} oak_leaves")
    body.run_command(f"/fill {top.x} {top.y - PIT_DEPTH} {top.z} {top.x} {top.y - 1} {top.z} air")
    body.run_command(f"/tp @p {top.x} {top.y - PIT_DEPTH} {top.z}")
    body.advance(2)
    tree = leave_shelter(body)
    dug = [body.block_at(BlockPos(**leaf.args["position"])).name for leaf, _ in walk(tree.root)
           if isinstance(leaf, LeafNode) and leaf.capability == "dig_block_at"]
    assert dug and not [name for name in dug if name.endswith(("_leaves", "_log"))], dug
    walk_out = [leaf for leaf, _ in walk(tree.root) if isinstance(leaf, LeafNode)][-1]
    assert walk_out.args["pos"]["x"] <= top.x and walk_out.args["pos"]["y"] == top.y


def test_a_harvest_picks_up_a_drop_lying_under_leaves_from_beside_it() -> None:
    """Natural seed 27: an oak's leaves hung one block over a ripe wheat; its drop lay in a one-high cell no walk
    could end in, the harvest left it lying, and the loaf was one wheat short."""
    from craftbt.world.scenarios.loader import load_scenario
    from tests.leafkit import run_leaf
    from tests.test_natural_competence import SCENARIOS as FARMS

    body = load_scenario(FARMS / "farm_plot.yaml")
    body.run_command("/setblock 2 64 0 wheat[age=7]")
    body.run_command("/setblock 2 65 0 oak_leaves")  # one block over the crop: no standable cell there
    body.run_command("/tp @p 8 64 0")
    body.advance(2)
    assert body.observe().count("wheat") == 0
    run = run_leaf(body, "harvest_crop", {"crop": "wheat", "radius": 8}, max_ticks=1_000)
    assert run.ok, run.result.error
    assert body.observe().count("wheat") == 1
