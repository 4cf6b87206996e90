"""The Groot2 monitor protocol: the running tree served as BT.CPP 4.10's ``Groot2Publisher`` serves it.

Groot2, ``btview`` and other BT.CPP monitors connect with a ZeroMQ REQ socket to ``port`` (REP here)
and may subscribe to ``port + 1`` (PUB here; BT.CPP sends breakpoint notices there, which we never
do). Every request is multipart: a 6-byte header (protocol 2, request type, a little-endian uint32
request id), and for some types a second part. Every reply starts with a 22-byte header (the request
header echoed, then a 16-byte tree UUID) followed by the payload; an error reply is the two parts
``error`` and a message. Served here, as ``groot2_publisher.cpp`` does:

``T`` FULLTREE
    the tree as BT.CPP XML with ``_uid`` on every node (:mod:`trees.btcpp_monitor`).
``S`` STATUS
    3 bytes a node, in UID order: little-endian uint16 UID, uint8 status (0 idle, 1 running,
    2 success, 3 failure; 11-13 idle after running, success or failure: a node that was reset).
``B`` BLACKBOARD
    part 2 names blackboards (``;``-separated: the main tree ID or a subtree's ``_fullpath``);
    the reply is MessagePack of ``{name: {key: value}}``. craftbt subtrees share the caller's
    blackboard, so every name answers with the same entries.
``r`` TOGGLE_RECORDING, ``t`` GET_TRANSITIONS
    ``start`` clears the transition buffer and replies with the wall clock in microseconds;
    transitions are then kept (the last 1000) and each ``t`` request takes them: 9 bytes each,
    a 6-byte microsecond offset from the start, the uint16 UID and the new status.
``A`` REMOVE_ALL_HOOKS, ``X`` DISABLE_ALL_HOOKS, ``D`` HOOKS_DUMP
    accepted (there are no hooks: the dump is ``[]``). Breakpoints and node replacement
    (``I``, ``R``, ``U``) are refused with an error reply: a monitor watches, it does not steer the bot.

Before the first tick, and between two runs of a goal, the tree served is the last one (or a
one-node placeholder before any); each run has its own tree UUID, which tells a client to re-read
the tree. Binds 127.0.0.1 unless told otherwise. Needs ``pyzmq`` (the ``monitor`` extra).
"""

from __future__ import annotations

import json
import struct
import threading
import time
import uuid
from collections import deque
from collections.abc import Iterable
from enum import IntEnum
from typing import TYPE_CHECKING, Any

import py_trees
from py_trees.common import Status

from craftbt.core.errors import CraftbtError, ErrorCode
from craftbt.trees.btcpp import path_to_id
from craftbt.trees.btcpp_monitor import MonitorTree, monitor_tree

if TYPE_CHECKING:
    from craftbt.executor.executor import RunOutcome
    from craftbt.executor.state import RunState

#: ``BT::Monitor::kProtocolID``
PROTOCOL_ID = 2
REQUEST_HEADER = struct.Struct("<BBI")
#: BT.CPP keeps the last 1000 transitions while recording
MAX_TRANSITIONS = 1000
#: the REP loop wakes this often to notice a close
POLL_MS = 100


class Request(IntEnum):
    """``BT::Monitor::RequestType`` in BT.CPP 4.10."""

    FULLTREE = ord("T")
    STATUS = ord("S")
    BLACKBOARD = ord("B")
    HOOK_INSERT = ord("I")
    HOOK_REMOVE = ord("R")
    BREAKPOINT_REACHED = ord("N")
    BREAKPOINT_UNLOCK = ord("U")
    HOOKS_DUMP = ord("D")
    REMOVE_ALL_HOOKS = ord("A")
    DISABLE_ALL_HOOKS = ord("X")
    TOGGLE_RECORDING = ord("r")
    GET_TRANSITIONS = ord("t")


class NodeStatus(IntEnum):
    """``BT::NodeStatus``."""

    IDLE = 0
    RUNNING = 1
    SUCCESS = 2
    FAILURE = 3


_FROM_PY_TREES = {Status.RUNNING: NodeStatus.RUNNING, Status.SUCCESS: NodeStatus.SUCCESS,
                  Status.FAILURE: NodeStatus.FAILURE, Status.INVALID: NodeStatus.IDLE}
_PLACEHOLDER = ('<root BTCPP_format="4" main_tree_to_execute="craftbt">\n  <BehaviorTree ID="craftbt" _fullpath="">\n'
                '    <AlwaysRunning name="waiting for a run" _uid="1" />\n  </BehaviorTree>\n'
                '  <TreeNodesModel />\n</root>\n')


def status_byte(new: Status, previous: int) -> int:
    """What BT.CPP's status buffer holds: a reset node is ``10 + `` the status it had before."""
    code = _FROM_PY_TREES[new]
    if code is NodeStatus.IDLE and previous in (NodeStatus.RUNNING, NodeStatus.SUCCESS, NodeStatus.FAILURE):
        return 10 + previous
    if code is NodeStatus.IDLE and previous > 10:
        return previous
    return int(code)


def _zmq() -> Any:
    try:
        import zmq
    except ImportError:
        raise CraftbtError.single(
            ErrorCode.INVALID_ARGUMENT, "the Groot2 monitor needs pyzmq, which is not installed",
            expected="pip install 'craftbt[monitor]'") from None
    return zmq


class Groot2Publisher:
    """A :class:`~executor.watch.RunWatcher` that serves the running tree to Groot2 monitors.

    ``Groot2Publisher(port)`` binds at once (so a port in use fails before a run starts); attach it
    with :func:`executor.watch.attach` and :meth:`close` it when done (it is also a context manager).
    """

    def __init__(self, port: int, *, host: str = "127.0.0.1", wait_for_client_s: float = 0.0) -> None:
        zmq = _zmq()
        if not 1 <= port <= 65534:
            raise CraftbtError.single(ErrorCode.INVALID_ARGUMENT, f"Groot2 port {port} leaves no room for PUB on "
                                      "port + 1", expected="1..65534")
        self.port = port
        self.host = host
        #: block the first tick of a run until a client has asked something (or this many seconds passed)
        self.wait_for_client_s = wait_for_client_s
        self._ctx = zmq.Context()
        self._server: Any = self._ctx.socket(zmq.REP)
        self._publisher: Any = self._ctx.socket(zmq.PUB)
        for sock in (self._server, self._publisher):
            sock.setsockopt(zmq.LINGER, 0)
            sock.setsockopt(zmq.SNDTIMEO, 1000)
        try:
            self._server.bind(f"tcp://{host}:{port}")
            self._publisher.bind(f"tcp://{host}:{port + 1}")
        except zmq.ZMQError as exc:
            self._ctx.destroy(linger=0)
            raise CraftbtError.single(ErrorCode.INVALID_ARGUMENT, f"Groot2 monitor cannot bind {host}:{port} and "
                                      f"{port + 1}: {exc}", expected="two free ports (--groot2 PORT uses PORT "
                                      "and PORT+1)") from None
        self._lock = threading.Lock()
        self._tree = MonitorTree(_PLACEHOLDER)
        self._tree_id = uuid.uuid4().bytes
        self._tree_name = "craftbt"
        self._statuses = bytearray(b"\x01\x00\x00")
        self._nodes: list[py_trees.behaviour.Behaviour] = []
        self._recording = False
        self._record_start_us = 0
        self._transitions: deque[bytes] = deque(maxlen=MAX_TRANSITIONS)
        self._contacted = threading.Event()
        self._closing = threading.Event()
        self._thread = threading.Thread(target=self._serve, name="craftbt-groot2", daemon=True)
        self._thread.start()

    # -- RunWatcher --------------------------------------------------------------------------
    def on_start(self, run: RunState, root: py_trees.behaviour.Behaviour, tree_name: str) -> None:
        tree = monitor_tree(root, path_to_id(tree_name))
        with self._lock:
            self._tree_name = path_to_id(tree_name)
            self._tree = tree
            self._tree_id = uuid.uuid4().bytes
            self._nodes = tree.nodes
            self._statuses = bytearray(b"".join(struct.pack("<HB", uid, 0) for uid in range(1, len(tree.nodes) + 1)))
        if self.wait_for_client_s > 0:
            self._contacted.wait(self.wait_for_client_s)

    def on_tick(self, run: RunState, root: py_trees.behaviour.Behaviour) -> None:
        now_us = time.time_ns() // 1000
        buffer = self._statuses
        with self._lock:
            for i, node in enumerate(self._nodes):
                at = 3 * i + 2
                previous = buffer[at]
                byte = status_byte(node.status, previous)
                if byte != previous:
                    buffer[at] = byte
                    if self._recording:  # BT.CPP records the new status: IDLE (0) for a reset node
                        self._record(now_us, i + 1, byte if byte < 10 else NodeStatus.IDLE)

    def on_finish(self, outcome: RunOutcome) -> None:
        """The last statuses stay served until the next run starts (a monitor sees how the run ended)."""

    def _record(self, now_us: int, uid: int, status: int) -> None:
        offset = max(0, now_us - self._record_start_us)
        self._transitions.append(struct.pack("<Q", offset)[:6] + struct.pack("<HB", uid, status))

    # -- the REP loop -----------------------------------------------------------------------
    def _serve(self) -> None:
        zmq = _zmq()
        poller = zmq.Poller()
        poller.register(self._server, zmq.POLLIN)
        while not self._closing.is_set():
            try:
                if not poller.poll(POLL_MS):
                    continue
                frames = self._server.recv_multipart()
            except zmq.ZMQError:
                break
            self._contacted.set()
            try:
                reply = self.answer(frames)
            except Exception as exc:  # whatever goes wrong answers the client; the loop lives on
                reply = [b"error", f"{type(exc).__name__}: {exc}".encode()]
            try:
                self._server.send_multipart(reply)
            except zmq.ZMQError:
                break

    def answer(self, frames: list[bytes]) -> list[bytes]:
        """The reply to one request (every part); public so the protocol can be tested without sockets."""
        if not frames or len(frames[0]) != REQUEST_HEADER.size:
            return [b"error", b"wrong request header"]
        _protocol, kind, request_id = REQUEST_HEADER.unpack(frames[0])
        with self._lock:
            header = REQUEST_HEADER.pack(PROTOCOL_ID, kind, request_id) + self._tree_id
            if kind == Request.FULLTREE:
                return [header, self._tree.xml.encode()]
            if kind == Request.STATUS:
                return [header, bytes(self._statuses)]
            if kind in (Request.REMOVE_ALL_HOOKS, Request.DISABLE_ALL_HOOKS):
                return [header]
            if kind == Request.HOOKS_DUMP:
                return [header, b"[]"]
            if kind == Request.GET_TRANSITIONS:
                taken = b"".join(self._transitions)
                self._transitions.clear()
                return [header, taken]
        if kind in (Request.BLACKBOARD, Request.TOGGLE_RECORDING) and len(frames) != 2:
            return [b"error", b"must be 2 parts message"]
        if kind == Request.BLACKBOARD:
            return [header, self._blackboards(frames[1].decode("utf-8", "replace").split(";"))]
        if kind == Request.TOGGLE_RECORDING:
            command = frames[1].decode("utf-8", "replace")
            with self._lock:
                if command == "start":
                    self._record_start_us = time.time_ns() // 1000
                    self._transitions.clear()
                    self._recording = True
                    return [header, str(self._record_start_us).encode()]
                if command == "stop":
                    self._recording = False
            return [header]
        if kind in (Request.HOOK_INSERT, Request.HOOK_REMOVE, Request.BREAKPOINT_UNLOCK):
            return [b"error", b"craftbt serves a read-only monitor: no breakpoints or node replacement"]
        return [b"error", b"Request not recognized"]

    def _blackboards(self, names: Iterable[str]) -> bytes:
        import msgpack

        entries = _blackboard_entries()
        with self._lock:
            known = set(self._tree.blocks) | {self._tree_name}
        return bytes(msgpack.packb({name: entries for name in names if name in known}, use_bin_type=True))

    # -- lifetime --------------------------------------------------------------------------
    def close(self) -> None:
        self._closing.set()
        self._thread.join(timeout=2)
        self._server.close(linger=0)
        self._publisher.close(linger=0)
        self._ctx.term()

    def __enter__(self) -> Groot2Publisher:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _blackboard_entries() -> dict[str, Any]:
    """The shared blackboard as JSON values, keys without py_trees' leading ``/``."""
    storage = dict(py_trees.blackboard.Blackboard.storage)
    return {key.lstrip("/"): json.loads(json.dumps(value, default=_plain)) for key, value in storage.items()}


def _plain(value: Any) -> Any:
    return value.model_dump(mode="json") if hasattr(value, "model_dump") else str(value)
