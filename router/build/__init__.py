"""The Structure Build Protocol's orchestration (seed 001): plan a module, execute it, check invariants, repair.

It sits above both the building planner and the executor, as the router does for goals: the executor runs
what it is given and never plans; the planner emits trees and never executes.
"""
