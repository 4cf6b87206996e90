"""The autonomy loop (seed 003): signals, homeostasis, needs, goals, the task bootstrapper and episodic memory.

It sits above the router and below the CLI: it turns needs into goals, goals into
trees through the router (or a built-in routine), and runs them through the executor.
"""
