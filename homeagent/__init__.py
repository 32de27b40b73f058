"""HomeAgent: a long-running home assistant daemon with one fixed identity."""

__version__ = "0.1.0"
