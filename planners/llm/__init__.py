"""LLM planner: an OpenAI-compatible chat client whose answers are validated before anything runs."""
