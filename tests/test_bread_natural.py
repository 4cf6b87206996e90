"""Bread on natural worlds: the morning's way out of the night pit and the harvest's pick-up (natural seeds 24, 27)."""

from __future__ import annotations

from pathlib import Path

from craftbt.router.routines import PIT_DEPTH, leave_shelter
from craftbt.trees.model import LeafNode
from craftbt.trees.validate import walk
from craftbt.world.body import BlockPos
from craftbt.world.sim.body import SimBody


def _in_a_pit_under(leaves: tuple[int, int, int, int, int, int], clear_to: int = -1) -> tuple[SimBody, BlockPos]:
    """A flat world (grass at y=63), oak leaves filling ``leaves`` (x0, y0, z0, x1, y1, z1 from the surface feet
    cell), and the bot at the bottom of a night pit there, its column open up to ``clear_to`` over those feet."""
    body = SimBody(seed=1)
    top = body.position().block()
    x0, y0, z0, x1, y1, z1 = leaves
    body.run_command(f"/fill {top.x + x0} {top.y + y0} {top.z + z0} {top.x + x1} {top.y + y1} {top.z + z1} oak_leaves")
    body.run_command(f"/fill {top.x} {top.y - PIT_DEPTH} {top.z} {top.x} {top.y + clear_to} {top.z} air")
    body.run_command(f"/tp @p {top.x} {top.y - PIT_DEPTH} {top.z}")
    body.advance(2)
    return body, top


def test_the_stair_out_of_a_night_pit_goes_round_a_tree_not_up_into_its_crown() -> None:
    """Natural seed 24: the stair out climbed through an oak's leaves and logs and ended in its crown; the
    pathfinder, which does not dig leaves, found no way down, and every harvest after it failed ``no_path``."""
    # leaves over the east side's steps (east is the first side tried, and as short as any on flat ground): the
    # stair would dig through them to its last step, out under the open sky
    body, top = _in_a_pit_under((1, 1, -1, 3, 1, 1))
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


def _stood_on(body: SimBody, tree_leaves: list[LeafNode]) -> str:
    """The block under the cell the tree's last leaf (the walk out) ends in."""
    pos = tree_leaves[-1].args["pos"]
    return body.block_at(BlockPos(pos["x"], pos["y"] - 1, pos["z"])).name


def test_the_stair_out_of_a_night_pit_does_not_end_on_a_crown_when_every_side_climbs_one() -> None:
    """Natural seed 24, the second climb: every side of the pit led into a tree's leaves, so none was spared;
    the stair climbed the crown and ended on it, five blocks over the ground, where the pathfinder (which does not
    dig leaves) found no way down."""
    # a crown resting on the ground all round the pit, five leaves high: every side's stair goes through it
    body, top = _in_a_pit_under((-9, 0, -9, 9, 4, 9), clear_to=4)
    leaves = [leaf for leaf, _ in walk(leave_shelter(body).root) if isinstance(leaf, LeafNode)]
    assert not _stood_on(body, leaves).endswith(("_leaves", "_log")), leaves[-1].args
    assert leaves[-1].args["pos"]["y"] <= top.y


def test_the_evening_pit_is_dug_where_the_morning_stair_is_clear_of_trees() -> None:
    """The same night seen from the evening: a pit here, in a crown resting on the ground, has no way out but
    through its leaves; one four blocks off, clear of it, has, and the night digs there, not in the nearest
    clearing."""
    from craftbt.router.routines import clear_way_out, pit_site

    body = SimBody(seed=1)
    top = body.position().block()
    body.run_command(f"/fill {top.x - 3} {top.y} {top.z - 9} {top.x + 9} {top.y + 4} {top.z + 9} oak_leaves")
    for dx in (0, 2):  # the bot's clearing, and another two blocks east
        body.run_command(f"/fill {top.x + dx} {top.y} {top.z} {top.x + dx} {top.y + 4} {top.z} air")
    body.advance(2)
    assert pit_site(body) == top.offset(dx=2)  # the nearest other site is in the crown as well
    assert not clear_way_out(body, top) and not clear_way_out(body, top.offset(dx=2))
    site = pit_site(body, clear=True)
    assert site is not None and site.x <= top.x - 4 and site.y == top.y, site
    assert clear_way_out(body, site)


def test_a_night_in_a_crown_resting_on_the_ground_is_spent_in_a_pit_dug_clear_of_it(tmp_path: Path) -> None:
    """The night routine itself: it walks to a site whose stair out is clear of the crown, digs and roofs its pit
    there, and climbs out on the ground in the morning (not on the leaves, nor through them)."""
    from craftbt.capabilities.default import default_registry
    from craftbt.executor.config import ExecutorConfig, scenario_fence
    from craftbt.executor.executor import Executor
    from craftbt.router.night import sit_out_the_night

    body = SimBody(seed=1)
    top = body.position().block()
    body.run_command(f"/fill {top.x - 3} {top.y} {top.z - 9} {top.x + 9} {top.y + 4} {top.z + 9} oak_leaves")
    body.run_command(f"/fill {top.x} {top.y} {top.z} {top.x} {top.y + 4} {top.z} air")
    # the way the bot came in: two high under the crown, north then west out of it
    body.run_command(f"/fill {top.x} {top.y} {top.z + 1} {top.x} {top.y + 1} {top.z + 2} air")
    body.run_command(f"/fill {top.x - 3} {top.y} {top.z + 2} {top.x} {top.y + 1} {top.z + 2} air")
    body.run_command("/time set 13000")
    body.advance(2)
    config = ExecutorConfig(max_ticks=30_000, geofence=scenario_fence(body))
    executor = Executor(default_registry(), body, home=tmp_path, config=config)
    night = sit_out_the_night(executor, [])
    executor.journal.close()
    assert night.sheltered and night.why is None, night.why
    assert body.block_at(top.offset(dy=-1)).name == "grass_block"  # no pit dug where the bot stood
    feet = body.position().block()  # out on the ground west of the crown, not on its leaves
    assert feet.x <= top.x - 4 and feet.y == top.y and body.block_at(feet.offset(dy=-1)).name == "grass_block", feet


def test_a_pit_dug_beside_a_tunnel_has_its_open_side_filled_for_the_night(tmp_path: Path) -> None:
    """Natural seed 1's cake: at sunset the bot stood at the top of the stair its search had dug up from its mine,
    and the pit under it opened onto the stair: not a shelter, so the night was worked through, and a creeper
    killed the bot. The pit's open sides at the feet and head are filled before the night is waited out."""
    from craftbt.capabilities.default import default_registry
    from craftbt.executor.config import ExecutorConfig, scenario_fence
    from craftbt.executor.executor import Executor
    from craftbt.router.night import sit_out_the_night
    from craftbt.router.routines import PIT_DEPTH

    body = SimBody(seed=1)  # flat: feet at (0, 64, 0)
    top = body.position().block()
    bottom = top.offset(dy=-PIT_DEPTH)
    for step in range(1, PIT_DEPTH + 1):  # a stair up from beside the pit's floor, east, two high
        body.run_command(f"/fill {top.x + step} {bottom.y + step - 1} {top.z} {top.x + step} {bottom.y + step} "
                         f"{top.z} air")
    body.give("cobblestone", 16)
    body.run_command("/time set 13000")
    body.advance(2)
    config = ExecutorConfig(max_ticks=30_000, geofence=scenario_fence(body))
    executor = Executor(default_registry(), body, home=tmp_path, config=config)
    night = sit_out_the_night(executor, [])
    steps = [row["node"] for row in executor.journal.step_rows()]
    executor.journal.close()
    assert night.sheltered and night.why is None, (night.why, steps)
    assert "fill side 1" in steps, steps
