"""Operator chat commands, as a server runs them: /give /setblock /fill /summon /time /tp /weather ...

:func:`parse` checks a command completely (syntax, names, coordinates) and
returns a closure that applies it, so a bad command raises
``BodyError(invalid_argument | unknown_item | unknown_block | unknown_entity)``
before anything changes. Coordinates accept ``~`` (relative to the player's
feet, floored for blocks) like vanilla.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from craftbt.world.body import BodyError, BodyErrorCode, Position
from craftbt.world.sim.storage import BlockState, make_state

if TYPE_CHECKING:
    from craftbt.world.sim.body import SimBody

Apply = Callable[[], str]

TIME_NAMES = {"day": 1000, "noon": 6000, "sunset": 12000, "night": 13000, "midnight": 18000, "sunrise": 23000}
MAX_FILL = 32768  # vanilla's /fill limit
SUPPORTED_EFFECTS = ("hunger",)
_BLOCK_RE = re.compile(r"^(?:minecraft:)?([a-z0-9_]+)(?:\[(.*)\])?$")
#: Numbers as commands take them: ASCII digits only (``str.isdigit`` admits ``²``, ``int`` admits fullwidth digits).
_INT_RE = re.compile(r"^[0-9]{1,9}$", re.ASCII)
_COORD_RE = re.compile(r"^[+-]?(?:[0-9]{1,9}(?:\.[0-9]{0,9})?|\.[0-9]{1,9})$", re.ASCII)
_STATE_RE = re.compile(r"^[a-z_]{1,32}$", re.ASCII)
_VALUE_RE = re.compile(r"^[a-z0-9_]{1,32}$", re.ASCII)
#: The world border: coordinates beyond it are refused, as vanilla does.
BORDER = 29_999_984


def _bad(detail: str) -> BodyError:
    return BodyError(BodyErrorCode.INVALID_ARGUMENT, detail)


def tokenize(text: str) -> list[str]:
    """Split on spaces outside ``{}``, ``[]`` and quotes (NBT and block states stay whole)."""
    out: list[str] = []
    cur: list[str] = []
    depth = 0
    quote: str | None = None
    for ch in text:
        if quote:
            cur.append(ch)
            if ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
            cur.append(ch)
        elif ch in "{[":
            depth += 1
            cur.append(ch)
        elif ch in "}]":
            depth -= 1
            cur.append(ch)
        elif ch.isspace() and depth == 0:
            if cur:
                out.append("".join(cur))
                cur = []
        else:
            cur.append(ch)
    if quote or depth:
        raise _bad(f"unbalanced brackets or quotes in {text!r}")
    if cur:
        out.append("".join(cur))
    return out


def _value(raw: str) -> Any:
    if raw in ("true", "false"):
        return raw == "true"
    if re.fullmatch(r"-?[0-9]{1,9}", raw, re.ASCII):
        return int(raw)
    return raw


def parse_block(body: SimBody, text: str) -> BlockState:
    m = _BLOCK_RE.match(text)
    if not m:
        raise _bad(f"bad block {text!r}; expected name or name[key=value,...]")
    data = body.md.block(m.group(1))
    name = data.name
    props: dict[str, Any] = {}
    if m.group(2):
        if data.max_state == 0:
            raise _bad(f"{name} has no block states; expected {name} without [...] in {text!r}")
        for part in m.group(2).split(","):
            key, sep, val = part.partition("=")
            key, val = key.strip(), val.strip()
            if not sep or not _STATE_RE.match(key) or not _VALUE_RE.match(val) or key in props:
                raise _bad(f"bad block state {part!r} in {text!r}")
            props[key] = _value(val)
    return make_state(name, props)


def _coord(raw: str, base: float) -> float:
    """A finite coordinate: ASCII decimal digits only (``nan``, ``inf``, ``1e400`` are refused)."""
    if raw.startswith("~"):
        rest = raw[1:]
        if rest and not _COORD_RE.match(rest):
            raise _bad(f"bad relative coordinate {raw!r}")
        value = base + (float(rest) if rest else 0.0)
    elif raw.startswith("^"):
        raise _bad("local coordinates (^) are not supported")
    elif not _COORD_RE.match(raw):
        raise _bad(f"bad coordinate {raw!r}")
    else:
        value = float(raw)
    if abs(value) > BORDER:
        raise _bad(f"coordinate {raw!r} is outside the world border (+-{BORDER})")
    return value


def coords(body: SimBody, args: list[str], *, block: bool) -> tuple[float, float, float]:
    if len(args) < 3:
        raise _bad(f"expected x y z, got {' '.join(args)!r}")
    from craftbt.world.sim.flags import MAX_Y, MIN_Y

    p = body.world.player.position
    base = (math.floor(p.x), math.floor(p.y), math.floor(p.z)) if block else (p.x, p.y, p.z)
    x, y, z = (_coord(a, b) for a, b in zip(args[:3], base, strict=True))
    if not block and not MIN_Y - 64 <= y <= MAX_Y + 64:  # blocks check their own, narrower range
        raise _bad(f"y={y:g} is outside the world ({MIN_Y - 64}..{MAX_Y + 64})")
    if block:
        return float(math.floor(x)), float(math.floor(y)), float(math.floor(z))
    return x, y, z


def _block_pos(body: SimBody, args: list[str]) -> tuple[int, int, int]:
    from craftbt.world.sim.flags import MAX_Y, MIN_Y

    x, y, z = coords(body, args, block=True)
    if not MIN_Y <= y <= MAX_Y:
        raise _bad(f"y={int(y)} is outside the world ({MIN_Y}..{MAX_Y})")
    return int(x), int(y), int(z)


def _target(body: SimBody, name: str) -> None:
    if name not in ("@s", "@p", "@a", body.name):
        raise _bad(f"no player named {name!r}")


def parse(body: SimBody, message: str) -> Apply:
    words = tokenize(message.strip().lstrip("/"))
    if not words:
        raise _bad("empty command")
    cmd, args = words[0].lower(), words[1:]
    handler = COMMANDS.get(cmd)
    if handler is None:
        raise _bad(f"unknown command /{cmd}; supported: {', '.join(sorted(COMMANDS))}")
    return handler(body, args)


def _give(body: SimBody, args: list[str]) -> Apply:
    if len(args) not in (2, 3):
        raise _bad("usage: /give <player> <item> [count]")
    _target(body, args[0])
    item = body.md.item(args[1].split("{")[0]).name
    ok = len(args) == 2 or bool(_INT_RE.match(args[2]))
    count = int(args[2]) if len(args) == 3 and ok else 1
    if not ok or count < 1 or count > 6400:
        raise _bad(f"bad count {args[-1]!r}; expected 1..6400")

    def run() -> str:
        left = body.world.player.inventory.add(item, count)
        if left:
            body.world.spawn_item(item, left, *body.world.player.position, delay=0)
        return f"Gave {count} [{item}] to {body.name}"

    return run


def _setblock(body: SimBody, args: list[str]) -> Apply:
    if len(args) not in (4, 5):
        raise _bad("usage: /setblock <x> <y> <z> <block> [replace|destroy|keep]")
    pos = _block_pos(body, args[:3])
    state = parse_block(body, args[3])
    mode = args[4] if len(args) == 5 else "replace"
    if mode not in ("replace", "destroy", "keep"):
        raise _bad(f"bad mode {mode!r}")

    def run() -> str:
        w = body.world
        if mode == "keep" and w.name(*pos) != "air":
            return "Could not set the block"
        if mode == "destroy" and w.name(*pos) != "air":
            body.break_block(pos, tool=None)
        w.set_block(pos, state)
        return f"Changed the block at {pos[0]}, {pos[1]}, {pos[2]}"

    return run


def _fill(body: SimBody, args: list[str]) -> Apply:
    if len(args) not in (7, 8):
        raise _bad("usage: /fill <x1> <y1> <z1> <x2> <y2> <z2> <block> [replace|destroy|keep|hollow|outline]")
    a = _block_pos(body, args[:3])
    b = _block_pos(body, args[3:6])
    state = parse_block(body, args[6])
    mode = args[7] if len(args) == 8 else "replace"
    if mode not in ("replace", "destroy", "keep", "hollow", "outline"):
        raise _bad(f"bad mode {mode!r}")
    lo = tuple(min(p, q) for p, q in zip(a, b, strict=True))
    hi = tuple(max(p, q) for p, q in zip(a, b, strict=True))
    volume = (hi[0] - lo[0] + 1) * (hi[1] - lo[1] + 1) * (hi[2] - lo[2] + 1)
    if volume > MAX_FILL:
        raise _bad(f"too many blocks in the specified area ({volume} > {MAX_FILL})")

    def run() -> str:
        from craftbt.world.sim.storage import AIR

        w = body.world
        n = 0
        for x in range(lo[0], hi[0] + 1):
            for y in range(lo[1], hi[1] + 1):
                for z in range(lo[2], hi[2] + 1):
                    edge = x in (lo[0], hi[0]) or y in (lo[1], hi[1]) or z in (lo[2], hi[2])
                    if mode == "keep" and w.name(x, y, z) != "air":
                        continue
                    if mode == "outline" and not edge:
                        continue
                    st = AIR if mode == "hollow" and not edge else state
                    if mode == "destroy" and w.name(x, y, z) != "air":
                        body.break_block((x, y, z), tool=None)
                    w.set_block((x, y, z), st)
                    n += 1
        return f"Successfully filled {n} block(s)"

    return run


_NBT_NOAI = re.compile(r"NoAI\s*:\s*1b?", re.IGNORECASE)
#: vanilla's Age of an ageable mob: negative is a baby (ticks until it grows up)
_NBT_BABY = re.compile(r"\bAge\s*:\s*-[0-9]+", re.IGNORECASE)
_NBT_ITEM = re.compile(r"id\s*:\s*\"?(?:minecraft:)?([a-z0-9_]+)\"?", re.IGNORECASE)
_NBT_COUNT = re.compile(r"[Cc]ount\s*:\s*([0-9]+)", re.ASCII)


def _summon(body: SimBody, args: list[str]) -> Apply:
    if not args or len(args) not in (1, 4, 5):
        raise _bad("usage: /summon <entity> [x y z] [nbt]")
    entity = body.md.entity(args[0]).name
    x, y, z = coords(body, args[1:4] if len(args) >= 4 else ["~", "~", "~"], block=False)
    nbt = args[4] if len(args) == 5 else ""
    if nbt and not (nbt.startswith("{") and nbt.endswith("}")):
        raise _bad(f"bad NBT {nbt!r}")
    no_ai = bool(_NBT_NOAI.search(nbt))
    baby = bool(_NBT_BABY.search(nbt))
    item: str | None = None
    count = 1
    if entity == "item":
        m = _NBT_ITEM.search(nbt)
        if not m:
            raise _bad("an item entity needs {Item:{id:\"...\",Count:n}}")
        item = body.md.item(m.group(1)).name
        c = _NBT_COUNT.search(nbt)
        if c and not _INT_RE.match(c.group(1)):
            raise _bad("item Count must be 1..6400")
        count = int(c.group(1)) if c else 1
        if not 1 <= count <= 6400:
            raise _bad("item Count must be 1..6400")

    def run() -> str:
        w = body.world
        if item is not None:
            e = w.spawn_item(item, count, x, y, z, delay=10, jitter=False)
        else:
            e = w.spawn_mob(entity, x, y, z, no_ai=no_ai)
            if baby:
                e.extra["baby"] = True  # the sim never grows it up: a calf stays a calf
        return f"Summoned new {entity} (id {e.id})"

    return run


def _time(body: SimBody, args: list[str]) -> Apply:
    if len(args) != 2 or args[0] not in ("set", "add", "query"):
        raise _bad("usage: /time set <day|noon|night|midnight|ticks> | /time add <ticks> | /time query daytime")
    op, raw = args
    if op == "query":
        return lambda: f"The time is {body.world.clock.time_of_day}"
    value = TIME_NAMES.get(raw) if op == "set" else None
    if value is None:
        if not _INT_RE.match(raw.removesuffix("t")):
            raise _bad(f"bad time {raw!r}; expected a name or 0..999999999 ticks")
        value = int(raw.removesuffix("t"))
    amount = value

    def run() -> str:
        clock = body.world.clock
        if op == "set":
            clock.set_time_of_day(amount)
        else:
            clock.day_time += amount
        return f"Set the time to {clock.time_of_day}"

    return run


def _tp(body: SimBody, args: list[str]) -> Apply:
    if len(args) == 4:
        _target(body, args[0])
        args = args[1:]
    if len(args) != 3:
        raise _bad("usage: /tp [player] <x> <y> <z>")
    x, y, z = coords(body, args, block=False)

    def run() -> str:
        body.teleport(Position(x, y, z))
        return f"Teleported {body.name} to {x:.2f}, {y:.2f}, {z:.2f}"

    return run


def _weather(body: SimBody, args: list[str]) -> Apply:
    if not args or args[0] not in ("clear", "rain", "thunder"):
        raise _bad("usage: /weather <clear|rain|thunder> [duration]")
    kind = args[0]

    def run() -> str:
        body.world.weather = kind
        return f"Set the weather to {kind}"

    return run


def _effect(body: SimBody, args: list[str]) -> Apply:
    if len(args) < 3 or args[0] != "give":
        raise _bad("usage: /effect give <player> <effect> [seconds] [amplifier]")
    _target(body, args[1])
    effect = args[2].removeprefix("minecraft:")
    if effect not in SUPPORTED_EFFECTS:
        raise BodyError(BodyErrorCode.UNSUPPORTED, f"effect {effect!r} is not simulated (supported: hunger)")
    if any(not _INT_RE.match(a) for a in args[3:5]):
        raise _bad("seconds and amplifier must be integers")
    seconds = int(args[3]) if len(args) > 3 else 30
    amplifier = int(args[4]) if len(args) > 4 else 0
    if seconds < 1 or not 0 <= amplifier <= 255:
        raise _bad("seconds must be >= 1 and amplifier 0..255")

    def run() -> str:
        pl = body.world.player
        pl.hunger_effect_until = body.world.clock.tick + seconds * 20
        pl.hunger_effect_level = amplifier
        return f"Applied effect {effect} to {body.name}"

    return run


def _gamerule(body: SimBody, args: list[str]) -> Apply:
    rules = {"randomTickSpeed": "random_tick_speed", "doMobSpawning": "do_mob_spawning",
             "doDaylightCycle": "do_daylight_cycle"}
    if len(args) != 2 or args[0] not in rules:
        raise _bad(f"usage: /gamerule <{'|'.join(rules)}> <value>")
    attr = rules[args[0]]
    value: Any
    if attr == "random_tick_speed":
        if not _INT_RE.match(args[1]) or int(args[1]) > 4096:
            raise _bad("randomTickSpeed must be an integer 0..4096")
        value = int(args[1])
    elif args[1] in ("true", "false"):
        value = args[1] == "true"
    else:
        raise _bad(f"{args[0]} must be true or false")

    def run() -> str:
        setattr(body.world.rules, attr, value)
        return f"Gamerule {args[0]} is now set to: {args[1]}"

    return run


def _kill(body: SimBody, args: list[str]) -> Apply:
    sel = args[0] if args else "@s"
    m = re.fullmatch(r"@e(?:\[type=(?:minecraft:)?([a-z_]+)\])?", sel)
    if m is None:
        _target(body, sel)

        def kill_self() -> str:
            body.world.damage_player(1000.0, "kill")
            return f"Killed {body.name}"

        return kill_self
    kind = body.md.entity(m.group(1)).name if m.group(1) else None

    def run() -> str:
        w = body.world
        ids = [eid for eid, e in sorted(w.entities.items()) if kind is None or e.name == kind]
        for eid in ids:
            del w.entities[eid]
        return f"Killed {len(ids)} entities"

    return run


def _clear(body: SimBody, args: list[str]) -> Apply:
    if args:
        _target(body, args[0])
    item = body.md.item(args[1]).name if len(args) > 1 else None

    def run() -> str:
        inv = body.world.player.inventory
        if item is None:
            n = sum(s.count for s in inv.slots.values())
            inv.slots.clear()
        else:
            n = inv.count(item)
            if n:
                inv.remove(item, n)
        return f"Removed {n} item(s) from {body.name}"

    return run


def _op(body: SimBody, args: list[str]) -> Apply:
    if len(args) != 1:
        raise _bad("usage: /op <player>")
    _target(body, args[0])

    def run() -> str:
        body.world.player.operator = True
        return f"Made {body.name} a server operator"

    return run


def _deop(body: SimBody, args: list[str]) -> Apply:
    if len(args) != 1:
        raise _bad("usage: /deop <player>")
    _target(body, args[0])

    def run() -> str:
        body.world.player.operator = False
        return f"Made {body.name} no longer a server operator"

    return run


def _say(body: SimBody, args: list[str]) -> Apply:
    text = " ".join(args)
    return lambda: f"[{body.name}] {text}"


COMMANDS: dict[str, Callable[[SimBody, list[str]], Apply]] = {
    "give": _give, "setblock": _setblock, "fill": _fill, "summon": _summon, "time": _time,
    "tp": _tp, "teleport": _tp, "weather": _weather, "effect": _effect, "gamerule": _gamerule,
    "kill": _kill, "clear": _clear, "op": _op, "deop": _deop, "say": _say,
}
