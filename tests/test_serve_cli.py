"""``craftbt serve`` as a process: refuses an open bind without a token; SIGTERM cancels the run and exits."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.servekit import AUTH, TOKEN, free_port

CRAFTBT = Path(sys.executable).parent / "craftbt"
LONG = "tree: long\nroot: {leaf: wait, args: {ms: 60000}}\n"


@pytest.fixture(autouse=True)
def _installed() -> None:
    if not CRAFTBT.exists():
        pytest.skip(f"no {CRAFTBT}: install the package (pip install -e .)")


def test_a_non_loopback_bind_needs_a_token(tmp_path: Path) -> None:
    done = subprocess.run([str(CRAFTBT), "serve", "--host", "0.0.0.0", "--port", str(free_port()),
                           "--home", str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert "needs --token" in done.stderr


@pytest.mark.slow
def test_sigterm_cancels_the_active_run_and_stops(tmp_path: Path) -> None:
    port = free_port()
    proc = subprocess.Popen([str(CRAFTBT), "serve", "--port", str(port), "--token", TOKEN, "--home", str(tmp_path)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(f"{base}/api/cognitive/health")
                break
            except httpx.TransportError:
                assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read() if proc.stderr else ""
                time.sleep(0.1)
        run_id = httpx.post(f"{base}/api/cognitive/execute", json={"tree": LONG}, headers=AUTH).json()["run_id"]
        while httpx.get(f"{base}/api/bot/status").json()["activity"] != "running":
            time.sleep(0.05)
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    row = sqlite3.connect(tmp_path / "journal.sqlite").execute(
        "SELECT status, ended_at FROM runs WHERE run_id = ?", (run_id,)).fetchone()
    assert row[0] == "cancelled" and row[1] is not None
