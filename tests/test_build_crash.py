"""SIGKILL the building process at random points, restart it, and check the build survives.

Each kill is a fresh ``python -m craftbt build hut`` subprocess on the embedded
world, killed either after a random number of journaled actions or after a
random delay (startup, resume, checkpoint writes). After the build completes:
the world file equals the template, no cell was placed twice (journal and
inventory conservation agree), and every checkpoint seen after any kill is
still there. ``CRAFTBT_CRASH_KILLS`` sets the number of kills (default 50).
"""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from craftbt.executor.build_state.store import BuildStore
from craftbt.planners.building.planner import BuildingPlanner
from craftbt.trees.structure_template import load_template
from craftbt.trees.structure_witness import scan
from craftbt.world.body import BlockPos
from craftbt.world.sim.snapshot import load_file

ROOT = Path(__file__).resolve().parents[1]
AT = "3,64,3"
KILLS = int(os.environ.get("CRAFTBT_CRASH_KILLS", "50"))


def _cmd(state: Path, seed: int) -> list[str]:
    return [
        sys.executable,
        "-m",
        "craftbt",
        "build",
        "hut",
        "--at",
        AT,
        "--state",
        str(state),
        "--seed",
        str(seed),
        "--json",
    ]


def _actions(db: Path) -> int:
    if not db.exists():
        return 0
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1)
        try:
            return int(con.execute("SELECT COUNT(*) FROM actions").fetchone()[0])
        finally:
            con.close()
    except sqlite3.Error:
        return 0


def _checkpoint_ids(db: Path) -> set[str]:
    if not db.exists():
        return set()
    store = BuildStore(db)
    try:
        return {c.checkpoint_id for b in store.builds() for c in store.checkpoints(b)}
    finally:
        store.close()


def _kill_once(state: Path, seed: int, rng: random.Random) -> bool:
    """Start the build and SIGKILL it at a random point; False if it finished first."""
    db = state / "build.sqlite"
    target = _actions(db) + rng.randint(1, 6)
    by_time = rng.random() < 0.3
    delay = rng.uniform(0.3, 2.5)
    proc = subprocess.Popen(_cmd(state, seed), cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    start = time.monotonic()
    while proc.poll() is None:
        if (by_time and time.monotonic() - start >= delay) or (not by_time and _actions(db) >= target):
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            return True
        time.sleep(0.002)
    return False


@pytest.mark.slow
def test_sigkill_at_random_points_never_loses_or_repeats_work(tmp_path: Path) -> None:
    rng = random.Random(1234)
    tpl = load_template("hut")
    witnesses = BuildingPlanner().plan_build(tpl, BlockPos(3, 64, 3), "N").witnesses
    kills = 0
    seed = 0
    while kills < KILLS:
        seed += 1
        state = tmp_path / f"seed{seed}"
        seen: set[str] = set()
        finished = False
        while kills < KILLS and not finished:
            if _kill_once(state, seed, rng):
                kills += 1
                now = _checkpoint_ids(state / "build.sqlite")
                assert seen <= now, "a checkpoint was lost after a kill"
                seen = now
            else:
                finished = True
        done = subprocess.run(_cmd(state, seed), cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
        body = load_file(state / "world.snap")
        read = lambda p, b=body: b.block_at(p).name  # noqa: E731
        assert all(scan(w, read).complete for w in witnesses.values()), f"seed {seed}: world differs from template"
        store = BuildStore(state / "build.sqlite")
        try:
            build = store.builds()[0]
            counts = store.placement_counts(build)
            assert len(counts) == tpl.block_count() and set(counts.values()) == {1}, f"seed {seed}: double placement"
            ckpts = store.checkpoints(build)
            assert [c.module_cursor for c in ckpts] == [1, 2, 3]
            assert seen <= {c.checkpoint_id for c in ckpts}
            assert not store.in_flight(build)
        finally:
            store.close()
        # Conservation: exactly the template's materials were given, so any second placement would overdraw.
        assert all(body.observe().inventory.get(item, 0) == 0 for item in tpl.materials())
