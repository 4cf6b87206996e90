"""The run journal: SQLite in WAL mode, one row per run, step, action and decision.

Provenance (seed 003): every step links ``intent -> plan -> tree digest -> node
-> capability@version -> action trace -> verdict and effects``. Rows are
committed by the executor at the end of a tick once 50 ms have passed since the
last commit (and at every run boundary), so a process killed at any point leaves
a journal that opens and holds every committed row (at most the last 50 ms of
rows are lost); WAL keeps readers off the writer.

Between commits, step results, actions and decisions wait in an in-memory
buffer (their values, JSON and timestamps fixed when recorded) and reach SQLite
in one ``executemany`` per statement when the journal commits, and before any
read on this connection, so reads see them as before. The loss window on a
kill is unchanged: a row is durable once the ``commit`` after it returns, and
not before, exactly as when it sat in an open transaction.

Steps are buffered too: :meth:`Journal.start_step` returns a handle, not the
row id. A step that starts and ends between two commits becomes one INSERT with
both halves; a step still open at a commit is inserted with its start half and
its end becomes an UPDATE later. Real ``step_id`` values are assigned inside
the write transaction (``BEGIN IMMEDIATE``, so no other writer can take them),
in start order, exactly as AUTOINCREMENT would have numbered the immediate
inserts, and action rows naming a step handle get the real id in the same
transaction.

Default location: ``$CRAFTBT_HOME/journal.sqlite`` or ``.craftbt/journal.sqlite``
under the current directory.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import time
import uuid
from enum import StrEnum
from pathlib import Path
from typing import Any

import orjson
from pydantic import BaseModel, Field

from craftbt.capabilities.spec import Verdict
from craftbt.core import owner as owners
from craftbt.core.home import default_home
from craftbt.core.runstatus import TERMINAL
from craftbt.core.sqlite import like_prefix, open_store, storage_errors
from craftbt.executor.digests import canonical_json

#: a dispatch ended by the tree or by preemption, not by the capability: not an SLA failure
NOT_AN_OUTCOME = frozenset({"interrupted", "safety_preempted_by_executor", "abandoned", "cancelled"})


class StepOutcome(StrEnum):
    """How one journal step ended: the one definition ``runs``, ``show``, ``sla`` and the HTTP API use.

    A step *failed* when its capability ended it without success (``ok = 0``) and the error code is not one
    of :data:`NOT_AN_OUTCOME`; a step the tree moved on from, a preemption suspended or a cancel stopped was
    *interrupted* (not a failure: the capability was not judged); a step with no result yet (still running,
    or its process was killed before it ended) is *unknown*.
    """

    OK = "ok"
    FAILED = "failed"
    INTERRUPTED = "interrupted"
    UNKNOWN = "unknown"


def step_outcome(step: dict[str, Any]) -> StepOutcome:
    if step.get("ok") is None:
        return StepOutcome.UNKNOWN
    if step.get("error_code") in NOT_AN_OUTCOME:
        return StepOutcome.INTERRUPTED
    return StepOutcome.OK if step["ok"] else StepOutcome.FAILED


class StepRecord(BaseModel):
    """One journal step, typed: what :func:`craftbt.run_steps` and :meth:`Journal.steps` return (the field names
    are the journal's columns, the ``*_json`` ones decoded)."""

    step_id: int
    run_id: str
    node: str
    capability: str
    version: str
    args: dict[str, Any] = Field(default_factory=dict)
    idempotency_key: str | None = None
    attempt: int = 0
    shadow: bool = False
    lifecycle: str = "active"
    started_tick: int | None = None
    ended_tick: int | None = None
    started_at: float | None = None
    ended_at: float | None = None
    ttfa_ms: float | None = None
    duration_ms: float | None = None
    #: None while the step has no result (still running, or its process was killed)
    ok: bool | None = None
    error_code: str | None = None
    error_detail: str | None = None
    retryable: bool | None = None
    #: the acceptance check's verdict (None: not judged: shadow, refused, interrupted)
    verdict: Verdict | None = None
    evidence: dict[str, Any] | None = None
    receipt: dict[str, Any] | None = None
    effects: dict[str, Any] | None = None
    outcome: StepOutcome

    @classmethod
    def of(cls, row: dict[str, Any]) -> StepRecord:
        """A decoded ``steps`` row (its outcome derived by :func:`step_outcome` when the row has none)."""
        return cls.model_validate({**row, "outcome": row.get("outcome") or step_outcome(row)})


#: the same definition in SQL, over a ``steps`` row aliased ``s``
FAILED_STEP_SQL = ("s.ok = 0 AND COALESCE(s.error_code, '') NOT IN ("
                   + ", ".join(f"'{code}'" for code in sorted(NOT_AN_OUTCOME)) + ")")
#: how a run can end (craftbt.core.runstatus, the one closed set); ``running`` is the only status that is not terminal
TERMINAL_STATUSES: frozenset[str] = frozenset(s.value for s in TERMINAL)

#: the fault sweep's hook (tests/test_fault_sweep.py), read once per process: ``count:PATH`` writes how many
#: journal commits this process made to PATH after each one; ``kill:N`` SIGKILLs the process just before its
#: Nth commit; ``eio:N`` fails the Nth commit as a disk I/O error (SQLite's own crash and I/O-error sweeps)
FAULT_ENV = "CRAFTBT_FAULT_JOURNAL"
_commits = [0]


def fault_point() -> None:
    """Count one journal commit; act on :data:`FAULT_ENV` when it is set (a test's fault sweep)."""
    spec = os.environ.get(FAULT_ENV)
    if not spec:
        return
    _commits[0] += 1
    kind, _, arg = spec.partition(":")
    if kind == "count":
        Path(arg).write_text(str(_commits[0]), encoding="utf-8")
    elif kind in ("kill", "eio") and arg.isdigit() and _commits[0] == int(arg):
        if kind == "kill":
            os.kill(os.getpid(), signal.SIGKILL)
        raise sqlite3.OperationalError("disk I/O error")


SCHEMA_VERSION = 1
#: rows written during ticks are committed together at most this long after the first (run ends commit at once)
GROUP_COMMIT_S = 0.05

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
    run_id TEXT PRIMARY KEY,
    task_id TEXT,
    intent_id TEXT,
    intent_json TEXT,
    plan_id TEXT,
    tree_name TEXT,
    tree_source TEXT,
    expansion_digest TEXT,
    intent_resolution_digest TEXT,
    executor_plan_digest TEXT NOT NULL,
    body TEXT,
    seed INTEGER,
    scenario TEXT,
    shadow INTEGER NOT NULL DEFAULT 0,
    certifiable INTEGER NOT NULL DEFAULT 1,
    status TEXT NOT NULL,
    started_at REAL NOT NULL,
    ended_at REAL,
    sim_ticks INTEGER,
    wall_ms REAL,
    summary_json TEXT,
    owner TEXT
);
CREATE TABLE IF NOT EXISTS steps (
    step_id INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id TEXT NOT NULL REFERENCES runs(run_id),
    node TEXT NOT NULL,
    capability TEXT NOT NULL,
    version TEXT NOT NULL,
    args_json TEXT NOT NULL,
    idempotency_key TEXT,
    attempt INTEGER NOT NULL DEFAULT 0,
    shadow INTEGER NOT NULL DEFAULT 0,
    lifecycle TEXT NOT NULL DEFAULT 'active',
    started_tick INTEGER,
    ended_tick INTEGER,
    started_at REAL,
    ended_at REAL,
    ttfa_ms REAL,
    duration_ms REAL,
    ok INTEGER,
    error_code TEXT,
    error_detail TEXT,
    retryable INTEGER,
    verdict TEXT,
    evidence_json TEXT,
    receipt_json TEXT,
    effects_json TEXT
);
CREATE INDEX IF NOT EXISTS steps_run ON steps(run_id);
CREATE INDEX IF NOT EXISTS steps_cap ON steps(capability, version);
CREATE TABLE IF NOT EXISTS actions (
    action_id INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id TEXT NOT NULL,
    step_id INTEGER,
    tick INTEGER NOT NULL,
    kind TEXT NOT NULL,
    args_json TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS actions_run ON actions(run_id);
CREATE TABLE IF NOT EXISTS decisions (
    decision_id INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id TEXT NOT NULL,
    ts REAL NOT NULL,
    tick INTEGER,
    node TEXT,
    capability TEXT,
    reason TEXT NOT NULL,
    block_class TEXT,
    detail_json TEXT
);
CREATE INDEX IF NOT EXISTS decisions_run ON decisions(run_id);
"""


def default_path() -> Path:
    return default_home() / "journal.sqlite"


_ROW_JSON = orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS


def _json(value: Any) -> str:
    """Row JSON (sorted keys, compact): orjson on the hot path; the canonical encoder for what it refuses.

    Digests do not read these strings, so orjson's float spelling (``1e16`` for ``1e+16``) changes nothing.
    """
    try:
        return orjson.dumps(value, option=_ROW_JSON).decode()
    except TypeError:  # tuples of models, sets, integers past 64 bits: the canonical encoder normalises them
        return canonical_json(value)


_END_STEP = ("UPDATE steps SET ended_tick=?, ended_at=?, ok=?, duration_ms=?, ttfa_ms=?, error_code=?,"
             " error_detail=?, retryable=?, verdict=?, evidence_json=?, receipt_json=?, effects_json=?"
             " WHERE step_id=?")
_START_COLS = ("run_id, node, capability, version, args_json, idempotency_key, attempt, shadow, lifecycle,"
               " started_tick, started_at")
_END_COLS = ("ended_tick, ended_at, ok, duration_ms, ttfa_ms, error_code, error_detail, retryable, verdict,"
             " evidence_json, receipt_json, effects_json")
_STEP_OPEN = f"INSERT INTO steps(step_id, {_START_COLS}) VALUES ({','.join('?' * 12)})"
_STEP_WHOLE = f"INSERT INTO steps(step_id, {_START_COLS}, {_END_COLS}) VALUES ({','.join('?' * 24)})"
#: the id AUTOINCREMENT would give the next step row (the larger of the sequence and the largest id)
_NEXT_STEP_ID = ("SELECT MAX(COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'steps'), 0),"
                 " COALESCE((SELECT MAX(step_id) FROM steps), 0)) + 1")
_ACTION = "INSERT INTO actions(run_id, step_id, tick, kind, args_json) VALUES (?,?,?,?,?)"
_DECISION = ("INSERT INTO decisions(run_id, ts, tick, node, capability, reason, block_class, detail_json)"
             " VALUES (?,?,?,?,?,?,?,?)")


class Journal:
    """A connection to one journal file. Not shared across threads."""

    def __init__(self, path: Path | str | None = None, *, read_only: bool = False) -> None:
        """Open (or create) the journal; ``read_only`` never writes and works on a read-only file or mount.

        A writable open refuses a journal that fails SQLite's quick check, and marks ``abandoned`` the runs
        left ``running`` by a process that is gone (see :meth:`close_abandoned`).
        """
        self.path = Path(path) if path is not None else default_path()
        self.read_only = read_only
        self._conn = open_store(self.path, SCHEMA, read_only=read_only, check=not read_only, migrate=_migrate)
        self._conn.row_factory = sqlite3.Row
        if not read_only:
            with storage_errors(self.path):
                self._conn.execute(
                    "INSERT OR IGNORE INTO meta(key, value) VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),)
                )
                fault_point()
                self._conn.commit()
                self.close_abandoned()
        self._last_commit = time.perf_counter()
        #: statement -> parameter rows not yet sent to SQLite, in recording order (see the module docstring)
        self._pending: dict[str, list[tuple[Any, ...]]] = {}
        #: step handle -> [start half, end half or None] of steps not yet in SQLite, in start order
        self._new_steps: dict[int, list[tuple[Any, ...] | None]] = {}
        #: (handle, end half) of steps already in SQLite whose end is not
        self._step_ends: list[tuple[int, tuple[Any, ...]]] = []
        #: (handle or None, action row without its step id), in recording order
        self._actions: list[tuple[int | None, tuple[Any, ...]]] = []
        #: handle -> real step_id of steps in SQLite that have not ended yet
        self._open_ids: dict[int, int] = {}
        self._next_handle = 0

    # -- transactions ------------------------------------------------------------
    def _has_pending(self) -> bool:
        return bool(self._pending or self._new_steps or self._step_ends or self._actions)

    def _write_pending(self) -> None:
        """Send buffered rows into the open transaction (not a commit); rows of one table keep their order."""
        if self._new_steps or self._step_ends or self._actions:
            self._write_steps()
        # a statement's rows leave the buffer only once SQLite took them (a busy database keeps them for the retry)
        for sql in list(self._pending):
            self._conn.executemany(sql, self._pending[sql])
            del self._pending[sql]

    def _write_steps(self) -> None:
        """Steps, their ends and the actions naming them, with real step ids assigned under the write lock."""
        conn = self._conn
        if not conn.in_transaction:
            conn.execute("BEGIN IMMEDIATE")  # a busy database fails here, before any id is taken
        ids = dict(self._open_ids)
        whole: list[tuple[Any, ...]] = []
        opened: list[tuple[Any, ...]] = []
        if self._new_steps:
            next_id = int(conn.execute(_NEXT_STEP_ID).fetchone()[0])
            for handle, (start, end) in self._new_steps.items():
                assert start is not None
                ids[handle] = next_id
                if end is None:
                    opened.append((next_id, *start))
                else:
                    whole.append((next_id, *start, *end))
                next_id += 1
        # explicit ids: the rows are the same whichever statement inserts them first
        if whole:
            conn.executemany(_STEP_WHOLE, whole)
        if opened:
            conn.executemany(_STEP_OPEN, opened)
        if self._step_ends:
            # an end for a step this journal never opened (or already closed) matches no row, as an UPDATE would
            conn.executemany(_END_STEP, [(*end, ids[handle]) for handle, end in self._step_ends if handle in ids])
        if self._actions:
            conn.executemany(_ACTION, [(row[0], None if handle is None else ids.get(handle), *row[1:])
                                       for handle, row in self._actions])
        # SQLite took every row: the buffers and the open-step map move on together
        for handle, (_, end) in self._new_steps.items():
            if end is None:
                self._open_ids[handle] = ids[handle]
        for handle, _ in self._step_ends:
            self._open_ids.pop(handle, None)
        self._new_steps.clear()
        self._step_ends.clear()
        self._actions.clear()

    def commit(self) -> None:
        with storage_errors(self.path):
            self._write_pending()
            if self._conn.in_transaction:
                fault_point()
                self._conn.commit()
                self._last_commit = time.perf_counter()

    def group_commit(self) -> None:
        """Commit if rows are waiting and ``GROUP_COMMIT_S`` has passed since the last commit (called per tick)."""
        if time.perf_counter() - self._last_commit >= GROUP_COMMIT_S and (
                self._has_pending() or self._conn.in_transaction):
            self.commit()

    def close(self) -> None:
        try:
            if not self.read_only:
                self.commit()
        finally:
            self._conn.close()

    # -- runs whose process is gone ---------------------------------------------------
    def close_abandoned(self) -> list[str]:
        """Mark ``abandoned`` the runs still ``running`` whose owner process is gone, and close their open steps.

        What no handler can catch (SIGKILL, power loss) leaves a run ``running``; the next process that opens
        the journal for writing closes it here. Returns the run ids it closed.
        """
        rows = self._conn.execute("SELECT run_id, owner FROM runs WHERE status = 'running'").fetchall()
        dead = [r["run_id"] for r in rows if owners.gone(r["owner"])]
        if not dead:
            return []
        now = time.time()
        with storage_errors(self.path):
            self._conn.execute("BEGIN IMMEDIATE")
            for run_id in dead:
                # under the write lock: only a run still running is closed (another process may have been first)
                self._conn.execute(
                    "UPDATE runs SET status='abandoned', ended_at=?, summary_json=? WHERE run_id=? AND"
                    " status='running'",
                    (now, _json({"status": "abandoned", "reason": "the process that ran it is gone"
                                 " (killed, crashed or powered off)"}), run_id))
                self._conn.execute(
                    "UPDATE steps SET ended_at=?, error_code='abandoned', error_detail=?"
                    " WHERE run_id=? AND ended_at IS NULL",
                    (now, "the process that ran this step is gone; its result is unknown", run_id))
            fault_point()
            self._conn.commit()
        return dead

    # -- writes --------------------------------------------------------------------
    def begin_run(
        self,
        *,
        executor_plan_digest: str,
        run_id: str | None = None,
        task_id: str | None = None,
        intent: dict[str, Any] | None = None,
        plan_id: str | None = None,
        tree_name: str | None = None,
        tree_source: str | None = None,
        expansion_digest: str | None = None,
        intent_resolution_digest: str | None = None,
        body: str | None = None,
        seed: int | None = None,
        scenario: str | None = None,
        shadow: bool = False,
        certifiable: bool = True,
    ) -> str:
        run_id = run_id or "run-" + uuid.uuid4().hex[:12]
        intent = intent or {}
        with storage_errors(self.path):
            self._insert_run(
                run_id, task_id, intent.get("id"), _json(intent), plan_id, tree_name, tree_source,
                expansion_digest, intent_resolution_digest, executor_plan_digest, body, seed, scenario,
                int(shadow), int(certifiable), "running", time.time(), owners.current(),
            )
        self.commit()
        return run_id

    def _insert_run(self, *row: Any) -> None:
        self._conn.execute(
            "INSERT INTO runs(run_id, task_id, intent_id, intent_json, plan_id, tree_name, tree_source,"
            " expansion_digest, intent_resolution_digest, executor_plan_digest, body, seed, scenario, shadow,"
            " certifiable, status, started_at, owner) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", row)

    def end_run(self, run_id: str, *, status: str, sim_ticks: int, wall_ms: float, summary: dict[str, Any]) -> None:
        if status not in TERMINAL_STATUSES:  # the closed set: a status no reader knows is a bug, not a record
            raise ValueError(f"run {run_id}: {status!r} is not a terminal run status")
        with storage_errors(self.path):
            self._conn.execute(
                "UPDATE runs SET status=?, ended_at=?, sim_ticks=?, wall_ms=?, summary_json=? WHERE run_id=?",
                (status, time.time(), sim_ticks, wall_ms, _json(summary), run_id),
            )
        self.commit()

    def _buffer(self, sql: str, row: tuple[Any, ...]) -> None:
        rows = self._pending.get(sql)
        if rows is None:
            self._pending[sql] = [row]
        else:
            rows.append(row)

    def start_step(
        self,
        run_id: str,
        *,
        node: str,
        capability: str,
        version: str,
        args: dict[str, Any],
        idempotency_key: str | None,
        attempt: int,
        shadow: bool,
        lifecycle: str,
        tick: int,
    ) -> int:
        """Buffer a step's start; returns its handle (for ``end_step`` and ``record_action``), not its row id."""
        self._next_handle += 1
        handle = self._next_handle
        self._new_steps[handle] = [
            (run_id, node, capability, version, _json(args), idempotency_key, attempt, int(shadow), lifecycle,
             tick, time.time()),
            None,
        ]
        return handle

    def end_step(
        self,
        step_id: int,
        *,
        tick: int,
        ok: bool,
        duration_ms: float,
        ttfa_ms: float | None,
        error_code: str | None,
        error_detail: str | None,
        retryable: bool | None,
        verdict: str | None,
        evidence: dict[str, Any] | None,
        receipt: dict[str, Any] | None,
        effects: dict[str, Any] | None,
    ) -> None:
        end = (tick, time.time(), int(ok), duration_ms, ttfa_ms, error_code, error_detail,
               None if retryable is None else int(retryable), verdict,
               None if evidence is None else _json(evidence), None if receipt is None else _json(receipt),
               None if effects is None else _json(effects))
        unwritten = self._new_steps.get(step_id)
        if unwritten is not None:
            unwritten[1] = end  # start and end reach SQLite as one INSERT
        else:
            self._step_ends.append((step_id, end))

    def record_action(self, run_id: str, step_id: int | None, tick: int, kind: str, args: dict[str, Any]) -> None:
        """``step_id`` is the handle ``start_step`` returned (or None)."""
        self._actions.append((step_id, (run_id, tick, kind, _json(args))))

    def record_decision(
        self,
        run_id: str,
        *,
        reason: str,
        tick: int | None = None,
        node: str | None = None,
        capability: str | None = None,
        block_class: str | None = None,
        detail: dict[str, Any] | None = None,
    ) -> None:
        self._buffer(_DECISION, (run_id, time.time(), tick, node, capability, reason, block_class, _json(detail or {})))

    # -- reads -----------------------------------------------------------------------
    def list_runs(self, limit: int = 50) -> list[dict[str, Any]]:
        self._write_pending()  # this connection reads its own buffered rows, as before
        with storage_errors(self.path):  # a damaged page is a located storage error, not an anonymous one
            rows = self._conn.execute(
                "SELECT r.*, (SELECT COUNT(*) FROM steps s WHERE s.run_id = r.run_id) AS steps,"
                f" (SELECT COUNT(*) FROM steps s WHERE s.run_id = r.run_id AND {FAILED_STEP_SQL}) AS failures"
                " FROM runs r ORDER BY started_at DESC LIMIT ?",
                (limit,),
            ).fetchall()
        return [_run_view(_decode(dict(r))) for r in rows]

    def find_run(self, ref: str) -> dict[str, Any] | None:
        """A run by exact id, or by a unique id prefix."""
        self._write_pending()  # this connection reads its own buffered rows, as before
        row = self._conn.execute("SELECT * FROM runs WHERE run_id = ?", (ref,)).fetchone()
        if row is None:
            rows = self._conn.execute("SELECT * FROM runs WHERE run_id LIKE ? ESCAPE '\\'",
                                      (like_prefix(ref),)).fetchall()
            if len(rows) != 1:
                return None
            row = rows[0]
        return _run_view(_decode(dict(row)))

    def run_detail(self, run_id: str) -> dict[str, Any]:
        run = self.find_run(run_id)
        if run is None:
            raise KeyError(run_id)
        rid = run["run_id"]
        run["steps"] = [_decode(dict(r)) for r in self._conn.execute(
            "SELECT * FROM steps WHERE run_id = ? ORDER BY step_id", (rid,))]
        for step in run["steps"]:
            step["outcome"] = step_outcome(step).value
        run["failures"] = sum(1 for step in run["steps"] if step["outcome"] == StepOutcome.FAILED)
        run["actions"] = [_decode(dict(r)) for r in self._conn.execute(
            "SELECT * FROM actions WHERE run_id = ? ORDER BY action_id", (rid,))]
        run["decisions"] = [_decode(dict(r)) for r in self._conn.execute(
            "SELECT * FROM decisions WHERE run_id = ? ORDER BY decision_id", (rid,))]
        return run

    def steps(self, run_id: str) -> list[StepRecord]:
        """The steps of one run (an exact id or a unique prefix), typed, in dispatch order."""
        return [StepRecord.of(step) for step in self.run_detail(run_id)["steps"]]

    def damage(self, limit: int = 10) -> list[str]:
        """What SQLite's ``quick_check`` finds wrong with the file (empty when sound): a reader that can still
        list runs from a journal with a damaged page says so instead of passing the damage over."""
        try:
            rows = [str(r[0]) for r in self._conn.execute(f"PRAGMA quick_check({int(limit)})").fetchall()]
        except sqlite3.DatabaseError as exc:  # a page too damaged for the check to walk: that is the finding
            return [str(exc)]
        return [] if rows == ["ok"] else rows

    def completed_keys(self, run_id: str) -> set[str]:
        """The idempotency keys of the steps ``run_id`` completed (verified or not contradicted): what a resume
        of the same plan passes to :meth:`Executor.run` so that no completed step is dispatched again."""
        self._write_pending()
        run = self.find_run(run_id)
        if run is None:
            raise KeyError(run_id)
        return {r[0] for r in self._conn.execute(
            "SELECT idempotency_key FROM steps WHERE run_id = ? AND ok = 1 AND idempotency_key IS NOT NULL",
            (run["run_id"],))}

    def step_rows(self, *, since: float | None = None, capability: str | None = None) -> list[dict[str, Any]]:
        self._write_pending()  # this connection reads its own buffered rows, as before
        sql = "SELECT * FROM steps WHERE ended_tick IS NOT NULL"
        params: list[Any] = []
        if since is not None:
            sql += " AND started_at >= ?"
            params.append(since)
        if capability is not None:
            name, _, version = capability.partition("@")
            sql += " AND capability = ?"
            params.append(name)
            if version:
                sql += " AND version LIKE ? ESCAPE '\\'"
                params.append(like_prefix(version))
        sql += " ORDER BY step_id"
        return [_decode(dict(r)) for r in self._conn.execute(sql, params)]

    def decision_rows(self, *, since: float | None = None) -> list[dict[str, Any]]:
        self._write_pending()  # this connection reads its own buffered rows, as before
        sql = "SELECT * FROM decisions"
        params: list[Any] = []
        if since is not None:
            sql += " WHERE ts >= ?"
            params.append(since)
        return [_decode(dict(r)) for r in self._conn.execute(sql + " ORDER BY decision_id", params)]

    def run_rows(self, *, since: float | None = None) -> list[dict[str, Any]]:
        self._write_pending()  # this connection reads its own buffered rows, as before
        sql = "SELECT * FROM runs"
        params: list[Any] = []
        if since is not None:
            sql += " WHERE started_at >= ?"
            params.append(since)
        return [_run_view(_decode(dict(r))) for r in self._conn.execute(sql + " ORDER BY started_at", params)]


def _run_view(row: dict[str, Any]) -> dict[str, Any]:
    """A run as readers should see it: one left ``running`` by a process that is gone is ``abandoned``.

    (A writable open records that; a read-only one, or a run whose process died since, only shows it.)
    """
    if row.get("status") == "running" and owners.gone(row.get("owner")):
        row["status"] = "abandoned"
    return row


def _migrate(conn: sqlite3.Connection) -> None:
    """Columns a journal written by an older craftbt lacks."""
    columns = {row[1] for row in conn.execute("PRAGMA table_info(runs)")}
    if "owner" not in columns:
        conn.execute("ALTER TABLE runs ADD COLUMN owner TEXT")


def _decode(row: dict[str, Any]) -> dict[str, Any]:
    for key in list(row):
        if key.endswith("_json") and isinstance(row[key], str):
            row[key[: -len("_json")]] = json.loads(row.pop(key))
        elif key.endswith("_json"):
            row[key[: -len("_json")]] = row.pop(key)
    return row
