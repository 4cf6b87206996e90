"""What a body may tell beyond the Body protocol: weather, deaths and their causes, a world snapshot.

The Body protocol (world/body.py) has no weather and no death counter; the
embedded world has both, a real server reports them through its own events.
These helpers read them when the body offers them and answer ``None`` (unknown)
when it does not, so the signals and the report work from either body.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from craftbt.world.body import Body, BodyError


def _world(body: Body) -> Any:
    return getattr(body, "world", None)


def weather(body: Body) -> str | None:
    """The embedded world's ``world.weather``, or a body's ``weather()`` (the mineflayer body's, as the
    server last said); None when neither is there or the body cannot answer."""
    value = getattr(_world(body), "weather", None) or getattr(body, "weather", None)
    if callable(value):
        try:
            value = value()
        except BodyError:
            return None
    return str(value) if isinstance(value, str) else None


def deaths(body: Body) -> int | None:
    player = getattr(_world(body), "player", None)
    value = getattr(player, "deaths", None)
    return value if isinstance(value, int) else None


def death_causes(body: Body, since_tick: int) -> list[dict[str, Any]]:
    """``[{tick, cause}]`` for deaths the body recorded at or after ``since_tick`` (empty when it records none)."""
    events = getattr(_world(body), "events", None) or []
    return [{"tick": int(e["tick"]), "cause": str(e.get("cause") or "unknown")}
            for e in events if e.get("event") == "player_died" and int(e.get("tick", -1)) >= since_tick]


def can_snapshot(body: Body) -> bool:
    """The embedded world can be saved and restored; a server keeps its own world."""
    return _world(body) is not None and hasattr(_world(body), "store")


def save_snapshot(body: Body, path: Path) -> None:
    from craftbt.world.sim.snapshot import dumps

    tmp = path.with_suffix(".tmp")
    tmp.write_bytes(dumps(body))  # type: ignore[arg-type]
    tmp.replace(path)  # atomic: a kill mid-write leaves the previous snapshot whole


def load_snapshot(path: Path) -> Body:
    from craftbt.world.sim.snapshot import load_file

    body: Body = load_file(path)
    return body
