"""Shared core: settings, store, text tools, graph, models. Knows nothing of the domains."""
