"""The real body: a mineflayer bot driven through JSPyBridge, implementing ``world.body.Body``.

JSPyBridge makes every call a synchronous round trip to one Node process with a
10 s default timeout, and runs JS event handlers on a single shared Python
thread (JSPyBridge #130, #141; mineflayer #3416, #2893). So the bridge stays
coarse: ``adapter.js`` (ours) exposes one entry point, ``call(bot, method,
argsJson)``, that never awaits and returns one JSON string. Actions start in
Node and return an id at once; :class:`MineflayerAction` reads its state from
the tick's view. No Python callback is ever registered on a JS emitter, so a
busy Python thread cannot stall mineflayer.

Reads are batched per game tick: the first read of a tick (position, health,
food, inventory, time, nearby entities, the state of every action) fetches one
``view`` and later reads in the same tick are served from it, until an action
starts or one is seen to finish (``round_trips`` counts the bridge calls per
adapter method).

A server that goes away fails the running actions with ``body_disconnected``
(the adapter listens to ``end``), and every later call raises
:class:`BodyError` with that code. A bridge that stops answering is treated
the same way: it cannot be restarted inside one Python process (#130).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import threading
import time
import weakref
from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass
from types import TracebackType
from typing import Any

from craftbt.world import mcdata
from craftbt.world.body import (
    TICKS_PER_SECOND,
    ActionStatus,
    BlockInfo,
    BlockPos,
    BodyError,
    BodyErrorCode,
    EntityInfo,
    Face,
    ItemStack,
    Observation,
    Position,
    WindowInfo,
    pitch_from_notch,
    yaw_from_notch,
)
from craftbt.world.mineflayer.node_env import (
    BODY_PACKAGES,
    PACKAGE_DIR,
    find_node_modules,
    missing_packages,
    setup_hint,
)

DEFAULT_VERSION = "1.21.4"
#: ``version`` for :meth:`MineflayerBody.connect` that takes the server's own (mineflayer pings it first)
AUTO_VERSION = "auto"
#: Seconds one bridge round trip may take; adapter calls never await, so this only trips on a dead bridge.
CALL_TIMEOUT_S = 10.0
POLL_INTERVAL_S = 0.05
#: Longest wait for flying-squid's answer to the login look; a vanilla server never answers.
LOGIN_SETTLE_S = 1.5
ADAPTER = PACKAGE_DIR / "adapter.js"
#: Entities a tick's view carries; ``entities()`` with a larger radius asks the adapter itself.
VIEW_ENTITY_RADIUS = 32.0
#: How long one path search for :meth:`MineflayerBody.plan` may think (mineflayer-pathfinder's own default: 5 s).
PLAN_TIMEOUT_MS = 2_000

_STATUS = {s.value: s for s in ActionStatus}


def _code(raw: str) -> BodyErrorCode:
    try:
        return BodyErrorCode(raw)
    except ValueError:
        return BodyErrorCode.UNSUPPORTED


def _body_error(err: dict[str, Any]) -> BodyError:
    return BodyError(_code(str(err.get("code"))), str(err.get("detail")), retryable=bool(err.get("retryable")))


class _Bridge:
    """The process-wide Node side: one JSPyBridge process with ``adapter.js`` loaded."""

    _instance: _Bridge | None = None
    _guard = threading.Lock()

    def __init__(self) -> None:
        missing = missing_packages(BODY_PACKAGES)
        node_modules = find_node_modules()
        if missing or node_modules is None:
            raise BodyError(BodyErrorCode.UNSUPPORTED, setup_hint(missing or list(BODY_PACKAGES)))
        # The bridge's Node inherits the environment at import time.
        os.environ.setdefault("NODE_PATH", str(node_modules))
        # JSPyBridge sets FORCE_COLOR in *our* environment for its Node child; put ours back, or every
        # later rich/typer console in this process (the CLI's own errors, the service) turns on ANSI colour
        force_color = os.environ.get("FORCE_COLOR")
        import javascript
        from javascript import config

        if force_color is None:
            os.environ.pop("FORCE_COLOR", None)
        else:
            os.environ["FORCE_COLOR"] = force_color

        # The root object's `_require` is Node's own require. javascript.require()
        # falls back to `npm install` whenever a load fails, which must never happen here.
        adapter = config.global_jsi._require(str(ADAPTER), timeout=60)
        self._javascript = javascript
        self.versions: dict[str, str] = json.loads(adapter.init(str(node_modules), timeout=60))
        # Bound once: every attribute access on a proxy is itself a round trip.
        self._call = adapter.call
        self._create = adapter.createBot
        self._quit = adapter.quit
        self._lock = threading.Lock()
        self.broken: str | None = None

    @classmethod
    def get(cls) -> _Bridge:
        with cls._guard:
            if cls._instance is None:
                cls._instance = _Bridge()
            return cls._instance

    def _roundtrip(self, fn: Any, *args: Any, timeout: float = CALL_TIMEOUT_S) -> Any:
        if self.broken:
            raise BodyError(BodyErrorCode.BODY_DISCONNECTED, f"bridge to Node is gone: {self.broken}")
        try:
            with self._lock:
                return fn(*args, timeout=timeout)
        except Exception as exc:  # the bridge raises bare Exception for timeouts and a dead Node
            self.broken = f"{type(exc).__name__}: {exc}"
            raise BodyError(BodyErrorCode.BODY_DISCONNECTED, f"bridge call failed: {self.broken}") from exc

    def call(self, bot_id: int, method: str, args: dict[str, Any] | None = None) -> Any:
        raw = self._roundtrip(self._call, bot_id, method, json.dumps(args or {}))
        reply = json.loads(raw)
        if "error" in reply:
            raise _body_error(reply["error"])
        return reply["ok"]

    def create_bot(self, options: dict[str, Any]) -> int:
        reply = json.loads(self._roundtrip(self._create, json.dumps(options)))
        if "error" in reply:
            raise _body_error(reply["error"])
        return int(reply["ok"])

    def quit(self, bot_id: int) -> None:
        if not self.broken:
            self._roundtrip(self._quit, bot_id, "craftbt body closed")


def _check_tolerance(tolerance: float) -> None:
    """A walk's tolerance (``goto``, ``plan``) is a finite distance >= 0."""
    if not (tolerance >= 0 and math.isfinite(tolerance)):
        raise BodyError(BodyErrorCode.INVALID_ARGUMENT, f"tolerance {tolerance} must be >= 0")


@dataclass(frozen=True)
class PlannedStep:
    """One node of the path mineflayer-pathfinder would walk: the cell the feet reach, the blocks it breaks."""

    pos: tuple[int, int, int]
    dig: tuple[tuple[int, int, int], ...] = ()


class MineflayerAction:
    """An :class:`~world.body.ActionHandle` for one adapter action; each ``status()`` polls once."""

    def __init__(self, body: MineflayerBody, action_id: int, kind: str) -> None:
        self._body = body
        self._id = action_id
        self._kind = kind
        self._status = ActionStatus.RUNNING
        body._handles[action_id] = self
        self._error: BodyError | None = None
        self._result: dict[str, Any] = {}
        #: Node-side wall clock (ms since epoch): start, first movement (goto only), end.
        self.timing: dict[str, float | None] = {"started": None, "first_move": None, "finished": None}

    @property
    def kind(self) -> str:
        return self._kind

    @property
    def action_id(self) -> int:
        return self._id

    def _poll(self) -> None:
        if self._status is not ActionStatus.RUNNING:
            return
        try:
            state = self._body._action_state(self._id)
        except BodyError as err:
            self._finish(ActionStatus.FAILED, err, {})
            return
        self.timing = {
            "started": state.get("startedAt"),
            "first_move": state.get("firstMoveAt"),
            "finished": state.get("finishedAt"),
        }
        status = _STATUS[state["status"]]
        if status is not ActionStatus.RUNNING:
            failure = _body_error(state["error"]) if state.get("error") else None
            self._finish(status, failure, state.get("result") or {})

    def _finish(self, status: ActionStatus, error: BodyError | None, result: dict[str, Any]) -> None:
        self._status, self._error, self._result = status, error, result
        self._body._action_states.pop(self._id, None)
        # what the action did (a block dug, an item picked up, a step taken) is not in this tick's view
        self._body._forget_view()

    def status(self) -> ActionStatus:
        self._poll()
        return self._status

    def error(self) -> BodyError | None:
        return self._error

    def result(self) -> dict[str, Any]:
        return dict(self._result)

    def cancel(self, reason: str = "cancelled") -> None:
        if self._status is not ActionStatus.RUNNING:
            return
        # Disconnected: nothing runs on the other side any more, so the cancel holds anyway.
        with contextlib.suppress(BodyError):
            self._body._call("cancel", {"id": self._id, "reason": reason})
        self._finish(ActionStatus.CANCELLED, BodyError(BodyErrorCode.CANCELLED, reason), {})

    def wait(self, timeout_s: float, poll_s: float = POLL_INTERVAL_S) -> ActionStatus:
        """Poll until the action leaves RUNNING or ``timeout_s`` passes (for scripts and tests)."""
        deadline = time.monotonic() + timeout_s
        while self.status() is ActionStatus.RUNNING and time.monotonic() < deadline:
            time.sleep(poll_s)
        return self._status

    def __repr__(self) -> str:
        return f"MineflayerAction({self._kind}#{self._id}, {self._status.value})"


def _pos3(p: Any) -> Position:
    return Position(float(p["x"]), float(p["y"]), float(p["z"]))


def _stack(raw: dict[str, Any]) -> ItemStack:
    return ItemStack(name=raw["name"], count=raw["count"], slot=raw.get("slot"))


def _window(raw: dict[str, Any] | None) -> WindowInfo | None:
    if raw is None:
        return None
    return WindowInfo(
        kind=raw["kind"],
        pos=BlockPos(*raw["pos"]),
        slots={k: [_stack(s) for s in v] for k, v in raw["slots"].items()},
    )


class MineflayerBody:
    """A bot on a real server. Build one with :meth:`connect`; ``close()`` when done."""

    def __init__(self, bridge: _Bridge, bot_id: int, host: str, port: int, username: str, version: str) -> None:
        self._bridge = bridge
        self._bot = bot_id
        self.host = host
        self.port = port
        self.username = username
        self._version = version
        self._t0 = time.monotonic()
        self._closed = False
        #: bridge round trips per adapter method, since connect (bench_ttfa_mineflayer.py prints them)
        self.round_trips: Counter[str] = Counter()
        self._view: dict[str, Any] | None = None
        self._view_tick = -1
        #: the adapter reports a settled action once: its final state waits here until its handle reads it
        self._action_states: dict[int, dict[str, Any]] = {}
        #: handles still waiting for their action; a dropped or finished handle's state is not kept
        self._handles: weakref.WeakValueDictionary[int, MineflayerAction] = weakref.WeakValueDictionary()

    # -- lifecycle -----------------------------------------------------------------
    @classmethod
    def connect(
        cls,
        host: str,
        port: int,
        username: str,
        version: str = DEFAULT_VERSION,
        auth: str = "offline",
        timeout_s: float = 30.0,
        login_settle_s: float = LOGIN_SETTLE_S,
    ) -> MineflayerBody:
        """Join ``host:port`` and wait (at most ``timeout_s``) until spawned with the ground loaded.

        ``version`` is the Minecraft version to speak, and the minecraft-data the leaves use follows
        it; ``"auto"`` takes the server's (mineflayer pings it). A version craftbt ships no data for
        (:func:`mcdata.shipped_versions`) is refused with ``unsupported`` before joining, or, with
        ``"auto"``, right after.

        The wait includes the login handshake (``adapter.js`` ``settleLogin``): the
        bot turns its head until flying-squid answers with the login position, at
        most ``login_settle_s``; ``status()["settled"]`` says ``answered`` or ``timeout``.
        """
        if not 0 < port < 65536:
            raise BodyError(BodyErrorCode.INVALID_ARGUMENT, f"port {port} is not in 1..65535")
        if not username or len(username) > 16:
            raise BodyError(BodyErrorCode.INVALID_ARGUMENT, f"username {username!r} must be 1..16 characters")
        if auth not in ("offline", "microsoft"):
            raise BodyError(BodyErrorCode.INVALID_ARGUMENT, f"auth {auth!r} must be offline or microsoft")
        shipped = mcdata.shipped_versions()
        if version != AUTO_VERSION and version not in shipped:
            raise BodyError(BodyErrorCode.UNSUPPORTED, _unshipped(version, shipped))
        bridge = _Bridge.get()
        if not 0 <= login_settle_s <= timeout_s:
            raise BodyError(BodyErrorCode.INVALID_ARGUMENT, f"login_settle_s {login_settle_s} is not in 0..{timeout_s}")
        bot_id = bridge.create_bot(
            {
                "host": host,
                "port": port,
                "username": username,
                "version": version,
                "auth": auth,
                "loginSettleMs": int(login_settle_s * 1000),
            }
        )
        body = cls(bridge, bot_id, host, port, username, version)
        # Parse this version's minecraft-data while the server logs us in, not in the first leaf that
        # needs it (~150 ms, once per process).
        with contextlib.suppress(mcdata.McDataFileError):
            mcdata.load(version if version != AUTO_VERSION else mcdata.DEFAULT_VERSION)
        deadline = time.monotonic() + timeout_s
        while True:
            st = body._call("status")
            if st["ended"]:
                body.close()
                raise BodyError(
                    BodyErrorCode.BODY_DISCONNECTED,
                    f"could not join {host}:{port} as {username}: {st['reason']}",
                    retryable=True,
                )
            if st["spawned"] and st["loaded"]:
                if version == AUTO_VERSION:
                    # the version the server speaks, as mineflayer's ping found it: data must follow it
                    body._version = str(st["version"])
                    if body._version not in shipped:
                        body.close()
                        raise BodyError(BodyErrorCode.UNSUPPORTED, _unshipped(body._version, shipped))
                break
            if time.monotonic() > deadline:
                body.close()
                raise BodyError(
                    BodyErrorCode.TIMEOUT,
                    f"no spawn on {host}:{port} within {timeout_s:.0f}s (last error: {st['error']})",
                    retryable=True,
                )
            time.sleep(POLL_INTERVAL_S)
        body._t0 = time.monotonic()
        return body

    def close(self) -> None:
        """Leave the server; running actions fail with ``body_disconnected``. Idempotent."""
        if self._closed:
            return
        self._closed = True
        with contextlib.suppress(BodyError):
            self._bridge.quit(self._bot)

    def __enter__(self) -> MineflayerBody:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def _call(self, method: str, args: dict[str, Any] | None = None) -> Any:
        if self._closed:
            raise BodyError(BodyErrorCode.BODY_DISCONNECTED, "the body was closed")
        self.round_trips[method] += 1
        return self._bridge.call(self._bot, method, args)

    def _start(self, kind: str, method: str, args: dict[str, Any]) -> MineflayerAction:
        self._forget_view()
        started = self._call(method, args)
        return MineflayerAction(self, int(started["actionId"]), kind)

    def _forget_view(self) -> None:
        self._view = None

    def _snapshot(self) -> dict[str, Any]:
        """This tick's view (snapshot, nearby entities, action states): one round trip per tick, however many reads."""
        tick = self.now_ticks()
        if self._view is None or self._view_tick != tick:
            self._view = self._call("view", {"entityRadius": VIEW_ENTITY_RADIUS})
            self._view_tick = tick
            for key, state in self._view["actions"].items():
                handle = self._handles.get(int(key))
                if handle is not None and handle._status is ActionStatus.RUNNING:
                    self._action_states[int(key)] = state
        return self._view

    def _action_state(self, action_id: int) -> dict[str, Any]:
        """The action's state as of this tick's view (the handle drops a final one when it takes it)."""
        self._snapshot()
        state = self._action_states.get(action_id)
        if state is None:  # not in any view (its final state was already read): the adapter says why
            return dict(self._call("actionState", {"id": action_id}))
        return state

    @property
    def connected(self) -> bool:
        if self._closed:
            return False
        try:
            return not self._call("status")["ended"]
        except BodyError:
            return False

    def status(self) -> dict[str, Any]:
        """Connection state from the adapter: spawned, ended, reason, kicked, error, dead, server brand."""
        return dict(self._call("status"))

    def server_features(self) -> frozenset[str] | None:
        """What a flying-squid server implements beyond flying-squid itself, from its brand.

        ``None`` for any other server (or before its brand arrived): it is taken to implement
        everything. ``frozenset()`` for flying-squid without craftbt's plugin; with the plugin, the
        features it announces (``crafting``, ``furnace``, ``chest``, ``barrel``, ``harvest_drops``).
        A crafting, container or sleep action the server lacks is refused at once with
        ``server_unsupported``.
        """
        features = self.status().get("serverFeatures")
        return None if features is None else frozenset(features)

    # -- identity and time -----------------------------------------------------------
    @property
    def name(self) -> str:
        return f"mineflayer:{self.username}@{self.host}:{self.port}"

    @property
    def version(self) -> str:
        return self._version

    def now_ticks(self) -> int:
        """Ticks of wall time since spawn: servers (flying-squid) do not all keep world age honestly."""
        return int((time.monotonic() - self._t0) * TICKS_PER_SECOND)

    def advance(self, ticks: int = 1) -> None:
        """A real server runs by itself: wait ``ticks`` / 20 seconds of wall time."""
        if ticks < 0:
            raise BodyError(BodyErrorCode.INVALID_ARGUMENT, f"cannot advance {ticks} ticks")
        time.sleep(ticks / TICKS_PER_SECOND)

    # -- observation -------------------------------------------------------------------
    def observe(self) -> Observation:
        snap = self._snapshot()
        inventory: dict[str, int] = {}
        for s in snap["inventory"]:
            inventory[s["name"]] = inventory.get(s["name"], 0) + int(s["count"])
        return Observation(
            tick=self.now_ticks(),
            position=_pos3(snap["position"]),
            # the adapter reports Notch degrees; every body observes mineflayer radians (facing() reads them)
            yaw=yaw_from_notch(float(snap["yaw"])),
            pitch=pitch_from_notch(float(snap["pitch"])),
            health=float(snap["health"]),
            food=int(snap["food"]),
            saturation=float(snap["saturation"] or 0.0),
            time_of_day=int(snap["timeOfDay"]) % 24_000,
            inventory=inventory,
            held_item=snap["heldItem"],
            window=_window(snap["window"]),
            dimension=snap["dimension"],
            biome=snap.get("biome"),
        )

    def position(self) -> Position:
        return self.observe().position

    def block_at(self, pos: BlockPos) -> BlockInfo:
        raw = self._call("blockAt", {"x": pos.x, "y": pos.y, "z": pos.z})
        if raw is None:
            raise BodyError(BodyErrorCode.OUT_OF_REACH, f"block at {tuple(pos)} is not loaded", retryable=True)
        return BlockInfo(name=raw["name"], pos=BlockPos(*raw["pos"]), state=raw.get("state") or {})

    def chunk_cells(self, cx: int, cz: int, y0: int, y1: int) -> list[tuple[str, dict[str, Any]]] | None:
        """Every cell of chunk column (cx, cz) from ``y0`` to ``y1`` (exclusive) as the bot holds it, ordered x, z,
        then y (the embedded store's order), as ``(name, properties)``; None when the column is not loaded.
        One bridge call: the terrain test compares the server's chunks with the embedded world's with it."""
        raw = self._call("chunkCells", {"cx": cx, "cz": cz, "y0": y0, "y1": y1})
        if raw is None:
            return None
        palette = [(str(name), dict(props)) for name, props in raw["palette"]]
        return [palette[i] for i in raw["cells"]]

    def find_blocks(
        self, names: list[str], radius: int, max_count: int = 16, *, exposed: bool = False
    ) -> list[BlockPos]:
        """Nearest first; ``exposed`` keeps blocks with a face open to a non-solid cell."""
        if radius < 0 or max_count < 1:
            raise BodyError(BodyErrorCode.INVALID_ARGUMENT, f"radius {radius} / max_count {max_count}")
        found = self._call(
            "findBlocks",
            {"names": [_strip(n) for n in names], "radius": radius, "maxCount": max_count, "exposed": exposed},
        )
        return [BlockPos(*p) for p in found]

    def nearest_blocks(
        self, names: Collection[str], radius: int, *, exposed: bool = False
    ) -> dict[str, BlockPos]:
        """One bridge call for every kind (a survey asks about many); agrees with ``find_blocks``."""
        if radius < 0:
            raise BodyError(BodyErrorCode.INVALID_ARGUMENT, f"radius {radius}")
        asked = {n: _strip(n) for n in names}
        found = self._call(
            "nearestBlocks", {"names": list(dict.fromkeys(asked.values())), "radius": radius, "exposed": exposed}
        )
        return {n: BlockPos(*found[bare]) for n, bare in asked.items() if bare in found}

    def entities(self, radius: float = 32.0, kind: str | None = None) -> list[EntityInfo]:
        if radius <= VIEW_ENTITY_RADIUS:
            snap = self._snapshot()
            here = _pos3(snap["position"])
            # the adapter's own filter (distance from the bot, then kind), on the view's nearest-first list
            raw = [e for e in snap["entities"]
                   if _pos3(e["position"]).distance_to(here) <= radius and (kind is None or e["kind"] == kind)]
        else:
            raw = self._call("entities", {"radius": radius, "kind": kind})
        return [
            EntityInfo(
                id=e["id"],
                name=e["name"],
                kind=e["kind"],
                position=_pos3(e["position"]),
                health=e.get("health"),
                item=ItemStack(name=e["item"]["name"], count=e["item"]["count"]) if e.get("item") else None,
                baby=bool(e.get("baby")),
            )
            for e in raw
        ]

    def inventory(self) -> list[ItemStack]:
        return [_stack(s) for s in self._snapshot()["inventory"]]

    def equipment(self) -> dict[str, ItemStack | None]:
        return {k: _stack(v) if v else None for k, v in self._call("equipment").items()}

    def time_of_day(self) -> int:
        return int(self._snapshot()["timeOfDay"]) % 24_000

    def light_level(self, pos: BlockPos | None = None) -> int:
        args = {"x": pos.x, "y": pos.y, "z": pos.z} if pos is not None else {"x": None}
        return int(self._call("lightLevel", args))

    def health(self) -> float:
        return float(self._snapshot()["health"])

    def food(self) -> int:
        return int(self._snapshot()["food"])

    def open_window(self) -> WindowInfo | None:
        return _window(self._snapshot()["window"])

    # -- optional observations (control_environment asks for them when a body has them) ------------
    def weather(self) -> str:
        """``clear``, ``rain`` or ``thunder``, as the server last said."""
        return str(self._snapshot()["weather"])

    def is_operator(self) -> bool | None:
        """Whether the server gave the bot operator rights (level 2+: /time, /weather); None: not announced."""
        level = self._snapshot().get("opLevel")
        return None if level is None else int(level) >= 2

    def chat_messages(self, since: int = 0) -> tuple[int, list[str]]:
        """Chat and system lines received since index ``since``; returns (next index, lines)."""
        raw = self._call("chatLog", {"since": since})
        return int(raw["next"]), [m["message"] for m in raw["messages"]]

    def set_max_drop(self, blocks: int) -> int:
        """The largest drop the pathfinder may plan from now on (CraftScript's nav policy); returns the old one."""
        return int(self._call("setMaxDrop", {"maxDrop": int(blocks)}))

    def plan(self, target: BlockPos, tolerance: float) -> list[PlannedStep]:
        """The path a ``goto(target, tolerance)`` would walk from here, searched now and not walked (CraftScript's
        navigation policy checks it before a walk starts); ``no_path`` when the pathfinder finds none. A search
        out of time gives the part it found."""
        _check_tolerance(tolerance)
        found = self._call("planPath", {"x": target.x, "y": target.y, "z": target.z, "tolerance": tolerance,
                                        "timeoutMs": PLAN_TIMEOUT_MS})
        def cell(xyz: list[int]) -> tuple[int, int, int]:
            return int(xyz[0]), int(xyz[1]), int(xyz[2])

        return [PlannedStep(cell(s["pos"]), tuple(cell(d) for d in s["dig"])) for s in found["steps"]]

    # -- actions (non-blocking) -------------------------------------------------------
    def goto(self, target: BlockPos, tolerance: float = 1.0) -> MineflayerAction:
        _check_tolerance(tolerance)
        return self._start("goto", "goto", {"x": target.x, "y": target.y, "z": target.z, "tolerance": tolerance})

    def dig(self, pos: BlockPos) -> MineflayerAction:
        return self._start("dig", "dig", {"x": pos.x, "y": pos.y, "z": pos.z})

    def place(self, item: str, against: BlockPos, face: Face) -> MineflayerAction:
        try:
            face_value = Face(face).value
        except ValueError:
            raise BodyError(BodyErrorCode.INVALID_ARGUMENT, f"unknown face {face!r}") from None
        return self._start(
            "place",
            "place",
            {"item": _strip(item), "x": against.x, "y": against.y, "z": against.z, "face": face_value},
        )

    def build_up(self, item: str) -> MineflayerAction:
        """Jump and place ``item`` in the cell the feet left (a pillar step): the bot ends one block higher.

        Not part of the Body protocol (it has no jump); CraftScript's ``build_up`` uses it when a body has it.
        """
        return self._start("build_up", "buildUp", {"item": _strip(item)})

    def equip(self, item: str, destination: str = "hand") -> MineflayerAction:
        return self._start("equip", "equip", {"item": _strip(item), "destination": destination})

    def craft(self, item: str, count: int = 1, table: BlockPos | None = None) -> MineflayerAction:
        """Run ``item``'s recipe ``count`` times (as ``bot.craft`` does); ``table`` for 3x3 recipes."""
        return self._start(
            "craft",
            "craft",
            {"item": _strip(item), "count": count, "table": list(table) if table is not None else None},
        )

    def open_container(self, pos: BlockPos) -> MineflayerAction:
        return self._start("open_container", "openContainer", {"x": pos.x, "y": pos.y, "z": pos.z})

    def container_put(self, item: str, count: int, slot: str = "any") -> MineflayerAction:
        return self._start("container_put", "containerPut", {"item": _strip(item), "count": count, "slot": slot})

    def container_take(self, item: str, count: int, slot: str = "any") -> MineflayerAction:
        return self._start("container_take", "containerTake", {"item": _strip(item), "count": count, "slot": slot})

    def resync_inventory(self) -> MineflayerAction:
        """Close any window and read the whole inventory back from the server (fails with ``timeout``
        after 2 s on a server that does not answer). A failed window action does this by itself."""
        return self._start("resync_inventory", "resyncInventory", {})

    def close_container(self) -> MineflayerAction:
        return self._start("close_container", "closeContainer", {})

    def consume(self, item: str) -> MineflayerAction:
        return self._start("consume", "consume", {"item": _strip(item)})

    def attack(self, entity_id: int) -> MineflayerAction:
        return self._start("attack", "attack", {"entityId": entity_id})

    def use_on_entity(self, entity_id: int, item: str) -> MineflayerAction:
        return self._start("use_on_entity", "useOnEntity", {"entityId": entity_id, "item": _strip(item)})

    def activate_block(self, pos: BlockPos) -> MineflayerAction:
        return self._start("activate_block", "activateBlock", {"x": pos.x, "y": pos.y, "z": pos.z})

    def use_item(self, item: str | None = None, target: BlockPos | None = None) -> MineflayerAction:
        return self._start(
            "use_item",
            "useItem",
            {"item": _strip(item) if item else None, "target": list(target) if target is not None else None},
        )

    def sleep(self, bed: BlockPos) -> MineflayerAction:
        return self._start("sleep", "sleep", {"x": bed.x, "y": bed.y, "z": bed.z})

    def chat(self, message: str) -> MineflayerAction:
        return self._start("chat", "chat", {"message": message})

    def toss(self, item: str, count: int) -> MineflayerAction:
        return self._start("toss", "toss", {"item": _strip(item), "count": count})

    def __repr__(self) -> str:
        return f"MineflayerBody({self.name})"


def _unshipped(version: str, shipped: list[str]) -> str:
    return (
        f"craftbt ships minecraft-data for Minecraft {', '.join(shipped)} only, not {version}: its recipes, "
        "drops and blocks would be another version's. Join with --version "
        f"{shipped[-1]} (the server must speak it), or generate the data with scripts/gen_mcdata.py --version {version}"
    )


def _strip(name: str) -> str:
    """Accept ``minecraft:stone`` as well as ``stone``; minecraft-data names have no namespace."""
    return name.removeprefix("minecraft:")
