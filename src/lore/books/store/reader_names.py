"""The names an answer may use at a reader's position, and the ones it may not.

A model knows famous books from its training: never sending it the later text is not enough,
it can still write "Jefferson Hope" into a chapter-4 answer. The grounding check
(`lore.core.grounding`) cuts a sentence that names what the reader has not met, and lets a
name stand for the forms the reader has met it under. Both lists come from the mentions found
by rule (`names.py`), split at the cap.
"""

from __future__ import annotations

from collections.abc import Sequence

from .base import BooksTables
from .cap import Cap, cap_cte, visible
from .names import _names_cte


class ReaderNameTables(BooksTables):
    """Names split at the reader's cap."""

    def unmet_forms(self, caps: Sequence[Cap]) -> list[str]:
        """Every name form and surface the capped books use only past the cap."""
        if not caps:
            return []
        conn = self.store.connect()
        cte, params = cap_cte(caps)
        later = f"NOT ({visible('m')})"
        rows = conn.execute(
            f"{cte} SELECT m.form FROM book_mentions m JOIN cap ON m.book_id = cap.book_id WHERE {later}"
            f" UNION SELECT m.surface FROM book_mentions m JOIN cap ON m.book_id = cap.book_id WHERE {later}"
            f" EXCEPT SELECT m.form FROM book_mentions m JOIN cap ON {visible('m')}"
            f" EXCEPT SELECT m.surface FROM book_mentions m JOIN cap ON {visible('m')}",
            params,
        )
        return sorted(r[0] for r in rows)

    def met_name_groups(self, caps: Sequence[Cap]) -> list[list[str]]:
        """The forms each entity goes by in the visible text, one list per entity."""
        if not caps:
            return []
        conn = self.store.connect()
        cte, params = _names_cte(caps, self.store.dialect)
        groups: dict[int, list[str]] = {}
        for eid, form in conn.execute(f"{cte} SELECT DISTINCT vm.eid, vm.form FROM vm", params):
            groups.setdefault(eid, []).append(form)
        return [sorted(forms) for _, forms in sorted(groups.items())]
