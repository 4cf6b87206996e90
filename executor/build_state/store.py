"""The build-state database (SQLite, WAL, synchronous=NORMAL): builds, checkpoints, actions, events, tasks.

* ``builds`` — one row per build: the mutable head of :class:`BuildMetadata`
  (cursor, completed modules, station registry, open deltas, status).
* ``checkpoints`` — append-only (triggers refuse UPDATE and DELETE); the id is
  content-addressed, so re-emitting the same checkpoint after a crash is a no-op.
* ``actions`` — the placement journal: a row is committed *before* a place or
  dig is dispatched (``in_flight``) and closed after its effect (``done``,
  ``failed``, ``lost`` when reconciliation finds no effect). Double placements
  are counted from it.
* ``steps`` — the inventory-step journal: craft and container put/take
  commands (the body side of gather, craft and smelt steps), written ahead
  like ``actions`` and reconciled after a crash by the inventory delta.
* ``events`` — lifecycle events (``build_checkpoint``, ``build_resume``, ...).
* ``tasks`` — the parent build task and its resource sub-tasks
  (``parent_task_id``, ``blocked_on_subtask``).

Every write commits before returning: a SIGKILL loses at most the write in progress.

Why ``synchronous=NORMAL``: in WAL mode a committed transaction is in the WAL file (the operating
system's page cache) when ``commit`` returns, and a killed process cannot take it back; NORMAL only
skips the fsync per commit, which matters for power loss. FULL cost ~2-5 ms a write on this project's
machines (two writes a placed block) and still would not make the protocol power-safe: the simulator's
world file is not fsynced either, so a ``done`` row could outlive the block it names. Power loss may
drop the last commits; the database stays consistent and resume reconciles what the world holds.
"""

from __future__ import annotations

import json
import sqlite3
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from craftbt.core.sqlite import open_store
from craftbt.executor.build_state.models import BuildCheckpoint, BuildMetadata, BuildStatus

SCHEMA = """
CREATE TABLE IF NOT EXISTS builds (
  build_id TEXT PRIMARY KEY, task_id TEXT NOT NULL, meta TEXT NOT NULL, updated_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS checkpoints (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, build_id TEXT NOT NULL, checkpoint_id TEXT NOT NULL,
  module_cursor INTEGER NOT NULL, body TEXT NOT NULL, saved_at REAL NOT NULL,
  UNIQUE (build_id, checkpoint_id));
CREATE TRIGGER IF NOT EXISTS checkpoints_no_update BEFORE UPDATE ON checkpoints
  BEGIN SELECT RAISE(ABORT, 'checkpoints are append-only'); END;
CREATE TRIGGER IF NOT EXISTS checkpoints_no_delete BEFORE DELETE ON checkpoints
  BEGIN SELECT RAISE(ABORT, 'checkpoints are append-only'); END;
CREATE TABLE IF NOT EXISTS actions (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, build_id TEXT NOT NULL, module_id TEXT, kind TEXT NOT NULL,
  x INTEGER NOT NULL, y INTEGER NOT NULL, z INTEGER NOT NULL, block TEXT NOT NULL,
  status TEXT NOT NULL, effect TEXT, started_at REAL NOT NULL, ended_at REAL, session TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS actions_status ON actions (build_id, status);
CREATE TABLE IF NOT EXISTS steps (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, build_id TEXT NOT NULL, task_id TEXT, kind TEXT NOT NULL,
  item TEXT NOT NULL, count INTEGER NOT NULL, before INTEGER NOT NULL, status TEXT NOT NULL, effect TEXT,
  started_at REAL NOT NULL, ended_at REAL, session TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS steps_status ON steps (build_id, status);
CREATE TABLE IF NOT EXISTS events (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, build_id TEXT NOT NULL, type TEXT NOT NULL, body TEXT NOT NULL,
  at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS tasks (
  task_id TEXT PRIMARY KEY, parent_task_id TEXT, kind TEXT NOT NULL, goal TEXT NOT NULL, status TEXT NOT NULL,
  blocked_reason TEXT, progress TEXT NOT NULL DEFAULT '[]', created_at REAL NOT NULL, updated_at REAL NOT NULL);
"""


def _j(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


class BuildStore:
    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        # busy timeout, WAL set once with retry, schema in one transaction (craftbt.core.sqlite)
        self.db = open_store(self.path, SCHEMA, check=True, synchronous="NORMAL", isolation_level=None)
        self.db.row_factory = sqlite3.Row
        self.session = uuid.uuid4().hex[:12]
        self.listeners: list[Any] = []

    def close(self) -> None:
        self.db.close()

    # -- builds ----------------------------------------------------------------------------------
    def save_build(self, meta: BuildMetadata) -> None:
        body = meta.model_dump(mode="json", by_alias=True, exclude={"checkpoints"})
        self.db.execute(
            "INSERT INTO builds (build_id, task_id, meta, updated_at) VALUES (?, ?, ?, ?) "
            "ON CONFLICT(build_id) DO UPDATE SET meta = excluded.meta, updated_at = excluded.updated_at",
            (meta.build_id, meta.task_id, _j(body), time.time()),
        )

    def load_build(self, build_id: str) -> BuildMetadata | None:
        row = self.db.execute("SELECT meta FROM builds WHERE build_id = ?", (build_id,)).fetchone()
        if row is None:
            return None
        meta = BuildMetadata.model_validate(json.loads(row["meta"]))
        meta.checkpoints = self.checkpoints(build_id)
        return meta

    def builds(self) -> list[str]:
        return [r["build_id"] for r in self.db.execute("SELECT build_id FROM builds ORDER BY updated_at DESC")]

    # -- checkpoints (append-only) -----------------------------------------------------------------
    def append_checkpoint(self, build_id: str, ckpt: BuildCheckpoint) -> bool:
        """True when new; the same content-addressed checkpoint twice is stored once."""
        cur = self.db.execute(
            "INSERT OR IGNORE INTO checkpoints (build_id, checkpoint_id, module_cursor, body, saved_at) "
            "VALUES (?, ?, ?, ?, ?)",
            (
                build_id,
                ckpt.checkpoint_id,
                ckpt.module_cursor,
                _j(ckpt.model_dump(mode="json", by_alias=True)),
                time.time(),
            ),
        )
        return cur.rowcount == 1

    def checkpoints(self, build_id: str) -> list[BuildCheckpoint]:
        rows = self.db.execute("SELECT body FROM checkpoints WHERE build_id = ? ORDER BY seq", (build_id,))
        return [BuildCheckpoint.model_validate(json.loads(r["body"])) for r in rows]

    # -- the action journal ----------------------------------------------------------------------------
    def begin_action(
        self, build_id: str, module_id: str | None, kind: str, pos: tuple[int, int, int], block: str
    ) -> int:
        cur = self.db.execute(
            "INSERT INTO actions (build_id, module_id, kind, x, y, z, block, status, started_at, session) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, 'in_flight', ?, ?)",
            (build_id, module_id, kind, pos[0], pos[1], pos[2], block, time.time(), self.session),
        )
        assert cur.lastrowid is not None
        return cur.lastrowid

    def end_action(self, seq: int, status: str, effect: str | None = None) -> None:
        self.db.execute(
            "UPDATE actions SET status = ?, effect = ?, ended_at = ? WHERE seq = ?", (status, effect, time.time(), seq)
        )

    def end_many(self, actions: Sequence[tuple[int, str, str | None]], steps: Sequence[tuple[int, str, str | None]]
                 ) -> None:
        """Close action rows and inventory-step rows ``(seq, status, effect)`` in one transaction."""
        now = time.time()
        with self.db:  # isolation_level=None: the context manager alone would not open one
            self.db.execute("BEGIN")
            self.db.executemany("UPDATE actions SET status = ?, effect = ?, ended_at = ? WHERE seq = ?",
                                [(status, effect, now, seq) for seq, status, effect in actions])
            self.db.executemany("UPDATE steps SET status = ?, effect = ?, ended_at = ? WHERE seq = ?",
                                [(status, effect, now, seq) for seq, status, effect in steps])

    def in_flight(self, build_id: str) -> list[dict[str, Any]]:
        rows = self.db.execute(
            "SELECT * FROM actions WHERE build_id = ? AND status = 'in_flight' ORDER BY seq", (build_id,)
        )
        return [dict(r) for r in rows]

    def actions(self, build_id: str) -> list[dict[str, Any]]:
        return [dict(r) for r in self.db.execute("SELECT * FROM actions WHERE build_id = ? ORDER BY seq", (build_id,))]

    def placement_counts(self, build_id: str) -> dict[tuple[int, int, int], int]:
        """Realized placements per cell (done place actions, including those reconciled after a crash)."""
        rows = self.db.execute(
            "SELECT x, y, z, COUNT(*) AS n FROM actions WHERE build_id = ? AND kind = 'place' "
            "AND status = 'done' GROUP BY x, y, z",
            (build_id,),
        )
        return {(r["x"], r["y"], r["z"]): r["n"] for r in rows}

    # -- the inventory-step journal (craft, container put/take: gather, craft and smelt steps) ------------
    def begin_step(self, build_id: str, task_id: str | None, kind: str, item: str, count: int, before: int) -> int:
        """An in-flight inventory step, committed before the command reaches the body (write-ahead)."""
        cur = self.db.execute(
            "INSERT INTO steps (build_id, task_id, kind, item, count, before, status, started_at, session) "
            "VALUES (?, ?, ?, ?, ?, ?, 'in_flight', ?, ?)",
            (build_id, task_id, kind, item, count, before, time.time(), self.session),
        )
        assert cur.lastrowid is not None
        return cur.lastrowid

    def end_step(self, seq: int, status: str, effect: str | None = None) -> None:
        self.db.execute(
            "UPDATE steps SET status = ?, effect = ?, ended_at = ? WHERE seq = ?", (status, effect, time.time(), seq)
        )

    def steps_in_flight(self, build_id: str) -> list[dict[str, Any]]:
        rows = self.db.execute(
            "SELECT * FROM steps WHERE build_id = ? AND status = 'in_flight' ORDER BY seq", (build_id,)
        )
        return [dict(r) for r in rows]

    def steps(self, build_id: str) -> list[dict[str, Any]]:
        return [dict(r) for r in self.db.execute("SELECT * FROM steps WHERE build_id = ? ORDER BY seq", (build_id,))]

    # -- events ------------------------------------------------------------------------------------
    def emit(self, build_id: str, type_: str, body: dict[str, Any]) -> None:
        self.db.execute(
            "INSERT INTO events (build_id, type, body, at) VALUES (?, ?, ?, ?)",
            (build_id, type_, _j(body), time.time()),
        )
        for listener in self.listeners:
            listener(type_, body)

    def events(self, build_id: str, type_: str | None = None) -> list[dict[str, Any]]:
        sql = "SELECT type, body, at FROM events WHERE build_id = ?" + (" AND type = ?" if type_ else "")
        args: tuple[Any, ...] = (build_id, type_) if type_ else (build_id,)
        return [
            {"type": r["type"], "at": r["at"], **json.loads(r["body"])}
            for r in self.db.execute(sql + " ORDER BY seq", args)
        ]

    # -- tasks -------------------------------------------------------------------------------------
    def upsert_task(
        self,
        task_id: str,
        *,
        kind: str,
        goal: dict[str, Any],
        status: str,
        parent_task_id: str | None = None,
        blocked_reason: str | None = None,
    ) -> None:
        now = time.time()
        self.db.execute(
            "INSERT INTO tasks (task_id, parent_task_id, kind, goal, status, blocked_reason, created_at, updated_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(task_id) DO UPDATE SET status = excluded.status, "
            "blocked_reason = excluded.blocked_reason, updated_at = excluded.updated_at",
            (task_id, parent_task_id, kind, _j(goal), status, blocked_reason, now, now),
        )

    def task(self, task_id: str) -> dict[str, Any] | None:
        row = self.db.execute("SELECT * FROM tasks WHERE task_id = ?", (task_id,)).fetchone()
        if row is None:
            return None
        out = dict(row)
        out["goal"] = json.loads(out["goal"])
        out["progress"] = json.loads(out["progress"])
        return out

    def subtasks(self, parent_task_id: str) -> list[dict[str, Any]]:
        rows = self.db.execute(
            "SELECT task_id FROM tasks WHERE parent_task_id = ? ORDER BY created_at", (parent_task_id,)
        )
        return [t for r in rows if (t := self.task(r["task_id"])) is not None]

    def task_progress(self, task_id: str, entry: dict[str, Any]) -> None:
        """A sub-task checkpoint: appended to the task's progress list."""
        task = self.task(task_id)
        if task is None:
            raise KeyError(task_id)
        progress = [*task["progress"], entry]
        self.db.execute(
            "UPDATE tasks SET progress = ?, updated_at = ? WHERE task_id = ?", (_j(progress), time.time(), task_id)
        )


__all__ = ["BuildStatus", "BuildStore"]
