"""What the rules store keeps beside the rules: the vectors hybrid selection made of them (a
cache), and when reviews were last read for a project (`lore learn`, `learn_from_reviews`)."""

from __future__ import annotations

import time

from lore.core.errors import StoreError
from lore.core.store.binding import in_marks
from lore.rules.store.rules.base import RulesTables

VECTOR_WAIT_MS = 50  # a cache write never keeps an agent waiting behind another writer


class Caches(RulesTables):
    """Rule vectors and review-feedback attempts."""

    # -- rule vectors (a cache for hybrid selection) --------------------------------------------
    def rule_vectors(self, model: str, keys: dict[str, str]) -> dict[str, tuple[int, bytes]]:
        """Stored vectors of `model` for the rules given, as {rule id: (dim, float32 bytes)}, only
        where the vector was made from the text whose key is given (an edited rule has none)."""
        if not keys:
            return {}
        out: dict[str, tuple[int, bytes]] = {}
        ids = list(keys)
        conn = self._conn()
        for start in range(0, len(ids), 500):  # SQLite's bound-parameter limit
            chunk = ids[start : start + 500]
            rows = conn.execute(
                f"SELECT rule_id, text_key, dim, vector FROM rule_vectors "
                f"WHERE model = ? AND rule_id IN ({in_marks(chunk)})",
                (model, *chunk),
            )
            for rule_id, key, dim, vector in rows:
                if keys.get(rule_id) == key:
                    out[rule_id] = (int(dim), bytes(vector))
        return out

    def save_rule_vectors(self, model: str, rows: list[tuple[str, str, int, bytes]]) -> None:
        """Keep (rule id, text key, dim, float32 bytes) rows of `model`, replacing older ones. A
        cache, so it never fails a reply: skipped on a read-only or damaged store, or when another
        writer holds the store past VECTOR_WAIT_MS (the next process embeds those rules again)."""
        if not rows or self.store.read_only or self.store.damage is not None:
            return
        try:
            with self.store.transaction(wait_ms=VECTOR_WAIT_MS) as tx:
                tx.executemany(
                    "INSERT INTO rule_vectors (rule_id, model, text_key, dim, vector) VALUES (?, ?, ?, ?, ?) "
                    "ON CONFLICT(rule_id, model) DO UPDATE SET text_key = excluded.text_key, "
                    "dim = excluded.dim, vector = excluded.vector",
                    [(rule_id, model, key, dim, vector) for rule_id, key, dim, vector in rows],
                )
        except StoreError:  # busy past the wait, read-only or damaged: keep nothing this time
            return

    # -- review-feedback attempts (lore learn / learn_from_reviews) ------------------------------
    def record_review_attempt(self, project_id: int, ok: bool, detail: str = "") -> float:
        now = time.time()
        with self.store.transaction() as tx:
            tx.execute(
                "INSERT INTO review_attempts (project_id, at, ok, detail) VALUES (?, ?, ?, ?)",
                (project_id, now, int(ok), detail[:500]),
            )
        return now

    def last_review_attempt(self, project_id: int) -> float | None:
        row = (
            self._conn()
            .execute("SELECT MAX(at) FROM review_attempts WHERE project_id = ?", (project_id,))
            .fetchone()
        )
        return row[0] if row else None
