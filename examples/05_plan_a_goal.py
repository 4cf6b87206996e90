"""05: plan a goal and read why: the router scores every planner's tree and says which it chose.

``plan_goal`` asks the planners (crafting solver, HTN, GOAP; the LLM planner when configured) for a tree,
scores each candidate by confidence x sampled success x 1/cost, and returns the decision with the tree.
``run_goal`` also runs it, and replans with the failure as context when a tree fails past local repair.

    python examples/05_plan_a_goal.py
"""

from __future__ import annotations

import tempfile

import craftbt

decision = craftbt.plan_goal("obtain stone_pickaxe", craftbt.starter_world(seed=0))
for candidate in decision.candidates:
    print(f"  {candidate.planner:7} ok={candidate.ok} method={candidate.method} cost={candidate.cost}")
print("chosen:", decision.chosen, "-", decision.reason)
print("plan:", decision.plan.explanation)

outcome = craftbt.run_tree(decision.plan.tree, craftbt.starter_world(seed=0),
                           home=tempfile.mkdtemp(prefix="craftbt-05-"))
print("ran the chosen tree:", outcome.status)
assert outcome.ok
