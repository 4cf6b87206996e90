"""Goals are bounded, and no planner emits a step its capability's schema refuses (a big count is
several steps, not one step over the bound)."""

from __future__ import annotations

from pathlib import Path

import pytest

from craftbt.capabilities.leaves.crafting import CraftRecipeArgs, SmeltArgs
from craftbt.planners.solver import MAX_CRAFT_QTY, MAX_SMELT_QTY, chunks
from tests.clikit import cli


def _le(model: type, field: str) -> int:
    return next(m.le for m in model.model_fields[field].metadata if hasattr(m, "le"))


def test_the_planners_bounds_are_the_capabilities_bounds() -> None:
    assert _le(CraftRecipeArgs, "qty") == MAX_CRAFT_QTY
    assert _le(SmeltArgs, "qty") == MAX_SMELT_QTY
    assert chunks(10, 4) == [4, 4, 2] and chunks(4, 4) == [4] and chunks(0, 4) == []


@pytest.mark.parametrize("planner", ["solver", "htn"])
def test_a_large_goal_plans_into_valid_steps(planner: str, tmp_path: Path) -> None:
    out = tmp_path / "plan.yaml"
    env = {"CRAFTBT_HOME": str(tmp_path / "home")}
    done = cli(["plan", "--goal", "obtain 576 iron_pickaxe", "--planner", planner, "--out", str(out)], env=env)
    assert done.code == 0, done.text
    checked = cli(["validate", str(out)], env=env)
    assert checked.code == 0, checked.text  # every craft_recipe qty <= 576, every smelt qty <= 64


@pytest.mark.parametrize(("goal", "fragment"), [
    ("obtain 577 stick", "count 577 is outside 1..576"),
    ("obtain 0 stick", "count 0 is outside 1..576"),
    ("obtain " + "9" * 150 + " stick", "is outside 1..576"),
    ("obtain " + "9" * 5000 + " stick", "characters long"),
    ("obtain ² stick", "cannot read goal"),
    ("obtain \uff11\uff12 stick", "cannot read goal"),
])
def test_goal_counts_are_bounded_and_ascii(goal: str, fragment: str, tmp_path: Path) -> None:
    done = cli(["plan", "--goal", goal], env={"CRAFTBT_HOME": str(tmp_path)})
    assert done.code == 1 and fragment in done.err, done.text
