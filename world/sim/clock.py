"""The simulated clock: game ticks decoupled from wall time, with optional real-time pacing."""

from __future__ import annotations

import time

from craftbt.world.body import TICKS_PER_DAY, TICKS_PER_SECOND
from craftbt.world.daytime import is_night

#: the most wall time a paced clock makes up by running ticks back to back (one tick's worth)
MAX_CATCH_UP_S = 1 / TICKS_PER_SECOND


class SimClock:
    """Counts ticks since the world began and the time of day (0..23999).

    By default ticks run as fast as the caller advances them. With
    ``realtime=True`` each :meth:`pace` call sleeps so the world never runs
    ahead of 20 ticks per wall second.

    The world only moves when its owner advances it, so wall time spent
    elsewhere (building the world, a planner thinking for three seconds, writing
    a snapshot) is time the world stands still. Pacing against a fixed origin
    used to repay that time afterwards with ticks run back to back, as fast as
    the machine goes: the world froze, then jumped. Now a lag of more than
    :data:`MAX_CATCH_UP_S` is forgiven: the origin moves up, and the world goes
    on at 20 ticks a second from where it stood.
    """

    def __init__(self, time_of_day: int = 1000, *, realtime: bool = False) -> None:
        self.tick = 0
        self.day_time = time_of_day % TICKS_PER_DAY
        self.realtime = realtime
        self._wall_origin = time.monotonic()
        self._tick_origin = 0

    def start_pacing(self) -> None:
        """Pace from now on at 20 ticks a second, counting from the current tick (a restored world is ahead)."""
        self.realtime = True
        self._tick_origin, self._wall_origin = self.tick, time.monotonic()

    @property
    def time_of_day(self) -> int:
        return self.day_time % TICKS_PER_DAY

    def step(self) -> None:
        self.tick += 1
        self.day_time += 1

    def set_time_of_day(self, value: int) -> None:
        """Like ``/time set``: moves the day clock without moving the tick counter."""
        self.day_time = (self.day_time // TICKS_PER_DAY) * TICKS_PER_DAY + value % TICKS_PER_DAY

    def is_night(self) -> bool:
        return is_night(self.time_of_day)

    def pace(self) -> None:
        """In real-time mode, sleep until wall time catches up with simulated time."""
        if not self.realtime:
            return
        now = time.monotonic()
        due = self._wall_origin + (self.tick - self._tick_origin) / TICKS_PER_SECOND
        delay = due - now
        if delay > 0:
            time.sleep(delay)
        elif -delay > MAX_CATCH_UP_S:  # the owner was busy elsewhere: forgive the lag rather than burst
            self._tick_origin, self._wall_origin = self.tick, now

    def seconds(self, ticks: int) -> float:
        return ticks / TICKS_PER_SECOND
