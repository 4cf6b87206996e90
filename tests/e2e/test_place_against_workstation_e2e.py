"""A block placed against a block that opens on a click (a furnace, a crafting table) lands, as in vanilla.

Found on served natural terrain: a goal run to an iron pickaxe placed its crafting table on top of the
furnace it had just used; the click opened the furnace instead and the placement timed out twice. The
adapter now sneaks while placing against such a block, and craftbt's plugin reads 1.21.2+ sneaking
(``player_input``'s shift flag; flying-squid reads only the old ``entity_action``).
"""

from __future__ import annotations

import pytest

from craftbt.world.body import ActionStatus, Face
from tests.e2e.squidkit import Arena, finish, wait_until

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("station", ["furnace", "crafting_table"])
def test_place_a_block_on_top_of_a_workstation(arena: Arena, station: str) -> None:
    body, o = arena.body, arena.origin
    arena.give("crafting_table", 1)
    base = o.offset(dx=2)
    arena.setblock(base, station)
    wait_until(lambda: body.block_at(base).name == station or None, 5, f"the {station} to show")
    handle = body.place("crafting_table", base, Face.UP)
    assert finish(handle) is ActionStatus.SUCCEEDED, handle.error()
    assert body.block_at(base.offset(dy=1)).name == "crafting_table"
    assert body.open_window() is None  # nothing was opened on the way
