"""world/mineflayer."""
