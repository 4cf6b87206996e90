"""Sensing leaves on the embedded world: wait, chat, get_block_at, sense_hostiles, get_light_level, find_resource."""

from __future__ import annotations

import py_trees
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from craftbt.capabilities.leaves.sensing import FindResourceArgs, SenseHostilesArgs
from craftbt.capabilities.spec import Verdict
from craftbt.world.scenarios.loader import load_scenario
from tests.leafkit import run_leaf

SCENARIOS = "world/scenarios/leaves/"


def test_wait_lets_game_time_pass() -> None:
    body = load_scenario("flat_empty")
    before = body.now_ticks()
    run = run_leaf(body, "wait", {"ms": 1000})
    assert run.ok and run.verdict is Verdict.VERIFIED
    assert body.now_ticks() - before >= 20


@pytest.mark.parametrize(("ms", "ticks"), [(0, 0), (1, 1), (49, 1), (50, 1), (75, 2), (1001, 21)])
def test_wait_of_a_part_of_a_tick_waits_the_whole_tick(ms: int, ticks: int) -> None:
    body = load_scenario("flat_empty")
    before = body.now_ticks()
    run = run_leaf(body, "wait", {"ms": ms})
    assert run.ok and run.verdict is Verdict.VERIFIED, run.code
    assert body.now_ticks() - before >= ticks


def test_chat_sends_and_rejects_empty() -> None:
    body = load_scenario("flat_empty")
    assert run_leaf(body, "chat", {"message": "hello"}).verdict is Verdict.VERIFIED
    assert run_leaf(body, "chat", {"message": "{missing_key}"}).code == "unknown_blackboard_key"


def test_sense_hostiles_lists_nearest_first_and_publishes() -> None:
    body = load_scenario(SCENARIOS + "sense_hostiles.yaml")
    run = run_leaf(body, "sense_hostiles", {"includePassive": True, "store_as": "threats"})
    assert run.ok and run.verdict is Verdict.VERIFIED
    assert [h["name"] for h in run.observables["hostiles"]] == ["zombie", "skeleton"]
    assert run.observables["nearestDistance"] == 5.0
    assert [p["name"] for p in run.observables["passive"]] == ["pig"]
    assert py_trees.blackboard.Blackboard.get("/threats") == run.observables["hostiles"]
    near = run_leaf(body, "sense_hostiles", {"radius": 8})
    assert near.observables["count"] == 1 and "passive" not in near.observables


def test_sense_hostiles_reports_none_as_minus_one() -> None:
    run = run_leaf(load_scenario("flat_empty"), "sense_hostiles", {})
    assert run.ok and run.observables == {"hostiles": [], "count": 0, "nearestDistance": -1}


def test_get_light_level_day_and_midnight() -> None:
    day = run_leaf(load_scenario("flat_empty"), "get_light_level", {})
    assert day.observables["lightLevel"] == 15 and day.observables["isSafe"] is True
    night = run_leaf(load_scenario(SCENARIOS + "place_torch.yaml"), "get_light_level", {})
    assert night.observables["lightLevel"] < 8 and night.observables["isSafe"] is False


def test_get_block_at_reads_the_log() -> None:
    body = load_scenario(SCENARIOS + "find_resource.yaml")
    run = run_leaf(body, "get_block_at", {"position": {"x": 3, "y": 64, "z": 0}})
    assert run.observables["block"] == "oak_log"


def test_find_resource_partial_match_nearest_first_and_store() -> None:
    body = load_scenario(SCENARIOS + "find_resource.yaml")
    run = run_leaf(body, "find_resource", {"blockType": "_log", "partialMatch": True, "store_as": "log"})
    assert run.ok and run.verdict is Verdict.VERIFIED
    assert [p["name"] for p in run.observables["positions"]] == ["oak_log", "birch_log", "oak_log"]
    assert py_trees.blackboard.Blackboard.get("/log") == {"x": 3, "y": 64, "z": 0}
    # the published position feeds the next leaf through a {key} reference
    walk = run_leaf(body, "move_to", {"pos": "{log}", "range": 2})
    assert walk.ok and walk.verdict is Verdict.VERIFIED


def test_find_resource_exact_limits_and_not_found() -> None:
    body = load_scenario(SCENARIOS + "find_resource.yaml")
    one = run_leaf(body, "find_resource", {"blockType": "oak_log", "maxResults": 1})
    assert one.observables["count"] == 1 and one.observables["nearest"] == {"x": 3, "y": 64, "z": 0}
    assert run_leaf(body, "find_resource", {"blockType": "diamond_ore"}).code == "not_found"
    assert run_leaf(body, "find_resource", {"blockType": "oak_lgo"}).code == "guard_failed:unknown_block"


@given(st.text(max_size=12))
def test_store_as_accepts_only_blackboard_keys(key: str) -> None:
    import re

    valid = re.fullmatch(r"/?[A-Za-z_][A-Za-z0-9_/]*", key) is not None
    for model in (SenseHostilesArgs, FindResourceArgs):
        extra = {"blockType": "stone"} if model is FindResourceArgs else {}
        if valid:
            assert model.model_validate({**extra, "store_as": key}).store_as == key
        else:
            with pytest.raises(ValidationError):
                model.model_validate({**extra, "store_as": key})
