"""Which of an entity's names to show: the fullest one the reader has already seen."""

from __future__ import annotations

from lore.books.names.words import TITLES


def _name_words(form: str) -> int:
    return len([w for w in form.replace(".", "").split() if w not in TITLES])


def choose_display(forms: list[tuple[str, int]]) -> tuple[str, list[str]]:
    """The fullest visible name (most name words, untitled first, then most used), and the rest."""
    ranked = sorted(
        forms, key=lambda f: (-_name_words(f[0]), f[0].split()[0].rstrip(".") in TITLES, -f[1], f[0])
    )
    name = ranked[0][0]
    return name, [f for f, _ in sorted(forms, key=lambda f: (-f[1], f[0])) if f != name]
