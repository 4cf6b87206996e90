"""Seed 002 pipeline rows: subtrees normalized and digested before anything runs, a backoff for every
block at dispatch, nav_busy waits for navigation to end."""

from __future__ import annotations

import time
from pathlib import Path

from craftbt.executor.backoff import DETERMINISTIC_BLOCK_BACKOFF_MS
from craftbt.executor.config import Bounds, ExecutorConfig
from craftbt.executor.executor import Executor
from craftbt.trees import model as m
from tests.executor_fakes import make_registry
from tests.fakes import FlatFakeBody

FENCE = Bounds(min_x=-50, min_y=0, min_z=-50, max_x=50, max_y=255, max_z=50)

SUB_WITH_SENTINEL = """\
tree: sub
root:
  leaf: tap
  args: {n: 1, label: unknown}
"""


def test_a_placeholder_inside_a_subtree_blocks_before_any_leaf_runs(tmp_path: Path) -> None:
    (tmp_path / "sub.yaml").write_text(SUB_WITH_SENTINEL)
    body = FlatFakeBody()
    ex = Executor(make_registry(body), body, config=ExecutorConfig(geofence=FENCE), home=tmp_path / "home")
    tree = m.TreeDefinition(tree="t", root=m.SequenceNode(children=[
        m.LeafNode(capability="tap", args={"n": 1}), m.SubtreeNode(path="sub.yaml")]))
    out = ex.run(tree, base_dir=tmp_path)
    assert out.status == "blocked"
    assert out.dispatches == 0 and body.handles == []  # the first leaf did not run either
    decisions = ex.journal.run_detail(out.run_id)["decisions"]
    blocked = [d for d in decisions if d["reason"] == "planning_incomplete"]
    assert blocked and "sentinel_args at args.label" in blocked[0]["detail"]["detail"]
    assert out.next_eligible_at is not None
    assert out.digests["built_plan_digest"].startswith("sha256:")


def test_the_built_plan_digest_covers_subtree_leaves(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text("tree: a\nroot:\n  leaf: tap\n  args: {n: 1}\n")
    (tmp_path / "b.yaml").write_text("tree: b\nroot:\n  leaf: tap\n  args: {n: 2}\n")
    digests = []
    for name in ("a.yaml", "b.yaml"):
        body = FlatFakeBody()
        ex = Executor(make_registry(body), body, config=ExecutorConfig(geofence=FENCE), home=tmp_path / f"home-{name}")
        out = ex.run(m.TreeDefinition(tree="t", root=m.SubtreeNode(path=name)), base_dir=tmp_path)
        assert out.ok
        digests.append(out.digests["built_plan_digest"])
    assert digests[0] != digests[1]  # the subtree's args are in it


def test_a_deterministic_block_at_dispatch_sets_next_eligible_at(tmp_path: Path) -> None:
    body = FlatFakeBody()
    ex = Executor(make_registry(body), body, config=ExecutorConfig(geofence=FENCE), home=tmp_path)
    before = int(time.time() * 1000)
    out = ex.run(m.TreeDefinition(tree="t", root=m.SequenceNode(children=[m.LeafNode(capability="guarded",
                                                                                      args={})])))
    assert out.status == "escalated"
    assert out.escalation is not None and out.escalation.code.startswith("guard_failed")
    assert out.next_eligible_at is not None
    assert out.next_eligible_at >= before + DETERMINISTIC_BLOCK_BACKOFF_MS


def test_a_failure_that_is_no_block_sets_no_backoff(tmp_path: Path) -> None:
    body = FlatFakeBody()
    ex = Executor(make_registry(body, flaky_failures=10), body, config=ExecutorConfig(geofence=FENCE),
                  home=tmp_path)
    out = ex.run(m.TreeDefinition(tree="t", root=m.SequenceNode(children=[m.LeafNode(capability="flaky",
                                                                                      args={})])))
    assert out.status == "escalated" and out.next_eligible_at is None


def test_the_blocked_payload_names_leaf_original_leaf_and_args_source(tmp_path: Path) -> None:
    body = FlatFakeBody()
    ex = Executor(make_registry(body), body, config=ExecutorConfig(geofence=FENCE), home=tmp_path)
    out = ex.run(m.TreeDefinition(tree="t", root=m.SequenceNode(children=[m.LeafNode(capability="guarded",
                                                                                      args={})])))
    blocked = [d for d in ex.journal.run_detail(out.run_id)["decisions"] if d["reason"].startswith("guard_failed")]
    assert blocked
    assert blocked[0]["detail"]["leaf"] == "guarded"
    assert blocked[0]["detail"]["args_source"] == "explicit"
    assert "original_leaf" in blocked[0]["detail"]


def test_a_remapped_leaf_that_is_blocked_names_its_original_leaf_in_the_blocked_payload(tmp_path: Path) -> None:
    """S002-24: ``original_leaf`` reaches the blocked payload (and the golden-run report) when the leaf that was
    blocked is one the executor rewrote (dig_block -> acquire_material)."""
    from craftbt.capabilities.default import default_registry
    from craftbt.executor.config import scenario_fence
    from craftbt.world.scenarios.loader import starter_world

    body = starter_world(0)  # no pickaxe: acquire_material's guard refuses stone
    ex = Executor(default_registry(), body, config=ExecutorConfig(geofence=scenario_fence(body),
                                                                  remap_deprecated=True), home=tmp_path)
    out = ex.run(m.TreeDefinition(tree="dig", root=m.SequenceNode(children=[
        m.LeafNode(capability="dig_block", name="dig stone", args={"blockType": "stone"})])))
    report = ex.recorder.get_report(out.run_id)
    detail = ex.journal.run_detail(out.run_id)
    ex.journal.close()
    assert out.status == "escalated" and out.dispatches == 0
    assert report is not None
    payload = report["execution"]["executor_blocked_payload"]
    assert payload["leaf"] == "acquire_material" and payload["original_leaf"] == "dig_block@1.0.0"
    assert report["execution"]["executor_blocked_reason"].startswith("guard_failed:precond_missing:tool")
    blocked = [d for d in detail["decisions"] if d["reason"].startswith("guard_failed")]
    assert blocked and blocked[0]["detail"]["original_leaf"] == "dig_block@1.0.0"


def test_missing_minecraft_data_falls_back_with_a_warning() -> None:
    """Seed 002: the fallback to the default version's data is not silent."""
    import warnings

    from craftbt.capabilities.leaves import common
    from craftbt.world import mcdata

    class Old:
        version = "1.7.10-nonexistent"

    class Ctx:
        body = Old()

    mcdata._warn_fallback.cache_clear()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        data = common.registry_data(Ctx())  # type: ignore[arg-type]
        common.registry_data(Ctx())  # type: ignore[arg-type]
    assert data is mcdata.load()
    said = [w for w in caught if "1.7.10-nonexistent" in str(w.message)]
    assert len(said) == 1 and mcdata.DEFAULT_VERSION in str(said[0].message)


def test_duplicate_shadow_steps_are_recorded_once(tmp_path: Path) -> None:
    """Seed 002 S002-21: a shadow run that ticks the same step again records it once in the report."""
    body = FlatFakeBody()
    ex = Executor(make_registry(body), body, config=ExecutorConfig(geofence=FENCE, shadow=True), home=tmp_path)
    same = m.LeafNode(capability="tap", args={"n": 1}, name="tap once")
    root = m.DecoratorNode(decorator=m.DecoratorKind.REPEAT, params={"count": 3}, child=same)
    out = ex.run(m.TreeDefinition(tree="t", root=root))
    assert out.ok and out.metrics["shadow_steps"] == 3  # three activations, nothing dispatched
    assert body.handles == []
    report = ex.recorder.get_report(out.run_id)
    assert report is not None
    assert report["execution"]["shadow_total"] == 1
    assert [s["node"] for s in report["execution"]["shadow_steps"]] == ["tap once"]
