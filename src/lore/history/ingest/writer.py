"""Buffer graph rows in memory and write them in one transaction per batch.

Ingest produces hundreds of thousands of rows; per-row round trips would dominate. The writer
keeps the repository's (kind, key) -> node id map in memory, hands out ids from a reserved
block, and flushes nodes, edges and detail rows with `executemany` inside one transaction.

Each new edge is counted into its two ends' degrees in that same transaction
(`GraphStore.add_edges`), so a degree can never disagree with the edges stored, however an
ingest ends (killed, failed, resumed): hub suppression depends on it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from lore.history.store import HistoryStore

_ID_BLOCK = 4096


class GraphWriter:
    """Collects nodes, edges and detail rows of one repository; `flush` writes them."""

    def __init__(self, store: HistoryStore, repo_id: int):
        self.store = store
        self.repo_id = repo_id
        self.ids = store.node_ids(repo_id)
        self._next = 0
        self._end = 0
        self._new: list[list[Any]] = []  # id, repo, kind, key, label, at (label and at may change)
        self._refresh: dict[int, tuple[str, float | None]] = {}
        self._edges: list[tuple] = []
        self._rows: dict[str, list[Any]] = {}
        self.nodes_added = 0
        self.edges_added = 0

    def node(self, kind: str, key: str, label: str = "", at: float | None = None) -> int:
        """The id of a node, created on first sight; a later label or newer time updates it."""
        nid = self.ids.get((kind, key))
        if nid is None:
            return self._create(kind, key, label, at)
        if label or at is not None:
            old = self._refresh.get(nid)
            if old is None:
                self._refresh[nid] = (label, at)
            else:
                old_label, old_at = old
                newest = at if old_at is None or (at is not None and at > old_at) else old_at
                self._refresh[nid] = (label or old_label, newest)
        return nid

    def _create(self, kind: str, key: str, label: str, at: float | None) -> int:
        if self._next >= self._end:
            with self.store.transaction() as db:
                self._next = db.reserve_node_ids(_ID_BLOCK)
            self._end = self._next + _ID_BLOCK
        nid = self._next
        self._next += 1
        self.ids[(kind, key)] = nid
        self._new.append([nid, self.repo_id, kind, key, label, at])
        self._refresh[nid] = ("", None)  # marker: new in this batch
        return nid

    def edge(self, src: int, dst: int, rel: str, at: float | None) -> None:
        self._edges.append((src, dst, rel, at))

    def rows(self, kind: str, row: Any) -> None:
        """A detail row for `flush` to pass to the store function registered under `kind`."""
        self._rows.setdefault(kind, []).append(row)

    def row_list(self, kind: str) -> list[Any]:
        """The buffered detail rows of `kind`, to append to (valid until the next `flush`)."""
        return self._rows.setdefault(kind, [])

    def edge_list(self) -> list[tuple]:
        """The buffered edges (src, dst, rel, at), to append to (valid until the next `flush`)."""
        return self._edges

    @property
    def pending(self) -> int:
        return len(self._edges) + len(self._new)

    def flush(
        self,
        writers: Mapping[str, Callable[[HistoryStore, Any], None]],
        extra: Callable[[HistoryStore], None] | None = None,
    ) -> None:
        """Write everything buffered, plus `extra` (e.g. a checkpoint), and the degrees of the
        nodes whose edges changed, in one transaction."""
        new_ids = set()
        for row in self._new:
            nid = row[0]
            new_ids.add(nid)
            label, at = self._refresh.get(nid, ("", None))
            if label:
                row[4] = label
            if at is not None and (row[5] is None or at > row[5]):
                row[5] = at
        updates = [(label, at, nid) for nid, (label, at) in self._refresh.items() if nid not in new_ids]
        with self.store.transaction() as db:
            if self._new:
                db.insert_nodes([tuple(r) for r in self._new])
            if updates:
                db.refresh_nodes(updates)
            if self._edges:
                self.edges_added += db.graph.add_edges(self._edges)
            for kind, rows in self._rows.items():
                writers[kind](db, rows)
            if extra is not None:
                extra(db)
        self.nodes_added += len(self._new)
        self._new, self._edges, self._rows, self._refresh = [], [], {}, {}
