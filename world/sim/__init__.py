"""The embedded simulated world: craftbt's default body (see ``world.sim.body.SimBody``)."""
