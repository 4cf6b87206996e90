"""explore: surface spiral and mining searches, hazards, memory, bounds and the failure report."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from craftbt.executor.digests import iter_leaves
from craftbt.planners.base import PlanningState
from craftbt.planners.intent import Intent
from craftbt.world.body import BlockPos, Position
from craftbt.world.scenarios.loader import world_body
from craftbt.world.sim.body import SimBody
from craftbt.world.sim.storage import make_state
from tests.leafkit import make_context, run_leaf


def _flat(*inventory: str) -> SimBody:
    body = SimBody(seed=1)  # flat: bedrock at y=0, stone to y=59, dirt, grass at y=63
    for item in inventory:
        body.give(item, 64 if item == "torch" else 1)
    return body


def test_mining_finds_ore_at_depth_and_the_next_step_can_mine_it() -> None:
    body = world_body("natural", 0)
    body.give("stone_pickaxe", 1)
    ctx = make_context(body)
    run = run_leaf(body, "explore", {"target": "raw_iron", "count": 2}, max_ticks=40_000, ctx=ctx)
    assert run.ok, run.result.error
    obs = run.observables
    assert obs["strategy"] == "mine" and obs["blocks_dug"] > 0 and obs["deepest_y"] < 64
    mined = run_leaf(body, "acquire_material", {"item": "raw_iron", "count": 2, "radius": 32}, max_ticks=4_000,
                     ctx=ctx)
    assert mined.ok, mined.result.error
    assert body.health() == 20.0


def test_ore_the_search_tunnels_through_counts_toward_what_it_looks_for() -> None:
    """Natural seed 0's golden apple: the search for eight gold ore dug through gold in its own tunnel and
    went on looking for eight standing in reach while nine raw gold were already held."""
    body = _flat("iron_pickaxe")
    for cell in ((4, 55, 1), (8, 55, 3), (10, 55, -3)):  # cells of the tunnel at y=55, apart from each other
        body.set_block(cell, "gold_ore")
    run = run_leaf(body, "explore", {"target": "raw_gold", "count": 3, "strategy": "mine", "depth": 55,
                                     "max_ticks": 3_000}, max_ticks=4_000)
    assert run.ok, run.result.error
    held = body.observe().count("raw_gold")
    assert held == run.observables["dug_up"] >= 1  # dug on the way, and picked up
    standing = [c for c in ((4, 55, 1), (8, 55, 3), (10, 55, -3)) if body.block_at(BlockPos(*c)).name == "gold_ore"]
    assert held + len(standing) == 3
    if standing:  # the rest stands in reach: the found block, checked again by the acceptance
        assert tuple(run.observables["found"]) in standing
    assert run.verdict is not None and run.verdict.value == "verified"
    # the plan's next step mines toward the plan's total, not three more
    mined = run_leaf(body, "acquire_material", {"item": "raw_gold", "count": 3, "hold": 3, "radius": 8},
                     max_ticks=2_000)
    assert mined.ok and mined.verdict is not None and mined.verdict.value == "verified", mined.result.error
    assert body.observe().count("raw_gold") == 3


def test_a_search_that_dug_all_it_was_for_is_judged_by_the_inventory() -> None:
    from craftbt.capabilities.leaves.exploration import ExploreArgs, accept_explore
    from craftbt.capabilities.spec import ActionResult

    body = _flat()
    pre = body.observe()
    args = ExploreArgs(target="raw_gold", count=3)
    claim = ActionResult.success(found=None, dug_up=3, expected=["raw_gold"], looked_for=["gold_ore"])
    body.give("raw_gold", 2)
    assert accept_explore(pre, body.observe(), args, claim).verdict.value == "contradicted"  # the claim alone
    body.give("raw_gold", 1)
    assert accept_explore(pre, body.observe(), args, claim).verdict.value == "verified"


def test_surface_search_walks_until_a_tree_is_in_view() -> None:
    body = world_body("natural", 1)
    run = run_leaf(body, "explore", {"target": "oak_log"}, max_ticks=20_000)
    assert run.ok and run.observables["strategy"] == "surface"
    assert body.find_blocks(["oak_log"], 32, 1, exposed=True)


def test_animals_are_searched_for_on_the_surface() -> None:
    body = world_body("natural", 2)
    run = run_leaf(body, "explore", {"target": "pig", "max_ticks": 6_000}, max_ticks=8_000)
    assert run.ok, run.result.error
    assert any(e.name == "pig" for e in body.entities(32.0))


def test_never_digs_into_lava_and_says_what_it_searched_for_where_and_how_long() -> None:
    body = _flat("iron_pickaxe")
    feet = body.position().block()
    # a checkerboard of lava 3 blocks under the grass: every cell of that layer touches lava
    lava_y = feet.y - 4
    for x in range(feet.x - 12, feet.x + 13):
        for z in range(feet.z - 12, feet.z + 13):
            if (x + z) % 2 == 0:
                body.world.set_block((x, lava_y, z), make_state("lava"))
    run = run_leaf(body, "explore", {"target": "diamond", "max_distance": 10, "max_ticks": 3_000},
                   max_ticks=5_000)
    assert not run.ok and run.code == "not_found"
    obs = run.observables
    assert obs["hazards_avoided"] > 0 and obs["blocks_dug"] > 0
    opened = [(x, lava_y, z) for x in range(feet.x - 12, feet.x + 13) for z in range(feet.z - 12, feet.z + 13)
              if body.world.name(x, lava_y, z) == "air"]
    assert opened == []  # no cell next to lava was dug open
    detail = run.result.error.detail if run.result.error else ""
    assert "diamond_ore" in detail and "mine search from" in detail and " s of " in detail
    assert body.health() == 20.0


def test_falling_gravel_is_dug_again() -> None:
    body = _flat("iron_pickaxe", "iron_shovel")
    feet = body.position().block()
    for x in range(feet.x - 6, feet.x + 7):
        for z in range(feet.z - 6, feet.z + 7):
            for y in range(feet.y - 6, feet.y - 1):
                body.world.set_block((x, y, z), make_state("gravel"))
    body.world.set_block((feet.x + 3, feet.y - 9, feet.z), make_state("coal_ore"))
    body.world.set_block((feet.x - 3, feet.y - 9, feet.z), make_state("coal_ore"))
    body.world.set_block((feet.x, feet.y - 9, feet.z + 3), make_state("coal_ore"))
    body.world.set_block((feet.x, feet.y - 9, feet.z - 3), make_state("coal_ore"))
    run = run_leaf(body, "explore", {"target": "coal", "depth": feet.y - 9, "max_ticks": 6_000}, max_ticks=8_000)
    assert run.ok, run.result.error
    assert run.observables["blocks_dug"] > 10


def test_what_was_seen_is_remembered_for_the_rest_of_the_run() -> None:
    body = world_body("natural", 1)
    ctx = make_context(body)
    first = run_leaf(body, "explore", {"target": "oak_log"}, max_ticks=20_000, ctx=ctx)
    assert first.ok
    seen = ctx.memory["explore_seen"]["oak_log"]
    assert seen and all(body.block_at(BlockPos(*p)).name == "oak_log" for p in seen)


def test_refuses_the_nether_unknown_names_and_mining_without_a_pickaxe() -> None:
    body = _flat()
    assert run_leaf(body, "explore", {"target": "netherrack"}).code == "guard_failed:out_of_reach"
    assert run_leaf(body, "explore", {"target": "unobtainium"}).code == "guard_failed:unknown_target"
    assert run_leaf(body, "explore", {"target": "raw_iron"}).code == "guard_failed:precond_missing:tool:wooden_pickaxe"


def test_a_block_touching_lava_or_water_is_a_hazard_to_dig() -> None:
    from craftbt.capabilities.leaves.common import liquid_near

    body = _flat()
    ctx = make_context(body)
    cell = BlockPos(5, 40, 5)
    assert not liquid_near(ctx, cell)
    body.world.set_block((5, 40, 6), make_state("lava"))
    assert liquid_near(ctx, cell)
    body.world.set_block((5, 40, 6), make_state("stone"))
    body.world.set_block((5, 41, 5), make_state("water"))
    assert liquid_near(ctx, cell)


def test_a_failed_search_says_why_in_craftbt_show(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from craftbt.cli.root import app

    monkeypatch.setenv("CRAFTBT_HOME", str(tmp_path))
    tree = tmp_path / "search.yaml"
    tree.write_text("tree: search\nversion: 1\nroot:\n  leaf: explore\n  args: {target: diamond, max_ticks: 200}\n"
                    "  retry: 0\n")
    scenario = tmp_path / "world.yaml"
    scenario.write_text("name: w\ngenerator: {type: flat}\nplayer:\n  inventory: [{item: iron_pickaxe}]\n")
    runner = CliRunner()
    ran = runner.invoke(app, ["run", str(tree), "--scenario", str(scenario), "--json"])
    assert ran.exit_code == 1
    run_id = json.loads(ran.output)["run_id"]
    shown = runner.invoke(app, ["show", run_id])
    assert shown.exit_code == 0
    why = " ".join(shown.output.split())
    assert "why" in why and "diamond_ore in view after" in why and "mine search from" in why


def _log_on_a_pillar(body: SimBody) -> BlockPos:
    """A spruce log in view but out of reach: on a bedrock pillar nine blocks high, ten blocks off."""
    feet = body.position().block()
    for dy in range(9):
        body.world.set_block((feet.x + 10, feet.y + dy, feet.z), make_state("bedrock"))
    log = BlockPos(feet.x + 10, feet.y + 9, feet.z)
    body.world.set_block(tuple(log), make_state("spruce_log"))
    return log


def test_a_block_in_view_that_cannot_be_reached_is_not_found() -> None:
    """A resumed search (a safety preemption re-dispatches it from scratch) once saw a log it could not
    walk to, reported it found after 0 ms, and the next step failed `no path to` it: seen is not found."""
    body = _flat()
    log = _log_on_a_pillar(body)
    run = run_leaf(body, "explore", {"target": "spruce_log", "max_distance": 16, "max_ticks": 3_000},
                   max_ticks=4_000)
    assert not run.ok and run.code == "not_found", run.observables
    assert run.observables["found"] != list(log)


def test_a_reachable_block_is_found_beside_one_that_is_not() -> None:
    body = _flat()
    _log_on_a_pillar(body)
    feet = body.position().block()
    body.world.set_block((feet.x - 12, feet.y, feet.z), make_state("spruce_log"))
    run = run_leaf(body, "explore", {"target": "spruce_log", "max_distance": 16, "max_ticks": 3_000},
                   max_ticks=4_000)
    assert run.ok, run.result.error
    assert run.observables["found"] == [feet.x - 12, feet.y, feet.z]


def test_a_boxed_in_search_says_it_could_walk_nowhere() -> None:
    """Not `budget used up` after 0 s: a bot with no path to any waypoint says so."""
    body = _flat()
    feet = body.position().block()
    for dx in (-1, 0, 1):
        for dz in (-1, 0, 1):
            for dy in (0, 1, 2):
                if (dx, dz) != (0, 0) or dy == 2:
                    body.world.set_block((feet.x + dx, feet.y + dy, feet.z + dz), make_state("bedrock"))
    run = run_leaf(body, "explore", {"target": "oak_log", "max_distance": 16}, max_ticks=2_000)
    assert run.code == "not_found"
    # roofed by bedrock, it is taken for a bot underground: it tries to climb out and says it cannot
    assert run.result.error is not None and "no way up to the surface" in run.result.error.detail


def _stone_under_the_floor(body: SimBody) -> None:
    """Stone over a closed pocket just under the grass by the feet: open to the pocket, not to the player."""
    for x in range(1, 4):
        for z in range(-1, 2):
            body.set_block((x, 61, z), "air")
            body.set_block((x, 62, z), "stone")


def test_a_block_seen_through_the_floor_is_not_in_sight() -> None:
    from craftbt.capabilities.leaves.common import sees

    body = _flat()
    _stone_under_the_floor(body)
    body.set_block((3, 64, 0), "stone")
    ctx = make_context(body)
    assert not sees(ctx, BlockPos(1, 62, 0)) and sees(ctx, BlockPos(3, 64, 0))


def test_once_a_drop_is_lost_only_blocks_in_sight_are_dug() -> None:
    """Natural seed 16: stone open only to a cave under a sandstone floor was dug 27 times, each drop fell
    into the cave, and no cobblestone arrived; stone in sight a few blocks further was never tried."""
    body = _flat("wooden_pickaxe")
    _stone_under_the_floor(body)
    body.set_block((6, 64, 0), "stone")
    run = run_leaf(body, "acquire_material", {"item": "cobblestone", "count": 1, "radius": 16}, max_ticks=4_000)
    assert run.ok, run.result.error
    assert body.observe().count("cobblestone") == 1 and body.block_at(BlockPos(6, 64, 0)).name == "air"


def test_mining_search_does_not_count_stone_seen_through_the_floor() -> None:
    body = _flat("wooden_pickaxe")
    _stone_under_the_floor(body)
    ctx = make_context(body)
    run = run_leaf(body, "explore", {"target": "cobblestone", "strategy": "mine", "max_ticks": 4_000},
                   max_ticks=6_000, ctx=ctx)
    assert run.ok, run.result.error
    assert run.observables["blocks_dug"] > 0  # it dug on until stone was in sight
    mined = run_leaf(body, "acquire_material", {"item": "cobblestone", "count": 1, "radius": 16}, max_ticks=4_000,
                     ctx=ctx)
    assert mined.ok, mined.result.error


def test_a_bot_walled_in_by_leaves_breaks_out_and_searches_on() -> None:
    """A hunt in a dense forest (natural seed 24) ended in a pocket of leaves: no waypoint of the next
    search had a path, and it ended at once."""
    body = _flat()
    feet = body.position().block()
    for dx in range(-2, 3):
        for dz in range(-2, 3):
            for dy in range(4):
                if max(abs(dx), abs(dz)) >= 1 or dy >= 2:
                    body.set_block((feet.x + dx, feet.y + dy, feet.z + dz), "oak_leaves")
    body.run_command(f"/summon sheep {feet.x + 40} {feet.y} {feet.z}")
    run = run_leaf(body, "explore", {"target": "sheep", "max_ticks": 6_000}, max_ticks=8_000)
    assert run.ok, run.result.error
    assert run.observables["waypoints"] >= 1 and run.observables["blocks_dug"] > 0


def test_a_climb_out_of_a_cave_walks_to_a_wall_before_it_cuts_stairs() -> None:
    """A replan on natural seed 4 stood in a cave at y=14 with every side open and gave up at once
    (`no way up to the surface`): a stair is cut into a wall, and there was none beside the feet."""
    body = _flat("stone_pickaxe")
    for x in range(-4, 5):
        for z in range(-4, 5):
            for y in (40, 41, 42):
                body.set_block((x, y, z), "air")
    body.teleport(Position(0.5, 40, 0.5))
    body.world.spawn_mob("sheep", 45.5, 64, 0.5, no_ai=True)  # out of view from the cave (51 blocks)
    run = run_leaf(body, "explore", {"target": "sheep", "max_ticks": 6_000}, max_ticks=8_000)
    assert run.ok, run.result.error
    assert body.position().y >= 63


def test_a_mining_search_from_far_below_the_ores_depth_climbs_there_first() -> None:
    """Coal is commonest at y=40: a search for it from y=-20 tunnelled 30 minutes at y=-20 (clock, GOAP,
    natural seed 17)."""
    body = _flat("stone_pickaxe")
    for x in range(0, 64):
        for z in range(-3, 4):
            body.set_block((x, 41, z), "coal_ore")
    for y in (10, 11):
        body.set_block((0, y, 0), "air")
    body.teleport(Position(0.5, 10, 0.5))
    run = run_leaf(body, "explore", {"target": "coal", "max_ticks": 6_000}, max_ticks=8_000)
    assert run.ok, run.result.error
    assert 30 <= body.position().y <= 45


def test_an_animal_two_rings_out_is_found_by_the_planners_find_step() -> None:
    """Natural seeds 24, 25 and 27: the nearest cows stood 110-117 blocks from spawn, beyond the reach of rings
    16 blocks apart up to 48 blocks out. Rings spaced by the 32 blocks an animal is seen from reach it."""
    from craftbt.planners.living import find_animal_step

    body = _flat()
    feet = body.position().block()
    body.run_command(f"/summon cow {feet.x + 88} {feet.y} {feet.z + 6} {{NoAI:1b}}")
    step = find_animal_step("cow", "beef")
    run = run_leaf(body, step.capability, step.args, max_ticks=14_000)
    assert run.ok, run.result.error
    assert any(e.name == "cow" for e in body.entities(32.0))


def test_an_animal_search_spaces_its_rings_by_what_it_sees() -> None:
    from craftbt.capabilities.leaves.exploration import (
        ENTITY_VIEW,
        ENTITY_WAYPOINT_GAP,
        Search,
        Target,
        _waypoints,
    )

    start = BlockPos(0, 64, 0)
    points = _waypoints(Search(Target("cow", entity="cow"), start, 0, 12_000, 96))
    rings: dict[int, list[tuple[int, int]]] = {}
    for x, z in points:
        rings.setdefault(round((x * x + z * z) ** 0.5), []).append((x, z))
    assert sorted(rings) == [ENTITY_VIEW, 2 * ENTITY_VIEW, 3 * ENTITY_VIEW]
    for ring in rings.values():
        nxt = ring[1:] + ring[:1]
        assert max(math.dist(a, b) for a, b in zip(ring, nxt, strict=True)) <= ENTITY_WAYPOINT_GAP + 1
    # a block search keeps its rings 16 blocks apart, 8 waypoints each
    assert len(_waypoints(Search(Target("oak_log", frozenset({"oak_log"})), start, 0, 12_000, 48))) == 24


def test_a_far_search_leaves_no_gap_between_the_views_of_its_outer_rings() -> None:
    """Every column from the start look's edge out to a rare search's reach is in view of some waypoint (the far
    rings are spaced for overlap, not three views deep: a gap here would hide a flower for the whole search)."""
    from craftbt.capabilities.leaves.exploration import LOOK_RADIUS, START_RADIUS, Search, Target, _waypoints

    start = BlockPos(0, 64, 0)
    points = _waypoints(Search(Target("azure_bluet", frozenset({"azure_bluet"})), start, 0, 12_000, 96))
    view = LOOK_RADIUS["surface"]
    unseen = [(x, z) for x in range(-96, 97, 2) for z in range(-96, 97, 2)
              if START_RADIUS["surface"] <= math.hypot(x, z) <= 96
              and min(math.dist((x, z), p) for p in points) > view]
    assert unseen == []


def test_a_flower_beyond_the_start_look_is_found_from_the_first_ring_that_covers_it() -> None:
    """Natural seed 0, light gray wool: the search walked 40 waypoints of rings 16 blocks apart (268 s) before a
    bluet came into view; the nearest lay 85 blocks off."""
    from craftbt.capabilities.leaves.exploration import FAR_RING_STEP, FAR_WAYPOINT_GAP, START_RADIUS

    body = _flat()
    feet = body.position().block()
    flower = feet.offset(84, 0, -16)
    body.world.set_block(tuple(flower), make_state("azure_bluet"))
    run = run_leaf(body, "explore", {"target": "azure_bluet", "max_distance": 96, "max_ticks": 12_000},
                   max_ticks=14_000)
    assert run.ok, run.result.error
    assert run.observables["found"] == list(flower)
    # found from the second ring: the first (at the start look's edge) and at most one waypoint of the next
    first = math.ceil(math.tau * START_RADIUS["surface"] / FAR_WAYPOINT_GAP)
    assert math.hypot(84, -16) <= START_RADIUS["surface"] + FAR_RING_STEP + 24
    assert run.observables["waypoints"] <= first + 1


def test_sugar_cane_is_searched_for_as_far_as_a_shore_may_be() -> None:
    """Natural seed 1's bookshelf: the nearest sugar cane stands 119 blocks from spawn, and a search out to its
    expected 64 walked its rings in vain until night. The planned search (the solver's own step for paper) walks
    out to ``nature.FAR_SEARCH_REACH`` and finds a stand that far off."""
    from craftbt.capabilities.default import default_registry
    from craftbt.planners.solver import CraftingSolver

    body = _flat()
    feet = body.position().block()
    cane = feet.offset(-119, 0, 2)
    body.world.set_block(tuple(cane), make_state("sugar_cane"))
    meadow = PlanningState(available_blocks=frozenset({"grass_block", "dirt", "stone"}))  # no cane in view
    plan = CraftingSolver().plan(Intent.from_text("obtain paper"), meadow, default_registry())
    search = next(leaf.args for leaf in iter_leaves(plan.tree.root)
                  if leaf.capability == "explore" and leaf.args["target"] == "sugar_cane")
    run = run_leaf(body, "explore", search, max_ticks=search["max_ticks"])
    assert run.ok, run.result.error
    assert run.observables["found"] == list(cane)


def test_an_animal_search_stops_walking_when_the_animal_comes_into_view() -> None:
    """Natural seed 0's firework rocket: the creeper search walked on to its waypoint while the creeper came into
    view and walked up to it; the fight began with the creeper lit and the blast took 14 of 20 health. The walk to a
    waypoint ends as soon as the mob is in view (32 blocks), not at the waypoint."""
    from craftbt.capabilities.leaves.exploration import ENTITY_VIEW, Search, Target, _waypoints

    body = _flat()
    start = body.position().block()
    x, z = _waypoints(Search(Target("creeper", entity="creeper"), start, 0, 12_000, 96))[0]
    # a creeper that stands still 14 blocks beyond the first waypoint, out of view from the start
    dx, dz = x - start.x, z - start.z
    k = (math.hypot(dx, dz) + 14) / math.hypot(dx, dz)
    body.world.spawn_mob("creeper", start.x + dx * k + 0.5, start.y, start.z + dz * k + 0.5, no_ai=True)
    run = run_leaf(body, "explore", {"target": "creeper", "max_ticks": 6_000}, max_ticks=8_000)
    assert run.ok, run.result.error
    creeper = next(e for e in body.entities(64.0) if e.name == "creeper")
    assert creeper.position.distance_to(body.position()) > ENTITY_VIEW - 4  # stopped as it came into view


def test_a_search_resumed_in_the_same_run_goes_on_from_where_it_was() -> None:
    """Natural seed 25: a creeper interrupted the search for a cow every 25 s all day, and each resumed search
    walked the first ring around wherever the retreat had left the bot."""
    from craftbt.capabilities.leaves.exploration import LOOKED_KEY, LOOKED_NEAR, ORIGIN_KEY

    body = _flat()
    ctx = make_context(body)
    start = body.position().block()
    first = run_leaf(body, "explore", {"target": "cow", "max_distance": 96, "max_ticks": 1_500}, max_ticks=2_000,
                     ctx=ctx)
    assert first.code == "not_found" and first.observables["waypoints"] >= 2
    looked = list(ctx.memory[LOOKED_KEY]["cow"])
    assert ctx.memory[ORIGIN_KEY]["cow"] == start
    body.run_command(f"/tp @p {start.x + 12} {start.y} {start.z + 12}")  # a retreat took the bot off
    body.advance(2)
    second = run_leaf(body, "explore", {"target": "cow", "max_distance": 96, "max_ticks": 1_500}, max_ticks=2_000,
                      ctx=ctx)
    assert second.observables["from"] == list(start)  # the same spiral
    walked = ctx.memory[LOOKED_KEY]["cow"][len(looked):]
    assert walked
    for p in walked:  # only waypoints not looked from before
        assert all(abs(p.x - q.x) > LOOKED_NEAR or abs(p.z - q.z) > LOOKED_NEAR for q in looked), (p, looked)


def test_a_retry_after_a_search_that_covered_its_reach_walks_the_rings_again() -> None:
    """The waypoints not yet looked from lay beyond the fence: the retry walked nothing and failed ``no path to
    any waypoint`` in 0 s (natural seeds 22 and 27 in every planner)."""
    from craftbt.capabilities.leaves.exploration import ENTITY_VIEW

    class Fence:
        def contains(self, pos: BlockPos) -> bool:  # the second ring is outside
            return abs(pos.x) <= ENTITY_VIEW + 8 and abs(pos.z) <= ENTITY_VIEW + 8

    body = _flat()
    ctx = make_context(body)
    ctx.memory["geofence"] = Fence()
    args = {"target": "cow", "max_distance": 2 * ENTITY_VIEW, "max_ticks": 6_000}
    first = run_leaf(body, "explore", args, max_ticks=7_000, ctx=ctx)
    assert first.code == "not_found" and first.observables["waypoints"] >= 4
    second = run_leaf(body, "explore", args, max_ticks=7_000, ctx=ctx)
    assert second.code == "not_found" and "budget used up" in second.result.error.detail
    assert second.observables["waypoints"] >= 4


def test_a_retry_after_a_whole_spiral_was_walked_begins_a_new_one_where_the_bot_stands() -> None:
    """Natural seed 22: a search for a tree walked its spiral in a desert and failed; the retry, centred on the
    same spot, walked the same spiral again (every planner failed every goal there)."""
    body = _flat()
    ctx = make_context(body)
    start = body.position().block()
    args = {"target": "oak_log", "max_distance": 16, "max_ticks": 6_000}
    first = run_leaf(body, "explore", args, max_ticks=7_000, ctx=ctx)
    assert first.code == "not_found" and first.observables["from"] == list(start)
    body.run_command(f"/tp @p {start.x + 10} {start.y} {start.z}")
    body.advance(2)
    second = run_leaf(body, "explore", args, max_ticks=7_000, ctx=ctx)
    assert second.observables["from"] == [start.x + 10, start.y, start.z]  # new ground, not the same spiral


def test_a_climb_that_comes_up_under_a_lake_tunnels_to_dry_ground_and_climbs_there() -> None:
    """Starter seed 18 (GOAP, iron pickaxe): a climb out of a mining tunnel came up three blocks under a lake's
    bed, every stair up let the water in, and the surface search that followed had no path from that pocket."""
    body = _flat("stone_pickaxe")
    for x in range(-12, 6):  # a lake over the bot, its nearest shore six blocks east
        for z in range(-12, 13):
            for y in range(58, 64):
                body.set_block((x, y, z), "water")
    for y in (54, 55):
        body.set_block((0, y, 0), "air")
    body.teleport(Position(0.5, 54, 0.5))
    body.world.spawn_mob("sheep", 40.5, 64, 0.5, no_ai=True)
    run = run_leaf(body, "explore", {"target": "sheep", "max_ticks": 6_000}, max_ticks=8_000)
    assert run.ok, run.result.error
    assert body.position().y >= 63 and body.position().x > 5


def test_a_tunnel_under_a_lake_steps_down_into_an_open_cell_on_its_way() -> None:
    """Natural seed 0's crossbow: a climb out of the iron mine came up in sand under a lake (the pocket below,
    carved as the run left it); the tunnel towards the beach began over the shaft the climb had come up, the step
    into that open cell, which has no floor, found no path, the same side was chosen again, and every later
    search failed at once: "no way up to the surface"."""
    body = world_body("natural", 0)
    body.give("stone_pickaxe", 1)
    pocket = {59: [(-1, -1), (0, -1), (1, -1), (0, 0), (1, 0)], 58: [(-1, -1), (0, -1), (1, -1), (0, 0), (1, 0)],
              57: [(-1, -1), (0, -1), (1, -1), (0, 0), (1, 0)], 56: [(0, -1), (1, -1), (1, 0)],
              55: [(1, -1), (1, 0)]}
    for y, cells in pocket.items():
        for dx, dz in cells:
            body.set_block((72 + dx, y, 66 + dz), "air")
    body.teleport(Position(72.5, 57, 66.5))
    body.world.spawn_mob("sheep", 116.5, float(body.world.highest_solid(116, 66) + 1), 66.5, no_ai=True)
    run = run_leaf(body, "explore", {"target": "sheep", "max_ticks": 4_000}, max_ticks=6_000)
    assert run.ok, run.result.error
    assert body.position().y >= 63
