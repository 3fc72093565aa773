"""What every part of the books store stands on: the Store, where reading positions live, and
the few expressions the two engines write differently."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from lore.core.store import Store
from lore.core.store.binding import in_marks


class BooksTables:
    """The Store the books tables live in, and (for a shared library) the reader's own file.

    Methods run on the calling thread's connection, so inside `transaction()` they all join one
    transaction; rows come back as records, never as driver rows.
    """

    def __init__(self, store: Store, positions: Store | None = None):
        self.store = store
        # where reading positions live: beside the books (None), or the reader's own file
        self.positions = positions

    @property
    def path(self) -> Path:
        return self.store.path

    def _nocase(self, column: str) -> str:
        """`column` equals the next parameter, ignoring case (PostgreSQL has no NOCASE)."""
        if self.store.dialect == "sqlite":
            return f"{column} = ? COLLATE NOCASE"
        return f"lower({column}) = lower(?)"

    def _like_any_case(self, column: str) -> str:
        """`column` matches the next parameter's `LIKE` pattern (escaped by `\\`), ignoring case:
        SQLite's `LIKE` ignores ASCII case by itself, PostgreSQL's `ILIKE` does."""
        if self.store.dialect == "sqlite":
            return f"{column} LIKE ? ESCAPE '\\'"
        return f"{column} ILIKE ? ESCAPE '\\'"

    def _bytewise(self, expr: str) -> str:
        """Text ordered by its bytes, as SQLite orders it, whatever the database's collation."""
        return expr if self.store.dialect == "sqlite" else f'{expr} COLLATE "C"'

    def _seqs(self, table: str, entity_ids: Sequence[int]) -> dict[int, int]:
        if not entity_ids:
            return {}
        conn = self.store.connect()
        rows = conn.execute(
            f"SELECT id, seq FROM {table} WHERE id IN ({in_marks(entity_ids)})", tuple(entity_ids)
        )
        return {r[0]: r[1] for r in rows}
