"""What search is asked: a reader's question read before any passage is (`question`: its answer
type, names, variants and cues) and the search words drawn from it (`query`: content words,
their narrative synonyms, the role a who-question names)."""
