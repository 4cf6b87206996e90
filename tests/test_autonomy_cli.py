"""``craftbt live``: a JSON end report, and a SIGKILL mid-day loses nothing: the restart resumes the same task."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

CLI = [sys.executable, "-m", "craftbt"]


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CRAFTBT_LLM")}
    return {**env, "CRAFTBT_HOME": str(home)}


def _running_task(db: Path) -> str | None:
    if not db.exists():
        return None
    try:
        conn = sqlite3.connect(db, timeout=5)
        row = conn.execute("SELECT goal FROM tasks WHERE status='running'").fetchone()
        conn.close()
    except sqlite3.OperationalError:  # the schema is not there yet
        return None
    return str(row[0]) if row else None


def test_live_prints_the_end_report_as_json(tmp_path: Path) -> None:
    out = subprocess.run([*CLI, "live", "--days", "0.05", "--seed", "1", "--json"], env=_env(tmp_path),
                         capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=300)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    for key in ("survived", "deaths", "nights_survived", "lowest_food", "goals_completed", "tools_reached",
                "structures_built"):
        assert key in report
    assert report["finished"] and report["ticks_run"] >= 1200
    assert report["goals_completed"][0]["goal"] == "obtain wooden_pickaxe"  # from an empty inventory: tools first


def test_sigkill_mid_day_then_the_restart_resumes_the_same_task(tmp_path: Path) -> None:
    db = tmp_path / "memory.sqlite"
    # paced at 20 ticks a second, like a server, so the kill lands while a task is in flight
    proc = subprocess.Popen([*CLI, "live", "--days", "0.2", "--seed", "4", "--realtime", "--json"],
                            env=_env(tmp_path), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while _running_task(db) is None and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.2)
        time.sleep(1.0)  # mid-task
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    in_flight = _running_task(db)
    assert in_flight is not None, "the kill did not land during a task"
    out = subprocess.run([*CLI, "live", "--days", "0.2", "--seed", "4", "--json"], env=_env(tmp_path),
                         capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=300)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["resumed"] == 1
    assert report["resumed_tasks"][0] == in_flight
    assert report["goals_completed"][0]["goal"] == in_flight  # the same task, picked up first and finished
    assert report["finished"]
