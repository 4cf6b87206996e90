"""SIGKILL a build during its repairs and its resource sub-tasks, resume, and check nothing is lost or repeated.

Each session is a fresh ``python -m tests.build_crash_worker`` process on a
shelter site that needs a plank sub-task, a repair package (dirt in the shell)
and an access clearance (see the worker). Every kill aims at a phase — a
sub-task running, a repair package running, or anywhere — read from the build
database's events, then lands after a random number of further journal rows. An aimed kill waits for its
phase however long the machine takes to get there (a session that finishes first starts a new run), so
load cannot move the kills out of the phases the test is about.
After the build completes: the world is exactly the template, no cell was
placed twice, no step is left in flight, and kills did land in sub-tasks and
in repairs. ``CRAFTBT_REPAIR_KILLS`` sets the number of kills (default 20).
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
from craftbt.world.sim.snapshot import load_file
from tests.build_crash_worker import AT, CRAFTED, TEMPLATE

ROOT = Path(__file__).resolve().parents[1]
KILLS = int(os.environ.get("CRAFTBT_REPAIR_KILLS", "20"))


def _cmd(state: Path, template: str) -> list[str]:
    return [sys.executable, "-m", "tests.build_crash_worker", str(state), template]


def _probe(db: Path) -> tuple[int, str]:
    """(journal rows so far, the phase the build is in: subtask | repair | module | other)."""
    if not db.exists():
        return 0, "other"
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1)
        try:
            rows = int(
                con.execute("SELECT (SELECT COUNT(*) FROM actions) + (SELECT COUNT(*) FROM steps)").fetchone()[0]
            )
            last = con.execute(
                "SELECT type, body FROM events WHERE type IN ('build_package', 'subtask_spawned', "
                "'subtask_resumed', 'subtask_completed', 'build_checkpoint') ORDER BY seq DESC LIMIT 1"
            ).fetchone()
        finally:
            con.close()
    except sqlite3.Error:
        return 0, "other"
    if last is None:
        return rows, "other"
    kind, body = last
    if kind in ("subtask_spawned", "subtask_resumed"):
        return rows, "subtask"
    if kind == "build_package":
        return rows, "repair" if '"label":"repair"' in body else "module"
    return rows, "other"


def _kill_once(state: Path, template: str, aim: str, rng: random.Random) -> str | None:
    """Run a session and SIGKILL it in the aimed phase; the phase it died in, or None if it finished."""
    db = state / "build.sqlite"
    proc = subprocess.Popen(_cmd(state, template), cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    armed_at: int | None = None
    extra = rng.randint(0, 4)
    while proc.poll() is None:
        rows, phase = _probe(db)
        if armed_at is None and aim in ("any", phase):
            armed_at = rows
        if armed_at is not None and rows >= armed_at + extra:
            _, phase = _probe(db)
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            return phase
        time.sleep(0.002)
    return None


@pytest.mark.slow
@pytest.mark.parametrize("template", [TEMPLATE, "cottage"])
def test_sigkill_during_repairs_and_subtasks_resumes_to_the_exact_template(tmp_path: Path, template: str) -> None:
    rng = random.Random(2026)
    tpl = load_template(template)
    aims = ["subtask", "repair", "any"] if template in CRAFTED else ["repair", "any"]
    witnesses = BuildingPlanner().plan_build(tpl, AT, "N").witnesses
    landed: dict[str, int] = {}
    kills = 0
    run = 0
    while kills < KILLS:
        run += 1
        state = tmp_path / f"run{run}"
        finished = False
        while kills < KILLS and not finished:
            phase = _kill_once(state, template, aims[kills % len(aims)], rng)
            if phase is None:
                finished = True
            else:
                kills += 1
                landed[phase] = landed.get(phase, 0) + 1
        done = subprocess.run(_cmd(state, template), cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
        body = load_file(state / "world.snap")
        read = lambda p, b=body: b.block_at(p).name  # noqa: E731
        assert all(scan(w, read).complete for w in witnesses.values()), f"run {run}: world differs from template"
        store = BuildStore(state / "build.sqlite")
        try:
            build = store.builds()[0]
            counts = store.placement_counts(build)
            assert len(counts) == tpl.block_count() and set(counts.values()) == {1}, f"run {run}: double placement"
            assert [c.module_cursor for c in store.checkpoints(build)] == list(range(1, len(tpl.modules) + 1))
            assert not store.in_flight(build) and not store.steps_in_flight(build)
            meta = store.load_build(build)
            assert meta is not None
            assert all(t["status"] == "done" for t in store.subtasks(meta.task_id))
        finally:
            store.close()
        assert all(
            body.observe().inventory.get(item, 0) == 0 for item in tpl.materials() if item != CRAFTED.get(template)
        )
    assert landed.get("repair", 0) >= 2, landed
    if template in CRAFTED:
        assert landed.get("subtask", 0) >= 2, landed
