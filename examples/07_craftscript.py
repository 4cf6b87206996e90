"""07: CraftScript, a small C-style language for the bot, run from a tree leaf.

A script is parsed and checked before anything moves; every world-changing command passes the same
capability pipeline as a tree leaf and lands in the journal. ``craftbt script run -e '...'`` runs one on
the command line; here the ``run_script`` capability runs it inside a tree.

    python examples/07_craftscript.py
"""

from __future__ import annotations

import json
import tempfile

import craftbt

SCRIPT = """
log("building a pillar");
build_pillar(3);
log("done");
"""

tree = {
    "tree": "pillar",
    "version": 1,
    "root": {"leaf": "run_script", "args": {"source": SCRIPT}},
}
body = craftbt.load_scenario("flat_empty")  # a shipped scenario: superflat, open sky
body.run_command("/give @s cobblestone 3")  # the embedded world's operator commands set the scene
before = body.observe().position
outcome = craftbt.run_tree(craftbt.load_tree(json.dumps(tree, indent=2), text=True), body,
                           home=tempfile.mkdtemp(prefix="craftbt-07-"))
after = body.observe().position
print(f"status {outcome.status}; the bot stood at y={before.y:.0f}, now at y={after.y:.0f}")
assert outcome.ok and after.y >= before.y + 3
