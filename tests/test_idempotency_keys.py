"""Every planned and scripted step carries an idempotency key derived from the plan and its place in the tree;
a retry keeps it, a loop's next pass gets a new one, and a resume of the same plan dispatches no completed step."""

from __future__ import annotations

from pathlib import Path

from craftbt.capabilities.default import default_registry
from craftbt.executor.config import ExecutorConfig, scenario_fence
from craftbt.executor.executor import Executor
from craftbt.router.priors import PriorsStore
from craftbt.router.router import run_goal
from craftbt.trees import model as m
from craftbt.world.scenarios import starter_world


def executor(home: Path, seed: int = 0) -> Executor:
    body = starter_world(seed)
    return Executor(default_registry(), body, config=ExecutorConfig(geofence=scenario_fence(body), max_ticks=40_000),
                    home=home)


def test_every_step_of_a_planned_iron_pickaxe_run_carries_a_key(tmp_path: Path) -> None:
    ex = executor(tmp_path)
    run = run_goal("obtain iron_pickaxe", ex, planner="solver", priors=PriorsStore(tmp_path / "p.sqlite"),
                   max_replans=0)
    assert run.ok, run.attempts
    steps = ex.journal.run_detail(ex.journal.run_rows()[0]["run_id"])["steps"]
    ex.journal.close()
    assert len(steps) >= 15
    assert all(s["idempotency_key"] for s in steps), [s["node"] for s in steps if not s["idempotency_key"]]
    first_attempts = [s["idempotency_key"] for s in steps if s["attempt"] == 0]
    assert len(set(first_attempts)) == len(first_attempts)  # one key per step
    retried = [s for s in steps if s["attempt"] > 0]
    assert all(s["idempotency_key"] in first_attempts for s in retried)  # a retry is the same step


LOOP = m.TreeDefinition(tree="loop", root=m.DecoratorNode(decorator=m.DecoratorKind.REPEAT, params={"count": 3},
                                                         child=m.LeafNode(capability="wait", args={"ms": 100})))


def test_a_loop_gives_each_pass_its_own_key_and_the_same_plan_the_same_keys(tmp_path: Path) -> None:
    ex = executor(tmp_path)
    first = ex.run(LOOP)
    second = ex.run(LOOP)
    keys = [[s["idempotency_key"] for s in ex.journal.run_detail(o.run_id)["steps"]] for o in (first, second)]
    ex.journal.close()
    assert first.status == "success" and len(keys[0]) == 3 and len(set(keys[0])) == 3
    assert keys[0] == keys[1]


PLANKS = m.TreeDefinition(tree="planks", root=m.SequenceNode(children=[
    m.LeafNode(capability="acquire_material", name="mine a log", args={"item": "oak_log", "count": 1}),
    m.LeafNode(capability="craft_recipe", name="craft planks", args={"recipe": "oak_planks", "qty": 4}),
]))


def test_a_resume_dispatches_no_completed_step(tmp_path: Path) -> None:
    ex = executor(tmp_path)
    first = ex.run(PLANKS)
    assert first.status == "success"
    done = ex.journal.completed_keys(first.run_id)
    assert len(done) == 2
    planks = ex.inner_body.observe().count("oak_planks")
    resumed = ex.run(PLANKS, completed_keys=done)
    detail = ex.journal.run_detail(resumed.run_id)
    ex.journal.close()
    assert resumed.status == "success" and resumed.dispatches == 0
    assert sorted(d["node"] for d in detail["decisions"] if d["reason"] == "resumed_step_skipped") == [
        "craft planks", "mine a log"]
    assert ex.inner_body.observe().count("oak_planks") == planks  # nothing was crafted twice


def test_every_scripted_step_carries_a_key(tmp_path: Path) -> None:
    from craftbt.craftscript.parser import parse
    from craftbt.craftscript.runner import run_script

    source = 'repeat(3) { build_up("cobblestone"); }'

    def keys() -> list[str]:
        body = starter_world(0)
        body.run_command("/give @s cobblestone 3")
        ex = Executor(default_registry(), body, config=ExecutorConfig(geofence=scenario_fence(body)), home=tmp_path)
        out, _ = run_script(ex, parse(source), source=source, name="pillar")
        steps = ex.journal.run_detail(out.run_id)["steps"]
        ex.journal.close()
        return [s["idempotency_key"] for s in steps]

    first = keys()
    assert len(first) >= 2 and all(first) and len(set(first)) == len(first)
    assert keys() == first  # the same script, the same keys
