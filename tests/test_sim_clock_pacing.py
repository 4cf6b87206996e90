"""The paced clock (``--realtime``): never faster than 20 ticks a wall second, and no burst after a stall."""

from __future__ import annotations

import pytest

from craftbt.world.sim import clock as clock_mod
from craftbt.world.sim.clock import SimClock


class FakeWall:
    def __init__(self) -> None:
        self.now = 100.0

    def monotonic(self) -> float:
        return self.now

    def sleep(self, s: float) -> None:
        self.now += s


@pytest.fixture
def wall(monkeypatch: pytest.MonkeyPatch) -> FakeWall:
    fake = FakeWall()
    monkeypatch.setattr(clock_mod.time, "monotonic", fake.monotonic)
    monkeypatch.setattr(clock_mod.time, "sleep", fake.sleep)
    return fake


def run(clock: SimClock, ticks: int) -> None:
    for _ in range(ticks):
        clock.step()
        clock.pace()


def test_a_paced_clock_runs_20_ticks_a_wall_second(wall: FakeWall) -> None:
    clock = SimClock(realtime=True)
    clock.start_pacing()
    start = wall.now
    run(clock, 200)
    assert wall.now - start == pytest.approx(10.0)


def test_a_stall_is_forgiven_not_repaid_with_a_burst(wall: FakeWall) -> None:
    clock = SimClock(realtime=True)
    clock.start_pacing()
    run(clock, 20)
    wall.now += 3.0  # a planner thinks for 3 s: the world stands still meanwhile
    run(clock, 1)  # the lag is noticed on the next tick and forgiven
    after_stall = wall.now
    run(clock, 20)
    # the next 20 ticks take a full second again, instead of running back to back to make up the 3 s
    assert wall.now - after_stall == pytest.approx(1.0)


def test_start_pacing_counts_from_the_current_tick(wall: FakeWall) -> None:
    clock = SimClock()
    for _ in range(5000):  # a restored world is thousands of ticks ahead of tick 0
        clock.step()
    clock.start_pacing()
    start = wall.now
    run(clock, 40)
    assert clock.realtime and wall.now - start == pytest.approx(2.0)
