"""One mob loot table: the simulated world's drops, the test server's plugin and the planners' hunts read it."""

from __future__ import annotations

import json
import subprocess

import pytest

from craftbt.world import nature
from craftbt.world.loot import MOB_LOOT
from craftbt.world.mineflayer.node_env import PACKAGE_DIR, find_node_modules, missing_packages, node_binary
from craftbt.world.mineflayer.server import FlyingSquid, vanilla_rules

# Kill each mob many times through the plugin's loot function, with minecraft-data's registry for 1.21.4.
JS_KILLS = r"""
const path = require('path')
const survival = require(process.argv[1])
const registry = require(path.join(process.argv[2], 'minecraft-data'))('1.21.4')
const table = JSON.parse(process.argv[3])
const seen = {}
for (const name of ['sheep', 'cow', 'spider', 'rabbit']) {
  seen[name] = {}
  for (let i = 0; i < 200; i++) {
    for (const [item, count] of survival.lootFor(table, registry, name, Math.random)) {
      const s = seen[name][item] || (seen[name][item] = [99, 0])
      s[0] = Math.min(s[0], count); s[1] = Math.max(s[1], count)
    }
  }
}
console.log(JSON.stringify(seen))
"""


def test_the_server_is_sent_the_loot_table_the_planners_hunt_by() -> None:
    assert nature.MOB_LOOT is MOB_LOOT
    rules = vanilla_rules("1.21.4")
    assert rules["loot"] is MOB_LOOT
    assert FlyingSquid().settings()["craftbt"]["loot"]["sheep"] == MOB_LOOT["sheep"]


@pytest.mark.skipif(node_binary() is None or bool(missing_packages(("flying-squid",))), reason="needs Node and "
                    "flying-squid (craftbt node install)")
def test_the_plugin_drops_by_craftbts_table_and_by_minecraft_data_only_for_a_mob_it_lacks() -> None:
    """minecraft-data's newest entity loot (1.20) gives a sheep no wool and every count as 1: a sheep killed on the
    server must drop the wool the planners count on, with the table's ranges; a rabbit (not in the table) still
    drops minecraft-data's loot."""
    nm, node = find_node_modules(), node_binary()
    assert nm is not None and node is not None
    table = json.loads(json.dumps(MOB_LOOT))
    seen = json.loads(subprocess.run(
        [node, "-e", JS_KILLS, str(PACKAGE_DIR / "squid_survival.js"), str(nm), json.dumps(table)],
        check=True, capture_output=True, text=True, timeout=60).stdout)
    for mob in ("sheep", "cow", "spider"):
        assert set(seen[mob]) <= {item for item, _, _ in MOB_LOOT[mob]}, mob
        for item, lo, hi in MOB_LOOT[mob]:
            if hi > 0 and item in seen[mob]:
                assert lo <= seen[mob][item][0] and seen[mob][item][1] <= hi, (mob, item)
    assert "white_wool" in seen["sheep"]
    assert seen["cow"]["beef"][1] == 3  # three beef happens in 200 kills; minecraft-data says at most one
    assert "rabbit" not in MOB_LOOT and seen["rabbit"]
