"""End to end on the embedded world from an empty inventory: route, plan, execute on SimBody via the executor."""

from __future__ import annotations

from pathlib import Path

import pytest

from craftbt.capabilities.default import default_registry
from craftbt.executor.config import ExecutorConfig
from craftbt.executor.executor import Executor
from craftbt.router.priors import PriorsStore
from craftbt.router.router import run_goal
from craftbt.world.scenarios import starter_world


def executor(tmp_path: Path, seed: int = 0) -> Executor:
    from craftbt.executor.config import scenario_fence

    body = starter_world(seed)
    config = ExecutorConfig(geofence=scenario_fence(body), max_ticks=40_000)
    return Executor(default_registry(), body, config=config, home=tmp_path)


@pytest.mark.parametrize("planner", ["solver", "htn", "goap"])
@pytest.mark.parametrize("goal,item", [("obtain stone_pickaxe", "stone_pickaxe"), ("obtain furnace", "furnace")])
def test_each_planner_reaches_the_goal(tmp_path: Path, planner: str, goal: str, item: str) -> None:
    ex = executor(tmp_path)
    priors = PriorsStore(tmp_path / "priors.sqlite")
    run = run_goal(goal, ex, planner=planner, priors=priors, max_replans=0)
    assert run.ok, run.attempts
    assert ex.inner_body.observe().count(item) >= 1
    assert run.decisions[0].chosen == planner
    assert priors.counts(planner, "*", run.decisions[0].context) == (1.0, 0.0)
    assert ex.journal.run_rows()[0]["status"] == "success"


def test_iron_pickaxe_with_automatic_routing(tmp_path: Path) -> None:
    ex = executor(tmp_path)
    run = run_goal("obtain iron_pickaxe", ex, priors=PriorsStore(tmp_path / "priors.sqlite"), max_replans=2)
    assert run.ok, run.attempts
    assert ex.inner_body.observe().count("iron_pickaxe") == 1
