"""Keeping why's text index current: its keyword rows and its vectors.

The index is brought up to date by a step of its own that a `why` takes before any retrieval
(`before_read`), not by the ingest: embedding every commit and thread would make an ingest cost
several times the `git log` it reads, for histories that may never be asked why. On a store it
may write to, that step adds what is missing (one small read when nothing is); on a read-only
store the `why` answers from what is indexed and says the index is behind. Retrieval itself
only reads.
"""

from __future__ import annotations

from lore.core.embed import get_embedder
from lore.core.vectors import VectorIndex
from lore.history.repos import Repo
from lore.history.store import HistoryStore
from lore.history.why.store import WhyStore, open_why

COLLECTION = "history_text"
EMBED_CHARS = 2000  # of a long thread, the start carries its subject
BEHIND = (
    "the why index is behind this repository's history and the store is read-only, so newer "
    "commits and threads are not searched by their words or meaning (open the store writable "
    "and run `lore history ingest` to bring it up to date)"
)


def vector_index(db: WhyStore | None = None) -> VectorIndex:
    """The texts' vectors, in the store that holds the texts: their keys are its row ids, so
    they must not land in a shared database while the texts stay in a member's own file."""
    return VectorIndex(COLLECTION, get_embedder(), (db or open_why()).store)


# (store file, repository, embedder) -> the texts' state when every one of them had a vector
_vectors_complete: dict[tuple[str, int, str], tuple[int, int]] = {}


def update_index(repo: Repo, db: WhyStore | None = None) -> int:
    """Bring the keyword and vector indexes up to date with layer 1; returns texts added.

    Checking every text for a vector reads all their ids; once a process has seen them complete,
    one small read (layer 1's fingerprint, the texts' count and newest id: `WhyStore.look`)
    stands for it, and while nothing was committed to the store since the last call, not even
    that."""
    db = db or open_why()
    index = vector_index(db)
    memo = (str(db.store.path), repo.id, index.space.name)
    quiet = HistoryStore(db.store).quiet_since_last_look(f"why-index:{repo.id}:{index.space.name}")
    if quiet and memo in _vectors_complete:
        return 0
    db.pruned = []
    look = db.look(repo.id)  # one statement says whether anything needs indexing
    added = db.sync(repo.id, look)
    if db.pruned:
        index.delete(str(i) for i in db.pruned)
    state = look.docs if look.fresh else db.doc_state(repo.id)
    db.seen[repo.id] = state
    if added == 0 and _vectors_complete.get(memo) == state:
        return 0
    have = index.keys()
    absent = [i for i in db.doc_ids(repo.id) if str(i) not in have]
    if absent:
        missing = list(db.docs_by_id(absent).values())
        index.add_texts(
            (
                str(d.id),
                d.text[:EMBED_CHARS] or d.kind,
                {"repo": d.repo_id, "at": d.at or 0.0, "kind": d.kind},
            )
            for d in missing
        )
    _vectors_complete[memo] = state
    return added


def before_read(repo: Repo, db: WhyStore) -> str:
    """The step a `why` takes before retrieving: after an ingest it finds nothing to do. A
    writable store gets what is missing (`update_index`); a read-only one is read as it is, and
    the returned note says when its keyword rows are behind layer 1 ("" when they are not)."""
    if not db.store.read_only:
        update_index(repo, db)
        return ""
    return "" if db.look(repo.id).fresh else BEHIND
