"""Building goals go through the router to the building planner; builds keep their state under CRAFTBT_HOME."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from craftbt.capabilities.default import default_registry
from craftbt.cli.root import app
from craftbt.executor.config import ExecutorConfig
from craftbt.executor.executor import Executor
from craftbt.planners.ppa import dedupe_leaf_names
from craftbt.router.build.site import find_site
from craftbt.router.priors import PriorsStore
from craftbt.router.router import plan_for_goal, run_goal
from craftbt.trees import model as m
from craftbt.trees.structure_template import anchor_for, load_template
from craftbt.world.scenarios.loader import starter_world


def leaves(node: m.Node) -> list[m.LeafNode]:
    if isinstance(node, m.LeafNode):
        return [node]
    kids = list(getattr(node, "children", []))
    if getattr(node, "child", None) is not None:
        kids.append(node.child)  # type: ignore[attr-defined]
    return [leaf for k in kids for leaf in leaves(k)]


def test_build_hut_is_routed_to_the_building_planner_near_the_bot(tmp_path: Path) -> None:
    body = starter_world(0)
    feet = body.position().block()
    decision = plan_for_goal("build hut", body, priors=PriorsStore(str(tmp_path / "p.sqlite")))
    assert decision.chosen == "building" and "construction" in decision.traits
    placed = [leaf for leaf in leaves(decision.plan.tree.root) if leaf.capability == "place_block_at"]
    assert len(placed) == load_template("hut").block_count()
    site = find_site(body, load_template("hut"))
    assert site is not None and abs(site.x - feet.x) <= 24 and abs(site.z - feet.z) <= 24
    lo, hi = load_template("hut").footprint(anchor_for(site, "N"))
    assert not (lo.x <= feet.x <= hi.x and lo.z <= feet.z <= hi.z)  # the bot does not stand in its own hut
    assert f"at {tuple(site)}" in decision.plan.explanation
    # the materials the inventory lacks are obtained first, and that resolution is digested
    assert decision.plan.explanation.startswith("materials first")
    assert decision.digests["intent_resolution_digest"] is not None


def test_build_at_a_given_site(tmp_path: Path) -> None:
    decision = plan_for_goal("build hut", starter_world(0), priors=PriorsStore(str(tmp_path / "p.sqlite")),
                             context={"at": [20, 65, 20]})
    assert decision.chosen == "building" and "at (20, 65, 20)" in decision.plan.explanation


def test_cli_plan_build_hut(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CRAFTBT_HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["plan", "--goal", "build hut", "--at", "20,65,20", "--json"])
    assert result.exit_code == 0, result.output
    decision = json.loads(result.output)
    assert decision["chosen"] == "building" and "(20, 65, 20)" in decision["plan"]["explanation"]


@pytest.mark.slow
def test_run_goal_build_shelter_builds_it(tmp_path: Path) -> None:
    from craftbt.executor.config import scenario_fence

    body = starter_world(0)
    ex = Executor(default_registry(), body, config=ExecutorConfig(geofence=scenario_fence(body)), home=tmp_path)
    run = run_goal("build shelter", ex, priors=PriorsStore(str(tmp_path / "p.sqlite")))
    ex.journal.close()
    assert run.decisions[0].chosen == "building"
    assert run.ok, run.attempts
    assert run.outcomes[-1].digests["intent_resolution_digest"] is not None


def test_goal_runs_carry_the_intent_resolution_digest(tmp_path: Path) -> None:
    body = starter_world(0)
    from craftbt.executor.config import scenario_fence

    ex = Executor(default_registry(), body, config=ExecutorConfig(geofence=scenario_fence(body)), home=tmp_path)
    run = run_goal("obtain 4 oak_planks", ex, priors=PriorsStore(str(tmp_path / "p.sqlite")))
    out = run.outcomes[-1]
    row = ex.journal.find_run(out.run_id)
    ex.journal.close()
    assert out.digests["intent_resolution_digest"] == run.decisions[-1].digests["intent_resolution_digest"]
    assert out.digests["intent_resolution_digest"] is not None
    assert row is not None and row["intent_resolution_digest"] == out.digests["intent_resolution_digest"]


def test_build_state_lives_under_craftbt_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home, work = tmp_path / "home", tmp_path / "work"
    work.mkdir()
    monkeypatch.setenv("CRAFTBT_HOME", str(home))
    monkeypatch.chdir(work)
    result = CliRunner().invoke(app, ["build", "hut", "--at", "3,64,3"])
    assert result.exit_code == 0, result.output
    assert (home / "build" / "build.sqlite").is_file()
    assert not (work / ".craftbt").exists()


def test_dedupe_never_collides_with_an_existing_name() -> None:
    root = m.SequenceNode(children=[
        m.LeafNode(capability="wait", name="x"), m.LeafNode(capability="wait", name="x #2"),
        m.LeafNode(capability="wait", name="x"), m.LeafNode(capability="wait", name="x #2")])
    dedupe_leaf_names(root)
    names = [leaf.name for leaf in leaves(root)]
    assert len(set(names)) == 4, names
