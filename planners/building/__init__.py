"""The building planner (seed 001): templates, module ordering, per-block decomposition, witnesses."""
