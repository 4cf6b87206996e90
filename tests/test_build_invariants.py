"""Seed 001: the interior walkable-path invariant and the gate's invariant-violation cost."""

from __future__ import annotations

from pathlib import Path

import yaml

from craftbt.planners.base import PlanningState
from craftbt.planners.building.order import BLOCKING_COST, DEGRADED_COST, macro_plan
from craftbt.planners.building.planner import BuildingPlanner
from craftbt.planners.intent import Goal, GoalVerb, Intent
from craftbt.trees.structure_template import LIBRARY_DIR, StructureTemplate, load_template
from tests.buildkit import make_runner

DEN = Path(__file__).resolve().parent / "structures" / "den.yaml"


def test_a_partition_that_cuts_the_door_off_from_the_stations_fails_the_walkable_invariant(tmp_path: Path) -> None:
    runner, _body, store = make_runner(tmp_path, DEN)
    meta = runner.run()
    assert meta.status.value == "complete"  # degraded: logged, the build goes on
    by_module = {c.completed_modules[-1]: {r.invariant: r for r in c.invariant_results} for c in meta.checkpoints}
    assert by_module["shell"]["walkable"].passed  # door -> crafting table and chest on foot
    failed = by_module["partition"]["walkable"]
    assert not failed.passed and "no 2-high walk" in str(failed.evidence)
    deltas = meta.checkpoints[-1].open_deltas
    assert any(d.issue.startswith("walkable:") and d.severity.value == "degraded" for d in deltas)
    assert not store.events(runner.build_id, "build_invariant_failed")  # never blocking


def test_the_gate_charges_predicted_invariant_violations() -> None:
    den = macro_plan(load_template(DEN))
    assert [(c.invariant, c.module_id) for c in den.invariant_costs] == [("walkable", "partition")]
    assert den.score == 1.0 / (1.0 + DEGRADED_COST)
    for name in ("hut", "shelter", "cottage"):
        assert macro_plan(load_template(name)).score == 1.0
    # A template built in code skips check_template; the gate still sees its porch filling the corridor.
    data = yaml.safe_load((LIBRARY_DIR / "hut.yaml").read_text())
    data["modules"].append(
        {
            "id": "stoop",
            "type": "decor",
            "depends_on": ["shell"],
            "cells": [{"dx": 1, "dy": 0, "dz": -2, "block": "dirt"}],
        }
    )
    blocked = macro_plan(StructureTemplate.model_validate(data))
    assert [(c.invariant, c.module_id) for c in blocked.invariant_costs] == [("access", "stoop")]
    assert blocked.score == 1.0 / (1.0 + BLOCKING_COST)


def test_the_building_planner_scores_a_violating_plan_lower() -> None:
    planner = BuildingPlanner()
    state = PlanningState(inventory={})

    def result(target: str) -> tuple[float, str]:
        intent = Intent(goal=Goal(verb=GoalVerb.BUILD, target=target), context={"at": [3, 64, 3]})
        r = planner.plan(intent, state, None)  # type: ignore[arg-type]
        return r.confidence, r.explanation

    clean, _ = result("shelter")
    den, why = result(str(DEN))
    assert den < clean and "predicted walkable violation" in why
