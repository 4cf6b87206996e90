"""``craftbt serve``: one long-lived bot behind an HTTP/WebSocket API, an MCP server and a live tree viewer.

The layer sits just below the CLI: it uses the executor, router, CraftScript and the registry, and
nothing below it imports it.
"""
