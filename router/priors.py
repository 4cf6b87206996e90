"""Memory-conditioned priors (seed 003): success counts per planner x method x context, in SQLite.

A context is ``"<biome>/<day|night>"``. The posterior of a method's success is
``Beta(1 + s, 1 + f)`` where ``s`` and ``f`` are its successes and failures in
this context plus :data:`SHARED_WEIGHT` of those seen in other contexts, so
what was learnt in the forest informs the desert without overriding it.

Outcomes come from the router as each run of a goal ends
(:meth:`PriorsStore.record_plan` through ``Router.record_outcome``, which
leaves a plan's methods unblamed when the run failed on a target it found
unreachable). The store also
keeps the router's decisions (chosen planner, candidates, disagreement) and
the thought processor's decisions, for ``craftbt`` reports and audits.

Default location: ``$CRAFTBT_HOME/priors.sqlite`` or ``.craftbt/priors.sqlite``,
next to the executor's journal.
"""

from __future__ import annotations

import json
import random
import time
from pathlib import Path
from typing import Any

import orjson

from craftbt.core.home import default_home
from craftbt.core.sqlite import open_store, storage_errors

#: what other contexts' counts weigh in a context that has its own
SHARED_WEIGHT = 0.2

SCHEMA = """
CREATE TABLE IF NOT EXISTS outcomes (
    planner TEXT NOT NULL, method TEXT NOT NULL, context TEXT NOT NULL,
    successes REAL NOT NULL DEFAULT 0, failures REAL NOT NULL DEFAULT 0, updated_at REAL NOT NULL,
    PRIMARY KEY (planner, method, context)
);
CREATE TABLE IF NOT EXISTS decisions (
    id INTEGER PRIMARY KEY AUTOINCREMENT, at REAL NOT NULL, kind TEXT NOT NULL, intent_id TEXT, goal TEXT,
    chosen TEXT, method TEXT, context TEXT, disagreement INTEGER NOT NULL DEFAULT 0, detail_json TEXT NOT NULL
);
"""


class PriorsStore:
    """Success counts per (planner, method, context), mirrored in memory for fast reads."""

    def __init__(self, path: Path | str | None = None, *, read_only: bool = False) -> None:
        if path is None:
            path = default_home() / "priors.sqlite"
        self.path = str(path)
        # busy timeout, WAL set once with retry, schema in one transaction: N processes may open it at once
        self.db = open_store(self.path, SCHEMA, read_only=read_only, check=not read_only, check_same_thread=False)
        self._counts: dict[tuple[str, str, str], list[float]] = {}
        self._totals: dict[tuple[str, str], list[float]] = {}
        for planner, method, context, s, f in self.db.execute(
            "SELECT planner, method, context, successes, failures FROM outcomes"
        ):
            self._mirror(planner, method, context, s, f)

    def close(self) -> None:
        self.db.close()

    def _mirror(self, planner: str, method: str, context: str, s: float, f: float) -> None:
        cell = self._counts.setdefault((planner, method, context), [0.0, 0.0])
        total = self._totals.setdefault((planner, method), [0.0, 0.0])
        cell[0] += s
        cell[1] += f
        total[0] += s
        total[1] += f

    # -- outcomes ------------------------------------------------------------------------------
    def record(self, planner: str, method: str, context: str, ok: bool, weight: float = 1.0) -> None:
        s, f = (weight, 0.0) if ok else (0.0, weight)
        with storage_errors(self.path):
            self.db.execute(
                "INSERT INTO outcomes (planner, method, context, successes, failures, updated_at)"
                " VALUES (?,?,?,?,?,?) ON CONFLICT (planner, method, context) DO UPDATE SET"
                " successes = successes + excluded.successes, failures = failures + excluded.failures,"
                " updated_at = excluded.updated_at",
                (planner, method, context, s, f, time.time()),
            )
            self.db.commit()
        self._mirror(planner, method, context, s, f)

    def record_plan(self, planner: str, methods: list[str], context: str, ok: bool) -> None:
        """One run's outcome: the planner as a whole (method ``*``) and every method it relied on."""
        for method in dict.fromkeys(["*", *methods]):
            self.record(planner, method, context, ok)

    def counts(self, planner: str, method: str, context: str) -> tuple[float, float]:
        s, f = self._counts.get((planner, method, context), (0.0, 0.0))
        return s, f

    def posterior(self, planner: str, method: str, context: str) -> tuple[float, float]:
        s, f = self.counts(planner, method, context)
        ts, tf = self._totals.get((planner, method), (0.0, 0.0))
        return 1.0 + s + SHARED_WEIGHT * (ts - s), 1.0 + f + SHARED_WEIGHT * (tf - f)

    def expected_success(self, planner: str, method: str, context: str) -> float:
        a, b = self.posterior(planner, method, context)
        return a / (a + b)

    def sample(self, planner: str, method: str, context: str, rng: random.Random) -> float:
        """Thompson sampling: one draw from the success posterior."""
        a, b = self.posterior(planner, method, context)
        return rng.betavariate(a, b)

    # -- decisions -------------------------------------------------------------------------------
    def record_decision(self, kind: str, detail: dict[str, Any], *, intent_id: str | None = None,
                        goal: str | None = None, chosen: str | None = None, method: str | None = None,
                        context: str | None = None, disagreement: bool = False) -> None:
        # orjson: the standard encoder took a third of a craft-only route's record (json.loads reads both alike)
        try:
            text = orjson.dumps(detail, default=str, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS).decode()
        except orjson.JSONEncodeError:  # what orjson refuses (an integer past 64 bits) the standard encoder writes
            text = json.dumps(detail, default=str, sort_keys=True)
        with storage_errors(self.path):
            self.db.execute(
                "INSERT INTO decisions (at, kind, intent_id, goal, chosen, method, context, disagreement,"
                " detail_json) VALUES (?,?,?,?,?,?,?,?,?)",
                (time.time(), kind, intent_id, goal, chosen, method, context, int(disagreement), text),
            )
            self.db.commit()

    def decisions(self, kind: str | None = None, limit: int = 100) -> list[dict[str, Any]]:
        sql = "SELECT id, at, kind, intent_id, goal, chosen, method, context, disagreement, detail_json FROM decisions"
        args: tuple[Any, ...] = ()
        if kind is not None:
            sql += " WHERE kind = ?"
            args = (kind,)
        rows = self.db.execute(sql + " ORDER BY id DESC LIMIT ?", (*args, limit)).fetchall()
        keys = ("id", "at", "kind", "intent_id", "goal", "chosen", "method", "context", "disagreement", "detail")
        out = []
        for row in rows:
            item = dict(zip(keys, row, strict=True))
            item["detail"] = json.loads(item["detail"])
            item["disagreement"] = bool(item["disagreement"])
            out.append(item)
        return out

    def routed_count(self) -> int:
        """How many routing decisions the store holds (the disagreement rate's denominator)."""
        return int(self.db.execute("SELECT COUNT(*) FROM decisions WHERE kind = 'route'").fetchone()[0])

    def disagreement_rate(self) -> float:
        """Router disagreement (seed 003 metric): how often routing overrode the historical best."""
        total, over = self.db.execute(
            "SELECT COUNT(*), COALESCE(SUM(disagreement), 0) FROM decisions WHERE kind = 'route'"
        ).fetchone()
        return float(over) / total if total else 0.0
