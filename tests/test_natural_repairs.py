"""Repairs found by the natural-world matrix: drops out of walking reach, blocks that cannot be reached,
and workstations that must travel with the bot."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from craftbt.capabilities.default import default_registry
from craftbt.capabilities.leaves.blocks import collect_drops
from craftbt.capabilities.leaves.common import ActionResult
from craftbt.executor.config import ExecutorConfig, scenario_fence
from craftbt.executor.executor import Executor
from craftbt.executor.failures import Failure, FailureSource
from craftbt.planners.base import PlanningState
from craftbt.planners.ppa import Check, PlanStep, carry_stations
from craftbt.router.priors import PriorsStore
from craftbt.router.router import SURVEY_BLOCKS, GoalRun, blames_methods, replan_view, run_goal, unreached_material
from craftbt.trees.model import LeafNode
from craftbt.trees.validate import walk
from craftbt.world.body import BlockPos
from craftbt.world.scenarios.loader import inventory_world, world_body
from craftbt.world.sim.body import SimBody
from tests.leafkit import make_context, run_leaf


def _flat(*inventory: str) -> SimBody:
    body = SimBody(seed=1)  # flat: stone to y=59, dirt, grass at y=63, feet at y=64
    for item in inventory:
        body.give(item, 1)
    return body


def goal_run(body: SimBody, goal: str, home: Path, *, planner: str) -> tuple[GoalRun, Executor]:
    """Run ``goal`` on ``body`` inside its world's fence, with fresh priors; the executor for its records."""
    executor = Executor(default_registry(), body, home=home, config=ExecutorConfig(geofence=scenario_fence(body)))
    try:
        return run_goal(goal, executor, planner=planner, priors=PriorsStore(":memory:")), executor
    finally:
        executor.journal.close()


def _collect(body: SimBody, site: BlockPos, item: str) -> ActionResult:
    """Drive ``collect_drops`` for a drop of ``item`` lying at ``site`` (as after a dig)."""
    ctx = make_context(body)
    start = body.observe().count(item)

    def gained() -> int:
        return body.observe().count(item) - start

    steps: Iterator[object] = collect_drops(ctx, site, gained, 0)
    handle = None
    for _ in range(2_000):
        try:
            handle = steps.send(handle)  # type: ignore[attr-defined]
        except StopIteration as stop:
            result: ActionResult = stop.value
            return result
        while handle is not None and handle.status().value == "running":  # type: ignore[attr-defined]
            body.advance(1)
        body.advance(1)
    raise AssertionError("collect_drops never finished")


def _summon(body: SimBody, item: str, cell: BlockPos) -> None:
    body.run_command(f'/summon item {cell.x} {cell.y} {cell.z} {{Item:{{id:"minecraft:{item}",Count:1}}}}')
    body.advance(2)


def _hole_in_a_tunnel_wall() -> tuple[SimBody, BlockPos, BlockPos]:
    """The bot in a one-block, two-high room in solid stone, and a one-high hole three blocks off."""
    body = _flat("stone_pickaxe")
    feet = body.position().block()
    body.run_command(f"/fill {feet.x - 1} {feet.y} {feet.z - 1} {feet.x + 4} {feet.y + 2} {feet.z + 1} stone")
    body.set_block(tuple(feet), "air")
    body.set_block(tuple(feet.offset(dy=1)), "air")
    hole = feet.offset(3, 0, 0)
    body.set_block(tuple(hole), "air")
    return body, feet, hole


def test_a_drop_in_a_one_high_hole_in_a_tunnel_wall_is_reached_by_digging_a_way() -> None:
    """Natural seed 0: raw iron dug out of a tunnel wall lay in a one-high hole with no standable cell
    near it, and 4 of 7 drops never arrived."""
    body, feet, hole = _hole_in_a_tunnel_wall()
    _summon(body, "raw_iron", hole)
    result = _collect(body, hole, "raw_iron")
    assert result.ok, result.error
    assert body.observe().count("raw_iron") == 1
    for cell in (feet.offset(1, 0, 0), feet.offset(1, 1, 0), feet.offset(2, 0, 0), hole.offset(dy=1)):
        assert body.block_at(cell).name == "air", cell


def test_a_drop_in_a_pocket_under_the_floor_beside_the_feet_is_reached() -> None:
    """The pickup box reaches half a block below the feet: a drop one block down beside them is not picked
    up standing there, and the cell over it was stone."""
    body = _flat("stone_pickaxe")
    feet = body.position().block()
    pocket = feet.offset(1, -1, 0)
    body.set_block(tuple(pocket), "air")
    body.set_block(tuple(feet.offset(1, 0, 0)), "stone")
    body.set_block(tuple(feet.offset(1, 1, 0)), "stone")
    _summon(body, "redstone", pocket)
    result = _collect(body, pocket, "redstone")
    assert result.ok, result.error
    assert body.observe().count("redstone") == 1


def test_no_way_is_dug_next_to_lava() -> None:
    body, feet, hole = _hole_in_a_tunnel_wall()
    body.set_block(tuple(feet.offset(1, 0, 1)), "lava")
    _summon(body, "raw_iron", hole)
    result = _collect(body, hole, "raw_iron")
    assert not result.ok and result.error is not None and result.error.code == "not_collected"
    assert body.block_at(feet.offset(1, 0, 0)).name == "stone"  # the cell beside the lava stays shut


def _log_on_a_pillar(body: SimBody, dx: int) -> BlockPos:
    feet = body.position().block()
    for dy in range(9):
        body.set_block((feet.x + dx, feet.y + dy, feet.z), "bedrock")
    log = BlockPos(feet.x + dx, feet.y + 9, feet.z)
    body.set_block(tuple(log), "spruce_log")
    return log


def test_a_replan_after_an_unreachable_log_explores_instead_of_walking_back_to_it(tmp_path: Path) -> None:
    """Natural worlds, 9 of 23 failed episodes: the mining step found no way to a log in view, and every
    replan saw the same log and planned the same step at it. The log is now remembered as unreachable, the
    replan's survey skips it, and the plan explores for one elsewhere."""
    body = _flat()
    pillar_log = _log_on_a_pillar(body, 10)
    feet = body.position().block()
    for dy in range(4):  # a reachable trunk beyond the mining step's radius of 32
        body.set_block((feet.x - 40, feet.y + dy, feet.z), "spruce_log")
    run, executor = goal_run(body, "obtain 2 spruce_log", tmp_path, planner="solver")
    assert [a.status for a in run.attempts] == ["escalated", "success"], run.attempts
    first = run.outcomes[0].escalation
    assert first is not None and first.code == "no_target", first
    assert pillar_log in executor.unreachable
    second = [n.capability for n, _ in walk(run.decisions[1].plan.tree.root) if isinstance(n, LeafNode)]
    assert second.index("explore") < second.index("acquire_material"), second
    assert body.block_at(pillar_log).name == "spruce_log" and body.observe().count("spruce_log") >= 2


def test_the_survey_does_not_count_a_block_to_avoid_as_seen() -> None:
    body = _flat()
    log = _log_on_a_pillar(body, 10)
    assert "spruce_log" in PlanningState.survey(body, list(SURVEY_BLOCKS)).available_blocks  # type: ignore[operator]
    avoided = PlanningState.survey(body, list(SURVEY_BLOCKS), avoid={log})
    assert avoided.available_blocks is not None and "spruce_log" not in avoided.available_blocks
    feet = body.position().block()
    body.set_block((feet.x - 20, feet.y, feet.z), "spruce_log")
    other = PlanningState.survey(body, list(SURVEY_BLOCKS), avoid={log})
    assert 19 < other.block_distance["spruce_log"] < 21


def test_only_a_mining_step_that_reached_nothing_hides_its_material_from_the_replan() -> None:
    failure = Failure(source=FailureSource.ESCALATION, reason="local_repair_exhausted",
                      capability="acquire_material@1.0.0", code="no_target", args={"item": "cobblestone"})
    assert {"stone", "cobblestone"} <= unreached_material(failure)
    assert unreached_material(failure.model_copy(update={"code": "partial"})) >= {"stone"}
    assert unreached_material(failure.model_copy(update={"code": "died"})) == frozenset()
    assert unreached_material(failure.model_copy(update={"capability": "explore@1.0.0"})) == frozenset()
    state = PlanningState(available_blocks=frozenset({"stone", "oak_log"}), block_distance={"stone": 3.0})
    hidden = state.without_blocks(unreached_material(failure))
    assert hidden.available_blocks == {"oak_log"} and hidden.block_distance == {}


def _step(name: str, capability: str, needs: str | None = None) -> PlanStep:
    pre = [Check("block_nearby", {"block": needs, "radius": 6})] if needs else []
    return PlanStep(name=name, capability=capability, args={"item": name}, preconditions=pre)


def test_a_station_in_reach_is_picked_up_before_the_first_move_when_an_explore_comes_before_its_use() -> None:
    """Natural seeds 3, 4 and 10: the pick-up ran just before the explore, after mining had walked the bot
    more than 8 blocks off the station, and found nothing."""
    steps = [_step("cobblestone", "acquire_material"), _step("raw_iron", "explore"),
             _step("raw_iron", "acquire_material"), _step("furnace", "craft_recipe", needs="crafting_table")]
    names = [s.name for s in carry_stations(steps, here={"crafting_table"})]
    assert names[:2] == ["pick up crafting_table", "cobblestone"], names
    assert names[-2:] == ["place crafting_table again", "furnace"], names


def test_a_station_in_reach_stays_put_when_no_explore_comes_before_its_use() -> None:
    steps = [_step("cobblestone", "acquire_material"), _step("furnace", "craft_recipe", needs="crafting_table"),
             _step("raw_iron", "explore")]
    names = [s.name for s in carry_stations(steps, here={"crafting_table"})]
    assert names == ["cobblestone", "furnace", "raw_iron"], names


def _in_a_mound(block: str) -> tuple[SimBody, BlockPos]:
    """A mound of ``block`` 13 blocks across and three high over the feet, and a trunk 20 blocks east."""
    body = _flat("stone_pickaxe")
    feet = body.position().block()
    body.run_command(f"/fill {feet.x - 6} {feet.y} {feet.z - 6} {feet.x + 6} {feet.y + 2} {feet.z + 6} {block}")
    for dy in range(4):
        body.set_block((feet.x + 20, feet.y + dy, feet.z), "oak_log")
    return body, feet


def _finds_the_tree(body: SimBody, feet: BlockPos) -> None:
    run = run_leaf(body, "explore", {"target": "oak_log", "max_distance": 32, "max_ticks": 6_000}, max_ticks=8_000)
    assert run.ok, run.result.error
    assert run.observables["found"] is not None and run.observables["found"][0] == feet.x + 20


def test_a_surface_search_from_a_tunnel_in_a_hill_climbs_out_first() -> None:
    """Natural seed 0: a mining step left the bot in its tunnel at y=72, above sea level, so the search
    took it for a bot under a tree, and no waypoint of its spiral had a path from there."""
    body, feet = _in_a_mound("stone")
    body.set_block(tuple(feet), "air")
    body.set_block(tuple(feet.offset(dy=1)), "air")
    _finds_the_tree(body, feet)


def test_a_climb_out_goes_on_to_the_top_of_its_own_open_shaft() -> None:
    """Natural seed 15: the climb out through four layers of sand stopped at the bottom of its shaft, sky
    overhead and a stair to step onto, but walled in higher than a step on every other side."""
    body, feet = _in_a_mound("sand")
    for dy in range(6):
        body.set_block(tuple(feet.offset(dy=dy)), "air")
        if dy:
            body.set_block(tuple(feet.offset(-1, dy, 0)), "air")
    _finds_the_tree(body, feet)


def test_a_crafting_table_closed_in_by_a_furnace_is_still_picked_up() -> None:
    """Natural seed 3: in a tunnel, the furnace went into the one open cell beside the crafting table; the
    pick-up's search wanted blocks with an open face and said no crafting_table within 8 blocks."""
    body = _flat("stone_pickaxe")
    feet = body.position().block()
    table = feet.offset(2, 0, 0)
    body.run_command(f"/fill {table.x - 1} {table.y - 1} {table.z - 1} {table.x + 1} {table.y + 1} {table.z + 1} stone")
    body.set_block(tuple(table), "crafting_table")
    body.set_block(tuple(table.offset(-1, 0, 0)), "furnace")
    run = run_leaf(body, "acquire_material", {"item": "crafting_table", "count": 1, "radius": 8}, max_ticks=2_000)
    assert run.ok, run.result.error
    assert body.observe().count("crafting_table") == 1 and body.block_at(table).name == "air"


def test_a_harvest_that_waits_walks_back_to_its_farm_and_harvests_the_crops_it_watched() -> None:
    """Natural seed 2: the night's retreats from zombies took the bot more than 24 blocks off its farm; the
    harvest saw no crop in its radius though three were ripe, and the replan's harvest refused to wait."""
    from craftbt.world.scenarios.loader import load_scenario
    from tests.test_natural_competence import SCENARIOS as FARMS

    body = load_scenario(FARMS / "farm_plot.yaml")
    body.run_command("/gamerule randomTickSpeed 300")
    assert run_leaf(body, "plant_crop", {"crop": "wheat", "position": {"x": 2, "y": 63, "z": 0}}).ok
    body.run_command("/tp @p 32 64 0")
    body.advance(2)
    run = run_leaf(body, "harvest_crop", {"crop": "wheat", "radius": 8, "wait_ticks": 20_000, "min_ripe": 1},
                   max_ticks=20_500)
    assert run.ok, run.result.error
    assert run.observables["harvested"][0][:3] == [2, 64, 0]
    assert body.observe().count("wheat") >= 1


def test_a_retreat_on_a_hillside_walks_onto_the_ground_not_into_the_hill() -> None:
    """Natural seed 8: every retreat target was at the feet's height twelve blocks off, inside the rising
    ground; all eight directions failed and the bot died mining logs at night."""
    body = _flat()
    feet = body.position().block()
    for layer, ring in enumerate((4, 7, 10)):  # terraces a step high: the ground rises all around
        y, r, inner = feet.y + layer, 40, ring - 1
        body.run_command(f"/fill {feet.x - r} {y} {feet.z - r} {feet.x + r} {y} {feet.z + r} dirt")
        body.run_command(f"/fill {feet.x - inner} {y} {feet.z - inner} {feet.x + inner} {y} {feet.z + inner} air")
    body.run_command("/time set night")
    body.run_command(f"/summon zombie {feet.x + 2} {feet.y} {feet.z}")
    body.advance(1)
    run = run_leaf(body, "retreat_from_threat", {}, max_ticks=1_000)
    assert run.ok, run.result.error
    assert run.observables["retreated"] and run.observables["distance_after"] > run.observables["distance_before"]
    assert body.position().y > feet.y  # up on the terraces


def test_ore_in_the_ceiling_is_left_where_its_drop_would_stay_up() -> None:
    """Natural seed 8: raw iron dug three blocks over the feet stayed in its pocket, out of the pickup box;
    three of seven were lost. Ore at a height the drop falls from, or reaches, is dug instead."""
    body, feet, _ = _hole_in_a_tunnel_wall()
    high = feet.offset(0, 3, 0)
    body.set_block(tuple(high), "iron_ore")  # on the stone roof, open to the air over it
    wall = feet.offset(4, 0, 0)  # further than the ore overhead, in sight through the hole
    body.set_block(tuple(wall), "iron_ore")
    run = run_leaf(body, "acquire_material", {"item": "raw_iron", "count": 1, "radius": 8}, max_ticks=2_000)
    assert run.ok, run.result.error
    assert body.block_at(high).name == "iron_ore" and body.block_at(wall).name == "air"


def test_collect_items_picks_up_a_drop_that_has_no_standable_cell_from_beside_it() -> None:
    """Natural seeds 23 and 26: a sheep's wool lay where the player cannot stand (a one-high gap here), the
    walk onto it found no path, and the bed's `pick up white_wool` collected nothing in 0 ticks."""
    body = _flat()
    feet = body.position().block()
    gap = feet.offset(3, 0, 0)
    body.set_block(tuple(gap.offset(dy=1)), "stone")
    _summon(body, "white_wool", gap)
    run = run_leaf(body, "collect_items", {"itemName": "white_wool", "radius": 8}, max_ticks=400)
    assert run.ok, run.result.error
    assert body.observe().count("white_wool") == 1


def test_a_zombie_at_the_farm_preempts_a_harvest_that_waits(tmp_path: Path) -> None:
    """Natural seed 29: a harvest's night-long wait counted as an atomic action, so the retreat from a zombie
    was deferred until the wait ended, and the bot died at its farm twice."""
    from craftbt.trees import model as m
    from craftbt.world.scenarios.loader import load_scenario
    from tests.test_natural_competence import SCENARIOS as FARMS

    body = load_scenario(FARMS / "farm_plot.yaml")
    assert run_leaf(body, "plant_crop", {"crop": "wheat", "position": {"x": 2, "y": 63, "z": 0}}).ok
    body.run_command("/time set night")
    start = body.now_ticks()

    def zombie(ex: Executor, run: object, root: object) -> None:
        if body.now_ticks() == start + 100:
            feet = body.position().block()
            body.run_command(f"/summon zombie {feet.x + 3} {feet.y} {feet.z}")

    harvest = m.LeafNode(capability="harvest_crop", name="harvest",
                         args={"crop": "wheat", "radius": 8, "wait_ticks": 2_000, "min_ripe": 1})
    ex = Executor(default_registry(), body, config=ExecutorConfig(geofence=scenario_fence(body), max_ticks=400),
                  home=tmp_path, on_tick=zombie)
    out = ex.run(m.TreeDefinition(tree="wait", root=harvest))
    decisions = ex.journal.run_detail(out.run_id)["decisions"]
    got = [d["reason"] for d in decisions]
    assert "preemption_deferred" not in got
    preempt = next(d for d in decisions if d["reason"] == "safety_preempt")
    assert preempt["detail"]["suspended"] == ["harvest"]
    steps = [(s["capability"], s["error_code"]) for s in ex.journal.run_detail(out.run_id)["steps"]]
    assert steps[:2] == [("harvest_crop", "safety_preempted_by_executor"), ("retreat_from_threat", None)]


def test_the_stair_out_of_a_night_pit_leads_away_from_a_creeper_waiting_by_it() -> None:
    """Natural seed 25: a creeper stood by the pit all night; the stair out (always east first) led up beside
    it, and its retreats and flaps cost the day's search for a cow."""
    from craftbt.router.routines import PIT_DEPTH, leave_shelter

    for side in (1, -1):
        body = _flat()
        top = body.position().block()
        body.run_command(f"/fill {top.x} {top.y - PIT_DEPTH} {top.z} {top.x} {top.y - 1} {top.z} air")
        body.run_command(f"/tp @p {top.x} {top.y - PIT_DEPTH} {top.z}")
        body.run_command(f"/summon creeper {top.x + 3 * side} {top.y} {top.z} {{NoAI:1b}}")
        body.advance(2)
        walk_out = [leaf for leaf, _ in walk(leave_shelter(body).root) if isinstance(leaf, LeafNode)][-1]
        assert (walk_out.args["pos"]["x"] - top.x) * side < 0  # out on the other side


def test_no_night_pit_is_dug_where_nothing_would_roof_it() -> None:
    """Natural seed 27: a pit dug in a beach was roofed with sand, which fell in; the bot spent the night at the
    bottom of an open pit and every search after began with no path out of it."""
    from craftbt.router.routines import PIT_DEPTH, building_block, dig_pit

    body = _flat("sand")
    feet = body.position().block()
    low, high = feet.offset(-2, -PIT_DEPTH, -2), feet.offset(2, -1, 2)
    body.run_command(f"/fill {low.x} {low.y} {low.z} {high.x} {high.y} {high.z} sand")
    body.give("sand", 16)
    assert building_block(body) is None  # sand falls: no roof
    assert dig_pit(body) is None
    body.give("dirt", 1)
    assert building_block(body) == "dirt" and dig_pit(body) is not None
    grass = _flat()  # nothing carried, but the grass and dirt dug out of the pit roof it
    pit = dig_pit(grass)
    assert pit is not None and len([leaf for leaf, _ in walk(pit.root) if isinstance(leaf, LeafNode)]) == PIT_DEPTH


def test_the_stair_out_of_a_night_pit_goes_on_up_a_rising_hillside_to_the_surface() -> None:
    """Natural seed 1 (bread): the stair out of the fifth night's pit was four steps, as on level ground; the
    ground rose that way, so it ended two blocks under the hillside and no path led from there to the farm."""
    from craftbt.router.routines import PIT_DEPTH, leave_shelter

    body = _flat()
    top = body.position().block()
    for side in ((1, 0), (-1, 0), (0, 1), (0, -1)):  # the ground rises two blocks all around, two blocks out
        dx, dz = side
        near = top.offset(2 * dx + (dz != 0) * -12, 0, 2 * dz + (dx != 0) * -12)
        far = top.offset(12 * dx + (dz != 0) * 12, 1, 12 * dz + (dx != 0) * 12)
        body.run_command(f"/fill {near.x} {near.y} {near.z} {far.x} {far.y} {far.z} dirt")
    body.run_command(f"/fill {top.x} {top.y - PIT_DEPTH} {top.z} {top.x} {top.y - 1} {top.z} air")
    body.run_command(f"/tp @p {top.x} {top.y - PIT_DEPTH} {top.z}")
    body.advance(2)
    for leaf in [leaf for leaf, _ in walk(leave_shelter(body).root) if isinstance(leaf, LeafNode)]:
        for _ in range(3):  # the executor's retries: a dirt picked up mid-dig changes the held item
            run = run_leaf(body, leaf.capability, dict(leaf.args), max_ticks=2_000)
            if run.ok:
                break
        assert run.ok, (leaf.name, run.result.error)
    assert body.position().block().y == top.y + 2  # up on the hillside, not in a trench under it


def test_an_attack_turns_to_another_animal_when_the_nearest_has_no_path_to_it() -> None:
    """Natural seed 13: the nearest sheep stood where no cell within reach could be stood in; the kill failed
    ``no path`` three runs in a row, each choosing the same sheep."""
    body = _flat("iron_sword")
    feet = body.position().block()
    boxed = feet.offset(6, 0, 0)
    body.run_command(f"/summon sheep {boxed.x} {boxed.y} {boxed.z} {{NoAI:1b}}")
    body.run_command(f"/summon sheep {feet.x - 9} {feet.y} {feet.z} {{NoAI:1b}}")
    body.run_command(f"/fill {boxed.x - 3} {boxed.y} {boxed.z - 3} {boxed.x + 3} {boxed.y + 2} {boxed.z + 3} glass")
    body.set_block(tuple(boxed), "air")  # the sheep's own cell, under a glass roof: no standing room near it
    body.advance(2)
    ctx = make_context(body)
    run = run_leaf(body, "attack_entity", {"entityType": "sheep", "radius": 32.0}, max_ticks=2_000, ctx=ctx)
    assert run.ok, run.result.error
    sheep = [e for e in body.entities(32.0) if e.name == "sheep"]
    assert [e.position.block() for e in sheep] == [boxed]  # the reachable one was killed
    assert boxed in ctx.unreachable  # later runs of the goal skip it too
    again = run_leaf(body, "attack_entity", {"entityType": "sheep", "radius": 32.0}, max_ticks=200, ctx=ctx)
    assert again.code == "guard_failed:no_target"


def test_the_stair_out_of_a_night_pit_takes_the_downhill_side() -> None:
    """Natural seed 6 (clock): the stair out went up a hillside, eight steps a stage, and ended inside the hill;
    the morning's plan found no path from the trench to any log."""
    from craftbt.router.routines import PIT_DEPTH, leave_shelter

    body = _flat()
    top = body.position().block()
    for i in range(1, 12):  # the ground rises a block a block to the east
        body.run_command(f"/fill {top.x + i} {top.y} {top.z - 12} {top.x + i} {top.y + i - 1} {top.z + 12} dirt")
    body.run_command(f"/fill {top.x} {top.y - PIT_DEPTH} {top.z} {top.x} {top.y - 1} {top.z} air")
    body.run_command(f"/tp @p {top.x} {top.y - PIT_DEPTH} {top.z}")
    body.advance(2)
    walk_out = [leaf for leaf, _ in walk(leave_shelter(body).root) if isinstance(leaf, LeafNode)][-1]
    assert walk_out.args["pos"]["x"] <= top.x and walk_out.args["pos"]["y"] == top.y


def test_no_night_pit_is_dug_into_a_cave() -> None:
    """Natural seed 4 (bread): the pit's last cell opened into a cave; the bot dropped out of its walls, the roof
    went on over nothing and the night was spent in the open."""
    from craftbt.router.routines import PIT_DEPTH, dig_pit, pit_site

    body = _flat()
    feet = body.position().block()
    assert dig_pit(body) is not None
    body.set_block(tuple(feet.offset(dy=-PIT_DEPTH - 1)), "air")  # a pocket right under the pit's floor
    assert dig_pit(body) is None
    body.set_block(tuple(feet.offset(dy=-PIT_DEPTH - 1)), "stone")
    body.set_block(tuple(feet.offset(dy=-2)), "cave_air")
    assert dig_pit(body) is None
    # a step aside the ground is whole: the night's pit is dug there (two nights on seed 4 went unsheltered)
    site = pit_site(body)
    assert site is not None and site != feet and abs(site.x - feet.x) + abs(site.z - feet.z) == 1
    low, high = feet.offset(-6, -PIT_DEPTH - 1, -6), feet.offset(6, -PIT_DEPTH - 1, 6)
    body.run_command(f"/fill {low.x} {low.y} {low.z} {high.x} {high.y} {high.z} air")  # a cave under it all
    assert pit_site(body) is None


def test_the_night_watch_lets_a_tree_work_on_where_no_pit_can_be_dug() -> None:
    """Natural seed 22: a desert spawn, sand underfoot and nothing carried to roof a pit with; the stop for the
    night found no shelter and the bot died twice in the open instead of walking on to the trees."""
    from craftbt.router.night import NightWatch

    class Stops:
        def __init__(self) -> None:
            self.reasons: list[str] = []

        def request_stop(self, reason: str) -> None:
            self.reasons.append(reason)

    body = _flat()
    feet = body.position().block()
    low, high = feet.offset(-10, -6, -10), feet.offset(10, -1, 10)
    body.run_command(f"/fill {low.x} {low.y} {low.z} {high.x} {high.y} {high.z} sand")
    body.run_command("/time set 13000")
    while body.now_ticks() % 20:
        body.advance(1)
    executor = Stops()
    watch = NightWatch(body)
    watch(executor, None, None)  # type: ignore[arg-type]
    assert executor.reasons == [] and watch.awake_until > body.now_ticks()
    body.give("dirt", 4)  # something to roof a pit with: the bot stops for the night
    body.advance(watch.awake_until - body.now_ticks())
    watch(executor, None, None)  # type: ignore[arg-type]
    assert len(executor.reasons) == 1 and watch.stopped


@pytest.mark.parametrize("planner", ["solver", "htn", "goap"])
def test_a_log_found_unreachable_is_not_chosen_again_by_any_planner(planner: str, tmp_path: Path) -> None:
    """The first plan's log stands on a pillar (no path); the only other spruce stands 40 blocks off, past the
    mining step's radius. The second plan, of every planner, goes for that one: the pillar's log stays out of
    its view (``Executor.unreachable``), the spruce beyond the step's radius stays in (:func:`replan_view`),
    and the failure counts against no method (:func:`blames_methods`: the HTN went exploring for acacia)."""
    body = _flat()
    pillar_log = _log_on_a_pillar(body, 10)
    feet = body.position().block()
    for dy in range(4):
        body.set_block((feet.x - 40, feet.y + dy, feet.z), "spruce_log")
    run, executor = goal_run(body, "obtain crafting_table", tmp_path, planner=planner)
    assert [a.status for a in run.attempts] == ["escalated", "success"], run.attempts
    assert pillar_log in executor.unreachable and body.block_at(pillar_log).name == "spruce_log"
    second = [(n.capability, n.args.get("target") or n.args.get("item")) for n, _ in
              walk(run.decisions[1].plan.tree.root) if isinstance(n, LeafNode)]
    assert second[0] == ("explore", "spruce_log"), second
    assert body.observe().count("crafting_table") == 1


def test_a_material_seen_past_the_failed_steps_radius_stays_in_the_replans_view() -> None:
    failure = Failure(source=FailureSource.ESCALATION, reason="local_repair_exhausted", code="no_target",
                      capability="acquire_material@1.0.0", args={"item": "spruce_log", "radius": 32})
    far = PlanningState(available_blocks=frozenset({"spruce_log", "stone"}),
                        block_distance={"spruce_log": 40.0, "stone": 2.0})
    assert replan_view(far, failure).block_distance == {"spruce_log": 40.0, "stone": 2.0}
    near = PlanningState(available_blocks=frozenset({"spruce_log"}), block_distance={"spruce_log": 12.0})
    assert replan_view(near, failure).available_blocks == frozenset()
    assert not blames_methods(failure)
    assert blames_methods(failure.model_copy(update={"code": "died"}))
    assert blames_methods(failure.model_copy(update={"code": "guard_failed:no_target"}))  # none there at all


def test_a_night_pit_and_its_stair_out_spare_the_farm() -> None:
    """Bread: the bot waits by its crops at sunset, and the pit dug at its feet and the stair out each night
    turned the farm into trenches. The pit goes FARM_CLEARANCE columns off the farm, the stair out another way."""
    from craftbt.router.routines import FARM_CLEARANCE, PIT_DEPTH, dig_pit, leave_shelter, pit_site

    body = _flat("dirt")
    feet = body.position().block()
    farm = [feet.offset(dx, -1, dz) for dx in range(0, 3) for dz in range(-1, 2)]  # the bot stands on its edge
    for cell in farm:
        body.set_block(tuple(cell), "farmland")
        if cell.z != feet.z:  # the row the bot stands in is tilled, not yet planted
            body.set_block(tuple(cell.offset(dy=1)), "wheat")
    assert dig_pit(body) is None  # not under the feet: that digs the farmland
    site = pit_site(body)
    assert site is not None
    assert all(max(abs(site.x - c.x), abs(site.z - c.z)) > FARM_CLEARANCE for c in farm), site
    # in a pit dug just off the farm's west side, the stair out (east first, where the ground is even) goes
    # another way
    pit = feet.offset(dx=-3)
    body.run_command(f"/fill {pit.x} {pit.y - PIT_DEPTH} {pit.z} {pit.x} {pit.y - 1} {pit.z} air")
    body.run_command(f"/tp @p {pit.x} {pit.y - PIT_DEPTH} {pit.z}")
    body.advance(2)
    dug = [leaf.args["position"] for leaf, _ in walk(leave_shelter(body).root)
           if isinstance(leaf, LeafNode) and leaf.capability == "dig_block_at"]
    assert dug and all(p["x"] <= pit.x for p in dug), dug


def test_a_full_inventory_is_made_room_in_and_the_goal_goes_on(tmp_path: Path) -> None:
    """Natural seed 27's compass: the mine searches came back with 1,491 cobblestone and the iron pickaxe's craft
    found no slot (``inventory_full``); every replan crafted into the same full inventory. The replan now tosses
    the junk and the dug filler beyond a stack of cobblestone first, as a leaf of the repaired plan (through the
    pipeline)."""
    body = inventory_world({"cobblestone": 35 * 64, "oak_planks": 4})  # 36 slots, all taken
    run, _ = goal_run(body, "obtain stick", tmp_path, planner="solver")
    assert [a.status for a in run.attempts] == ["escalated", "success"], run.attempts
    first = run.outcomes[0].escalation
    assert first is not None and first.code == "inventory_full", first
    repaired = [n for n, _ in walk(run.decisions[1].plan.tree.root) if isinstance(n, LeafNode)]
    assert repaired[0].capability == "manage_inventory" and repaired[0].args["action"] == "make_room"
    inv = body.observe().inventory
    assert inv["stick"] >= 4 and inv["cobblestone"] == 64, inv


def test_a_goal_run_whose_goal_holds_after_a_failed_step_ends_met(tmp_path: Path) -> None:
    """A run failing after the goal's item arrived (here: planks handed over while the search for a tree walks
    on, until the run's budget ends it) ends the goal run met, with the reason in the journal, not failed for want
    of a replan."""
    body = _flat("iron_pickaxe")
    executor = Executor(default_registry(), body, home=tmp_path,
                        config=ExecutorConfig(max_ticks=600, geofence=scenario_fence(body)))
    executor.tick_listeners.append(
        lambda *_: body.now_ticks() < 300 or body.observe().count("oak_planks") or body.give("oak_planks", 4))
    try:
        run = run_goal("obtain 4 oak_planks", executor, planner="solver", priors=PriorsStore(":memory:"), max_replans=0)
        assert run.ok and not run.outcomes[-1].ok, run.outcomes[-1].failure
        reasons = [row["reason"] for row in executor.journal.decision_rows()]
        assert "goal_held" in reasons and run.stopped is not None and run.stopped.startswith("goal_held")
    finally:
        executor.journal.close()


def test_a_bot_beyond_the_geofence_walks_back_inside_before_the_replanned_goal(tmp_path: Path) -> None:
    """Natural seed 1's fishing rod: the night's stair ended two blocks beyond the fence, and every step that
    changes the world was refused there until the goal run had no replans left."""
    from craftbt.executor.config import Bounds
    from craftbt.router.routines import FENCE_RETURN_MARGIN

    body = _flat("wooden_pickaxe")  # feet at (0, 64, 0)
    fence = Bounds(min_x=3, min_y=0, min_z=-40, max_x=40, max_y=120, max_z=40)
    executor = Executor(default_registry(), body, home=tmp_path, config=ExecutorConfig(geofence=fence))
    try:
        run = run_goal("obtain cobblestone", executor, planner="solver", priors=PriorsStore(":memory:"))
        steps = [row["node"] for row in executor.journal.step_rows()]
    finally:
        executor.journal.close()
    assert run.ok, run.outcomes[-1].failure
    assert "walk back inside the fence" in steps, steps
    assert fence.contains(body.position()) and body.position().x >= fence.min_x + FENCE_RETURN_MARGIN - 2


def test_a_walk_back_inside_the_fence_goes_past_a_lake_at_its_edge() -> None:
    """Natural seed 1's cake: the bot ended half a block beyond the fence, the first cell back in was a lake's,
    no walk back was planned, and every later step was refused out there until the replans ran out."""
    from craftbt.executor.config import Bounds
    from craftbt.router.routines import FENCE_RETURN_MARGIN, back_inside

    body = _flat()  # feet at (0, 64, 0)
    fence = Bounds(min_x=3, min_y=0, min_z=-40, max_x=40, max_y=120, max_z=40)
    lake = fence.min_x + FENCE_RETURN_MARGIN
    body.run_command(f"/fill {lake} 52 -3 {lake + 2} 63 3 water")
    body.advance(2)
    routine = back_inside(body, fence)
    assert routine is not None
    goal = next(leaf for leaf, _ in walk(routine.root) if isinstance(leaf, LeafNode)).args["pos"]
    assert goal["x"] > lake + 2 and fence.contains(BlockPos(goal["x"], goal["y"], goal["z"])), goal


def test_a_bot_shut_in_a_hole_climbs_out_before_the_replanned_goal(tmp_path: Path) -> None:
    """Natural seed 27's compass: the morning found the bot in its pit, and three plans in a row had no path to a
    log. A walk that found no way from a hole is mended by the stair up (the autonomy loop's rule, one function:
    ``routines.shut_in``), then the goal is planned again."""
    from craftbt.router import routines
    from craftbt.world.body import Position

    body = _flat()
    for y in range(60, 64):
        body.set_block((0, y, 0), "air")
    body.teleport(Position(0.5, 60.0, 0.5))
    body.set_block((6, 64, 0), "oak_log")  # tried from the pit and found out of reach: not chosen again
    body.set_block((40, 64, 0), "oak_log")
    assert routines.shut_in(body)
    executor = Executor(default_registry(), body, home=tmp_path, config=ExecutorConfig(geofence=scenario_fence(body)))
    try:
        run = run_goal("obtain oak_log", executor, planner="solver", priors=PriorsStore(":memory:"))
        steps = [row["node"] for row in executor.journal.step_rows()]
    finally:
        executor.journal.close()
    assert run.ok, [o.failure for o in run.outcomes]
    assert "walk out" in steps and not routines.shut_in(body), steps


def test_a_bot_refused_a_fight_for_its_health_eats_and_rests_before_the_replanned_hunt(tmp_path: Path) -> None:
    """Natural seed 1's fishing rod: the nights' fights wore the bot down to one health point, every kill of the
    spider it needed was refused for its health, and the goal run ended so. A player eats and rests first."""
    from craftbt.router import routines

    body = world_body("flat", 0)
    body.world.rules.do_mob_spawning = False
    for item, count in (("stone_sword", 1), ("cooked_beef", 3)):
        body.give(item, count)
    body.world.player.health, body.world.player.food = 3.0, 10
    p = body.position()
    body.world.spawn_mob("spider", p.x + 20, p.y, p.z, no_ai=True)
    roll = body.world.rng.randint
    body.world.rng.randint = lambda lo, hi: 1 if (lo, hi) == (0, 2) else roll(lo, hi)  # type: ignore[method-assign]
    executor = Executor(default_registry(), body, home=tmp_path, config=ExecutorConfig(geofence=scenario_fence(body)))
    try:
        run = run_goal("obtain string", executor, planner="solver", priors=PriorsStore(":memory:"))
        steps = [(row["node"], row["error_code"]) for row in executor.journal.step_rows()]
    finally:
        executor.journal.close()
    refused = run.outcomes[0].failure
    assert refused is not None and refused.code == "guard_failed:low_health"
    assert run.ok, steps
    assert ("eat", None) in steps and ("rest", None) in steps, steps
    assert body.health() > routines.RESTED_HEALTH - 2 and body.observe().inventory.get("string", 0) >= 1


def test_a_rest_with_nothing_to_eat_fetches_cooked_meat_first() -> None:
    """The food a rest needs, fetched in front of it: nothing edible carried, the bar too low to heal."""
    from craftbt.router.router import rest_food

    body = _flat("stone_sword")
    body.world.player.health, body.world.player.food = 1.0, 14
    refused = Failure(source=FailureSource.ESCALATION, reason="deterministic_block",
                      code="guard_failed:low_health")
    need = rest_food(refused, body.observe(), body)
    assert need is not None and need.item == "cooked_beef" and need.count == 2  # 21 + 4 food to heal to 15
    p = body.position()
    body.world.spawn_mob("squid", p.x + 3, p.y, p.z, no_ai=True)  # no meat: the sheep beyond it is hunted
    body.world.spawn_mob("sheep", p.x + 8, p.y, p.z, no_ai=True)
    need = rest_food(refused, body.observe(), body)
    assert need is not None and need.item == "cooked_mutton"
    body.give("bread", 1)
    assert rest_food(refused, body.observe(), body) is None  # it eats what it carries
    other = refused.model_copy(update={"code": "guard_failed:no_target"})
    assert rest_food(other, body.observe(), body) is None


def test_the_goal_after_a_rest_is_planned_from_where_the_rest_left_the_bot(tmp_path: Path) -> None:
    """Natural seed 7's fishing rod: worn down with nothing to eat, the bot fetched cooked meat and rested, and
    the rod's plan, made before the meat's furnace had placed the carried crafting table, still counted on
    carrying it; the run ended a failure with no reason given. The rest runs as a routine of its own, and the
    goal is planned from where it leaves the bot."""
    from craftbt.router.router import ROUTINE

    body = world_body("flat", 0)
    body.world.rules.do_mob_spawning = False
    for item, count in (("stone_sword", 1), ("crafting_table", 1), ("cobblestone", 8), ("coal", 4),
                        ("stick", 3), ("string", 1)):
        body.give(item, count)
    body.world.player.health, body.world.player.food = 3.0, 10
    p = body.position()
    body.world.spawn_mob("spider", p.x + 20, p.y, p.z, no_ai=True)
    body.world.spawn_mob("cow", p.x - 12, p.y, p.z, no_ai=True)
    roll = body.world.rng.randint
    body.world.rng.randint = lambda lo, hi: 1 if (lo, hi) == (0, 2) else roll(lo, hi)  # type: ignore[method-assign]
    executor = Executor(default_registry(), body, home=tmp_path, config=ExecutorConfig(geofence=scenario_fence(body)))
    try:
        run = run_goal("obtain fishing_rod", executor, planner="solver", priors=PriorsStore(":memory:"),
                       max_replans=1, shelter_at_night=False)
        steps = [(row["node"], row["error_code"]) for row in executor.journal.step_rows()]
    finally:
        executor.journal.close()
    refused = run.outcomes[0].failure
    assert refused is not None and refused.code == "guard_failed:low_health"
    assert run.ok, ([o.failure for o in run.outcomes], steps)
    assert [d.chosen for d in run.decisions][1] == ROUTINE and ("rest", None) in steps
    assert body.observe().inventory.get("fishing_rod", 0) == 1
