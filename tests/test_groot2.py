"""The Groot2 monitor protocol, judged by clients nobody here wrote.

``btview`` (PyPI; a terminal monitor for BT.CPP's ``Groot2Publisher``) reads a live ``craftbt run``:
``btview snapshot`` must print the tree's nodes with their statuses, and the leaf transitions that
``btview echo --json`` reports must be the journal's steps of that run, in order. A raw ZeroMQ client
checks the frames BT.CPP 4.10's ``groot2_publisher.cpp`` defines (headers, status buffer, blackboard,
recorded transitions, error replies).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import struct
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from craftbt.executor.executor import Executor
from craftbt.executor.journal import Journal
from craftbt.executor.watch import attach
from craftbt.trees.loader import load_path
from craftbt.world.scenarios.loader import world_body

zmq = pytest.importorskip("zmq", reason="pip install 'craftbt[monitor]' (pyzmq)")
msgpack = pytest.importorskip("msgpack")

from craftbt.capabilities.default import default_registry  # noqa: E402
from craftbt.executor.config import ExecutorConfig, scenario_fence  # noqa: E402
from craftbt.executor.groot2 import Groot2Publisher  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
TREE = ROOT / "trees" / "library" / "obtain_stone_pickaxe.yaml"
BIN = Path(sys.executable).parent


def _free_pair() -> int:
    """A port P with P and P+1 free on loopback."""
    for _ in range(50):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = int(s.getsockname()[1])
        if port >= 65534:
            continue
        with socket.socket() as s2:
            try:
                s2.bind(("127.0.0.1", port + 1))
            except OSError:
                continue
        return port
    raise RuntimeError("no two consecutive free ports")


def _wait_bound(port: int, proc: subprocess.Popen[str], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.2)
    raise AssertionError(f"nothing listens on {port}")


def _request(sock: Any, kind: str, *payload: bytes) -> list[bytes]:
    header = struct.pack("<BBI", 2, ord(kind), 0xC0FFEE)
    sock.send_multipart([header, *payload])
    reply: list[bytes] = sock.recv_multipart()
    return reply


def _leaf_steps(home: Path, run_id: str) -> list[dict[str, Any]]:
    journal = Journal(home / "journal.sqlite", read_only=True)
    try:
        steps: list[dict[str, Any]] = journal.run_detail(run_id)["steps"]
    finally:
        journal.close()
    return steps


def _episodes(transitions: list[tuple[str, str]], leaves: set[str]) -> list[tuple[str, str | None]]:
    """(leaf, how it ended) for each time a leaf left IDLE: SUCCESS, FAILURE, HALTED (reset while running), None."""
    out: list[tuple[str, str | None]] = []
    open_at: dict[str, int] = {}
    last: dict[str, str] = {}
    for name, to in transitions:
        if name not in leaves:
            continue
        was = last.get(name, "IDLE")
        last[name] = to
        if (was == "IDLE" and to != "IDLE") or (was in ("SUCCESS", "FAILURE") and to == "RUNNING"):
            open_at[name] = len(out)
            out.append((name, None))
        if to in ("SUCCESS", "FAILURE") or (to == "IDLE" and was == "RUNNING"):
            at = open_at.pop(name, None)
            if at is not None:
                out[at] = (name, to if to != "IDLE" else "HALTED")
    return out


def _agrees(ending: str | None, step: dict[str, Any]) -> bool:
    """The tree's view of a leaf and the journal's step say the same: a halted leaf is ``interrupted``
    in the journal unless its action had already landed (then it is verified)."""
    if ending == "SUCCESS":
        return bool(step["ok"])
    if ending == "FAILURE":
        return step["ok"] == 0 and step["error_code"] != "interrupted"
    return ending is None or bool(step["ok"]) or step["error_code"] == "interrupted"


def _subsequence(episodes: list[tuple[str, str | None]], steps: list[dict[str, Any]]) -> bool:
    it = iter(steps)
    return all(any(s["node"] == name and _agrees(end, s) for s in it) for name, end in episodes)


def test_the_frames_are_bt_cpp_4_10s(tmp_path: Path) -> None:
    """FULLTREE, STATUS, BLACKBOARD, recording and errors, read by a bare ZeroMQ REQ socket."""
    port = _free_pair()
    body = world_body("starter", 0)
    registry = default_registry()
    executor = Executor(registry, body, config=ExecutorConfig(geofence=scenario_fence(body)), home=tmp_path)
    ctx = zmq.Context()
    req = ctx.socket(zmq.REQ)
    req.setsockopt(zmq.RCVTIMEO, 5000)
    req.setsockopt(zmq.LINGER, 0)
    try:
        with Groot2Publisher(port) as publisher:
            req.connect(f"tcp://127.0.0.1:{port}")
            before = _request(req, "T")
            assert b"waiting for a run" in before[1]  # a placeholder until a run starts
            started = _request(req, "r", b"start")
            assert len(started[0]) == 22 and int(started[1]) > 1_000_000_000_000_000  # microseconds since 1970
            attach(executor, publisher)
            definition = load_path(TREE).definition
            assert definition is not None
            outcome = executor.run(definition, base_dir=TREE.parent)
            assert outcome.ok
            tree = _request(req, "T")
            head = tree[0]
            assert head[:6] == struct.pack("<BBI", 2, ord("T"), 0xC0FFEE) and len(head) == 22
            xml = tree[1].decode()
            assert xml.count("_uid=") == 35 and 'name="acquire_material#8"' in xml
            status = _request(req, "S")
            assert status[0][6:] == head[6:]  # one tree UUID
            pairs = [struct.unpack_from("<HB", status[1], i) for i in range(0, len(status[1]), 3)]
            assert [uid for uid, _ in pairs] == list(range(1, 36))
            assert pairs[0][1] == 2  # the root succeeded
            board = msgpack.unpackb(_request(req, "B", b"obtain_stone_pickaxe")[1])
            assert board["obtain_stone_pickaxe"]["tool"] == "stone_pickaxe"
            # recorded transitions: 9 bytes each; every leaf's last one is the journal's verdict, in order
            raw = _request(req, "t")[1]
            assert len(raw) % 9 == 0 and raw
            names = {i + 1: n.name for i, n in enumerate(publisher._nodes)}
            leaves = {n.name for n in publisher._nodes if type(n).__name__ == "CapabilityBehaviour"}
            codes = ("IDLE", "RUNNING", "SUCCESS", "FAILURE")
            recorded = [(names[struct.unpack_from("<H", raw, i + 6)[0]], codes[raw[i + 8]])
                        for i in range(0, len(raw), 9)]
            episodes = _episodes(recorded, leaves)
            steps = _leaf_steps(tmp_path, outcome.run_id)
            # every tick was recorded: one episode a journal step, in order, ending as the step says
            assert [name for name, _ in episodes] == [s["node"] for s in steps]
            assert all(_agrees(end, step) for (_, end), step in zip(episodes, steps, strict=True))
            assert ("move_to#11", "HALTED") in episodes  # the tree moved on: interrupted in the journal
            assert _request(req, "t")[1] == b""  # taken
            assert _request(req, "I", b'{"uid": 3}')[0] == b"error"  # a monitor may not steer the bot
            assert _request(req, "Z")[0:2] == [b"error", b"Request not recognized"]
            req.send_multipart([b"short"])
            assert req.recv_multipart() == [b"error", b"wrong request header"]
    finally:
        req.close(linger=0)
        ctx.term()
        executor.journal.close()


@pytest.mark.slow
def test_btview_snapshot_and_echo_follow_a_craftbt_run(tmp_path: Path) -> None:
    btview = shutil.which("btview", path=str(BIN)) or shutil.which("btview")
    if btview is None:
        pytest.skip("pip install btview (the dev extra)")
    port = _free_pair()
    env = {**os.environ, "CRAFTBT_HOME": str(tmp_path / "home"), "PYTHONPATH": str(ROOT)}
    run = subprocess.Popen([str(BIN / "craftbt"), "run", str(TREE), "--realtime", "--groot2", str(port),
                            "--groot2-wait", "30", "--json"], env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    try:
        _wait_bound(port, run)  # the run holds its first tick until a monitor asks (--groot2-wait)
        echo = subprocess.Popen([btview, "echo", "--json", "--port", str(port), "--poll-hz", "40",
                                 "--duration", "40"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(2)
        snap = subprocess.run([btview, "snapshot", "--port", str(port), "--no-legend"], capture_output=True,
                              text=True, timeout=30, env={**os.environ, "COLUMNS": "160"})
        assert snap.returncode == 0, snap.stderr
        for name in ("Get a stone pickaxe", "Have a wooden pickaxe", "acquire_material#1", "craft_recipe#13"):
            assert name in snap.stdout, snap.stdout
        assert "RUNNING" in snap.stdout and "IDLE" in snap.stdout
        out, err = run.communicate(timeout=90)
        assert run.returncode == 0, err
        run_id = json.loads(out)["run_id"]
        echo.terminate()
        echoed, echo_err = echo.communicate(timeout=30)
        assert echoed, echo_err
    finally:
        for proc in (run,):
            if proc.poll() is None:
                proc.kill()
    transitions = [json.loads(line) for line in echoed.splitlines() if line.startswith("{")]
    steps = _leaf_steps(tmp_path / "home", run_id)
    # btview names a node "name [Registration]"
    named = [(t["node"].rsplit(" [", 1)[0] if t["node"].endswith("]") else t["node"], t["to"]) for t in transitions]
    episodes = _episodes(named, {s["node"] for s in steps})
    # polled at 40 Hz against 20 ticks a second: a one-tick leaf may slip between two polls, nothing else
    assert _subsequence(episodes, steps), (episodes, [(s["node"], s["ok"]) for s in steps])
    seen = {name for name, _ in episodes}
    assert {"acquire_material#8", "craft_recipe#13"} <= seen, episodes
    # the first leaf was running when echo took its first look (its baseline): echo saw it end
    assert ("acquire_material#1", "IDLE") in named
    assert len(episodes) >= len(steps) * 0.6
    assert ("craft_recipe#13", "SUCCESS") in episodes


BTJUDGE = Path("/work/shared/tools/btjudge/btjudge")


def test_bt_cpp_builds_the_served_tree_with_one_node_a_uid(tmp_path: Path) -> None:
    """BT.CPP 4.10 itself (the btjudge loader) reads the FULLTREE XML: as many subtree instances and nodes."""
    judge = Path(os.environ.get("CRAFTBT_BTJUDGE", BTJUDGE))
    if not judge.is_file():
        pytest.skip("no btjudge (BehaviorTree.CPP 4.10 as a loader); set CRAFTBT_BTJUDGE")
    from craftbt.capabilities.context import CapabilityContext
    from craftbt.trees.btcpp_monitor import monitor_tree
    from craftbt.trees.build import build

    definition = load_path(TREE).definition
    assert definition is not None
    body = world_body("starter", 0)
    built = build(definition, CapabilityContext(body=body, registry=default_registry()), base_dir=TREE.parent)
    served = monitor_tree(built.root, definition.tree)
    xml = tmp_path / "served.xml"
    xml.write_text(served.xml, encoding="utf-8")
    done = subprocess.run([str(judge), str(xml), "ok"], capture_output=True, text=True, timeout=60)
    assert "RESULT loaded-and-ticked" in done.stdout, done.stdout + done.stderr
    assert f"created tree with {len(served.blocks)} (sub)tree instance(s), {len(served.nodes)} nodes" in done.stdout


def test_serve_publishes_each_run_of_the_bot(tmp_path: Path) -> None:
    """``craftbt serve --groot2 PORT``: the bot's executor serves every run it makes."""
    import httpx

    from craftbt.serve.launch import BotOptions, make_bot
    from tests.servekit import AUTH, live_server

    port = _free_pair()
    bot = make_bot(BotOptions(scenario=None, pace_ms=0.0, home=tmp_path, groot2=port))
    ctx = zmq.Context()
    req = ctx.socket(zmq.REQ)
    req.setsockopt(zmq.RCVTIMEO, 5000)
    req.setsockopt(zmq.LINGER, 0)
    try:
        with live_server(bot) as live:
            req.connect(f"tcp://127.0.0.1:{port}")
            tree = "tree: served\nroot: {sequence: {name: Served root, children: [{leaf: wait, args: {ms: 100}}]}}\n"
            started = httpx.post(f"{live.url}/api/cognitive/execute", json={"tree": tree}, headers=AUTH)
            assert started.status_code == 202, started.text
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                xml = _request(req, "T")[1].decode()
                status = _request(req, "S")[1]
                if 'name="Served root"' in xml and status[2] == 2:
                    break
                time.sleep(0.1)
            assert 'name="Served root"' in xml and status[:3] == struct.pack("<HB", 1, 2)
    finally:
        req.close(linger=0)
        ctx.term()
        for watcher in bot.watchers:
            watcher.close()  # type: ignore[attr-defined]
