"""One retry budget per step (seed 000 I3 / A3): a persistent retryable fault is dispatched at most 3 times
before the escalation, whatever the tree's ``retry:`` says; capabilities' declared ``retries`` are honoured."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from craftbt.executor.config import Bounds, ExecutorConfig
from craftbt.executor.executor import Executor
from craftbt.executor.state import Escalation
from craftbt.trees import model as m
from tests.executor_fakes import make_registry
from tests.fakes import FlatFakeBody

FENCE = Bounds(min_x=-50, min_y=0, min_z=-50, max_x=50, max_y=255, max_z=50)


def run_leaf(tmp_path: Path, node: m.Node, failures: int = 100) -> tuple[Any, Executor, list[tuple[int, Escalation]]]:
    body = FlatFakeBody()
    heard: list[tuple[int, Escalation]] = []
    ex = Executor(make_registry(body, flaky_failures=failures), body, config=ExecutorConfig(geofence=FENCE),
                  home=tmp_path, on_escalation=lambda e: heard.append((ex.run_state.metrics.dispatches, e)))
    out = ex.run(m.TreeDefinition(tree="t", root=m.SequenceNode(children=[node])))
    return out, ex, heard


def attempts(ex: Executor, run_id: str) -> list[int]:
    return [s["attempt"] for s in ex.journal.run_detail(run_id)["steps"]]


def test_tree_retry_does_not_multiply_the_local_retries(tmp_path: Path) -> None:
    """The solver's ``retry: 2`` around a leaf used to give 3 x 3 = 9 dispatches and 3 escalations."""
    out, ex, heard = run_leaf(tmp_path, m.LeafNode(capability="flaky", args={}, retry=2))
    assert out.status == "escalated"
    assert out.dispatches == 3
    assert attempts(ex, out.run_id) == [0, 1, 2]
    assert len(heard) == 1 and heard[0][0] == 3  # the escalation came after the third dispatch
    assert heard[0][1].attempts == 3
    reasons = [d["reason"] for d in ex.journal.run_detail(out.run_id)["decisions"]]
    assert "retry_folded" in reasons


def test_tree_retry_is_capped_by_the_seed_budget(tmp_path: Path) -> None:
    out, _, heard = run_leaf(tmp_path, m.LeafNode(capability="flaky_never", args={}, retry=5))
    assert out.dispatches == 3 and len(heard) == 1


def test_tree_retry_overrides_the_declared_retries_within_the_budget(tmp_path: Path) -> None:
    out, _, heard = run_leaf(tmp_path, m.LeafNode(capability="flaky_never", args={}, retry=1))
    assert out.dispatches == 2 and len(heard) == 1


def test_declared_retries_are_honoured(tmp_path: Path) -> None:
    for cap, dispatches in (("flaky_never", 1), ("flaky_once", 2), ("flaky", 3)):
        home = tmp_path / cap
        out, ex, heard = run_leaf(home, m.LeafNode(capability=cap, args={}))
        assert out.status == "escalated", cap
        assert out.dispatches == dispatches, cap
        assert attempts(ex, out.run_id) == list(range(dispatches)), cap
        assert [h[1].attempts for h in heard] == [dispatches], cap


def test_declared_retry_recovers_a_transient_fault(tmp_path: Path) -> None:
    out, ex, heard = run_leaf(tmp_path, m.LeafNode(capability="flaky_once", args={}), failures=1)
    assert out.status == "success" and out.dispatches == 2 and not heard
    steps = ex.journal.run_detail(out.run_id)["steps"]
    assert [(s["attempt"], bool(s["ok"])) for s in steps] == [(0, False), (1, True)]


def test_reentering_a_failed_leaf_gives_no_fresh_budget(tmp_path: Path) -> None:
    """A retry around a branch re-enters the leaf after its escalation: one dispatch per re-entry, not three."""
    branch = m.DecoratorNode(decorator=m.DecoratorKind.RETRY, params={"attempts": 3},
                             child=m.SequenceNode(children=[m.LeafNode(capability="flaky", args={})]))
    out, ex, heard = run_leaf(tmp_path, branch)
    assert out.status == "escalated"
    assert [h[0] for h in heard] == [3, 4, 5]
    assert attempts(ex, out.run_id) == [0, 1, 2, 2, 2]
