"""Start and stop a local flying-squid server (npm) for tests, demos and ``craftbt server start``.

The server runs as a Node subprocess bound to 127.0.0.1, in offline mode, from
a settings file generated into a private temporary directory that also holds
its world and its log. :meth:`FlyingSquid.start` returns once the server has
printed its ready line (listening and plugins loaded), never after a fixed
sleep; the process is killed when :meth:`FlyingSquid.stop` runs, when the
object is collected, or when the interpreter exits, and it stops itself when
its parent is gone (``squid_server.js`` watches its parent pid, so a SIGKILLed
craftbt leaves no server behind). A temporary directory the server made for
itself is removed when it stops, whichever way.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import weakref
from enum import StrEnum
from pathlib import Path
from types import TracebackType
from typing import Any

from craftbt.world import mcdata
from craftbt.world.loot import ANIMAL_USES, MOB_LOOT
from craftbt.world.mineflayer.node_env import (
    PACKAGE_DIR,
    SERVER_PACKAGES,
    find_node_modules,
    missing_packages,
    node_binary,
    setup_hint,
)
from craftbt.world.mineflayer.terrain import (
    DEFAULT_RADIUS,
    MAX_RADIUS,
    TERRAIN_WORLDS,
    Terrain,
    build_terrain,
    write_terrain,
)

DEFAULT_VERSION = "1.21.4"
LOOPBACK = "127.0.0.1"
READY_MARKER = "CRAFTBT_SQUID_READY"
LAUNCHER = PACKAGE_DIR / "squid_server.js"
#: craftbt's flying-squid plugin: crafting, furnaces, chests and barrels, drops by harvest tool
VANILLA_PLUGIN = PACKAGE_DIR / "squid_vanilla.js"
#: flying-squid's generator (and a plugin: spawn cell, animals) serving a terrain file terrain.py wrote
TERRAIN_MODULE = PACKAGE_DIR / "squid_terrain.js"
TERRAIN_FILE = "terrain.cbtw"
#: a served embedded world starts at the embedded world's time of day (``World(time_of_day=1000)``), not at 0
START_TIME = 1000

#: Entities (item drops, summoned mobs, players) the server holds beyond a served world's animals. flying-squid
#: refuses a new entity past its ``max-entities`` by throwing, which kicks the player whose dig dropped it
#: ("Internal server error. Error: Too many mobs !"): natural seed 4 places 122 animals within 8 chunks and
#: the old flat cap of 100 cut its episode off at the first log.
ENTITY_ROOM = 1000

#: flying-squid world generators worth offering; superflat makes tests predictable.
GENERATIONS = ("superflat", "diamond_square", "grass_field", "empty")
GAME_MODES = {"survival": 0, "creative": 1, "adventure": 2, "spectator": 3}


class ServerErrorCode(StrEnum):
    NODE_MISSING = "node_missing"
    INVALID_SETTINGS = "invalid_settings"
    START_FAILED = "start_failed"
    START_TIMEOUT = "start_timeout"


class ServerError(Exception):
    """flying-squid could not be started; ``detail`` says why and ends with the log tail."""

    def __init__(self, code: ServerErrorCode, detail: str) -> None:
        super().__init__(f"{code.value}: {detail}")
        self.code = code
        self.detail = detail


def free_port(host: str = LOOPBACK) -> int:
    """A TCP port nobody listens on right now (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def port_accepts(host: str, port: int, timeout_s: float = 0.5) -> bool:
    try:
        with socket.create_connection((host, port), timeout=timeout_s):
            return True
    except OSError:
        return False


def _kill_group(proc: subprocess.Popen[bytes], remove: Path | None = None) -> None:
    """Finalizer: the launcher runs in its own session, so its group id is its pid; then its temporary dir goes."""
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            proc.kill()
        proc.wait(timeout=5)
    if remove is not None:
        shutil.rmtree(remove, ignore_errors=True)


def vanilla_rules(version: str) -> dict[str, Any]:
    """What ``squid_vanilla.js`` needs and minecraft-data lacks: smelting recipes, fuel burn times, mob loot, what
    an item used on an animal becomes.

    They come from craftbt's own data file for ``version`` (the one the embedded world smelts with);
    a version craftbt ships no data for gets none, and its furnaces smelt nothing.
    """
    uses = [[animal, item, gives] for (animal, item), gives in ANIMAL_USES.items()]
    try:
        md = mcdata.load(version)
    except mcdata.McDataFileError:
        return {"smelting": [], "fuels": {}, "loot": MOB_LOOT, "uses": uses}
    return {
        "loot": MOB_LOOT,
        "uses": uses,
        "smelting": [[r.input, r.output, r.count, r.cook_ticks] for r in md.smelting_recipes()],
        "fuels": md.fuels(),
    }


class FlyingSquid:
    """One flying-squid server. Use as a context manager or call start()/stop()."""

    def __init__(
        self,
        *,
        port: int | None = None,
        version: str = DEFAULT_VERSION,
        generation: str = "superflat",
        game_mode: str = "survival",
        everybody_op: bool = True,
        view_distance: int = 4,
        workdir: Path | None = None,
        vanilla_plugin: bool = True,
        world: str | None = None,
        seed: int = 0,
        radius: int = DEFAULT_RADIUS,
        daylight_cycle: bool = True,
    ) -> None:
        if port is not None and not 0 < port < 65536:
            raise ServerError(ServerErrorCode.INVALID_SETTINGS, f"port {port} is not in 1..65535")
        if generation not in GENERATIONS:
            raise ServerError(
                ServerErrorCode.INVALID_SETTINGS,
                f"generation {generation!r} is not one of {', '.join(GENERATIONS)}",
            )
        if world is not None and world not in TERRAIN_WORLDS:
            raise ServerError(
                ServerErrorCode.INVALID_SETTINGS,
                f"world {world!r} is not one of {', '.join(TERRAIN_WORLDS)}",
            )
        if world is not None and generation != "superflat":
            raise ServerError(ServerErrorCode.INVALID_SETTINGS,
                              f"world {world!r} and generation {generation!r}: give one of them")
        if not 0 <= radius <= MAX_RADIUS:
            raise ServerError(ServerErrorCode.INVALID_SETTINGS, f"radius {radius} is not in 0..{MAX_RADIUS} chunks")
        if game_mode not in GAME_MODES:
            raise ServerError(
                ServerErrorCode.INVALID_SETTINGS,
                f"game mode {game_mode!r} is not one of {', '.join(GAME_MODES)}",
            )
        self._requested_port = port
        self.port = port or 0
        self.host = LOOPBACK
        self.version = version
        self.generation = generation
        self.game_mode = game_mode
        self.everybody_op = everybody_op
        self.view_distance = view_distance
        #: load ``squid_vanilla.js`` (off: flying-squid as shipped, which opens no crafting window)
        self.vanilla_plugin = vanilla_plugin
        #: serve the embedded ``world`` for ``seed`` (``radius`` chunks around its spawn) instead of ``generation``
        self.world = world
        self.seed = seed
        self.radius = radius
        #: with ``world``: the day starts at the embedded world's time (1000); False keeps it there for good
        self.daylight_cycle = daylight_cycle
        #: the terrain served (set when the server starts with ``world``): its spawn cell, chunks and animals
        self.terrain: Terrain | None = None
        #: a directory we made is ours to remove when the server stops; one the caller gave stays
        self._owns_workdir = workdir is None
        self.workdir = workdir or Path(tempfile.mkdtemp(prefix="craftbt-squid-"))
        self.log_path = self.workdir / "server.log"
        self._proc: subprocess.Popen[bytes] | None = None
        self._finalizer: weakref.finalize[Any, Any] | None = None

    # -- lifecycle ---------------------------------------------------------------
    def settings(self) -> dict[str, Any]:
        """The flying-squid settings this server runs with."""
        return {
            "motd": "craftbt test server",
            "host": self.host,
            "port": self.port,
            "max-players": 10,
            "online-mode": False,
            "logging": False,
            "gameMode": GAME_MODES[self.game_mode],
            "difficulty": 0,
            "worldFolder": str(self.workdir / "world"),
            "generation": self._generation(),
            "kickTimeout": 10000,
            "plugins": {**({str(VANILLA_PLUGIN): {}} if self.vanilla_plugin else {}),
                        **({str(TERRAIN_MODULE): {}} if self.world is not None else {})},
            "craftbt": vanilla_rules(self.version) if self.vanilla_plugin else {},
            "craftbtClock": {"start": START_TIME, "cycle": self.daylight_cycle} if self.world is not None else {},
            "modpe": False,
            "view-distance": self.view_distance,
            "player-list-text": {"header": {"text": "craftbt"}, "footer": {"text": "flying-squid"}},
            "everybody-op": self.everybody_op,
            "max-entities": ENTITY_ROOM + self.animal_count,
            "version": self.version,
        }

    def _generation(self) -> dict[str, Any]:
        if self.world is None:
            return {"name": self.generation, "options": {"worldHeight": 80}}
        return {"name": str(TERRAIN_MODULE),
                "options": {"terrainFile": str(self.workdir / TERRAIN_FILE), "seed": self.seed, "worldHeight": 384}}

    @property
    def animal_count(self) -> int:
        """The animals the served embedded world places (0 before its terrain is built, or on flying-squid's own)."""
        return sum(len(found) for found in self.terrain.animals.values()) if self.terrain is not None else 0

    @property
    def spawn(self) -> tuple[int, int, int] | None:
        """The cell a player's feet start in on a served embedded world (None on flying-squid's generators,
        whose spawn flying-squid picks at random)."""
        return self.terrain.spawn if self.terrain is not None else None

    def start(self, timeout_s: float = 60.0) -> FlyingSquid:
        """Start the server and wait until it is ready; retries a raced free port twice."""
        if self.running:
            return self
        node = node_binary()
        missing = missing_packages(SERVER_PACKAGES)
        nm = find_node_modules()
        if node is None or missing or nm is None:
            raise ServerError(ServerErrorCode.NODE_MISSING, setup_hint(missing or list(SERVER_PACKAGES)))
        attempts = 1 if self._requested_port else 3
        for attempt in range(attempts):
            self.port = self._requested_port or free_port(self.host)
            try:
                self._launch(node, nm, timeout_s)
                return self
            except ServerError as err:
                in_use = "EADDRINUSE" in err.detail
                if not in_use or attempt == attempts - 1:
                    self.cleanup()  # the log tail is in the error already
                    raise
        raise AssertionError("unreachable")

    def _launch(self, node: str, nm: Path, timeout_s: float) -> None:
        self.workdir.mkdir(parents=True, exist_ok=True)
        if self.world is not None:
            # the embedded world's own generator, run here: the server's generator only reads its output
            if self.terrain is None:
                self.terrain = build_terrain(self.world, self.seed, self.radius)
            if not (self.workdir / TERRAIN_FILE).exists():
                write_terrain(self.terrain, self.workdir / TERRAIN_FILE)
        settings_path = self.workdir / "settings.json"
        settings_path.write_text(json.dumps(self.settings(), indent=2))
        with self.log_path.open("ab") as log:
            # cwd is the private dir: flying-squid writes relative files (logs/) there.
            self._proc = subprocess.Popen(
                [node, str(LAUNCHER), str(nm), str(settings_path)],
                cwd=self.workdir,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                env={**os.environ, "CI": "1",
                     **({"CRAFTBT_SQUID_REMOVE_DIR": str(self.workdir)} if self._owns_workdir else {})},
            )
        self._finalizer = weakref.finalize(self, _kill_group, self._proc, self._removable())
        self._wait_ready(timeout_s)

    def _wait_ready(self, timeout_s: float) -> None:
        assert self._proc is not None
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if READY_MARKER in self._log_text() and port_accepts(self.host, self.port):
                return
            if self._proc.poll() is not None:
                code = self._proc.returncode
                self._proc = None
                raise ServerError(
                    ServerErrorCode.START_FAILED,
                    f"flying-squid exited with {code} before it was ready; log:\n{self.log_tail()}",
                )
            time.sleep(0.05)
        tail = self.log_tail()  # before stop() removes the directory that holds the log
        self.stop()
        raise ServerError(
            ServerErrorCode.START_TIMEOUT,
            f"flying-squid not ready on {self.host}:{self.port} after {timeout_s:.0f}s; log:\n{tail}",
        )

    def _removable(self) -> Path | None:
        return self.workdir if self._owns_workdir else None

    def stop(self, timeout_s: float = 5.0) -> None:
        """Stop the server: SIGTERM (players are kicked), then SIGKILL after ``timeout_s``; remove its temp dir."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGTERM)
                proc.wait(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                _kill_group(proc)
            except ProcessLookupError:
                pass
        if self._finalizer is not None:
            self._finalizer.detach()
        self.cleanup()

    def kill(self) -> None:
        """Stop abruptly, as a crash or a lost network would (the temp dir goes too)."""
        proc, self._proc = self._proc, None
        if proc is not None:
            _kill_group(proc)
        if self._finalizer is not None:
            self._finalizer.detach()
        self.cleanup()

    def cleanup(self) -> None:
        """Remove the temporary directory this server made for itself (never one the caller gave)."""
        removable = self._removable()
        if removable is not None and not self.running:
            shutil.rmtree(removable, ignore_errors=True)

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    # -- logs --------------------------------------------------------------------
    def _log_text(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def log_tail(self, lines: int = 30) -> str:
        return "\n".join(self._log_text().splitlines()[-lines:])

    def __enter__(self) -> FlyingSquid:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
