"""Save and load the whole simulated world to bytes or a file, deterministically.

Layout: ``MAGIC``, an 8-byte big-endian header length, the header as canonical
JSON (sorted keys, no spaces), then the zlib-compressed block sections
(sorted by section key, each as its little-endian ``uint16`` array). The
same seed and the same episode give the same bytes. Running action handles
are not saved: take snapshots between actions.
"""

from __future__ import annotations

import json
import random
import struct
import sys
import zlib
from array import array
from pathlib import Path
from typing import Any

from craftbt.world.body import Position
from craftbt.world.mcdata import McData, load
from craftbt.world.sim.body import SimBody
from craftbt.world.sim.containers import container_from_json
from craftbt.world.sim.entities import Entity
from craftbt.world.sim.generators import from_spec
from craftbt.world.sim.world import Timer, World

MAGIC = b"CRAFTBT-SIM\x01"
FORMAT = 1


class SnapshotError(ValueError):
    """The bytes are not a snapshot this version can read."""


def _state_json(world: World) -> dict[str, Any]:
    version, internal, gauss = world.rng.getstate()
    return {
        "format": FORMAT,
        "seed": world.seed,
        "generator": world.generator.describe(),
        "clock": {"tick": world.clock.tick, "day_time": world.clock.day_time},
        "rules": world.rules.to_json(),
        "weather": world.weather,
        "rng": [version, list(internal), gauss],
        "palette": [[name, [[k, v] for k, v in props]] for name, props in world.palette.states],
        "generated": sorted([list(c) for c in world.generated]),
        "sections": [list(k) for k, _ in world.store.iter_sections()],
        "containers": [[list(k), world.containers[k].to_json()] for k in sorted(world.containers)],
        "light_sources": [[list(k), v] for k, v in sorted(world.light_sources.items())],
        "timers": [[t.tick, t.seq, t.kind, list(t.pos)] for t in world.timers],
        "timer_seq": world._timer_seq,
        "random_pending": sorted([list(p) for p in world.random_pending]),
        "entities": [world.entities[k].to_json() for k in sorted(world.entities)],
        "next_entity_id": world.next_entity_id,
        "player_id": world.player_id,
        "player": world.player.to_json(),
        "spawn": list(world.spawn),
        "events": world.events,
    }


def dumps(body: SimBody) -> bytes:
    world = body.world
    header = dict(_state_json(world))
    header["body"] = {"nav_can_dig": body.nav_can_dig, "scenario": body.scenario_name}
    head = json.dumps(header, sort_keys=True, separators=(",", ":")).encode()
    blob = bytearray()
    for _, sec in world.store.iter_sections():
        data = array("H", sec)
        if sys.byteorder == "big":
            data.byteswap()
        blob += data.tobytes()
    return MAGIC + struct.pack(">Q", len(head)) + head + zlib.compress(bytes(blob), 6)


def loads(data: bytes, *, md: McData | None = None, realtime: bool = False) -> SimBody:
    if not data.startswith(MAGIC):
        raise SnapshotError("not a craftbt simulator snapshot")
    (n,) = struct.unpack(">Q", data[len(MAGIC) : len(MAGIC) + 8])
    start = len(MAGIC) + 8
    try:
        h = json.loads(data[start : start + n])
        raw = zlib.decompress(data[start + n :])
    except (ValueError, zlib.error) as exc:
        raise SnapshotError(f"corrupt snapshot: {exc}") from None
    if h.get("format") != FORMAT:
        raise SnapshotError(f"snapshot format {h.get('format')} is not {FORMAT}")
    md = md or load()
    world = World(md, h["seed"], from_spec(h["generator"], h["seed"]), realtime=realtime,
                  player_name=h["player"]["name"])
    world.clock.tick = h["clock"]["tick"]
    world.clock.day_time = h["clock"]["day_time"]
    rules = h["rules"]
    world.rules.random_tick_speed = rules["random_tick_speed"]
    world.rules.do_mob_spawning = rules["do_mob_spawning"]
    world.rules.do_daylight_cycle = rules["do_daylight_cycle"]
    world.weather = h["weather"]
    version, internal, gauss = h["rng"]
    world.rng = random.Random()
    world.rng.setstate((version, tuple(internal), gauss))
    world.palette.states.clear()
    world.palette._index.clear()
    for name, props in h["palette"]:
        world.palette.id_of((name, tuple((k, v) for k, v in props)))
    world.generated = {(c[0], c[1]) for c in h["generated"]}
    world.store.clear()
    size = 4096 * 2
    for i, key in enumerate(h["sections"]):
        sec = array("H")
        sec.frombytes(raw[i * size : (i + 1) * size])
        if sys.byteorder == "big":
            sec.byteswap()
        world.store.add_section((key[0], key[1], key[2]), sec)
    world.containers = {(k[0], k[1], k[2]): container_from_json(c) for k, c in h["containers"]}
    world.light_sources = {(k[0], k[1], k[2]): v for k, v in h["light_sources"]}
    world.timers = [Timer(t[0], t[1], t[2], (t[3][0], t[3][1], t[3][2])) for t in h["timers"]]
    world._timer_seq = h["timer_seq"]
    world.random_pending = {(p[0], p[1], p[2]) for p in h["random_pending"]}
    world.entities = {e["id"]: Entity.from_json(e) for e in h["entities"]}
    world.next_entity_id = h["next_entity_id"]
    world.player_id = h["player_id"]
    world.player.load_json(h["player"])
    world.spawn = Position(*h["spawn"])
    world.events = list(h["events"])
    body = SimBody(world, realtime=realtime, nav_can_dig=h["body"]["nav_can_dig"])
    body.scenario_name = h["body"]["scenario"]
    return body


def save(body: SimBody, path: str | Path) -> None:
    Path(path).write_bytes(dumps(body))


def load_file(path: str | Path, *, realtime: bool = False) -> SimBody:
    return loads(Path(path).read_bytes(), realtime=realtime)
