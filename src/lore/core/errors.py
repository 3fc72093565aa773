"""One error family for all of Lore; interfaces turn these into one-line messages."""

from __future__ import annotations


class LoreError(Exception):
    """Something the user can act on; the message is a single readable line."""

    exit_code = 1


class NotFound(LoreError):
    """A named thing (project, rule, book) does not exist."""

    exit_code = 3


class InvalidInput(LoreError):
    """Input was refused; the message says why."""

    exit_code = 2


class AlreadyExists(InvalidInput):
    """A write collided with a row that must be unique (another writer got there first).

    Stores raise it in place of the driver's integrity error, so callers never see a driver
    type and can retry or report on any backend.
    """


class StoreError(LoreError):
    """The store could not be opened or is damaged."""

    exit_code = 4


class NeedsModel(LoreError):
    """A feature needs a language model and none is configured."""

    exit_code = 5
