"""One closed set of run statuses (craftbt.core.runstatus.RunStatus) for the executor, the journal, the API and
the reports."""

from __future__ import annotations

from pathlib import Path

import pytest

from craftbt.core.runstatus import TERMINAL, RunStatus
from craftbt.executor.journal import TERMINAL_STATUSES, Journal


def test_the_journal_knows_every_terminal_status_the_executor_can_write() -> None:
    assert {s.value for s in TERMINAL} == TERMINAL_STATUSES
    assert "preempted" in TERMINAL_STATUSES and "running" not in TERMINAL_STATUSES


def test_the_journal_refuses_a_status_outside_the_set(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "journal.sqlite")
    try:
        run_id = journal.begin_run(tree_name="t", executor_plan_digest="sha256:0")
        with pytest.raises(ValueError, match="not a terminal run status"):
            journal.end_run(run_id, status="finished", sim_ticks=0, wall_ms=0.0, summary={})
        journal.end_run(run_id, status=RunStatus.PREEMPTED, sim_ticks=0, wall_ms=0.0, summary={})
        assert journal.find_run(run_id)["status"] == "preempted"  # type: ignore[index]
    finally:
        journal.close()

