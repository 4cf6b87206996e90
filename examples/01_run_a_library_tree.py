"""01: make a bot on the embedded world, run a tree from the library, and read the outcome.

The library ships a few trees (``craftbt trees`` lists them). The embedded world is a seeded,
deterministic simulator: the same seed gives the same world and the same run. ``craftbt.create_bot``
makes the bot (its body, executor and journal); the ``with`` block closes it.

    python examples/01_run_a_library_tree.py
"""

from __future__ import annotations

import tempfile

import craftbt

home = tempfile.mkdtemp(prefix="craftbt-01-")  # where the journal and reports go (default: $CRAFTBT_HOME)

# the starter world: trees, stone and ore near spawn; an empty inventory
with craftbt.create_bot(world="starter", seed=0, home=home) as bot:
    outcome = bot.run_tree(craftbt.library_tree("obtain_wooden_pickaxe"))
    held = bot.body.observe()

print(f"status {outcome.status}: {outcome.leaves_run} leaves in {outcome.ticks} game ticks "
      f"({outcome.sim_ms / 1000:.1f} s of game time, {outcome.wall_ms / 1000:.2f} s of wall time)")
print("inventory:", {item: held.count(item) for item in ("wooden_pickaxe", "stick", "oak_planks")})
print("journal run id:", outcome.run_id)
assert outcome.ok and held.count("wooden_pickaxe") == 1
