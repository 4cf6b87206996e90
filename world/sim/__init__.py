"""world/sim."""
