"""02: write a tree of your own: YAML checked against the registry, every problem with its line.

A tree is YAML (or JSON): composites (``sequence``, ``selector``, ``parallel``), ``leaf`` nodes that
name a capability with its arguments, and ``condition`` nodes. ``validate_tree`` never raises for bad
content; it lists every problem, located.

    python examples/02_write_a_tree.py
"""

from __future__ import annotations

import tempfile

import craftbt

BROKEN = """
tree: planks
version: 1
root:
  sequence:
    children:
      - leaf: acquire_material
        args: {item: oak_log, count: 2, radius: 24}
      - leaf: craft_recipe
        args: {recipe: oak_planks, qty: "eight"}
"""

checked = craftbt.validate_tree(BROKEN, text=True)
for problem in checked.problems:
    print("problem:", problem.render())  # <text>:10:...: invalid_args ... (qty must be an integer)
assert not checked.ok and checked.problems[0].location.line == 10

FIXED = BROKEN.replace('qty: "eight"', "qty: 8")
assert craftbt.validate_tree(FIXED, text=True).ok
outcome = craftbt.run_tree(FIXED, craftbt.starter_world(seed=0), home=tempfile.mkdtemp(prefix="craftbt-02-"))
print("status:", outcome.status)
assert outcome.ok
