"""What raises a candidate passage above its word and meaning ranks: the question's characters
named in it (or just before it), each weighed by how rarely the visible book names them, and the
cue words of the question's answer type.

A character the question names is a strong hint only when the book does not name them
everywhere: "Miss Rachel" points at a handful of passages, "Holmes" at a quarter of his own
stories, so a passage naming Holmes says little about whether it answers "how did Holmes know
Watson sent a telegram?". A character's share of the boost falls with the share of visible
passages that name them, to nothing at `COMMON_NAME_SHARE`; the share is counted from the
same capped statistics as the word scores (`search._lexical`), so it never reads past the cap.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from lore.books.retrieve.question import Understanding, name_words, resolve
from lore.books.store import BooksStore
from lore.books.store.cap import Cap
from lore.books.store.records import PassageRow

# a candidate's fused score x (1 + ENTITY_BOOST x the rarity-weighted share of the question's
# characters named in it or just before it + CUE_BOOST when it holds a cue word of the answer type)
ENTITY_BOOST = 1.5
CUE_BOOST = 0.2
# a character named in this share of the visible passages or more raises nothing; below it, the
# weight rises linearly to 1 (measured on the spent labelled sets: 5% to 20% all did as well)
COMMON_NAME_SHARE = 0.1


def rarity(share: float) -> float:
    """How much a character named in `share` of the visible passages counts, from 1 (named once)
    to 0 (named in COMMON_NAME_SHARE of them or more)."""
    return max(0.0, 1.0 - share / COMMON_NAME_SHARE)


def name_share(name: str, shares: Mapping[str, float]) -> float:
    """The share of visible passages naming a character: that of the rarest word of its name the
    question's word groups counted ("Jonathan Small": Jonathan), 0 when none was counted."""
    known = [shares[w] for w in name_words(name) if w in shares]
    return min(known) if known else 0.0


def boosts(
    db: BooksStore,
    caps: Sequence[Cap],
    understood: Understanding,
    rows: Mapping[int, PassageRow],
    shares: Mapping[str, float],
) -> dict[int, float]:
    """A multiplier share per candidate: the question's characters named in it or just before it
    (two named characters: passages near both count most), each by its rarity, and its answer
    type's cue words. `shares`: each one-word group of the question -> the share of visible
    passages holding it."""
    out: dict[int, float] = {}
    focus = resolve(db, caps, understood.names, sorted({n for pid in rows for n in (pid - 1, pid)}))
    if focus:
        weights = [rarity(name_share(f.name, shares)) for f in focus]
        for pid in rows:
            near = sum(
                w for w, f in zip(weights, focus, strict=True) if pid in f.passages or pid - 1 in f.passages
            )
            out[pid] = ENTITY_BOOST * near / len(focus)
    if understood.cues and CUE_BOOST:
        cued = re.compile(r"\b(?:" + "|".join(map(re.escape, understood.cues)) + r")\b", re.I)
        for pid, row in rows.items():
            if cued.search(row.text):
                out[pid] = out.get(pid, 0.0) + CUE_BOOST
    return out
