"""The local web UI for rules: `lore serve` (127.0.0.1 only, one token per run)."""

from lore.web.app import create_app

__all__ = ["create_app"]
