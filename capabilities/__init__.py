"""Capabilities: the registry of leaf verbs and the behaviour that runs them."""
