"""The model layer: entities, names, facts and relations a model read into a book.

It lives apart from the names found by rule. Every row carries the passage and exact quote it
stands on, who extracted it, and the chapter/passage where it is established, so the same cap
applies to it; a book's run (one per book) says the layer is there.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from typing import Any

from lore.core.store.binding import in_marks

from .base import BooksTables
from .cap import Cap, cap_cte, visible
from .records import (
    EntityHits,
    FormCount,
    FormMatch,
    ModelEntityCount,
    ModelFact,
    ModelRelation,
    as_records,
)


class ModelTables(BooksTables):
    """The model layer of each book: written in one go per book, read under the cap."""

    def clear_model_layer(self, book_id: int) -> None:
        conn = self.store.connect()
        for table in ("book_model_relations", "book_model_facts", "book_model_names"):
            conn.execute(f"DELETE FROM {table} WHERE book_id = ?", (book_id,))
        conn.execute("DELETE FROM book_model_entities WHERE book_id = ?", (book_id,))
        conn.execute("DELETE FROM book_model_runs WHERE book_id = ?", (book_id,))

    def insert_model_entity(self, book_id: int, kind: str, extracted_by: str) -> int:
        conn = self.store.connect()
        cur = conn.execute(
            "INSERT INTO book_model_entities (book_id, kind, extracted_by) VALUES (?, ?, ?) RETURNING id",
            (book_id, kind, extracted_by),
        )
        return int(cur.fetchone()[0])

    def insert_model_names(self, rows: Iterable[tuple[Any, ...]]) -> None:
        """Rows of (entity_id, book_id, name, passage_id, chapter_seq, passage_seq)."""
        conn = self.store.connect()
        conn.executemany(
            "INSERT INTO book_model_names (entity_id, book_id, name, passage_id, chapter_seq, passage_seq)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            rows,
        )

    def insert_model_facts(self, rows: Iterable[tuple[Any, ...]]) -> None:
        """Rows of (book_id, entity_id, text, passage_id, chapter_seq, passage_seq, quote,
        quote_start, quote_end, extracted_by, confidence)."""
        conn = self.store.connect()
        conn.executemany(
            "INSERT INTO book_model_facts (book_id, entity_id, text, passage_id, chapter_seq,"
            " passage_seq, quote, quote_start, quote_end, extracted_by, confidence)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            rows,
        )

    def insert_model_relations(self, rows: Iterable[tuple[Any, ...]]) -> None:
        """Rows of (book_id, source_id, target_id, relation, passage_id, chapter_seq, passage_seq,
        quote, quote_start, quote_end, extracted_by, confidence)."""
        conn = self.store.connect()
        conn.executemany(
            "INSERT INTO book_model_relations (book_id, source_id, target_id, relation, passage_id,"
            " chapter_seq, passage_seq, quote, quote_start, quote_end, extracted_by, confidence)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            rows,
        )

    def record_model_run(
        self,
        book_id: int,
        extracted_by: str,
        chunks: int,
        failed: int,
        accepted: int,
        rejected: int,
    ) -> None:
        conn = self.store.connect()
        conn.execute(
            "INSERT INTO book_model_runs (book_id, extracted_by, chunks, failed_chunks, accepted,"
            " rejected, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (book_id, extracted_by, chunks, failed, accepted, rejected, time.time()),
        )

    def number_model_entities(self, book_id: int) -> None:
        """Rank a book's model entities by the first passage that gives one of their names."""
        conn = self.store.connect()
        conn.execute(
            "WITH firsts AS (SELECT e.id, ROW_NUMBER() OVER (ORDER BY MIN(n.chapter_seq) IS NULL,"
            " MIN(n.chapter_seq * 1048576 + n.passage_seq), e.id) AS r FROM book_model_entities e"
            " LEFT JOIN book_model_names n ON n.entity_id = e.id WHERE e.book_id = ? GROUP BY e.id)"
            " UPDATE book_model_entities SET seq = (SELECT r FROM firsts WHERE firsts.id = book_model_entities.id)"
            " WHERE book_id = ?",
            (book_id, book_id),
        )

    def model_entity_seqs(self, entity_ids: Sequence[int]) -> dict[int, int]:
        return self._seqs("book_model_entities", entity_ids)

    def has_model_layer(self, book_id: int) -> bool:
        conn = self.store.connect()
        return (
            conn.execute("SELECT 1 FROM book_model_runs WHERE book_id = ?", (book_id,)).fetchone() is not None
        )

    def model_entity_list(self, caps: Sequence[Cap], kind: str | None, limit: int) -> list[ModelEntityCount]:
        """Model entities with a visible name: visible passages about them and first chapter.

        A relation counts for an entity only when its other end has a visible name too."""
        conn = self.store.connect()
        cte, params = cap_cte(caps)
        kind_sql = " WHERE e.kind = ?" if kind else ""
        both = "r.source_id IN (SELECT entity_id FROM named) AND r.target_id IN (SELECT entity_id FROM named)"
        return as_records(
            ModelEntityCount,
            conn.execute(
                f"{cte}, named(entity_id) AS ("
                f" SELECT DISTINCT n.entity_id FROM book_model_names n JOIN cap ON {visible('n')}),"
                " ev(eid, passage_id, chapter_seq) AS ("
                f" SELECT n.entity_id, n.passage_id, n.chapter_seq FROM book_model_names n JOIN cap ON {visible('n')}"
                f" UNION SELECT f.entity_id, f.passage_id, f.chapter_seq FROM book_model_facts f"
                f" JOIN cap ON {visible('f')}"
                f" UNION SELECT r.source_id, r.passage_id, r.chapter_seq FROM book_model_relations r"
                f" JOIN cap ON {visible('r')} WHERE {both}"
                f" UNION SELECT r.target_id, r.passage_id, r.chapter_seq FROM book_model_relations r"
                f" JOIN cap ON {visible('r')} WHERE {both})"
                " SELECT e.id, e.book_id, e.kind, COUNT(DISTINCT ev.passage_id) AS passages,"
                " MIN(ev.chapter_seq) AS first_chapter, COUNT(DISTINCT ev.chapter_seq) AS chapters"
                " FROM book_model_entities e JOIN ev ON ev.eid = e.id"
                f" JOIN named ON named.entity_id = e.id{kind_sql}"
                " GROUP BY e.id ORDER BY passages DESC, e.id LIMIT ?",
                (*params, *([kind] if kind else []), limit),
            ),
        )

    def model_names(self, caps: Sequence[Cap], entity_ids: Sequence[int]) -> list[FormCount]:
        conn = self.store.connect()
        if not entity_ids:
            return []
        cte, params = cap_cte(caps)
        marks = in_marks(entity_ids)
        return as_records(
            FormCount,
            conn.execute(
                f"{cte} SELECT n.entity_id, n.name AS form, COUNT(*) AS n, MIN(n.chapter_seq) AS first_chapter"
                f" FROM book_model_names n JOIN cap ON {visible('n')}"
                f" WHERE n.entity_id IN ({marks}) GROUP BY n.entity_id, n.name",
                (*params, *entity_ids),
            ),
        )

    def model_entity_by_name(self, caps: Sequence[Cap], name: str) -> list[EntityHits]:
        conn = self.store.connect()
        cte, params = cap_cte(caps)
        return as_records(
            EntityHits,
            conn.execute(
                f"{cte} SELECT n.entity_id, COUNT(*) AS n FROM book_model_names n JOIN cap ON {visible('n')}"
                f" WHERE {self._nocase('n.name')} GROUP BY n.entity_id ORDER BY n DESC",
                (*params, name),
            ),
        )

    def model_facts(self, caps: Sequence[Cap], entity_id: int, limit: int) -> list[ModelFact]:
        conn = self.store.connect()
        cte, params = cap_cte(caps)
        return as_records(
            ModelFact,
            conn.execute(
                f"{cte} SELECT f.text, f.quote, f.chapter_seq, f.passage_seq, f.passage_id, f.extracted_by"
                f" FROM book_model_facts f JOIN cap ON {visible('f')} WHERE f.entity_id = ?"
                " ORDER BY f.chapter_seq, f.passage_seq, f.id LIMIT ?",
                (*params, entity_id, limit),
            ),
        )

    def model_relations(self, caps: Sequence[Cap], entity_id: int | None, limit: int) -> list[ModelRelation]:
        """Visible relations whose two ends both have a visible name (optionally around one entity)."""
        conn = self.store.connect()
        cte, params = cap_cte(caps)
        focus = " AND (r.source_id = ? OR r.target_id = ?)" if entity_id is not None else ""
        named = (
            "EXISTS (SELECT 1 FROM book_model_names n JOIN cap c2 ON n.book_id = c2.book_id AND"
            " (n.chapter_seq < c2.ch OR (n.chapter_seq = c2.ch AND n.passage_seq <= c2.ps))"
            " WHERE n.entity_id = {end})"
        )
        return as_records(
            ModelRelation,
            conn.execute(
                f"{cte} SELECT r.source_id, r.target_id, r.relation, r.quote, r.chapter_seq, r.passage_seq,"
                f" r.passage_id, r.extracted_by FROM book_model_relations r JOIN cap ON {visible('r')}"
                f" WHERE {named.format(end='r.source_id')} AND {named.format(end='r.target_id')}{focus}"
                " ORDER BY r.chapter_seq, r.passage_seq, r.id LIMIT ?",
                (*params, *([entity_id, entity_id] if entity_id is not None else []), limit),
            ),
        )

    def model_kinds(self, entity_ids: Sequence[int]) -> dict[int, str]:
        conn = self.store.connect()
        if not entity_ids:
            return {}
        marks = in_marks(entity_ids)
        rows = conn.execute(
            f"SELECT id, kind FROM book_model_entities WHERE id IN ({marks})", tuple(entity_ids)
        )
        return {r[0]: r[1] for r in rows}

    def model_autocomplete(self, caps: Sequence[Cap], prefix: str, limit: int) -> list[FormMatch]:
        """Model-layer names starting with the prefix (any word), among visible names."""
        conn = self.store.connect()
        cte, params = cap_cte(caps)
        escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        return as_records(
            FormMatch,
            conn.execute(
                f"{cte} SELECT n.entity_id, n.name AS form, COUNT(*) AS n FROM book_model_names n"
                f" JOIN cap ON {visible('n')}"
                f" WHERE {self._like_any_case('n.name')} OR {self._like_any_case('n.name')}"
                f" GROUP BY n.entity_id, n.name ORDER BY n DESC, {self._bytewise('n.name')} LIMIT ?",
                (*params, f"{escaped}%", f"% {escaped}%", limit),
            ),
        )
