"""The results of an evaluation, one SQLite file under ``--out``: what resuming reads and the report draws."""

from __future__ import annotations

import time
from pathlib import Path

from craftbt.core.sqlite import open_store
from craftbt.evaluation.episode import EpisodeResult

SCHEMA = """
CREATE TABLE IF NOT EXISTS episodes (
    key TEXT PRIMARY KEY,
    goal TEXT NOT NULL,
    seed INTEGER NOT NULL,
    planner TEXT NOT NULL,
    world TEXT NOT NULL,
    status TEXT NOT NULL,
    finished_at REAL NOT NULL,
    result_json TEXT NOT NULL
);
"""


class ResultStore:
    """Episodes keyed by their spec's content id; a second result for the same key replaces nothing."""

    def __init__(self, path: Path) -> None:
        self.path = path
        # opened like every craftbt store: busy timeout, WAL, a checked file, errors that name it
        self._db = open_store(path, SCHEMA, check=True)

    def done_keys(self) -> set[str]:
        return {row[0] for row in self._db.execute("SELECT key FROM episodes")}

    def add(self, result: EpisodeResult) -> None:
        # one transaction per episode: a Ctrl-C loses at most the episodes still running
        with self._db:
            self._db.execute(
                "INSERT OR IGNORE INTO episodes (key, goal, seed, planner, world, status, finished_at, result_json)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (result.key, result.goal, result.seed, result.planner, result.world, result.status.value,
                 time.time(), result.model_dump_json()),
            )

    def results(self) -> list[EpisodeResult]:
        rows = self._db.execute("SELECT result_json FROM episodes ORDER BY goal, planner, world, seed")
        return [EpisodeResult.model_validate_json(row[0]) for row in rows]

    def close(self) -> None:
        self._db.close()
