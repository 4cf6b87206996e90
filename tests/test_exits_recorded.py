"""Every front door records Ctrl-C and SIGTERM: the run in flight ends ``cancelled`` with its open step closed,
the command says which run it recorded and exits 128 + signal (slow: real processes)."""

from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pytest

from craftbt.core.runstatus import RunStatus
from craftbt.evaluation.runner import expand
from craftbt.evaluation.store import ResultStore

pytestmark = pytest.mark.slow

CRAFTBT = [sys.executable, "-m", "craftbt"]
#: how long a command may take to start a run on a loaded machine
START_BOUND_S = 90

DOORS = {
    "script run": ["script", "run", "-e", "repeat(5000) { wait(10000); }", "--world", "flat"],
    "live": ["live", "--days", "2", "--fresh"],
}


def running_with_a_step(home: Path) -> str | None:
    """The id of a run the journal shows running with a dispatched step, if any (read-only, from outside)."""
    path = home / "journal.sqlite"
    if not path.exists():
        return None
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=1)
        try:
            row = conn.execute("SELECT r.run_id FROM runs r JOIN steps s USING (run_id)"
                               " WHERE r.status = 'running' LIMIT 1").fetchone()
        finally:
            conn.close()
    except sqlite3.Error:
        return None
    return str(row[0]) if row else None


def run_status(home: Path, run_id: str) -> tuple[str, int]:
    conn = sqlite3.connect(f"file:{home / 'journal.sqlite'}?mode=ro", uri=True)
    try:
        status = conn.execute("SELECT status FROM runs WHERE run_id = ?", (run_id,)).fetchone()[0]
        open_steps = conn.execute("SELECT COUNT(*) FROM steps WHERE run_id = ? AND ended_at IS NULL",
                                  (run_id,)).fetchone()[0]
    finally:
        conn.close()
    return str(status), int(open_steps)


def interrupt(argv: list[str], home: Path, signum: int, running: Callable[[], str | None]) -> tuple[str, int, str]:
    """Start ``craftbt ARGV``, wait until ``running()`` names the run in flight, send ``signum``: that run's id, the
    exit code and stderr."""
    proc = subprocess.Popen([*CRAFTBT, *argv], env={**os.environ, "CRAFTBT_HOME": str(home)},
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + START_BOUND_S
        run_id = None
        while run_id is None and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.2)
            run_id = running()
        assert run_id is not None, f"craftbt {argv[0]} started no run within {START_BOUND_S} s"
        proc.send_signal(signum)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert "craftbt bug" not in err, err
    return run_id, proc.returncode, err


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
@pytest.mark.parametrize("door", sorted(DOORS))
def test_a_signal_during_a_run_records_it_cancelled(tmp_path: Path, door: str, signum: int) -> None:
    home = tmp_path / "home"
    run_id, code, err = interrupt(DOORS[door], home, signum, lambda: running_with_a_step(home))
    assert code == 128 + signum, err
    status, open_steps = run_status(home, run_id)
    if door == "script run" or status == RunStatus.CANCELLED:  # one long run: it is the one in flight
        assert status == RunStatus.CANCELLED and f"run {run_id} recorded as cancelled" in err, (status, err)
    else:  # live: this task ended by itself between the look and the signal; the next was not yet opened
        assert RunStatus(status).terminal, status
    assert open_steps == 0


LONG_TREE = "tree: long_wait\nroot:\n  leaf: wait\n  args: {ms: 300000}\n"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def post_tree(url: str, token: str, tree: str) -> str:
    request = urllib.request.Request(f"{url}/api/cognitive/execute", data=json.dumps({"tree": tree}).encode(),
                                     headers={"Authorization": f"Bearer {token}",
                                              "Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(request, timeout=30) as response:
        return str(json.load(response)["run_id"])


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_serve_records_the_job_in_flight_cancelled(tmp_path: Path, signum: int) -> None:
    """``craftbt serve``: uvicorn takes the signal on the main thread, the job runs on the bot's thread; the run is
    closed ``cancelled`` before the process exits 128 + signal, like every other front door."""
    home, port, token = tmp_path / "home", free_port(), "exit-test-token-0123456789"
    posted: list[str] = []

    def running() -> str | None:
        if not posted:
            try:
                posted.append(post_tree(f"http://127.0.0.1:{port}", token, LONG_TREE))
            except OSError:  # not listening yet
                return None
        return posted[0] if running_with_a_step(home) == posted[0] else None

    run_id, code, err = interrupt(["serve", "--port", str(port), "--token", token, "--world", "flat"], home, signum,
                                  running)
    assert code == 128 + signum, err
    assert f"run {run_id} recorded as cancelled" in err, err
    conn = sqlite3.connect(f"file:{home / 'journal.sqlite'}?mode=ro", uri=True)
    try:
        left_running = conn.execute("SELECT COUNT(*) FROM runs WHERE status = 'running'").fetchone()[0]
    finally:
        conn.close()
    assert left_running == 0
    assert run_status(home, run_id) == (RunStatus.CANCELLED, 0)


def stored_keys(out: Path) -> set[str]:
    path = out / "results.sqlite"
    if not path.exists():
        return set()
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=1)
        try:
            return {str(row[0]) for row in conn.execute("SELECT key FROM episodes")}
        finally:
            conn.close()
    except sqlite3.Error:
        return set()


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_eval_in_process_records_the_episode_in_flight_cancelled(tmp_path: Path, signum: int) -> None:
    """``craftbt eval`` (one worker, in this process): the finished episode stays stored, the one in flight ends its
    run ``cancelled`` (not left running, so never ``abandoned``) and is not stored, so the same command resumes it."""
    out = tmp_path / "out"
    quick, slow = expand(["obtain stick", "obtain 64 diamond"], [0], ["auto"], ["natural"], 10_000_000)
    found: list[Path] = []

    def running() -> str | None:
        if quick.key not in stored_keys(out):
            return None  # the slow episode (the second) has not begun
        for home in (out / "homes").glob("*"):
            run_id = running_with_a_step(home)
            if run_id is not None:
                found.append(home)
                return run_id
        return None

    run_id, code, err = interrupt(["eval", "--goals", "obtain stick,obtain 64 diamond", "--seeds", "0", "--world",
                                   "natural", "--max-ticks", "10000000", "--out", str(out)], tmp_path / "home",
                                  signum, running)
    home = found[-1]
    assert code == 128 + signum, err
    assert f"run {run_id} recorded as cancelled" in err, err
    assert "the same command resumes it" in err, err
    assert run_status(home, run_id) == (RunStatus.CANCELLED, 0)
    assert stored_keys(out) == {quick.key}, "the episode in flight was stored as done: a rerun would skip it"
    assert slow.key not in ResultStore(out / "results.sqlite").done_keys()
