"""Fault injection on the real command line (slow): signals at random points, concurrent runs, broken disks.

Each test asserts what the issue asks of every fault: the process ends within a
bound, the exit code and message are right, the journal passes
``integrity_check``, and after the next command every run has a terminal state.
``CRAFTBT_FAULT_RUNS`` sets how many runs each signal kills (default 4).
Read-only mounts and a full tmpfs need ``unshare -rm`` (a private mount
namespace); without it those tests are skipped.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from craftbt.core.sqlite import integrity_check
from craftbt.executor.journal import TERMINAL_STATUSES

pytestmark = pytest.mark.slow

CRAFTBT = [sys.executable, "-m", "craftbt"]
GOAL = ["run", "--goal", "obtain iron_pickaxe"]
#: no run may take longer than this to end after a signal (it normally takes well under a second)
END_BOUND_S = 30
RUNS_PER_SIGNAL = int(os.environ.get("CRAFTBT_FAULT_RUNS", "4"))


def craftbt(home: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CRAFTBT, *args], env={**os.environ, "CRAFTBT_HOME": str(home)}, text=True,
                          capture_output=True, timeout=timeout)


def statuses(home: Path) -> list[str]:
    """Run statuses as recorded in the file (not the readers' view)."""
    conn = sqlite3.connect(f"file:{home / 'journal.sqlite'}?mode=ro", uri=True)
    try:
        return [r[0] for r in conn.execute("SELECT status FROM runs")]
    finally:
        conn.close()


def open_steps_of_closed_runs(home: Path) -> int:
    conn = sqlite3.connect(f"file:{home / 'journal.sqlite'}?mode=ro", uri=True)
    try:
        return int(conn.execute("SELECT COUNT(*) FROM steps s JOIN runs r USING (run_id)"
                                " WHERE s.ended_at IS NULL AND r.status != 'running'").fetchone()[0])
    finally:
        conn.close()


def test_cli_module_entry_point_exists() -> None:
    assert craftbt(Path("/nonexistent-home"), "--help").returncode == 0


@pytest.mark.parametrize("signum", [signal.SIGKILL, signal.SIGTERM, signal.SIGINT])
def test_signals_at_random_points_leave_no_run_running(tmp_path: Path, signum: int) -> None:
    rng = random.Random(f"{signum}-{os.getpid()}")
    home = tmp_path / "home"
    t0 = time.monotonic()
    assert craftbt(home, *GOAL).returncode == 0
    whole = time.monotonic() - t0  # a loaded machine runs slower: the random points cover the whole command
    outcomes: list[int] = []
    for _ in range(RUNS_PER_SIGNAL):
        proc = subprocess.Popen([*CRAFTBT, *GOAL], env={**os.environ, "CRAFTBT_HOME": str(home)},
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        time.sleep(rng.uniform(0.2, whole * 1.05))  # start-up, planning, the run itself, closing
        proc.send_signal(signum)
        try:
            _, err = proc.communicate(timeout=END_BOUND_S)
        except subprocess.TimeoutExpired:
            proc.kill()
            pytest.fail(f"craftbt did not end within {END_BOUND_S} s of {signal.Signals(signum).name}")
        rc = proc.returncode
        outcomes.append(rc)
        assert "craftbt bug" not in err, err
        if signum == signal.SIGKILL:
            assert rc in (-signal.SIGKILL, 0)
        elif rc != 0:  # it may have finished before the signal came
            assert rc == 128 + signum, (rc, err)
            assert f"interrupted by {signal.Signals(signum).name}" in err, err
    # the next command (a reader) shows no run running; the next writer records it
    if (home / "journal.sqlite").exists():
        shown = json.loads(craftbt(home, "runs", "--json", "--limit", "1000").stdout)
        assert all(r["status"] in TERMINAL_STATUSES for r in shown), shown
    done = craftbt(home, *GOAL)
    assert done.returncode == 0, done.stderr
    recorded = statuses(home)
    assert recorded and all(s in TERMINAL_STATUSES for s in recorded), recorded
    assert open_steps_of_closed_runs(home) == 0
    assert integrity_check(home / "journal.sqlite") == []
    assert integrity_check(home / "priors.sqlite") == []


def test_eight_concurrent_runs_on_a_fresh_home_all_recorded(tmp_path: Path) -> None:
    home = tmp_path / "home"
    procs = [subprocess.Popen([*CRAFTBT, *GOAL], env={**os.environ, "CRAFTBT_HOME": str(home)},
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True) for _ in range(8)]
    errors = [p.communicate(timeout=300)[1] for p in procs]
    assert [p.returncode for p in procs] == [0] * 8, errors
    assert statuses(home) == ["success"] * 8
    assert integrity_check(home / "journal.sqlite") == [] and integrity_check(home / "priors.sqlite") == []


def _unshare() -> list[str]:
    tool = shutil.which("unshare")
    if tool is None or subprocess.run([tool, "-rm", "true"], capture_output=True).returncode != 0:
        pytest.skip("needs unshare -rm (a private mount namespace) for a read-only mount or a small tmpfs")
    return [tool, "-rm", "sh", "-c"]


def _in_namespace(script: str, home: Path) -> subprocess.CompletedProcess[str]:
    cli = " ".join(CRAFTBT)
    return subprocess.run([*_unshare(), script.replace("CRAFTBT", cli).replace("HOME_DIR", str(home))],
                          text=True, capture_output=True, timeout=300, env={**os.environ, "CRAFTBT_HOME": str(home)})


def test_read_only_commands_work_on_a_read_only_mount(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert craftbt(home, *GOAL).returncode == 0
    run_id = json.loads(craftbt(home, "runs", "--json").stdout)[0]["run_id"]
    shutil.rmtree(home / "golden")
    for extra in home.glob("*-shm"):  # cleanly closed: no -shm left, the hard case for a read-only open
        extra.unlink()
    script = (
        "mount --bind HOME_DIR HOME_DIR && mount -o remount,bind,ro HOME_DIR || exit 99\n"
        "touch HOME_DIR/probe 2>/dev/null && exit 98\n"
        f"CRAFTBT runs >/dev/null && CRAFTBT show {run_id} >/dev/null && CRAFTBT sla >/dev/null"
        " && CRAFTBT doctor >/dev/null || exit 97\n"
        "CRAFTBT run --goal 'obtain wooden_pickaxe'; echo \"rc=$?\"\n"
    )
    done = _in_namespace(script, home)
    assert done.returncode == 0, (done.returncode, done.stdout, done.stderr)
    assert "rc=1" in done.stdout and "storage_read_only" in done.stderr, done.stderr
    assert str(home / "journal.sqlite") in done.stderr and "craftbt bug" not in done.stderr


def test_a_full_disk_exits_1_naming_the_file(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    script = (
        "mount -t tmpfs -o size=160k tmpfs HOME_DIR || exit 99\n"
        "for i in 1 2 3 4 5 6; do CRAFTBT run --goal 'obtain wooden_pickaxe' --seed $i; echo \"rc=$?\"; done\n"
        "CRAFTBT doctor; echo \"doctor=$?\"\n"
    )
    done = _in_namespace(script, home)
    assert done.returncode == 0, done.stderr
    codes = [line for line in done.stdout.splitlines() if line.startswith("rc=")]
    assert "rc=3" not in codes and "rc=1" in codes, (codes, done.stderr)
    assert "disk_full" in done.stderr and "craftbt bug" not in done.stderr, done.stderr
    assert "doctor=0" in done.stdout  # a full disk left the stores sound


def test_read_only_commands_work_on_a_full_disk(tmp_path: Path) -> None:
    """A full disk is no reason to refuse a read: SQLite cannot make a cleanly closed journal's -shm file there."""
    home = tmp_path / "home"
    home.mkdir()
    script = (
        "mount -t tmpfs -o size=2m tmpfs HOME_DIR || exit 99\n"
        "CRAFTBT run --goal 'obtain stick' >/dev/null || exit 98\n"
        "dd if=/dev/zero of=HOME_DIR/ballast bs=4k 2>/dev/null\n"
        "CRAFTBT runs --json > HOME_DIR/../runs.json; echo \"runs=$?\"\n"
        "CRAFTBT sla >/dev/null; echo \"sla=$?\"\n"
        "CRAFTBT doctor >/dev/null; echo \"doctor=$?\"\n"
    )
    done = _in_namespace(script, home)
    assert done.returncode == 0, (done.stdout, done.stderr)
    assert [line for line in done.stdout.splitlines() if "=" in line] == ["runs=0", "sla=0", "doctor=0"], done.stderr
    (run,) = json.loads((tmp_path / "runs.json").read_text())
    assert run["status"] == "success"
