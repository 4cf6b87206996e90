"""Issue 7 on a real server: the 3-module shelter, killed mid-module, resumed, verified block by block.

``craftbt build shelter --body mineflayer`` runs as a subprocess with its own
bot. Its materials come from ``/give``: the builder logs in once beforehand,
receives them and leaves, and flying-squid keeps a player's inventory across
logins. A second bot (the watcher, on its own plot) follows the shell going
up, the building process group (Python and its Node bridge) gets SIGKILL while
the shell is partly built, and the same command with ``--resume`` finishes it.
The watcher then reads every cell through the ``get_block_at`` leaf, and the
build journal shows three checkpoints and no cell placed twice.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import signal
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from craftbt.capabilities.structures import Facing
from craftbt.executor.build_state.store import BuildStore
from craftbt.planners.building.planner import BuildingPlanner, BuildPlan
from craftbt.trees.structure_template import load_template
from craftbt.world.body import BlockPos
from craftbt.world.mineflayer.body import MineflayerBody
from tests.e2e.squidkit import (
    McServer,
    block_name,
    connect,
    enter_plot,
    give,
    next_plot,
    stand_at,
    unique_name,
    wait_until,
)
from tests.leafkit import run_leaf

pytestmark = pytest.mark.e2e

TEMPLATE = "shelter"
FACING = Facing.N
#: The shelter spans x 0..8 and z -3..4 from its corner; this keeps it inside one 16x16 plot.
CORNER_FROM_STAND = (2, -2)
KILL_AFTER_SHELL_BLOCKS = 10
BUILD_TIMEOUT_S = 150.0


def craftbt_command(*args: str) -> list[str]:
    script = Path(sys.executable).with_name("craftbt")
    return [str(script), *args] if script.exists() else [sys.executable, "-m", "craftbt", *args]


def offline_uuid(name: str) -> str:
    """The UUID an offline-mode server gives ``name`` (Java's nameUUIDFromBytes of "OfflinePlayer:<name>")."""
    digest = bytearray(hashlib.md5(f"OfflinePlayer:{name}".encode()).digest())
    digest[6] = (digest[6] & 0x0F) | 0x30
    digest[8] = (digest[8] & 0x3F) | 0x80
    return str(uuid.UUID(bytes=bytes(digest)))


def mtime_ns(path: Path) -> int:
    try:
        return path.stat().st_mtime_ns
    except FileNotFoundError:
        return 0


def saved_since(path: Path, before_ns: int) -> bool:
    """flying-squid rewrote the player's data file (its mtime moved from ``before_ns``) and the write is
    complete (the gzip CRC checks). Compared with the old mtime, not a clock: file times are coarse."""
    try:
        if path.stat().st_mtime_ns == before_ns:
            return False
        gzip.decompress(path.read_bytes())
    except (OSError, EOFError):
        return False
    return True


def left_the_game(watcher: MineflayerBody, since: int, name: str) -> bool:
    return any(f"{name} left the game" in line for line in watcher.chat_messages(since)[1])


def test_shelter_is_built_killed_mid_module_resumed_and_verified(mc_server: McServer, tmp_path: Path) -> None:
    if mc_server.workdir is None:
        pytest.skip("needs flying-squid's player data files to know when a given inventory was saved")
    template = load_template(TEMPLATE)
    name = unique_name("bld")
    player_file = mc_server.workdir / "world" / "playerdata" / f"{offline_uuid(name)}.dat"

    # The builder's materials, given by /give and kept by the server until it logs in again. No other
    # bot is online meanwhile: flying-squid 1.12 disconnects every bot that sees another one teleport.
    builder = connect(mc_server, name)
    try:
        stand = next_plot(mc_server, builder.position())
        stand_at(builder, stand)
        for item, count in sorted(template.materials().items()):
            give(builder, name, item, count)
    finally:
        # The login's own save is long done: connecting, teleporting and giving took several round trips.
        before = mtime_ns(player_file)
        builder.close()
    wait_until(lambda: saved_since(player_file, before), 10, f"{name}'s inventory saved")
    corner = stand.offset(dx=CORNER_FROM_STAND[0], dz=CORNER_FROM_STAND[1])
    plan = BuildingPlanner().plan_build(template, corner, FACING)

    watcher = connect(mc_server)
    try:
        enter_plot(mc_server, watcher)  # safe now: the builder is offline
        _build_kill_resume(mc_server, watcher, name, player_file, plan, tmp_path)
        _verify(watcher, plan, sum(template.materials().values()))
    finally:
        watcher.close()
    _verify_journal(tmp_path / "state", plan)


def _build_kill_resume(
    mc_server: McServer, watcher: MineflayerBody, name: str, player_file: Path, plan: BuildPlan, tmp_path: Path
) -> None:
    corner = plan.origin
    shell = plan.witnesses["shell"].absolute_placements()
    build = craftbt_command(
        "build", TEMPLATE, "--at", f"{corner.x},{corner.y},{corner.z}", "--facing", FACING.value,
        "--body", "mineflayer", "--host", mc_server.host, "--port", str(mc_server.port),
        "--username", name, "--version", mc_server.version, "--state", str(tmp_path / "state"),
    )  # fmt: skip
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "NO_COLOR": "1"}

    # Session 1: killed (the whole process group, bridge included) with the shell partly up.
    mark, _ = watcher.chat_messages()
    first_log = tmp_path / "first.log"
    with first_log.open("wb") as log:
        first = subprocess.Popen(build, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    try:

        def shell_partly_up() -> bool:
            if first.poll() is not None:
                pytest.fail(f"the build exited ({first.returncode}) before it was killed: {_tail(first_log)}")
            return sum(block_name(watcher, p) == b for p, b in shell) >= KILL_AFTER_SHELL_BLOCKS

        wait_until(shell_partly_up, 90, f"{KILL_AFTER_SHELL_BLOCKS} shell blocks")
    finally:
        before = mtime_ns(player_file)
        os.killpg(first.pid, signal.SIGKILL)
        first.wait(10)
    standing = sum(block_name(watcher, p) == b for p, b in shell)
    assert KILL_AFTER_SHELL_BLOCKS <= standing < len(shell), "the kill must land mid-module"
    wait_until(lambda: left_the_game(watcher, mark, name), 15, f"the server to drop the killed {name}")
    wait_until(lambda: saved_since(player_file, before), 10, f"{name}'s inventory saved")

    # Session 2: the same command with --resume finishes the build.
    resumed = subprocess.run(
        [*build, "--resume"], capture_output=True, text=True, env=env, timeout=BUILD_TIMEOUT_S, check=False
    )
    assert resumed.returncode == 0, resumed.stdout[-3000:] + resumed.stderr[-3000:]
    assert "resume:" in resumed.stdout and "complete" in resumed.stdout


def _verify(watcher: MineflayerBody, plan: BuildPlan, blocks: int) -> None:
    """Every cell of every module, through the get_block_at leaf on the watcher's body."""
    wrong: list[tuple[BlockPos, str, object]] = []
    cells = 0
    for witness in plan.witnesses.values():
        expected = [*witness.absolute_placements(), *((p, "air") for p in witness.absolute_empty())]
        for pos, block in expected:
            probe = run_leaf(watcher, "get_block_at", {"position": {"x": pos.x, "y": pos.y, "z": pos.z}}, 100)
            assert probe.ok, probe.result.error
            cells += 1
            if probe.observables["block"] != block:
                wrong.append((pos, block, probe.observables["block"]))
    assert not wrong, wrong
    assert cells > blocks  # every placement plus the cells that must stay clear


def _verify_journal(state: Path, plan: BuildPlan) -> None:
    """Three checkpoints, every placement realized exactly once across both sessions."""
    store = BuildStore(state / "build.sqlite")
    try:
        (build_id,) = store.builds()
        meta = store.load_build(build_id)
        assert meta is not None and meta.status.value == "complete"
        assert len(meta.checkpoints) == 3
        counts = store.placement_counts(build_id)
        assert max(counts.values()) == 1, {c: n for c, n in counts.items() if n > 1}
        placed = {BlockPos(*c) for c in counts}
        assert placed == {p for w in plan.witnesses.values() for p, _ in w.absolute_placements()}
    finally:
        store.close()


def _tail(path: Path, chars: int = 2000) -> str:
    return path.read_text(errors="replace")[-chars:]
