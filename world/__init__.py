"""Bodies: the Body protocol, the embedded simulated world, and the mineflayer body."""
