"""GOAP planner: A* over symbolic facts from the capabilities' declared preconditions and effects."""
