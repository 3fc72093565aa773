"""The reads of layer 1 `why` makes beside its texts: each text with its source's name, author,
link and thread in one statement, the sizes of a file's changes, and whether layer 2 holds any
decision. They join layer 1's tables, which is why the index lives in the same database.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lore.core.store.base import Store
from lore.core.store.binding import in_marks
from lore.history.why.store.records import ChangeSize, Doc, Sourced, SourceMeta, doc_of

# A text with its source's columns: the commit (reachable only) and the PR it names, the PR or
# issue, or the comment and its thread; one of the three groups is filled, by the text's kind.
_SOURCED = (
    "SELECT d.id, d.repo_id, d.kind, d.source_id, d.thread_id, d.at, d.text,"
    " c.sha, c.subject, c.author_name, c.pr_number, ci.kind, ci.title,"
    " i.number, i.kind, i.title, i.author, i.author_association, i.url,"
    " m.id, m.author, m.author_association, m.url, mi.number, mi.kind, mi.title"
    " FROM history_why_docs d"
    " LEFT JOIN history_commits c ON d.kind = 'commit' AND c.node_id = d.source_id AND c.reachable = 1"
    " LEFT JOIN history_items ci ON ci.repo_id = c.repo_id AND ci.number = c.pr_number"
    " LEFT JOIN history_items i ON d.kind IN ('pr', 'issue') AND i.node_id = d.source_id"
    " LEFT JOIN history_comments m ON d.kind IN ('issue_comment', 'review_comment')"
    " AND m.kind = d.kind AND m.id = d.source_id"
    " LEFT JOIN history_items mi ON mi.node_id = m.item_id"
    " WHERE "
)


def _meta(d: Doc, r: Sequence[Any]) -> SourceMeta | None:
    """The source meta of `_SOURCED`'s source columns, or None when the source is gone."""
    if d.kind == "commit":
        sha, subject, author, pr, thread_kind, thread_title = r[0:6]
        if sha is None:
            return None
        return SourceMeta(
            "commit", d.source_id, sha, subject, author, None, None, pr, thread_kind, thread_title
        )
    if d.kind in ("pr", "issue"):
        number, kind, title, author, association, url = r[6:12]
        if number is None:
            return None
        return SourceMeta(
            kind, d.source_id, str(number), title, author, association, url, number, kind, title
        )
    cid, author, association, url, number, kind, title = r[12:19]
    if cid is None:
        return None
    name = f"comment on {kind or 'thread'} #{number}" if number is not None else "comment"
    return SourceMeta(d.kind, d.source_id, str(cid), name, author, association, url, number, kind, title)


class SourceReads:
    """The room of `WhyStore` that reads the texts' sources and the changes of layer 1."""

    store: Store

    def has_decisions(self, repo_id: int) -> bool:
        """Whether layer 2 holds any decision for the repository (False before its tables exist):
        without one, `why` does not load the decisions' stack at all."""
        conn = self.store.connect()
        if self.store.dialect == "sqlite":
            table = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'history_decisions'"
        else:
            table = "SELECT 1 FROM information_schema.tables WHERE table_name = 'history_decisions'"
        if conn.execute(table).fetchone() is None:
            return False
        row = conn.execute("SELECT 1 FROM history_decisions WHERE repo_id = ? LIMIT 1", (repo_id,)).fetchone()
        return row is not None

    def change_sizes(
        self, file_ids: Sequence[int], as_of: float | None, limit: int, newest: bool = False
    ) -> list[ChangeSize]:
        """The commits that created these files, then those that changed them most, biggest
        first; or, with `newest`, the latest ones first. A change's size is the lines it added
        and removed in these files times the square root of the share of all its lines they
        are: a sweep that rewrote every file of the project (a formatter, annotations) writes
        many lines here but is about none of them (ordered by the square of that size, which
        needs no square root in SQL)."""
        if not file_ids:
            return []
        order = "MIN(ch.at) DESC, ch.commit_id DESC" if newest else "created DESC, focused DESC, MIN(ch.at)"
        rows = self.store.connect().execute(
            f"SELECT ch.commit_id, SUM(ch.added + ch.removed) AS lines, MIN(ch.at),"
            f" 1.0 * SUM(ch.added + ch.removed) * SUM(ch.added + ch.removed) * SUM(ch.added + ch.removed)"
            f" / (MAX(c.added + c.removed) + 1.0) AS focused,"
            f" MAX(CASE WHEN ch.status = 'A' THEN 1 ELSE 0 END) AS created FROM history_changes ch"
            f" JOIN history_commits c ON c.node_id = ch.commit_id AND c.reachable = 1"
            f" WHERE ch.file_id IN ({in_marks(file_ids)}) AND (CAST(? AS DOUBLE PRECISION) IS NULL OR ch.at <= ?)"
            f" GROUP BY ch.commit_id ORDER BY {order} LIMIT ?",
            [*file_ids, as_of, as_of, limit],
        )
        return [ChangeSize(c, n or 0, at, bool(created)) for c, n, at, _focused, created in rows]

    def source_meta(self, docs: Sequence[Doc]) -> dict[int, SourceMeta]:
        """doc id -> the name, author and link of its source, and the thread it belongs to; a
        commit no ref reaches any more (rewritten history) has none, so it is never evidence."""
        return {i: meta for i, (_doc, meta) in self.sourced([d.id for d in docs]).items()}

    def sourced(self, ids: Sequence[int]) -> dict[int, Sourced]:
        """doc id -> the text and its source's meta, in one statement (the text and its source
        were four reads); texts whose source is gone (see `source_meta`) are left out."""
        if not ids:
            return {}
        return self._sourced(f"d.id IN ({in_marks(ids)})", list(ids))

    def sourced_by_source(
        self, repo_id: int, kinds: Sequence[str], source_ids: Sequence[int]
    ) -> list[Sourced]:
        """The indexed texts of these layer-1 sources (commit or item nodes, comment ids), with each
        text's source meta, as `sourced` gives it."""
        if not source_ids or not kinds:
            return []
        # `+repo_id`: the (kind, source_id) key finds a handful of rows; left to itself the planner
        # would take the repository's index and read every text of it
        where = (
            f"+d.repo_id = ? AND d.kind IN ({in_marks(kinds)}) AND d.source_id IN ({in_marks(source_ids)})"
        )
        return list(self._sourced(where, [repo_id, *kinds, *source_ids]).values())

    def _sourced(self, where: str, params: list[Any]) -> dict[int, Sourced]:
        rows = self.store.connect().execute(_SOURCED + where, params)
        out: dict[int, Sourced] = {}
        for r in rows:
            doc = doc_of(r[:7])
            meta = _meta(doc, r[7:])
            if meta is not None:
                out[doc.id] = (doc, meta)
        return out
