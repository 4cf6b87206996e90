"""The geofence on the path: a moving leaf whose bot steps out of the fence is stopped.

The pipeline checks a leaf's targets before dispatch, but the body chooses the
path (and ``follow_entity`` names no position at all), so the executor also
watches the bot while a leaf that moves it is running. The moment the bot goes
from inside the fence to outside it, every such dispatch is aborted with
``geofence_violation:path`` (not retried: the same path would leave again) and
the crossing is recorded. A bot that starts outside may walk back in; only the
crossing outwards counts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from craftbt.capabilities.spec import Permission
from craftbt.world.body import Body

if TYPE_CHECKING:
    from craftbt.executor.state import RunState


class PathWatch:
    """Call :meth:`check` at the safety poll's cadence; it aborts moving dispatches that leave the fence."""

    def __init__(self, run: RunState) -> None:
        self.run = run
        self.inside: bool | None = None

    def check(self, body: Body) -> None:
        fence = self.run.config.geofence
        if fence is None:
            return  # nothing that moves was admitted (fail closed in the pipeline)
        moving = [s for s in self.run.active if s.is_dispatching() and Permission.MOVEMENT in s.spec.permissions]
        fast = self.run.fast_path
        if (fast is not None and fast not in moving and fast.is_dispatching()
                and Permission.MOVEMENT in fast.spec.permissions):
            moving.append(fast)  # a retreat is fenced too: fail closed
        if not moving:
            self.inside = None  # a new movement starts a new watch
            return
        position = body.position()
        inside = fence.contains(position)
        crossed = self.inside is True and not inside
        self.inside = inside
        if not crossed:
            return
        where = f"({position.x:.1f}, {position.y:.1f}, {position.z:.1f})"
        for sup in moving:
            sup.abort("geofence_violation:path", f"the bot left the geofence at {where}", retryable=False)
            self.run.decide("geofence_violation:path", node=sup.name, capability=sup.spec.key,
                            detail={"position": [position.x, position.y, position.z]})
