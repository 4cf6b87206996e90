"""Golden-run artifacts (seed 002): one JSON report per run, written atomically.

A report carries ``schema_version: golden_run_report_v1``, an additive
``schema_revision`` and a ``features`` list, the plan digests, the dispatched and
shadow steps (with ``original_leaf`` when a leaf was rewritten) and an
append-only ``execution.decisions`` list capped at 200 entries.

Blocked records are throttled: the same ``(run_id, reason, leaf)`` with an
equivalent payload within 5 seconds is not written again. Equivalence uses a
stable deep fingerprint (recursive key sort, timestamp keys stripped), so
timestamp jitter cannot defeat it. Throttle and shadow-dedupe state of a run
not updated for 15 minutes is evicted after every update, and the run's report
leaves memory (it stays on disk, where lookups by run id and task id find it).
The recorder keeps the earliest moment any live run can turn stale, so an
update only scans the live runs when one of them may actually be stale.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from craftbt.executor.digests import canonical_json

SCHEMA_VERSION = "golden_run_report_v1"
SCHEMA_REVISION = 1
FEATURES = ["original_leaf", "blocked_throttle_v1", "strict_mapping_v1", "execution_decisions_v1"]
BLOCKED_THROTTLE_MS = 5_000
RUN_STALE_MS = 15 * 60 * 1000
MAX_DECISIONS = 200
#: dispatched and shadow step lists are bounded like decisions (the first ones kept); totals keep counting.
MAX_STEPS = 200
FINGERPRINT_NOISE_KEYS = frozenset({"dispatched_at", "observed_at", "timestamp", "updated_at", "created_at", "ts"})


def _strip_noise(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip_noise(v) for k, v in value.items() if k not in FINGERPRINT_NOISE_KEYS}
    if isinstance(value, list | tuple):
        return [_strip_noise(v) for v in value]
    return value


def stable_fingerprint(value: Any) -> str:
    """Deep, key-order independent, timestamp-blind fingerprint of a payload."""
    return hashlib.sha256(canonical_json(_strip_noise(value)).encode()).hexdigest()


def atomic_write_json(path: Path, data: Any) -> None:
    """Write canonical-ish JSON atomically (see :func:`atomic_write_text`)."""
    # json.dumps uses the C encoder (json.dump streams through the pure-Python one); same bytes
    atomic_write_text(path, json.dumps(data, sort_keys=True, separators=(",", ":"), default=str))


def new_report(run_id: str, task_id: str | None, now_ms: int) -> dict[str, Any]:
    return {
        "schema_version": SCHEMA_VERSION,
        "schema_revision": SCHEMA_REVISION,
        "features": list(FEATURES),
        "run_id": run_id,
        "task_id": task_id,
        "created_at": now_ms,
        "updated_at": now_ms,
        "expansion": {},
        "execution": {
            "dispatched_steps": [],
            "dispatched_total": 0,
            "shadow_steps": [],
            "shadow_total": 0,
            "decisions": [],
            "decisions_total": 0,
            "executor_blocked_reason": None,
            "executor_blocked_payload": None,
            "blocked_records": 0,
        },
        "result": None,
    }


class GoldenRunRecorder:
    """Keeps live reports in memory and persists them under ``out_dir`` (``<run_id>.json``)."""

    def __init__(self, out_dir: Path | None, *, clock: Callable[[], float] | None = None) -> None:
        self.out_dir = out_dir
        self._clock = clock or (lambda: time.time() * 1000)
        self._runs: dict[str, dict[str, Any]] = {}
        self._task_index: dict[str, str] = {}
        self._last_blocked: dict[tuple[str, str, str], tuple[str, float]] = {}
        self._shadow_keys: dict[str, set[str]] = {}
        #: run id -> step index -> the kept dispatched step (record_step_result finds it without a scan)
        self._steps_by_index: dict[str, dict[int, dict[str, Any]]] = {}
        self._dirty: set[str] = set()
        #: no live run can be stale before this clock value (a lower bound; -inf: scan on the next update)
        self._stale_not_before = float("-inf")
        #: how many times a blocked record actually changed a report (the hot-loop test reads this).
        self.blocked_writes = 0
        self.file_writes = 0

    def now(self) -> int:
        return int(self._clock())

    # -- lifecycle ---------------------------------------------------------------
    def start_run(self, run_id: str, *, task_id: str | None = None, expansion: dict[str, Any] | None = None) -> None:
        report = new_report(run_id, task_id, self.now())
        report["expansion"] = dict(expansion or {})
        self._runs[run_id] = report
        if task_id is not None:
            self._task_index[task_id] = run_id
        self._update(run_id)

    def finish_run(self, run_id: str, result: dict[str, Any]) -> None:
        report = self._require(run_id)
        report["result"] = result
        self._update(run_id)
        self.flush(run_id)
        if self.out_dir is not None:  # persisted: lookups read the file, memory stays bounded
            del self._runs[run_id]
            self._shadow_keys.pop(run_id, None)
            self._steps_by_index.pop(run_id, None)
            for key in [k for k in self._last_blocked if k[0] == run_id]:
                del self._last_blocked[key]

    # -- records ---------------------------------------------------------------------
    def record_blocked(self, run_id: str, reason: str, payload: dict[str, Any]) -> bool:
        """Record an executor block; returns False when throttled (nothing written)."""
        report = self._runs.get(run_id)
        if report is None:
            return False
        leaf = str(payload.get("leaf", ""))
        key = (run_id, reason, leaf)
        fingerprint = stable_fingerprint(payload)
        now = self.now()
        last = self._last_blocked.get(key)
        if last is not None and last[0] == fingerprint and now - last[1] < BLOCKED_THROTTLE_MS:
            return False
        self._last_blocked[key] = (fingerprint, now)
        execution = report["execution"]
        execution["executor_blocked_reason"] = reason
        execution["executor_blocked_payload"] = payload
        execution["blocked_records"] += 1
        self._decide(report, reason, payload, now)
        self.blocked_writes += 1
        self._update(run_id)
        return True

    def record_decision(self, run_id: str, reason: str, payload: dict[str, Any]) -> None:
        """A non-blocking decision (detector trip, preemption, escalation) for the story."""
        report = self._runs.get(run_id)
        if report is None:
            return
        self._decide(report, reason, payload, self.now())
        self._update(run_id)

    def record_dispatch(self, run_id: str, step: dict[str, Any]) -> None:
        report = self._runs.get(run_id)
        if report is None:
            return
        execution = report["execution"]
        execution["dispatched_total"] += 1
        if len(execution["dispatched_steps"]) < MAX_STEPS:
            execution["dispatched_steps"].append(step)
            index = step.get("index")
            if index is not None:  # the last kept step with an index wins, as a backwards scan would find it
                self._steps_by_index.setdefault(run_id, {})[index] = step
        self._decide(report, "dispatch", step, self.now())
        self._update(run_id)

    def record_step_result(self, run_id: str, step_index: int, result: dict[str, Any]) -> None:
        report = self._runs.get(run_id)
        if report is None:
            return
        step = self._steps_by_index.get(run_id, {}).get(step_index)
        if step is not None and step.get("index") == step_index:
            step["result"] = result
        self._update(run_id)

    def record_shadow_dispatch(self, run_id: str, step: dict[str, Any]) -> bool:
        report = self._runs.get(run_id)
        if report is None:
            return False
        key = stable_fingerprint({k: step.get(k) for k in ("node", "leaf", "args")})
        seen = self._shadow_keys.setdefault(run_id, set())
        if key in seen:
            return False
        seen.add(key)
        execution = report["execution"]
        execution["shadow_total"] += 1
        if len(execution["shadow_steps"]) < MAX_STEPS:
            execution["shadow_steps"].append(step)
        self._decide(report, "shadow", step, self.now())
        self._update(run_id)
        return True

    # -- lookup ------------------------------------------------------------------------
    def get_report(self, run_id: str) -> dict[str, Any] | None:
        if run_id in self._runs:
            return self._runs[run_id]
        if self.out_dir is None:
            return None
        path = self.out_dir / f"{run_id}.json"
        if not path.is_file():
            return None
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        return data

    def get_report_by_task(self, task_id: str) -> dict[str, Any] | None:
        run_id = self._task_index.get(task_id)
        if run_id is None and self.out_dir is not None:
            index = self.out_dir / "tasks" / f"{_safe(task_id)}.json"
            if index.is_file():
                run_id = json.loads(index.read_text(encoding="utf-8"))["run_id"]
        return self.get_report(run_id) if run_id else None

    def live_runs(self) -> list[str]:
        return list(self._runs)

    def throttle_entries(self) -> int:
        return len(self._last_blocked) + sum(len(v) for v in self._shadow_keys.values())

    # -- persistence ----------------------------------------------------------------------
    def flush(self, run_id: str | None = None) -> None:
        targets = [run_id] if run_id is not None else sorted(self._dirty)
        for rid in targets:
            if rid not in self._dirty or rid not in self._runs:
                continue
            self._dirty.discard(rid)
            if self.out_dir is None:
                continue
            report = self._runs[rid]
            atomic_write_json(self.out_dir / f"{rid}.json", report)
            if report.get("task_id"):
                atomic_write_json(self.out_dir / "tasks" / f"{_safe(report['task_id'])}.json", {"run_id": rid})
            self.file_writes += 1

    def evict_stale(self, now: int | None = None) -> None:
        now = self.now() if now is None else now
        stale = {rid for rid, rep in self._runs.items() if now - rep["updated_at"] > RUN_STALE_MS}
        for key in [k for k in self._last_blocked if k[0] not in self._runs or k[0] in stale]:
            del self._last_blocked[key]
        for rid in [r for r in self._shadow_keys if r not in self._runs or r in stale]:
            del self._shadow_keys[rid]
        for rid in [r for r in self._steps_by_index if r not in self._runs or r in stale]:
            del self._steps_by_index[rid]
        for rid in stale:
            self.flush(rid)
            del self._runs[rid]
            for task, mapped in list(self._task_index.items()):
                if mapped == rid:
                    del self._task_index[task]
        oldest = min((rep["updated_at"] for rep in self._runs.values()), default=None)
        self._stale_not_before = float("inf") if oldest is None else oldest + RUN_STALE_MS

    # -- internals ----------------------------------------------------------------------------
    def _require(self, run_id: str) -> dict[str, Any]:
        report = self._runs.get(run_id)
        if report is None:
            raise KeyError(f"no live golden-run report {run_id!r}")
        return report

    @staticmethod
    def _decide(report: dict[str, Any], reason: str, payload: dict[str, Any], now: int) -> None:
        execution = report["execution"]
        execution["decisions_total"] += 1
        entry = {"reason": reason, "ts": now, "leaf": payload.get("leaf"), "step_id": payload.get("node")}
        if payload.get("original_leaf"):
            entry["original_leaf"] = payload["original_leaf"]
        decisions = execution["decisions"]
        decisions.append(entry)
        if len(decisions) > MAX_DECISIONS:
            del decisions[: len(decisions) - MAX_DECISIONS]

    def _update(self, run_id: str) -> None:
        now = self.now()
        report = self._runs.get(run_id)
        if report is not None:
            report["updated_at"] = now
            self._dirty.add(run_id)
            # a clock that steps back must not hide this run behind the bound
            self._stale_not_before = min(self._stale_not_before, now + RUN_STALE_MS)
        if now > self._stale_not_before:  # some live run may be stale: the full scan, as on every update before
            self.evict_stale(now)


def _safe(task_id: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in task_id)


def atomic_write_text(path: Path, text: str) -> None:
    """Write to a temp file in the same directory, then ``os.replace``: readers never see half a file.

    The file gets the usual permissions (0666 minus the umask), not mkstemp's private 0600: reports
    and SLA pages are meant to be read.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
