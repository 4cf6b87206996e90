"""The minecraft-data a server body uses follows the version it speaks, or the join is refused clearly."""

from __future__ import annotations

import pytest

from craftbt.world import mcdata
from craftbt.world.body import BodyError, BodyErrorCode
from craftbt.world.mineflayer.body import MineflayerBody


def test_the_shipped_versions_are_the_data_files() -> None:
    assert mcdata.DEFAULT_VERSION in mcdata.shipped_versions()
    for version in mcdata.shipped_versions():
        assert mcdata.load(version).version == version


@pytest.mark.parametrize("version", ["1.21.9", "1.20.1"])
def test_joining_with_a_version_craftbt_ships_no_data_for_is_refused_before_connecting(version: str) -> None:
    with pytest.raises(BodyError) as info:
        MineflayerBody.connect("127.0.0.1", 1, "bot", version=version)  # port 1: never reached
    assert info.value.code is BodyErrorCode.UNSUPPORTED
    assert f"not {version}" in info.value.detail and mcdata.DEFAULT_VERSION in info.value.detail
