"""Books: EPUB/PDF/text into chapters and passages, a capped entity graph, capped retrieval.

The reader's position (a chapter cap per book) is applied inside every query, so nothing past
it ever leaves the store.
"""
