"""Each planner and the executor in the seed's worlds (seed 000/003): no_crafting_table, nightfall,
hostile_swarm; an executor escalation the router replans. Every step of every attempt is checked."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from craftbt.capabilities.default import default_registry
from craftbt.executor.config import ExecutorConfig
from craftbt.executor.executor import Executor
from craftbt.executor.journal import NOT_AN_OUTCOME
from craftbt.router.night import MORNING, SUNSET
from craftbt.router.priors import PriorsStore
from craftbt.router.router import GoalRun, run_goal, run_tree
from craftbt.trees import model as m
from craftbt.world.scenarios.loader import load_scenario

SCENARIOS = Path(__file__).resolve().parent.parent / "world" / "scenarios"
PLANNERS = ["solver", "htn", "goap"]


def executor(tmp_path: Path, scenario: str, max_ticks: int = 30_000) -> Executor:
    from craftbt.executor.config import scenario_fence

    body = load_scenario(SCENARIOS / f"{scenario}.yaml")
    return Executor(default_registry(), body, home=tmp_path,
                    config=ExecutorConfig(geofence=scenario_fence(body), max_ticks=max_ticks))


def steps_of(ex: Executor, run: GoalRun) -> list[list[dict[str, Any]]]:
    return [ex.journal.run_detail(o.run_id)["steps"] for o in run.outcomes]


def assert_closed_and_judged(attempt: list[dict[str, Any]]) -> None:
    """Every step has a result; a step that succeeded has its verdict; only a preempted one has none."""
    for step in attempt:
        assert step["ok"] is not None and step["ended_tick"] is not None, step
        if step["ok"]:
            assert step["verdict"] == "verified", step
        elif step["error_code"] not in NOT_AN_OUTCOME:
            assert step["error_code"], step


@pytest.mark.parametrize("planner", PLANNERS)
def test_no_crafting_table_each_planner_places_one(tmp_path: Path, planner: str) -> None:
    ex = executor(tmp_path, "no_crafting_table")
    run = run_goal("obtain wooden_pickaxe", ex, planner=planner, priors=PriorsStore(tmp_path / "p.sqlite"),
                   max_replans=0)
    assert run.ok, run.attempts
    (attempt,) = steps_of(ex, run)
    assert_closed_and_judged(attempt)
    capabilities = [s["capability"] for s in attempt]
    assert "place_workstation" in capabilities
    assert capabilities.index("place_workstation") < len(capabilities) - 1  # placed before the 3x3 craft
    assert ex.inner_body.observe().count("wooden_pickaxe") == 1


def test_no_crafting_table_a_tree_file_gets_its_table_as_a_subgoal(tmp_path: Path) -> None:
    ex = executor(tmp_path, "no_crafting_table")
    tree = m.TreeDefinition(tree="pickaxe", root=m.LeafNode(capability="craft_recipe",
                                                             args={"recipe": "wooden_pickaxe", "qty": 1}))
    run = run_tree(tree, ex, priors=PriorsStore(tmp_path / "p.sqlite"))
    assert run.ok, (run.attempts, run.stopped)
    assert run.repairs == ["obtain crafting_table"]
    first, second = steps_of(ex, run)
    assert first == []  # refused by its guard, nothing dispatched
    assert run.outcomes[0].escalation is not None
    assert run.outcomes[0].escalation.code == "guard_failed:precond_missing:table"
    assert_closed_and_judged(second)
    assert [s["capability"] for s in second][-2:] == ["place_workstation", "craft_recipe"]


@pytest.mark.parametrize("planner", PLANNERS)
def test_nightfall_each_planner_sits_the_night_out_in_a_shelter_and_finishes_in_the_morning(
        tmp_path: Path, planner: str) -> None:
    ex = executor(tmp_path, "nightfall")
    run = run_goal("obtain iron_pickaxe", ex, planner=planner, priors=PriorsStore(tmp_path / "p.sqlite"),
                   max_replans=1)
    assert run.ok, run.attempts
    for attempt in steps_of(ex, run):
        assert_closed_and_judged(attempt)
    assert run.attempts[0].status == "preempted"  # stopped at sunset, at a safe point
    assert [n.sheltered for n in run.nights] == [True] and run.nights[0].why is None
    shelter = [ex.journal.run_detail(r)["steps"] for r in run.nights[0].run_ids]
    capabilities = [s["capability"] for steps in shelter for s in steps]
    assert capabilities[:5] == ["dig_block_at"] * 4 + ["place_block_at"] and "wait" in capabilities
    assert all(s["ok"] for steps in shelter for s in steps)
    body = ex.inner_body
    assert body.observe().count("iron_pickaxe") == 1 and body.world.player.deaths == 0
    # the morning after: the undead have burned, the shelter is left behind, the rest of the plan ran
    assert run.nights[0].ended_at > 13_000
    assert MORNING <= body.observe().time_of_day < SUNSET
    assert run.sim_ticks() == sum(o.ticks for o in run.outcomes) + sum(o.ticks for o in run.night_outcomes)


def test_nightfall_without_a_shelter_the_plan_works_through_the_night(tmp_path: Path) -> None:
    ex = executor(tmp_path, "nightfall")
    run = run_goal("obtain iron_pickaxe", ex, planner="solver", priors=PriorsStore(tmp_path / "p.sqlite"),
                   max_replans=1, shelter_at_night=False)
    assert run.ok, run.attempts
    assert not run.nights and [a.status for a in run.attempts] == ["success"]
    assert ex.inner_body.observe().time_of_day > 12_542  # night fell during the run
    assert ex.inner_body.observe().count("iron_pickaxe") == 1


@pytest.mark.parametrize("planner", PLANNERS)
def test_hostile_swarm_preempts_and_the_router_replans_the_escalation(tmp_path: Path, planner: str) -> None:
    ex = executor(tmp_path, "hostile_swarm", max_ticks=6_000)
    run = run_goal("obtain 4 dirt", ex, planner=planner, priors=PriorsStore(tmp_path / "p.sqlite"),
                   max_replans=2)
    assert run.ok, run.attempts
    for attempt in steps_of(ex, run):
        assert_closed_and_judged(attempt)
    assert sum(o.metrics["preemptions"] for o in run.outcomes) >= 1  # the safety fast path ran
    assert len(run.attempts) >= 2, "the swarm no longer forces an escalation: this test covers no replan"
    first = run.outcomes[0]
    assert first.status == "escalated" and first.escalation is not None
    assert len(run.decisions) == len(run.attempts)  # each attempt after the first is a router replan
    assert ex.inner_body.observe().count("dirt") >= 4


def test_the_observed_biome_keys_the_priors(tmp_path: Path) -> None:
    """Seed 003: priors learn per biome and time of day; the biome now comes from the body's observation
    (was: never observed, so every run learned under ``any``)."""
    scenario = tmp_path / "taiga.yaml"
    scenario.write_text((SCENARIOS / "no_crafting_table.yaml").read_text().replace(
        "name: no_crafting_table", "name: taiga_camp\nbiome: taiga"))
    from craftbt.executor.config import scenario_fence

    body = load_scenario(scenario)
    assert body.observe().biome == "taiga"
    ex = Executor(default_registry(), body, home=tmp_path,
                  config=ExecutorConfig(geofence=scenario_fence(body), max_ticks=30_000))
    priors = PriorsStore(tmp_path / "p.sqlite")
    run = run_goal("obtain wooden_pickaxe", ex, planner="solver", priors=priors, max_replans=0)
    assert run.ok
    assert run.decisions[0].context == "taiga/day"
    assert priors.counts("solver", "*", "taiga/day") == (1.0, 0.0)
    assert priors.counts("solver", "*", "any/day") == (0.0, 0.0)
    # an explicit context still wins over the observation
    run2 = run_goal("obtain stick", ex, planner="solver", priors=priors, max_replans=0, context={"biome": "desert"})
    assert run2.decisions[0].context == "desert/day"


def test_the_command_line_says_how_each_night_was_spent_and_can_work_through_it(tmp_path: Path) -> None:
    from tests.clikit import cli

    goal = ["run", "--goal", "obtain iron_pickaxe", "--scenario", str(SCENARIOS / "nightfall.yaml"),
            "--max-ticks", "30000", "--planner", "solver"]
    sheltered = cli(goal, env={"CRAFTBT_HOME": str(tmp_path / "a")})
    assert sheltered.code == 0, sheltered.text
    assert "-> preempted" in sheltered.text and "night: stopped at sunset" in sheltered.text
    assert "in a roofed pit" in sheltered.text
    worked = cli([*goal, "--work-at-night"], env={"CRAFTBT_HOME": str(tmp_path / "b")})
    assert worked.code == 0, worked.text
    assert "night:" not in worked.text and "-> preempted" not in worked.text
