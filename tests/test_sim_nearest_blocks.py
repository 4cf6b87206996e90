"""Body.nearest_blocks on the embedded world: one pass, the same block per kind as one find_blocks query each.

The reference is the per-kind loop ``PlanningState.survey`` ran before
``nearest_blocks`` existed: ``find_blocks([name], radius, max_count=1)`` for
every name, an unknown name finding nothing.
"""

from __future__ import annotations

from collections.abc import Iterable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from craftbt.executor.monitor import MonitoredBody
from craftbt.planners.base import PlanningState
from craftbt.router.router import SURVEY_BLOCKS, SURVEY_RADIUS
from craftbt.world.body import BlockPos, BodyError, BodyErrorCode
from craftbt.world.scenarios import load_scenario, starter_world
from craftbt.world.sim.body import SimBody

#: Surveyed kinds plus kinds a scenario places, kinds no world here has, and names no version has.
NAMES = (
    *SURVEY_BLOCKS,
    "water", "bedrock", "oak_leaves", "birch_leaves", "gold_ore", "redstone_ore", "lapis_ore", "diamond_ore",
    "chest", "crafting_table", "furnace", "farmland", "torch", "oak_planks",
    "obsidian", "emerald_block", "minecraft:stone", "minecraft:iron_ore",
    "not_a_block", "minecraft:not_a_block", "Stone", "",
)

#: (scenario, seed, widest radius): natural terrain at several seeds at the survey radius, and flat
#: worlds with placed blocks (a flat world buries all its stone: the per-kind reference probes every cell).
WORLDS = (
    ("starter", 0, SURVEY_RADIUS), ("starter", 3, SURVEY_RADIUS), ("starter", 11, SURVEY_RADIUS),
    ("breakable_blocks", 0, SURVEY_RADIUS), ("nightfall", 0, SURVEY_RADIUS),
    ("farm_plot", 0, 24), ("chest_nearby", 0, 24), ("doors_and_torches", 0, 24),
)


def per_kind(body: SimBody, names: Iterable[str], radius: int, exposed: bool) -> dict[str, BlockPos]:
    """The old way: one capped query per kind; a name the registry lacks finds nothing."""
    out: dict[str, BlockPos] = {}
    for name in names:
        try:
            hits = body.find_blocks([name], radius, max_count=1, exposed=exposed)
        except BodyError as err:
            assert err.code is BodyErrorCode.UNKNOWN_BLOCK
            continue
        if hits:
            out[name] = hits[0]
    return out


def world(scenario: str, seed: int) -> SimBody:
    """A fresh body: the starter world at ``seed``, else the shipped scenario (its own seed)."""
    return starter_world(seed) if scenario == "starter" else load_scenario(scenario)


@pytest.mark.parametrize(("scenario", "seed", "widest"), WORLDS, ids=[f"{s}-{n}" for s, n, _ in WORLDS])
@pytest.mark.parametrize("exposed", [True, False], ids=["exposed", "any"])
def test_nearest_blocks_agrees_with_one_find_blocks_per_kind(
    scenario: str, seed: int, widest: int, exposed: bool
) -> None:
    body = world(scenario, seed)
    for radius in (widest, 13, 0):
        # nearest_blocks first, on chunks nobody generated yet: it must not lean on find_blocks' side effects
        nearest = body.nearest_blocks(NAMES, radius, exposed=exposed)
        assert nearest == per_kind(body, NAMES, radius, exposed)


def test_starter_world_finds_what_a_survey_needs() -> None:
    nearest = starter_world(0).nearest_blocks(NAMES, 48, exposed=True)
    assert {"oak_log", "stone", "coal_ore", "iron_ore", "minecraft:stone"} <= set(nearest)
    assert nearest["minecraft:stone"] == nearest["stone"]
    assert not {"obsidian", "not_a_block", "minecraft:not_a_block", "Stone", ""} & set(nearest)


def test_survey_distances_match_the_per_kind_survey() -> None:
    candidates = [*SURVEY_BLOCKS, "water", "diamond_ore", "gold_ore", "obsidian", "stone"]  # a repeat, too
    for seed in (0, 3):
        body = starter_world(seed)
        state = PlanningState.survey(body, candidates, radius=SURVEY_RADIUS)
        here = body.observe().position
        old = {
            name: round(pos.distance_to(here), 1)
            for name, pos in per_kind(body, dict.fromkeys(candidates), SURVEY_RADIUS, exposed=True).items()
        }
        assert state.block_distance == old
        assert state.available_blocks == frozenset(old)


def test_bad_radius_is_refused_like_find_blocks() -> None:
    body = SimBody(seed=1)
    for radius in (-1, 129):
        with pytest.raises(BodyError) as exc:
            body.nearest_blocks(["stone"], radius)
        assert exc.value.code is BodyErrorCode.INVALID_ARGUMENT


def test_monitored_body_passes_nearest_blocks_through() -> None:
    body = SimBody(seed=1)
    monitored = MonitoredBody(body)
    assert monitored.nearest_blocks(["dirt", "stone"], 8) == body.nearest_blocks(["dirt", "stone"], 8)
    assert monitored.commands == 0  # an observation, not an actuator command


#: Kinds a flat world lacks, placed by the property test (``air`` digs holes that expose buried blocks).
PLACED = ("gold_block", "diamond_block", "oak_log", "air")
FLAT_NAMES = ("gold_block", "diamond_block", "oak_log", "grass_block", "dirt", "stone", "bedrock", "obsidian")

offsets = st.tuples(st.integers(-7, 7), st.integers(-9, 3), st.integers(-7, 7))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    player=st.tuples(st.integers(-20, 20), st.integers(-20, 20)),
    placed=st.lists(st.tuples(offsets, st.sampled_from(PLACED)), max_size=24),
    radius=st.integers(0, 12),
    exposed=st.booleans(),
)
def test_nearest_blocks_agrees_with_find_blocks_on_placed_blocks(
    player: tuple[int, int], placed: list[tuple[tuple[int, int, int], str]], radius: int, exposed: bool
) -> None:
    # small offsets around the player give equal distances (the tie-break) and section edges (player x, z)
    body = SimBody(seed=1)
    body.run_command(f"/tp {player[0]}.5 64 {player[1]}.5")
    for (dx, dy, dz), name in placed:
        body.run_command(f"/setblock ~{dx} ~{dy} ~{dz} {name}")
    nearest = body.nearest_blocks(FLAT_NAMES, radius, exposed=exposed)
    assert nearest == per_kind(body, FLAT_NAMES, radius, exposed)
