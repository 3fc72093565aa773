"""Errors of model calls, in the `LoreError` family so every interface shows one clear line."""

from __future__ import annotations

from lore.core.errors import LoreError


class ModelCallError(LoreError):
    """A provider could not be reached, refused the call, or kept failing after retries."""

    def __init__(self, message: str, status: int | None = None):
        super().__init__(message)
        self.status = status


class StructuredOutputError(ModelCallError):
    """The model's reply did not fit the schema, even after one repair; `raw` is what it said."""

    def __init__(self, message: str, raw: str):
        super().__init__(message)
        self.raw = raw
