"""Hostiles that cannot reach the bot: a mob that has stood in one place for a while is not chasing it.

Mobs step straight towards the player once it is within their follow range (the embedded world's
``world/sim/mobs.py``; vanilla's pathfinding gives up the same way), so a hostile that has not
moved for :data:`STUCK_TICKS` while the bot was near is walled off: a spider in a cave under the
bot's pit, a zombie in a hole. Counting it as a threat kept a sheltered bot in its pit for two
game days on natural seed 6 (a spider 10.6 blocks away in a cave, never moving: ``leave_shelter``
waits for no hostile within 12 blocks, and outside the pit the same spider sent the bot back
into one). A stuck mob still counts when it is close (:data:`STUCK_FAR`), for a while
(:data:`STUCK_PATIENCE`), and a skeleton always counts: it shoots from where it stands.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from craftbt.world.body import EntityInfo, Position

#: a hostile that moved less than this (blocks) ...
STUCK_MOVE = 1.5
#: ... for this many game ticks (30 s) is stuck where it stands
STUCK_TICKS = 600
#: a stuck hostile nearer than this still counts: it may be stuck at the pit's rim, one step from the bot
STUCK_FAR = 6.0
#: ... and one stuck this long is left out however near it stands: a spider on the pit's roof, in the shade of a
#: tree, kept natural seed 6 in its pit for two game days (it walks straight at the bot below it and cannot move).
#: Leaving, the bot may be bitten; hurt, it hides again by the usual rule
STUCK_PATIENCE = 2_400
#: mobs that attack from where they stand: standing still is how they fight
RANGED = frozenset({"skeleton", "stray"})


@dataclass
class StuckHostiles:
    """Tracks each hostile's anchor (where it last moved to, and when) across percepts."""

    anchors: dict[int, tuple[Position, int]] = field(default_factory=dict)

    def update(self, tick: int, hostiles: Iterable[EntityInfo], me: Position) -> frozenset[int]:
        """The ids of the hostiles in ``hostiles`` that are stuck far enough from ``me`` to be left out."""
        stuck: set[int] = set()
        seen: dict[int, tuple[Position, int]] = {}
        for e in hostiles:
            anchor = self.anchors.get(e.id)
            if anchor is None or anchor[0].distance_to(e.position) > STUCK_MOVE or tick < anchor[1]:
                anchor = (e.position, tick)  # it moved (or the clock went back): count from here
            seen[e.id] = anchor
            still = tick - anchor[1]
            if e.name not in RANGED and (still >= STUCK_PATIENCE
                                         or (still >= STUCK_TICKS and e.position.distance_to(me) > STUCK_FAR)):
                stuck.add(e.id)
        self.anchors = seen  # forget mobs out of view: one that comes back is watched afresh
        return frozenset(stuck)
