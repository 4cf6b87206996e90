"""Every body observes yaw in mineflayer radians; the mineflayer adapter's Notch degrees are converted."""

from __future__ import annotations

import math

import pytest

from craftbt.capabilities.leaves.movement import facing
from craftbt.world.body import pitch_from_notch, yaw_from_notch


@pytest.mark.parametrize(("notch", "cardinal"), [(0, (0, 1)), (90, (-1, 0)), (180, (0, -1)), (270, (1, 0)),
                                                  (-90, (1, 0)), (359, (0, 1))])
def test_notch_yaw_faces_the_same_way_as_the_embedded_world(notch: float, cardinal: tuple[int, int]) -> None:
    """Notch: 0 south, 90 west, 180 north, 270 east."""
    assert facing(yaw_from_notch(notch)) == cardinal


@pytest.mark.parametrize("radians", [0.0, 0.3, math.pi / 2, 2.0, math.pi, 4.0, 6.0])
def test_the_adapters_conversion_round_trips(radians: float) -> None:
    notch = ((180 - radians * 180 / math.pi) % 360 + 360) % 360  # world/mineflayer/adapter.js notchYaw
    assert math.isclose(yaw_from_notch(notch) % (2 * math.pi), radians % (2 * math.pi), abs_tol=1e-9)


def test_pitch_is_positive_looking_up() -> None:
    assert pitch_from_notch(-90.0) == pytest.approx(math.pi / 2)  # Notch -90 looks straight up
    assert pitch_from_notch(45.0) == pytest.approx(-math.pi / 4)
