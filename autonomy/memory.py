"""Episodic memory in SQLite (seed 003 Memory Service): what happened where, and the live session's tasks.

Three tables under ``$CRAFTBT_HOME/memory.sqlite``:

* ``episodes`` — what happened where: resources seen, dangers (damage, hostiles at
  night), deaths, structures built, goals done and failed, with the tick and position;
* ``tasks`` — the task journal of the live loop: every goal taken on, its status
  (``pending``, ``running``, ``done``, ``failed``, ``preempted``) and backoff; a task
  left ``running`` by a killed process is what the bootstrapper recovers;
* ``state`` — the live session's key/value state (day count, report figures).

Every connection uses WAL and a busy timeout, so a reader (``craftbt live --json``
of another process, a test) never blocks the loop's writes. Recall serves the
goal manager (priority from past success, where a resource was seen) and the need
generator (remembered dangers); :meth:`EpisodicMemory.metrics` gives the seed's
memory metrics, method uplift and hazard recall.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from craftbt.core.sqlite import open_store
from craftbt.world.body import Position

BUSY_TIMEOUT_MS = 5000
SCHEMA = """
CREATE TABLE IF NOT EXISTS episodes (
    id INTEGER PRIMARY KEY AUTOINCREMENT, tick INTEGER NOT NULL, time_of_day INTEGER, kind TEXT NOT NULL,
    what TEXT NOT NULL, x REAL, y REAL, z REAL, detail_json TEXT
);
CREATE INDEX IF NOT EXISTS episodes_kind ON episodes(kind, what);
CREATE TABLE IF NOT EXISTS tasks (
    task_id TEXT PRIMARY KEY, goal TEXT NOT NULL, kind TEXT NOT NULL, source TEXT NOT NULL,
    priority REAL NOT NULL, status TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0,
    created_tick INTEGER, started_tick INTEGER, ended_tick INTEGER, blocked_reason TEXT,
    next_eligible_at INTEGER NOT NULL DEFAULT 0, detail_json TEXT
);
CREATE TABLE IF NOT EXISTS state (key TEXT PRIMARY KEY, value_json TEXT NOT NULL);
"""
#: how near (blocks) and how close in the day (ticks) a remembered danger must be to gate a need
DANGER_RADIUS = 16.0
DANGER_HOURS = 2_000
HAZARDS = ("damage", "death")


def connect(path: Path | str) -> sqlite3.Connection:
    """The memory's connection, opened like every craftbt store (busy timeout, WAL, a checked file, located
    errors), in autocommit: each write is its own statement."""
    conn = open_store(path, SCHEMA, check=True, isolation_level=None, check_same_thread=False)
    # the live loop would rather skip a memory write than stall its tick for the stores' usual 30 s
    conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    conn.row_factory = sqlite3.Row
    return conn


class EpisodicMemory:
    def __init__(self, path: Path | str) -> None:
        self.path = path
        self.db = connect(path)

    def close(self) -> None:
        self.db.close()

    # -- episodes ------------------------------------------------------------------------------------
    def record(self, kind: str, what: str, tick: int, pos: Position | None = None, *,
               time_of_day: int | None = None, **detail: Any) -> int:
        cur = self.db.execute(
            "INSERT INTO episodes (tick, time_of_day, kind, what, x, y, z, detail_json) VALUES (?,?,?,?,?,?,?,?)",
            (tick, time_of_day, kind, what, *(pos if pos is not None else (None, None, None)),
             json.dumps(detail, default=str) if detail else None))
        return int(cur.lastrowid or 0)

    def episodes(self, kind: str | None = None, limit: int = 1000) -> list[dict[str, Any]]:
        q = "SELECT * FROM episodes" + (" WHERE kind=?" if kind else "") + " ORDER BY id LIMIT ?"
        rows = self.db.execute(q, (kind, limit) if kind else (limit,)).fetchall()
        return [dict(r) for r in rows]

    def recall_resource(self, names: tuple[str, ...] | list[str], near: Position) -> Position | None:
        """The nearest place any of ``names`` was seen (and not since recorded as gone)."""
        if not names:
            return None
        marks = ",".join("?" * len(names))
        rows = self.db.execute(
            f"SELECT x, y, z FROM episodes WHERE kind='resource_seen' AND what IN ({marks}) AND x IS NOT NULL "
            f"AND NOT EXISTS (SELECT 1 FROM episodes g WHERE g.kind='resource_gone' AND g.what=episodes.what "
            f"AND g.x=episodes.x AND g.y=episodes.y AND g.z=episodes.z)", tuple(names)).fetchall()
        spots = [Position(r["x"], r["y"], r["z"]) for r in rows]
        return min(spots, key=lambda p: p.distance_to(near)) if spots else None

    def dangers_near(self, pos: Position, time_of_day: int) -> list[int]:
        """Ids of remembered hazards within DANGER_RADIUS, or at about this hour of the day."""
        rows = self.db.execute(
            "SELECT id, x, y, z, time_of_day FROM episodes WHERE kind IN ('damage','death')").fetchall()
        found: list[int] = []
        for r in rows:
            near = r["x"] is not None and Position(r["x"], r["y"], r["z"]).distance_to(pos) <= DANGER_RADIUS
            tod = r["time_of_day"]
            same_hour = tod is not None and min(abs(tod - time_of_day), 24_000 - abs(tod - time_of_day)) <= DANGER_HOURS
            if near or same_hour:
                found.append(int(r["id"]))
        return found

    def goal_record(self, goal: str) -> tuple[int, int]:
        """(successes, failures) of a goal across every session this memory has seen."""
        row = self.db.execute(
            "SELECT SUM(kind='goal_done') AS ok, SUM(kind='goal_failed') AS bad FROM episodes WHERE what=?",
            (goal,)).fetchone()
        return int(row["ok"] or 0), int(row["bad"] or 0)

    def success_rate(self, goal: str) -> float:
        """Beta(1, 1) posterior mean of the goal's success."""
        ok, bad = self.goal_record(goal)
        return (ok + 1) / (ok + bad + 2)

    # -- metrics ------------------------------------------------------------------------------------------
    def metrics(self) -> dict[str, Any]:
        """Method uplift: success rate of each goal's later attempts minus its earlier ones, averaged;
        hazard recall: the fraction of remembered hazards the need generator later recalled."""
        rows = self.db.execute("SELECT what, kind FROM episodes WHERE kind IN ('goal_done','goal_failed') "
                               "ORDER BY id").fetchall()
        by_goal: dict[str, list[int]] = {}
        for r in rows:
            by_goal.setdefault(r["what"], []).append(1 if r["kind"] == "goal_done" else 0)
        deltas = []
        for outcomes in by_goal.values():
            if len(outcomes) >= 4:
                half = len(outcomes) // 2
                deltas.append(sum(outcomes[half:]) / (len(outcomes) - half) - sum(outcomes[:half]) / half)
        hazards = self.db.execute("SELECT COUNT(*) FROM episodes WHERE kind IN ('damage','death')").fetchone()[0]
        recalled = set(self.get_state("hazards_recalled", []))
        return {
            "method_uplift": round(sum(deltas) / len(deltas), 3) if deltas else None,
            "goals_with_history": len(deltas),
            "hazards": int(hazards),
            "hazards_recalled": len(recalled),
            "hazard_recall": round(len(recalled) / hazards, 3) if hazards else None,
        }

    def note_recalled(self, ids: list[int]) -> None:
        if ids:
            seen = set(self.get_state("hazards_recalled", []))
            if not set(ids) <= seen:
                self.set_state("hazards_recalled", sorted(seen | set(ids)))

    # -- tasks (the live loop's task journal) -------------------------------------------------------------
    def upsert_task(self, task_id: str, goal: str, kind: str, source: str, priority: float, status: str, *,
                    tick: int, detail: dict[str, Any] | None = None) -> None:
        self.db.execute(
            "INSERT INTO tasks (task_id, goal, kind, source, priority, status, created_tick, detail_json) "
            "VALUES (?,?,?,?,?,?,?,?) ON CONFLICT(task_id) DO UPDATE SET priority=excluded.priority, "
            "status=excluded.status",
            (task_id, goal, kind, source, priority, status, tick, json.dumps(detail or {})))

    def set_task(self, task_id: str, **fields: Any) -> None:
        if not fields:
            return
        cols = ", ".join(f"{k}=?" for k in fields)
        self.db.execute(f"UPDATE tasks SET {cols} WHERE task_id=?", (*fields.values(), task_id))

    def tasks(self, status: str | None = None) -> list[dict[str, Any]]:
        q = "SELECT * FROM tasks" + (" WHERE status=?" if status else "") + " ORDER BY rowid"
        return [dict(r) for r in self.db.execute(q, (status,) if status else ()).fetchall()]

    # -- state ----------------------------------------------------------------------------------------------
    def get_state(self, key: str, default: Any = None) -> Any:
        row = self.db.execute("SELECT value_json FROM state WHERE key=?", (key,)).fetchone()
        return json.loads(row["value_json"]) if row else default

    def set_state(self, key: str, value: Any) -> None:
        self.db.execute("INSERT INTO state (key, value_json) VALUES (?, ?) ON CONFLICT(key) DO UPDATE "
                        "SET value_json=excluded.value_json", (key, json.dumps(value, default=str)))

    def clear_session(self) -> None:
        """Forget the live session (tasks and state); episodes stay: they are what the bot learned."""
        self.db.execute("DELETE FROM tasks")
        self.db.execute("DELETE FROM state WHERE key != 'hazards_recalled'")
