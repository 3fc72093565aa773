"""Ingesting history: the streaming git log, GitHub, identities, batched writes, progress."""
