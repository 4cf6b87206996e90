"""The shared vocabulary every layer may import: structured errors with source locations, YAML positions."""
