"""Lore: local-first memory for coding agents and readers."""

__version__ = "0.1.0"
