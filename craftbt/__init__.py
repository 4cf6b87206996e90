"""craftbt: a behavior-tree runtime with a capability registry for Minecraft bots."""

__version__ = "0.1.0"
