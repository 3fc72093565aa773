"""A book's names written to the store: one entity row per name form, every mention in its
passage, and the timeline of which full name each short form joins.

Apart from the import because the same writing runs again, with today's finder, for books a
migration queued (`catalogue.open_books`).
"""

from __future__ import annotations

from bisect import bisect_right

from lore.books.names.groups import name_index
from lore.books.names.titles import form_kind
from lore.books.store import BooksStore


def store_names(tx: BooksStore, book_id: int, texts: list[str] | None = None) -> None:
    """Find a book's names and write them: one entity row per name form, every mention in its
    passage, and the timeline of which full name each short form joins (`name_groups`)."""
    texts = tx.chapter_texts(book_id) if texts is None else texts
    ends: dict[int, list[int]] = {}
    ids: dict[tuple[int, int], int] = {}
    for r in tx.passage_spans(book_id):
        ends.setdefault(r.chapter_seq, []).append(r.end)
        ids[(r.chapter_seq, r.passage_seq)] = r.id
    mentions, links = name_index(texts)
    placed = [(m, m.chapter + 1, _passage_of(ends.get(m.chapter + 1, []), m.start)) for m in mentions]
    forms: dict[str, int] = {}
    for rank, name in enumerate(dict.fromkeys(m.form for m, _, k in placed if k is not None), start=1):
        forms[name] = tx.insert_entity(book_id, name, form_kind(name), rank)  # rank: first mention
    mention_rows = []
    for m, seq, k in placed:
        if k is not None:
            mention_rows.append(
                (
                    forms.get(m.means, forms[m.form]),  # "Miss Bennet" where its passage says whom
                    book_id,
                    ids[(seq, k)],
                    seq,
                    k,
                    m.start,
                    m.end,
                    m.surface,
                    m.form,
                    int(bool(m.titles)),
                    m.cue,
                )
            )
    tx.insert_mentions(mention_rows)
    link_rows = []
    for link in links:
        if link.form not in forms or link.target not in forms:
            continue
        seq = link.chapter + 1
        k = _passage_of(ends.get(seq, []), link.start) or len(ends.get(seq, [])) or 1
        link_rows.append((book_id, forms[link.form], forms[link.target], seq, k))
    tx.insert_name_links(link_rows)


def _passage_of(ends: list[int], offset: int) -> int | None:
    """1-based passage holding a chapter offset (passages are contiguous and ordered)."""
    k = bisect_right(ends, offset)
    return k + 1 if k < len(ends) else None
