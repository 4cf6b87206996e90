"""``python -m craftbt``."""

from craftbt.cli import main

main()
