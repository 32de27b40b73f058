"""The agent: one identity, one conversation, one turn at a time."""
