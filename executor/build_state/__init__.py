"""Build state for checkpointed long-horizon building (seed 001 stages 1-4), kept in SQLite."""
