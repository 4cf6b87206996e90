"""Children die with their parent; a run on a real body is closed on every exit path.

The bridge's Node process and flying-squid outlived a SIGKILLed or SIGTERMed
craftbt (the bot stayed on the server, the server kept its port, its folder
stayed in /tmp). Each test kills a real parent and checks what it leaves.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from craftbt.world.mineflayer.node_env import BODY_PACKAGES, SERVER_PACKAGES
from craftbt.world.mineflayer.server import FlyingSquid, port_accepts
from tests.e2e.squidkit import skip_without_node

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
#: a child must be gone this long after its parent died (the watchdogs poll every 0.5 s)
REAP_BOUND_S = 15
LONG_WAIT = """tree: longwait
description: Wait a long time (a target for faults).
root:
  sequence:
    name: Long
    children:
      - leaf: wait
        args: {ms: 60000}
"""


def dead(pid: int) -> bool:
    """Gone, or exited and waiting for a reaper (a zombie holds no socket and runs nothing)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True
    return state in ("Z", "X")


def wait_for(check: object, bound: float) -> bool:
    deadline = time.monotonic() + bound
    while time.monotonic() < deadline:
        if check():  # type: ignore[operator]
            return True
        time.sleep(0.1)
    return bool(check())  # type: ignore[operator]


def children(pid: int) -> list[int]:
    """The live processes whose parent is ``pid`` (from /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == pid and fields[0] not in ("Z", "X"):
            found.append(int(stat.parent.name))
    return found


def start_run(tmp_path: Path, server: FlyingSquid, name: str) -> subprocess.Popen[str]:
    """``craftbt run`` of a long wait on the server; its output goes to files (a full pipe would stall it)."""
    tree = tmp_path / "longwait.yaml"
    tree.write_text(LONG_WAIT)
    with (tmp_path / "out.txt").open("w") as out, (tmp_path / "err.txt").open("w") as err:
        return subprocess.Popen(
            [sys.executable, "-m", "craftbt", "run", str(tree), "--body", "mineflayer", "--port", str(server.port),
             "--username", name],
            env={**os.environ, "CRAFTBT_HOME": str(tmp_path / "home")}, stdout=out, stderr=err, text=True,
            cwd=tmp_path)


def finish(proc: subprocess.Popen[str], tmp_path: Path, timeout: float) -> str:
    """Wait for the run to end; its stderr."""
    proc.wait(timeout=timeout)
    return (tmp_path / "err.txt").read_text()


def wait_for_dispatch(tmp_path: Path, proc: subprocess.Popen[str], bound: float = 90) -> None:
    """Until the run's wait step is in the journal (the bot joined and the leaf runs)."""
    db = tmp_path / "home" / "journal.sqlite"

    def started() -> bool:
        if not db.exists():
            return False
        try:
            conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
            try:
                return conn.execute("SELECT COUNT(*) FROM steps").fetchone()[0] > 0
            finally:
                conn.close()
        except sqlite3.Error:  # not created yet
            return False

    if not wait_for(lambda: started() or proc.poll() is not None, bound) or proc.poll() is not None:
        proc.kill()
        proc.wait()
        pytest.fail(f"the run never dispatched its wait leaf (exit {proc.returncode}):"
                    f" {(tmp_path / 'out.txt').read_text()[-3000:]}")


def run_status(tmp_path: Path) -> tuple[str, list[str | None]]:
    conn = sqlite3.connect(tmp_path / "home" / "journal.sqlite")
    try:
        status = conn.execute("SELECT status FROM runs").fetchone()[0]
        codes = [r[0] for r in conn.execute("SELECT error_code FROM steps")]
    finally:
        conn.close()
    return status, codes


@pytest.mark.parametrize("signum", [signal.SIGKILL, signal.SIGTERM, signal.SIGINT])
def test_a_killed_run_leaves_no_node_process(squid_only_server: FlyingSquid, tmp_path: Path, signum: int) -> None:
    proc = start_run(tmp_path, squid_only_server, f"reap{signum}")
    wait_for_dispatch(tmp_path, proc)
    nodes = children(proc.pid)
    assert nodes, "the run has no bridge process"
    proc.send_signal(signum)
    err = finish(proc, tmp_path, 30)
    if signum == signal.SIGKILL:
        assert proc.returncode == -signal.SIGKILL
    else:
        assert proc.returncode == 128 + signum, err
        assert f"interrupted by {signal.Signals(signum).name}" in err
    assert wait_for(lambda: all(dead(n) for n in nodes), REAP_BOUND_S), f"Node {nodes} outlived craftbt"
    # the next command closes what SIGKILL left; the others closed it themselves
    subprocess.run([sys.executable, "-m", "craftbt", "run", "--goal", "obtain wooden_pickaxe"],
                   env={**os.environ, "CRAFTBT_HOME": str(tmp_path / "home")}, capture_output=True, timeout=300)
    status, _ = run_status(tmp_path)
    assert status == ("abandoned" if signum == signal.SIGKILL else "cancelled")


def test_a_server_gone_during_wait_escalates_the_run(squid_only_server: FlyingSquid, tmp_path: Path) -> None:
    proc = start_run(tmp_path, squid_only_server, "gonewait")
    wait_for_dispatch(tmp_path, proc)
    squid_only_server.kill()
    err = finish(proc, tmp_path, 60)
    assert proc.returncode == 1, err
    assert "craftbt bug" not in err
    status, codes = run_status(tmp_path)
    assert status == "escalated" and codes == ["body_disconnected"]


OWNER = """
import sys, time
sys.path.insert(0, {root!r})
from craftbt.world.mineflayer.server import FlyingSquid
server = FlyingSquid().start()
print(server.pid, server.port, server.workdir, flush=True)
time.sleep(600)
"""


def test_a_killed_owner_leaves_no_server_and_no_folder() -> None:
    skip_without_node(BODY_PACKAGES + SERVER_PACKAGES)
    owner = subprocess.Popen([sys.executable, "-c", OWNER.format(root=str(ROOT))], stdout=subprocess.PIPE, text=True)
    assert owner.stdout is not None
    pid, port, workdir = owner.stdout.readline().split()
    assert Path(workdir).is_dir() and port_accepts("127.0.0.1", int(port))
    owner.kill()
    owner.wait()
    assert wait_for(lambda: dead(int(pid)), REAP_BOUND_S), "flying-squid outlived its owner"
    assert wait_for(lambda: not port_accepts("127.0.0.1", int(port)), REAP_BOUND_S)
    assert wait_for(lambda: not Path(workdir).exists(), REAP_BOUND_S), "the server's folder stayed behind"


def test_a_stopped_server_removes_its_folder() -> None:
    skip_without_node(SERVER_PACKAGES)
    server = FlyingSquid().start()
    workdir = server.workdir
    assert workdir.is_dir()
    server.stop()
    assert not workdir.exists()
