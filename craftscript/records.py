"""Every script run's result, kept by run id: ``craftscript_logs`` and ``craftscript_trace`` (seed 004 7.1, 13).

The journal holds a script run like any run (its row, and one step per command that is a capability leaf),
but not what only the interpreter knows: the ordered logs (``repeat_iter``, ``if``, ``var_set``,
``predicate``, ``log``, ...), the block changes and the ``goto`` movement. :class:`ScriptRuns` keeps that
payload (``script run --json``'s) in ``$CRAFTBT_HOME/craftscript.sqlite``, next to the function store, one
row per run id, written when the run closes (also when it failed or was stopped). :func:`logs_view` and
:func:`trace_view` are the two calls' answers; ``craftbt script logs|trace RUN`` and the MCP tools of the
same names read them.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from typing import Any

import orjson

from craftbt.core.sqlite import like_prefix, open_store, storage_errors
from craftbt.craftscript.functions import store_path

SCHEMA = """
CREATE TABLE IF NOT EXISTS script_runs (
    run_id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    status TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    payload_json TEXT NOT NULL
);
"""


class ScriptRuns:
    """The script results of one ``CRAFTBT_HOME`` (a read-only open of a missing file reads as empty)."""

    def __init__(self, path: Path | str | None = None, *, read_only: bool = False) -> None:
        self.path = Path(path) if path is not None else store_path()
        self._conn = open_store(self.path, SCHEMA, read_only=read_only)
        self._conn.row_factory = sqlite3.Row

    def close(self) -> None:
        self._conn.close()

    def save(self, run_id: str, name: str, payload: dict[str, Any]) -> None:
        """Keep one run's payload (``runner.outcome_json``); a second save of the same run replaces it."""
        row = (run_id, name, str(payload.get("status", "")), int(time.time() * 1000),
               orjson.dumps(payload, default=str).decode())
        with storage_errors(self.path), self._conn:
            self._conn.execute("INSERT OR REPLACE INTO script_runs(run_id, name, status, created_at, payload_json)"
                               " VALUES (?,?,?,?,?)", row)

    def payload(self, ref: str) -> dict[str, Any] | None:
        """A run's payload by exact run id or a unique prefix of one (as ``craftbt show`` takes), or None."""
        with storage_errors(self.path):
            row = self._conn.execute("SELECT payload_json FROM script_runs WHERE run_id = ?", (ref,)).fetchone()
            if row is None:
                rows = self._conn.execute("SELECT payload_json FROM script_runs WHERE run_id LIKE ? ESCAPE '\\'"
                                          " LIMIT 2", (like_prefix(ref),)).fetchall()
                if len(rows) != 1:
                    return None
                row = rows[0]
        found: dict[str, Any] = orjson.loads(row["payload_json"])
        return found


def logs_view(payload: dict[str, Any]) -> dict[str, Any]:
    """``craftscript_logs {job_id}``: status, error and the full ordered log list (status, steps and traces)."""
    return {"job_id": payload.get("run_id"), "ok": payload.get("ok"), "status": payload.get("status"),
            "ops": payload.get("ops"), "error": payload.get("error"), "logs": payload.get("logs", []),
            "steps": payload.get("steps", []), "block_changes": payload.get("block_changes", [])}


def trace_view(payload: dict[str, Any]) -> dict[str, Any]:
    """``craftscript_trace {job_id}``: every block placed or destroyed (section 13's ``changes`` rows, with the
    block before and after) and the movement of each ``goto`` (from, to, arrived, waypoint)."""
    changes = []
    for c in payload.get("block_changes", []):
        x, y, z = c["pos"]
        block = c["before"] if c.get("action") == "destroyed" else c["after"]
        changes.append({"action": c.get("action"), "x": x, "y": y, "z": z, "block_id": block,
                        "before": c.get("before"), "after": c.get("after"), "command": c.get("command"),
                        "timestamp": c.get("timestamp")})
    return {"job_id": payload.get("run_id"), "status": payload.get("status"), "total_changes": len(changes),
            "changes": changes, "block_changes": payload.get("block_changes", []),
            "movement": [e for e in payload.get("logs", []) if e.get("kind") == "goto"],
            "position": payload.get("position")}
