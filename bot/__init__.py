"""The application room: one bot (a body, its executor and journal) that every front door drives.

:class:`~craftbt.bot.bot.Bot` and :func:`~craftbt.bot.bot.create_bot` (re-exported as ``craftbt.Bot`` and
``craftbt.create_bot``) own making a body from one description (:class:`~craftbt.bot.body.BodySpec`), the
executor's lifetime and per-job configuration, tree runs, script runs, goal runs (the router's one goal loop)
and cancellation. The command line, the Python API, serve and MCP, the autonomy loop, prove, eval and fleet
all go through it.
"""
