"""Keeping why's text index current: its keyword rows and their statistics.

The keyword rows (a copy of each commit message, PR, issue and comment, with its words counted
per repository) are written by the ingest as its last step (`update_index`), so a `why` after
an ingest only reads: its own step before retrieving (`before_read`) finds layer 1 and the index
agree in one small read. A store an older Lore filled, or a history written without the ingest,
is brought up to date by that step when the store is writable; a read-only store is answered
from what is indexed, with a note that the index is behind.

Vectors are not part of it. On real histories the embedder's similarity between a question and
commit messages put the answer lower than the words alone did (bench/history_why_real.py, the
dev half), and embedding every text made the first `why` after an ingest cost seconds, so no
text is embedded. Vectors an older Lore made for texts that are gone are still deleted with
them (`vector_index`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lore.history.repos import Repo
from lore.history.store import HistoryStore
from lore.history.why.keywords import count
from lore.history.why.store import WhyStore, open_why

if TYPE_CHECKING:
    from lore.core.vectors import VectorIndex

COLLECTION = "history_text"
BEHIND = (
    "the why index is behind this repository's history and the store is read-only, so newer "
    "commits and threads are not searched by their words (open the store writable and run "
    "`lore history ingest` to bring it up to date)"
)


def vector_index(db: WhyStore | None = None) -> VectorIndex:
    """The texts' vectors, in the store that holds the texts: their keys are its row ids, so
    they must not land in a shared database while the texts stay in a member's own file."""
    from lore.core.embed import get_embedder
    from lore.core.vectors import VectorIndex

    return VectorIndex(COLLECTION, get_embedder(), (db or open_why()).store)


_current: set[tuple[str, int]] = set()  # (store, repository) this process found indexed


def update_index(repo: Repo, db: WhyStore | None = None) -> int:
    """Bring the keyword rows and their statistics up to date with layer 1; returns texts added.

    The ingest calls it last; a `why` calls it through `before_read`, where it costs one small
    read (layer 1's fingerprint, the texts' count and newest id: `WhyStore.look`), or none while
    nothing was committed to the store since this process last looked."""
    db = db or open_why()
    key = (str(db.store.path), repo.id)
    if HistoryStore(db.store).quiet_since_last_look(f"why-index:{repo.id}") and key in _current:
        return 0
    db.pruned = []
    look = db.look(repo.id)
    added = db.sync(repo.id, look, count=count)
    if db.pruned:  # a rebuild or a removal: the vectors of texts that are gone go too
        vector_index(db).delete(str(i) for i in db.pruned)
    _current.add(key)
    return added


def before_read(repo: Repo, db: WhyStore) -> str:
    """The step a `why` takes before retrieving: after an ingest it finds nothing to do. A
    writable store gets what is missing (`update_index`); a read-only one is read as it is, and
    the returned note says when its keyword rows are behind layer 1 ("" when they are not)."""
    if not db.store.read_only:
        update_index(repo, db)
        return ""
    return "" if db.look(repo.id).fresh else BEHIND
