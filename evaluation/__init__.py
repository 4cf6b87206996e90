"""Evaluation at scale: goal x seed x planner matrices and fleets of bots, in-process or on Ray."""
