"""The simulated clock: game ticks decoupled from wall time, with optional real-time pacing."""

from __future__ import annotations

import time

from craftbt.world.body import TICKS_PER_DAY, TICKS_PER_SECOND
from craftbt.world.daytime import is_night


class SimClock:
    """Counts ticks since the world began and the time of day (0..23999).

    By default ticks run as fast as the caller advances them. With
    ``realtime=True`` each :meth:`pace` call sleeps so the world never runs
    ahead of 20 ticks per wall second.
    """

    def __init__(self, time_of_day: int = 1000, *, realtime: bool = False) -> None:
        self.tick = 0
        self.day_time = time_of_day % TICKS_PER_DAY
        self.realtime = realtime
        self._wall_origin = time.monotonic()
        self._tick_origin = 0

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
        due = self._wall_origin + (self.tick - self._tick_origin) / TICKS_PER_SECOND
        delay = due - time.monotonic()
        if delay > 0:
            time.sleep(delay)

    def seconds(self, ticks: int) -> float:
        return ticks / TICKS_PER_SECOND
