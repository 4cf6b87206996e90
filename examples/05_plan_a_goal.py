"""05: plan a goal and read why: the router scores every planner's tree and says which it chose.

``bot.plan`` asks the planners (crafting solver, HTN, GOAP; the LLM planner when configured) for a tree,
scores each candidate by confidence x sampled success x 1/cost, and returns the decision with the tree;
it runs nothing. ``bot.run_goal`` plans, runs, and replans with the failure as context when a tree fails
past local repair.

    python examples/05_plan_a_goal.py
"""

from __future__ import annotations

import tempfile

import craftbt

with craftbt.create_bot(seed=0, home=tempfile.mkdtemp(prefix="craftbt-05-")) as bot:
    decision = bot.plan("obtain stone_pickaxe")
    for candidate in decision.candidates:
        print(f"  {candidate.planner:7} ok={candidate.ok} method={candidate.method} cost={candidate.cost}")
    print("chosen:", decision.chosen, "-", decision.reason)
    print("plan:", decision.plan.explanation)

    outcome = bot.run_tree(decision.plan.tree)  # the chosen tree, as it was planned
    print("ran the chosen tree:", outcome.status)
    assert outcome.ok

# or plan, run and replan in one call, on a fresh world
with craftbt.create_bot(seed=0, home=tempfile.mkdtemp(prefix="craftbt-05-")) as bot:
    run = bot.run_goal("obtain stone_pickaxe")
    print("run_goal:", "ok" if run.ok else "failed", "after", len(run.attempts), "attempt(s):",
          [o.status for o in run.outcomes])
    assert run.ok
