"""Choosing what an agent is sent: the in-memory index and the selection of seed 003."""
