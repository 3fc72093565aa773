"""Which of an entity's names to show: the fullest one the reader has already seen.

Without a full name, a titled form is shown before the bare word ("Mr. Bennet", not "Bennet"):
a bare surname is the whole family's, the title says which of them. A given name needs no title
to say whom it names: "Alice", not the "Miss Alice" a servant calls her once."""

from __future__ import annotations

from lore.books.names.given import GIVEN_GENDER
from lore.books.names.words import TITLES


def _name_words(form: str) -> int:
    return len([w for w in form.replace(".", "").split() if w not in TITLES])


def choose_display(forms: list[tuple[str, int]]) -> tuple[str, list[str]]:
    """The fullest visible name (most name words; untitled first among full names and given
    names, titled first among other one-word names; then most used), and the rest."""

    def key(f: tuple[str, int]) -> tuple[int, bool, int, str]:
        words = _name_words(f[0])
        titled = f[0].split()[0].rstrip(".") in TITLES
        plain_first = words > 1 or f[0].split()[-1] in GIVEN_GENDER
        return (-words, titled if plain_first else not titled, -f[1], f[0])

    ranked = sorted(forms, key=key)
    name = ranked[0][0]
    return name, [f for f, _ in sorted(forms, key=lambda f: (-f[1], f[0])) if f != name]
