"""HTN planner: a small total-order engine with backtracking and the crafting-domain method library."""
