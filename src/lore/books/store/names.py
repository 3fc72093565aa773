"""Names found by rule: entities (one per name form), their mentions, and the links that say
which short form stands for which full name from a given passage on.

Every read resolves a form to the entity it stands for at the reader's position (`_names_cte`)
and counts only visible mentions, so what a name means, how often it is said and what kind it is
all stop at the cap.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from lore.core.store.binding import in_marks

from .base import BooksTables
from .cap import Cap, cap_cte, visible
from .records import (
    Cooccurrence,
    EntityCount,
    EntityHits,
    FormCount,
    FormMatch,
    MentionRow,
    NamedIn,
    NameSpan,
    as_records,
)


def _names_cte(caps: Sequence[Cap], dialect: str) -> tuple[str, list[int]]:
    """The cap; `fe`: every name form of the capped books with `eid`, the entity it stands for at
    the reader's position (its last link at or before the cap, else itself); and `vm`: the
    visible mentions with their `eid`. (`fe` drives the join: one index lookup per form; SQLite
    is told so by CROSS JOIN, PostgreSQL's planner orders joins itself and has no CROSS JOIN ... ON.)"""
    cte, params = cap_cte(caps)
    last_link = (
        "SELECT l.target_id FROM book_name_links l WHERE l.entity_id = e.id"
        " AND (l.chapter_seq < cap.ch OR (l.chapter_seq = cap.ch AND l.passage_seq <= cap.ps))"
        " ORDER BY l.chapter_seq DESC, l.passage_seq DESC, l.id DESC LIMIT 1"
    )
    return (
        f"{cte}, fe(entity_id, eid) AS MATERIALIZED (SELECT e.id, COALESCE(({last_link}), e.id)"
        " FROM book_entities e JOIN cap ON e.book_id = cap.book_id),"
        f" vm AS (SELECT m.*, fe.eid FROM fe {_join_in_order(dialect)} book_mentions m ON m.entity_id = fe.entity_id"
        f" JOIN cap ON {visible('m')})"
    ), params


def _join_in_order(dialect: str) -> str:
    """A join whose left side is read first (SQLite needs telling; PostgreSQL plans it)."""
    return "CROSS JOIN" if dialect == "sqlite" else "JOIN"


# A group's kind under the cap: its name's own (a place by its last word, a titled person), else
# the vote of its visible mentions' cues: titles and speech for a person, "the" before a plural
# for a group, "in/at/near..." for a place (twice at least, and more than the person votes).
# (Votes are counted with CASE, not by summing comparisons, which PostgreSQL does not do.)
def _votes(condition: str) -> str:
    return f"SUM(CASE WHEN {condition} THEN 1 ELSE 0 END)"


_PERSON_VOTES = _votes("vm.titled <> 0 OR vm.cue = 'person'")
_PLACE_VOTES = _votes("vm.cue = 'place'")
_GROUP_VOTES = _votes("vm.cue = 'group'")
_GROUP_KIND = (
    "CASE WHEN e.kind = 'place' THEN 'place' WHEN e.kind = 'person' THEN 'person'"
    f" WHEN {_GROUP_VOTES} > {_PERSON_VOTES} THEN 'group'"
    f" WHEN {_PLACE_VOTES} >= 2 AND {_PLACE_VOTES} > {_PERSON_VOTES} THEN 'place'"
    f" WHEN {_PERSON_VOTES} > 0 THEN 'person' ELSE 'name' END"
)


class NameTables(BooksTables):
    """Entities found by rule, their mentions and name links, read under the cap."""

    def insert_entity(self, book_id: int, name: str, kind: str, seq: int) -> int:
        """One name form; `seq` is its rank in the book by first mention (what readers see)."""
        conn = self.store.connect()
        cur = conn.execute(
            "INSERT INTO book_entities (book_id, name, kind, seq) VALUES (?, ?, ?, ?) RETURNING id",
            (book_id, name, kind, seq),
        )
        return int(cur.fetchone()[0])

    def entity_seqs(self, entity_ids: Sequence[int]) -> dict[int, int]:
        """The reader-facing id (rank in the book by first mention) of each entity row."""
        return self._seqs("book_entities", entity_ids)

    def insert_mentions(self, rows: Iterable[tuple[Any, ...]]) -> None:
        """Rows of (entity_id, book_id, passage_id, chapter_seq, passage_seq, start, end, surface, form,
        titled, cue)."""
        conn = self.store.connect()
        conn.executemany(
            "INSERT INTO book_mentions (entity_id, book_id, passage_id, chapter_seq, passage_seq,"
            ' start, "end", surface, form, titled, cue) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
            rows,
        )

    def insert_name_links(self, rows: Iterable[tuple[int, int, int, int, int]]) -> None:
        """Rows of (book_id, entity_id, target_id, chapter_seq, passage_seq)."""
        conn = self.store.connect()
        conn.executemany(
            "INSERT INTO book_name_links (book_id, entity_id, target_id, chapter_seq, passage_seq)"
            " VALUES (?, ?, ?, ?, ?)",
            rows,
        )

    def names_pending(self) -> list[int]:
        """Books whose names a migration dropped, to be found again by the current code."""
        conn = self.store.connect()
        return [r[0] for r in conn.execute("SELECT book_id FROM book_names_pending ORDER BY book_id")]

    def names_found(self, book_id: int) -> None:
        conn = self.store.connect()
        conn.execute("DELETE FROM book_names_pending WHERE book_id = ?", (book_id,))

    def names_in_passages(self, caps: Sequence[Cap], ids: Sequence[int]) -> list[NameSpan]:
        """The names found in visible passages: passage id and offsets into the passage's text."""
        conn = self.store.connect()
        if not ids:
            return []
        cte, params = cap_cte(caps)
        marks = in_marks(ids)
        return as_records(
            NameSpan,
            conn.execute(
                f"{cte} SELECT m.passage_id, m.start - p.start AS start, m.end - p.start AS end"
                f" FROM book_mentions m JOIN cap ON {visible('m')} JOIN book_passages p ON p.id = m.passage_id"
                f" WHERE m.passage_id IN ({marks})",
                (*params, *ids),
            ),
        )

    def entity_list(
        self, caps: Sequence[Cap], kind: str | None, limit: int, entity_id: int | None = None
    ) -> list[EntityCount]:
        """Entities with at least one visible mention: visible mentions, passages, first chapter
        (all of them, or the one `entity_id`). Most present first: by the passages a name appears
        in, then the mentions, so a name repeated within one passage does not
        outrank a person met across the book."""
        conn = self.store.connect()
        cte, params = _names_cte(caps, self.store.dialect)
        where = " WHERE vm.eid = ?" if entity_id is not None else ""
        having = " HAVING e.kind = ?" if kind else ""  # the stored kind, as SQLite read `kind` here
        return as_records(
            EntityCount,
            conn.execute(
                f"{cte} SELECT vm.eid AS id, e.book_id, {_GROUP_KIND} AS kind, COUNT(*) AS mentions,"
                " COUNT(DISTINCT vm.passage_id) AS passages, MIN(vm.chapter_seq) AS first_chapter,"
                " COUNT(DISTINCT vm.chapter_seq) AS chapters"
                f" FROM vm JOIN book_entities e ON e.id = vm.eid{where} GROUP BY vm.eid, e.id{having}"
                " ORDER BY passages DESC, mentions DESC, vm.eid LIMIT ?",
                (*params, *([entity_id] if entity_id is not None else []), *([kind] if kind else []), limit),
            ),
        )

    def group_kinds(self, caps: Sequence[Cap], entity_ids: Sequence[int]) -> dict[int, str]:
        """The kind of each entity as the visible text shows it."""
        conn = self.store.connect()
        if not entity_ids:
            return {}
        cte, params = _names_cte(caps, self.store.dialect)
        marks = in_marks(entity_ids)
        rows = conn.execute(
            f"{cte} SELECT vm.eid, {_GROUP_KIND} FROM vm JOIN book_entities e ON e.id = vm.eid"
            f" WHERE vm.eid IN ({marks}) GROUP BY vm.eid, e.id",
            (*params, *entity_ids),
        )
        return {r[0]: r[1] for r in rows}

    def visible_forms(self, caps: Sequence[Cap], entity_ids: Sequence[int]) -> list[FormCount]:
        """The names each entity goes by in the visible text, with counts."""
        conn = self.store.connect()
        if not entity_ids:
            return []
        cte, params = _names_cte(caps, self.store.dialect)
        marks = in_marks(entity_ids)
        return as_records(
            FormCount,
            conn.execute(
                f"{cte} SELECT vm.eid AS entity_id, vm.form, COUNT(*) AS n, MIN(vm.chapter_seq) AS first_chapter"
                f" FROM vm WHERE vm.eid IN ({marks}) GROUP BY vm.eid, vm.form",
                (*params, *entity_ids),
            ),
        )

    def entities_by_form(self, caps: Sequence[Cap], name: str) -> list[EntityHits]:
        """Entities that a visible mention calls by this name (case-insensitive)."""
        conn = self.store.connect()
        cte, params = _names_cte(caps, self.store.dialect)
        return as_records(
            EntityHits,
            conn.execute(
                f"{cte} SELECT vm.eid AS entity_id, COUNT(*) AS n FROM vm"
                f" WHERE {self._nocase('vm.form')} OR {self._nocase('vm.surface')}"
                " GROUP BY vm.eid ORDER BY n DESC",
                (*params, name, name),
            ),
        )

    def autocomplete(self, caps: Sequence[Cap], prefix: str, limit: int) -> list[FormMatch]:
        """Names starting with the prefix (any word of the name), among visible mentions."""
        conn = self.store.connect()
        cte, params = _names_cte(caps, self.store.dialect)
        escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        return as_records(
            FormMatch,
            conn.execute(
                f"{cte} SELECT vm.eid AS entity_id, vm.form, COUNT(*) AS n FROM vm"
                f" WHERE {self._like_any_case('vm.form')} OR {self._like_any_case('vm.form')}"
                f" GROUP BY vm.eid, vm.form ORDER BY n DESC, {self._bytewise('vm.form')} LIMIT ?",
                (*params, f"{escaped}%", f"% {escaped}%", limit),
            ),
        )

    def entity_mentions(self, caps: Sequence[Cap], entity_id: int, limit: int) -> list[MentionRow]:
        """Visible mentions of an entity in reading order, with their passage."""
        conn = self.store.connect()
        cte, params = _names_cte(caps, self.store.dialect)
        return as_records(
            MentionRow,
            conn.execute(
                f"{cte} SELECT vm.chapter_seq, vm.passage_seq, vm.start, vm.end, vm.surface,"
                " p.id AS passage_id, p.text, p.start AS passage_start"
                " FROM vm JOIN book_passages p ON p.id = vm.passage_id"
                " WHERE vm.eid = ? ORDER BY vm.chapter_seq, vm.passage_seq, vm.start LIMIT ?",
                (*params, entity_id, limit),
            ),
        )

    def names_among(self, caps: Sequence[Cap], among: Sequence[int]) -> list[NamedIn]:
        """The names visible mentions use in the given passages: passage, the entity each stands
        for at the reader's position, and the name as written and as normalised."""
        if not among:
            return []
        conn = self.store.connect()
        cte, params = _names_cte(caps, self.store.dialect)
        return as_records(
            NamedIn,
            conn.execute(
                f"{cte} SELECT DISTINCT vm.passage_id, vm.eid, vm.form, vm.surface FROM vm"
                f" WHERE vm.passage_id IN ({in_marks(among)})",
                (*params, *among),
            ),
        )

    def cooccurrences(self, caps: Sequence[Cap], entity_id: int | None, limit: int) -> list[Cooccurrence]:
        """Pairs of entities named in the same visible passage: passages shared, first chapter.

        With `entity_id`, only that entity's neighbours (a graph walk of one hop)."""
        conn = self.store.connect()
        cte, params = _names_cte(caps, self.store.dialect)
        focus = " AND a.eid = ?" if entity_id is not None else ""
        pair = "a.eid != fb.eid" if entity_id is not None else "a.eid < fb.eid"
        return as_records(
            Cooccurrence,
            conn.execute(
                f"{cte} SELECT a.eid AS source, fb.eid AS target, COUNT(DISTINCT a.passage_id) AS passages,"
                " MIN(a.chapter_seq) AS first_chapter FROM vm a"
                " JOIN book_mentions b ON b.passage_id = a.passage_id AND b.entity_id != a.entity_id"
                f" JOIN fe fb ON fb.entity_id = b.entity_id WHERE {pair}{focus} GROUP BY a.eid, fb.eid"
                " ORDER BY passages DESC, source, target LIMIT ?",
                (*params, *([entity_id] if entity_id is not None else []), limit),
            ),
        )
