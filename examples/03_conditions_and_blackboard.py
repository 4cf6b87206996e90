"""03: conditions skip work already done; the blackboard carries values into arguments.

A ``selector`` tries its children in order until one succeeds, so "condition, else the leaf that makes
it true" is the postcondition-first shape every planner emits: on a second run the condition holds and
nothing moves. ``"{key}"`` in an argument reads the tree's blackboard.

    python examples/03_conditions_and_blackboard.py
"""

from __future__ import annotations

import tempfile

import craftbt

TREE = """
tree: planks
version: 1
blackboard:
  log: birch_log
  planks: birch_planks
root:
  selector:
    name: Enough planks
    children:
      - condition: {check: has_item, args: {item: "{planks}", count: 4}}
      - sequence:
          name: Make planks
          memory: true
          children:
            - selector:
                name: A log
                children:
                  - condition: {check: has_item, args: {item: "{log}", count: 1}}
                  - leaf: acquire_material
                    args: {item: "{log}", count: 1, radius: 32}
            - leaf: craft_recipe
              args: {recipe: "{planks}", qty: 4}
"""

home = tempfile.mkdtemp(prefix="craftbt-03-")
body = craftbt.starter_world(seed=0)
first = craftbt.run_tree(TREE, body, home=home)
second = craftbt.run_tree(TREE, body, home=home)  # the same body: the conditions now hold
print(f"first run: {first.status}, {first.dispatches} dispatches; second run: {second.status}, "
      f"{second.dispatches} dispatches")
assert first.ok and second.ok and first.dispatches > 0 and second.dispatches == 0
