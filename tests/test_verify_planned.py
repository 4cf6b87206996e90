"""Every dispatched step of a planned tree ends with its acceptance verdict, whatever shape the tree has.

Issue 24 item 1 / issue 22 item 6: a reactive selector (``memory: false``, effect check first) halted
the leaf the tick its effect appeared, so its acceptance never ran: the step was journaled as
``interrupted`` with no verdict and the SLA report had no row for it. The planners now emit selectors
with memory, and the executor judges a halted leaf whose action already landed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from craftbt.capabilities.default import default_registry
from craftbt.executor.config import ExecutorConfig
from craftbt.executor.executor import Executor
from craftbt.executor.sla import build_report
from craftbt.router.priors import PriorsStore
from craftbt.router.router import run_goal
from craftbt.trees.loader import load_file
from craftbt.world.scenarios import starter_world

LIBRARY = Path(__file__).resolve().parent.parent / "trees" / "library"


def executor(tmp_path: Path, seed: int = 0) -> Executor:
    from craftbt.executor.config import scenario_fence

    body = starter_world(seed)
    config = ExecutorConfig(geofence=scenario_fence(body), max_ticks=40_000)
    return Executor(default_registry(), body, config=config, home=tmp_path)


def assert_every_step_verified(ex: Executor, run_id: str) -> list[dict[str, object]]:
    steps = ex.journal.run_detail(run_id)["steps"]
    assert steps, "the run dispatched nothing"
    for step in steps:  # every step, not only the ones that succeeded
        assert step["ok"], step
        assert step["error_code"] is None, step
        assert step["verdict"] == "verified", step
    return list(steps)


@pytest.mark.parametrize("planner", ["solver", "htn", "goap"])
def test_iron_pickaxe_every_step_has_a_verdict_and_an_sla_row(tmp_path: Path, planner: str) -> None:
    ex = executor(tmp_path)
    run = run_goal("obtain iron_pickaxe", ex, planner=planner, priors=PriorsStore(tmp_path / "p.sqlite"),
                   max_replans=0)
    assert run.ok, run.attempts
    outcome = run.outcomes[-1]
    steps = assert_every_step_verified(ex, outcome.run_id)
    # the run's own counters agree with the journal (issue 12: --json counts successes and verdicts truly)
    assert outcome.metrics["successes"] == len(steps) == outcome.dispatches
    assert outcome.metrics["verdicts"] == {"verified": len(steps)}
    assert outcome.metrics["failures"] == 0
    report = build_report(ex.journal)
    rows = {row["capability"]: row for row in report["capabilities"]}
    for capability in {str(s["capability"]) for s in steps}:
        row = rows[capability]
        used = sum(1 for s in steps if s["capability"] == capability)
        assert row["successes"] == used
        assert row["verdicts"]["verified"] == used


def test_library_tree_with_reactive_selectors_is_verified(tmp_path: Path) -> None:
    """The wooden-pickaxe tree keeps ``memory: false`` selectors: the executor judges the halted leaf."""
    ex = executor(tmp_path)
    tree = LIBRARY / "obtain_wooden_pickaxe.yaml"
    outcome = ex.run(load_file(tree), base_dir=tree.parent)
    assert outcome.ok, outcome.failures
    steps = assert_every_step_verified(ex, outcome.run_id)
    assert outcome.metrics["successes"] == len(steps) == outcome.dispatches
    halted = [s for s in steps if (s["evidence"] or {}).get("judged_on_halt")]
    assert halted, "the tree's reactive selectors halted no leaf: this test no longer covers the halt path"
