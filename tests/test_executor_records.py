"""Backoff taxonomy, golden-run recorder (throttle, fingerprint, eviction, lookup), journal durability, digests."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from craftbt.executor.backoff import (
    DETERMINISTIC_BLOCK_BACKOFF_MS,
    TRANSIENT_BLOCK_BACKOFF_MS,
    BlockClass,
    Task,
    TaskBoard,
    classify,
)
from craftbt.executor.config import ExecutorConfig
from craftbt.executor.digests import canonical_json, digest
from craftbt.executor.executor import Executor
from craftbt.executor.journal import Journal
from craftbt.executor.normalize import normalize
from craftbt.executor.recorder import MAX_DECISIONS, RUN_STALE_MS, GoldenRunRecorder, stable_fingerprint
from tests.executor_fakes import make_registry
from tests.fakes import FlatFakeBody
from tests.test_executor_core import FENCE, leaf, tree

ROOT = Path(__file__).resolve().parents[1]


class Clock:
    def __init__(self) -> None:
        self.ms = 1_000_000.0

    def __call__(self) -> float:
        return self.ms


def test_taxonomy_table() -> None:
    for reason in ("unknown_verb", "sentinel_args", "invalid_args", "planning_incomplete", "no_mapped_action",
                   "derived_args_not_allowed_live", "guard_failed:no_table"):
        assert classify(reason) is BlockClass.DETERMINISTIC
    for reason in ("rate_limited", "rig_g_blocked:has:x", "safety_preempted"):
        assert classify(reason) is BlockClass.TRANSIENT
    assert classify("stuck.loop") is BlockClass.NONE


def test_blocked_task_ticked_10000_times_writes_bounded_records(tmp_path: Path) -> None:
    """Seed 002: a deterministic block must not hot-loop: selection respects next_eligible_at."""
    clock = Clock()
    body = FlatFakeBody()
    recorder = GoldenRunRecorder(tmp_path / "golden", clock=clock)
    ex = Executor(make_registry(body), body, config=ExecutorConfig(geofence=FENCE), home=tmp_path, recorder=recorder)
    board = TaskBoard()
    board.add(Task("t1", payload={"tree": tree(leaf("teleport"))}))
    attempts = 0
    for _ in range(10_000):
        clock.ms += 100  # 10,000 ticks of 100 ms: 1,000 s, a bit over three 5-minute backoffs
        task = board.select(int(clock.ms))
        if task is None:
            continue
        attempts += 1
        out = ex.run(task.payload["tree"], task_id=task.task_id)
        assert out.status == "blocked"
        board.block(task.task_id, out.gate.block_reason if out.gate else "", int(clock.ms))
    assert attempts == 4  # t=0, 5, 10, 15 minutes
    assert recorder.blocked_writes == 4
    decisions = ex.journal.decision_rows()
    assert len(decisions) == 4 and {d["reason"] for d in decisions} == {"unknown_verb"}
    assert board.get("t1").next_eligible_at > int(clock.ms) and board.get("t1").blocked_reason == "unknown_verb"
    assert recorder.get_report_by_task("t1") is not None


def test_transient_backoff_is_thirty_seconds() -> None:
    board = TaskBoard()
    board.add(Task("a"))
    board.block("a", "rate_limited", 1000)
    assert board.get("a").next_eligible_at == 1000 + TRANSIENT_BLOCK_BACKOFF_MS
    assert board.select(1000 + TRANSIENT_BLOCK_BACKOFF_MS - 1) is None
    assert board.select(1000 + TRANSIENT_BLOCK_BACKOFF_MS) is not None
    board.block("a", "unknown_verb", 0)
    assert board.get("a").next_eligible_at == DETERMINISTIC_BLOCK_BACKOFF_MS


def test_recorder_throttle_same_payload_within_window() -> None:
    clock = Clock()
    rec = GoldenRunRecorder(None, clock=clock)
    rec.start_run("r1", task_id="t")
    written = 0
    for i in range(10_000):
        clock.ms += 1  # 10 s in total: two 5 s windows
        written += rec.record_blocked("r1", "rate_limited", {"leaf": "tap", "timestamp": i, "nested": {"b": 1, "a": 2}})
    assert written == 2
    report = rec.get_report("r1")
    assert report is not None and report["execution"]["blocked_records"] == 2
    # a different payload is not throttled
    assert rec.record_blocked("r1", "rate_limited", {"leaf": "tap", "nested": {"a": 3}})


def test_fingerprint_is_deep_order_independent_and_ignores_timestamps() -> None:
    a = {"x": {"b": [1, {"d": 1, "c": 2}], "a": 1}, "created_at": 5}
    b = {"x": {"a": 1, "b": [1, {"c": 2, "d": 1}]}, "created_at": 9, "observed_at": 3}
    assert stable_fingerprint(a) == stable_fingerprint(b)
    assert stable_fingerprint(a) != stable_fingerprint({"x": {"a": 2}})


def test_decisions_capped_and_stale_runs_evicted(tmp_path: Path) -> None:
    clock = Clock()
    rec = GoldenRunRecorder(tmp_path, clock=clock)
    rec.start_run("r1", task_id="task-1")
    for i in range(500):
        rec.record_dispatch("r1", {"node": f"n{i}", "leaf": "tap", "args": {}, "original_leaf": "dig_block"})
    report = rec.get_report("r1")
    assert report is not None
    decisions = report["execution"]["decisions"]
    assert len(decisions) == MAX_DECISIONS and report["execution"]["decisions_total"] == 500
    assert decisions[-1]["original_leaf"] == "dig_block"
    rec.record_blocked("r1", "rate_limited", {"leaf": "tap"})
    rec.record_shadow_dispatch("r1", {"node": "n", "leaf": "tap", "args": {}})
    assert rec.throttle_entries() == 2
    clock.ms += RUN_STALE_MS + 1
    rec.start_run("r2")  # any update evicts stale runs
    assert rec.throttle_entries() == 0 and rec.live_runs() == ["r2"]
    on_disk = rec.get_report("r1")  # still found, from disk, by run id and by task id
    assert on_disk is not None and on_disk["schema_version"] == "golden_run_report_v1"
    assert rec.get_report_by_task("task-1") == on_disk
    assert not list(tmp_path.glob("*.tmp"))  # atomic writes leave no temp files


def test_report_schema_fields(tmp_path: Path) -> None:
    rec = GoldenRunRecorder(tmp_path)
    rec.start_run("r", expansion={"executor_plan_digest": "sha256:x"})
    rec.finish_run("r", {"status": "success"})
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["schema_revision"] == 1
    assert {"original_leaf", "blocked_throttle_v1", "strict_mapping_v1", "execution_decisions_v1"} <= set(
        data["features"])
    assert data["execution"]["dispatched_steps"] == [] and data["execution"]["shadow_steps"] == []


@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
                    max_leaves=10))
def test_canonical_json_round_trips_and_is_stable(value: object) -> None:
    text = canonical_json(value)
    assert canonical_json(json.loads(text)) == text
    assert digest(value) == digest(json.loads(text))


def test_strict_normalizer_never_materializes_by_default() -> None:
    body = FlatFakeBody()
    reg = make_registry(body)
    defn = tree(leaf("tap", args_source="derived"), *[leaf("tap", {"label": "unknown"}) for _ in range(30)])
    strict = normalize(defn, reg)
    assert strict.planning_incomplete and strict.definition is defn
    assert defn.root.children[0].args_source == "derived"  # type: ignore[union-attr]
    assert len(strict.planning_incomplete_reasons) == 20 and strict.reasons_truncated == 11
    loose = normalize(defn, reg, allow_materialize=True)
    assert loose.option_a_compat_used and not loose.certifiable
    assert defn.root.children[0].args_source == "derived"  # type: ignore[union-attr]  # the input is untouched


KILL_SCRIPT = """
import sys, time
sys.path.insert(0, {root!r})
from craftbt.executor.journal import Journal
j = Journal({path!r})
rid = j.begin_run(executor_plan_digest="sha256:x", tree_name="kill")
for i in range(100000):
    j.record_decision(rid, reason="tick", tick=i)
    j.commit()
    print(i, flush=True)
    time.sleep(0.001)
"""


def test_journal_survives_sigkill_mid_run(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite"
    proc = subprocess.Popen([sys.executable, "-c", KILL_SCRIPT.format(root=str(ROOT), path=str(path))],
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    last = -1
    deadline = time.time() + 30
    while last < 50 and time.time() < deadline:
        last = int(proc.stdout.readline())
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    journal = Journal(path)
    rows = journal.decision_rows()
    # every row committed before the last printed line is there; the run never ended, and its process is
    # gone: the next open marks it abandoned
    assert len(rows) >= last + 1
    assert [r["tick"] for r in rows] == list(range(len(rows)))
    assert journal.list_runs()[0]["status"] == "abandoned"
    assert sqlite3.connect(path).execute("PRAGMA integrity_check").fetchone()[0] == "ok"
