"""Every way out of a run closes it: disconnect, SIGINT/SIGTERM, a bug, a report that cannot be written, SIGKILL."""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from craftbt.core import owner
from craftbt.core.signals import Cancelled
from craftbt.executor.config import ExecutorConfig
from craftbt.executor.executor import Executor
from craftbt.executor.journal import TERMINAL_STATUSES, Journal
from craftbt.world.body import BodyError, BodyErrorCode
from tests.executor_fakes import make_registry
from tests.fakes import FlatFakeBody
from tests.test_executor_core import FENCE, leaf, tree

ROOT = Path(__file__).resolve().parents[1]
LONG_MOVE = tree(leaf("move", {"pos": {"x": 3, "y": 64, "z": 0}}), leaf("tap", {"n": 1}))


class DroppingBody(FlatFakeBody):
    """A body whose server goes away at ``drop_at``: from then on ``where`` raises body_disconnected."""

    def __init__(self, drop_at: int, where: str) -> None:
        super().__init__(inventory={"cobblestone": 5})
        self.drop_at = drop_at
        self.where = where
        self.goto_ticks = 200

    def _gone(self, what: str) -> None:
        if self.where == what and self.tick >= self.drop_at:
            raise BodyError(BodyErrorCode.BODY_DISCONNECTED, "disconnected: server stopped")

    def observe(self) -> Any:
        self._gone("observe")
        return super().observe()

    def advance(self, ticks: int = 1) -> None:
        self._gone("advance")
        super().advance(ticks)


def executor(tmp_path: Path, body: FlatFakeBody, **kw: Any) -> Executor:
    return Executor(make_registry(body), body, config=ExecutorConfig(geofence=FENCE), home=tmp_path, **kw)


@pytest.mark.parametrize("where", ["observe", "advance"])
def test_a_body_that_disconnects_anywhere_ends_the_run_escalated(tmp_path: Path, where: str) -> None:
    # observe: the executor's safety poll (the path that escaped as exit 3); advance: the world clock
    body = DroppingBody(drop_at=12, where=where)
    ex = executor(tmp_path, body)
    out = ex.run(LONG_MOVE)
    assert out.status == "escalated"
    assert out.escalation is not None and out.escalation.code == "body_disconnected"
    detail = ex.journal.run_detail(out.run_id)
    assert detail["status"] == "escalated"
    # the step in flight closes with the cause, not as "interrupted" and not left open
    assert [(s["capability"], s["ok"], s["error_code"]) for s in detail["steps"]] == [
        ("move", 0, "body_disconnected")]
    assert "body_disconnected" in [d["reason"] for d in detail["decisions"]]


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_cancels_the_run_and_its_body_action_then_goes_on(tmp_path: Path, signum: int) -> None:
    body = FlatFakeBody(inventory={"cobblestone": 5})
    body.goto_ticks = 200

    def on_tick(ex: Executor, run: Any, root: Any) -> None:
        if run.tick() == 10:
            raise Cancelled(signum)

    ex = executor(tmp_path, body, on_tick=on_tick)
    with pytest.raises(Cancelled) as info:
        ex.run(LONG_MOVE)
    run_id = info.value.run_id
    assert run_id is not None and info.value.exit_code == 128 + signum
    assert body.cancelled == ["goto"]  # the in-flight body action was cancelled
    detail = ex.journal.run_detail(run_id)
    assert detail["status"] == "cancelled"
    assert [(s["ok"], s["error_code"]) for s in detail["steps"]] == [(0, "cancelled")]
    assert all(s["ended_at"] is not None for s in detail["steps"])


def test_a_bug_in_the_loop_still_closes_the_run(tmp_path: Path) -> None:
    body = FlatFakeBody(inventory={"cobblestone": 5})
    body.goto_ticks = 200

    def on_tick(ex: Executor, run: Any, root: Any) -> None:
        if run.tick() == 7:
            raise RuntimeError("boom")

    ex = executor(tmp_path, body, on_tick=on_tick)
    with pytest.raises(RuntimeError):
        ex.run(LONG_MOVE)
    (row,) = ex.journal.list_runs()
    assert row["status"] == "failure"
    detail = ex.journal.run_detail(row["run_id"])
    assert "internal_error" in [d["reason"] for d in detail["decisions"]]
    assert all(s["ended_at"] is not None for s in detail["steps"])


def test_the_journal_never_says_success_before_the_report_exists(tmp_path: Path, monkeypatch: Any) -> None:
    body = FlatFakeBody(inventory={"cobblestone": 5})
    ex = executor(tmp_path, body)
    seen: list[str] = []

    def full_disk(run_id: str, result: dict[str, Any]) -> None:
        # at the moment the report is written, the journal must not yet say how the run ended
        seen.append(Journal(tmp_path / "journal.sqlite", read_only=True).find_run(run_id)["status"])  # type: ignore[index]
        raise OSError(errno.ENOSPC, "No space left on device", str(tmp_path / "golden" / f"{run_id}.json"))

    monkeypatch.setattr(ex.recorder, "finish_run", full_disk)
    with pytest.raises(OSError):
        ex.run(tree(leaf("tap", {"n": 1})))
    assert seen == ["running"]
    detail = ex.journal.run_detail(ex.journal.list_runs()[0]["run_id"])
    assert detail["status"] == "success"
    assert "No space left" in detail["summary"]["artefacts_missing"]["error"]


KILLED_RUN = """
import sys
sys.path.insert(0, {root!r})
from craftbt.executor.journal import Journal
j = Journal({path!r})
rid = j.begin_run(executor_plan_digest="sha256:x", tree_name="killed")
step = j.start_step(rid, node="n", capability="move", version="1.0.0", args={{}}, idempotency_key=None,
                    attempt=0, shadow=False, lifecycle="active", tick=0)
j.commit()
print(rid, flush=True)
sys.stdin.readline()
"""


def test_a_killed_run_is_abandoned_by_the_next_open_and_its_step_is_unknown(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite"
    proc = subprocess.Popen([sys.executable, "-c", KILLED_RUN.format(root=str(ROOT), path=str(path))],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    run_id = proc.stdout.readline().strip()
    # alive: a reader sees it running, a writer leaves it alone
    assert Journal(path, read_only=True).find_run(run_id)["status"] == "running"  # type: ignore[index]
    assert Journal(path).close_abandoned() == []
    proc.kill()
    proc.wait()
    # a read-only open shows it abandoned without writing; a writable open records it
    assert Journal(path, read_only=True).find_run(run_id)["status"] == "abandoned"  # type: ignore[index]
    journal = Journal(path)
    detail = journal.run_detail(run_id)
    assert detail["status"] == "abandoned" and detail["ended_at"] is not None
    (step,) = detail["steps"]
    assert step["ok"] is None and step["error_code"] == "abandoned" and step["ended_at"] is not None
    assert journal.list_runs()[0]["failures"] == 0  # unknown is not a failure
    journal.close()


def test_owner_identity() -> None:
    me = owner.current()
    assert not owner.gone(me)
    assert owner.gone(None) and owner.gone("not json")
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    assert owner.gone(me.replace(f'"pid": {os.getpid()}', f'"pid": {dead.pid}'))
    assert not owner.gone(me.replace('"host": "', '"host": "elsewhere-'))  # another host: never judged
    if owner.boot_id():
        assert owner.gone(me.replace(owner.boot_id(), "another-boot"))


def test_terminal_statuses_cover_what_the_executor_can_write() -> None:
    assert {"cancelled", "abandoned", "escalated", "success"} <= TERMINAL_STATUSES
    assert "running" not in TERMINAL_STATUSES


def test_an_exited_owner_not_yet_reaped_is_gone() -> None:
    child = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    assert child.stdin is not None
    started = owner.start_time(child.pid)
    record = owner.current().replace(f'"pid": {os.getpid()}', f'"pid": {child.pid}').replace(
        f'"start": "{owner.start_time(os.getpid())}"', f'"start": "{started}"')
    assert not owner.gone(record)
    child.stdin.close()  # it exits; nobody reaps it yet: a zombie keeps its pid
    deadline = time.monotonic() + 30
    while not owner.gone(record) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert owner.gone(record)
    assert Path(f"/proc/{child.pid}").exists()  # still a zombie: the pid alone would have said alive
    child.wait()
