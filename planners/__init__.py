"""planners."""
