"""What honorifics say: a short form's title ("Mr" in "Mr. Holmes"), its gender, whether a
titled short form can stand for a full name seen with other titles, and what a form says
about itself (a place, a person, or only a name).

Used by the grouping of short forms with full names and by the model layer, apart from the
finder's reading of the text.
"""

from __future__ import annotations

from lore.books.names.words import FEMALE, MALE, PLACE_WORDS, TITLES


def title_of(form: str) -> str | None:
    """The honorific a short form is said with ("Mr" in "Mr. Holmes"), if any."""
    head = form.split(" ", 1)[0].rstrip(".")
    return head if head in TITLES and " " in form else None


def gender(title: str | None) -> str:
    if title in MALE:
        return "m"
    if title in FEMALE:
        return "f"
    return "n"


# Women's titles also say which name a woman goes by: "Miss Darcy" is not "Lady Anne Darcy",
# and "Mrs. Darcy" (a wife) is neither. A woman's short title joins a full name only when that
# name was said with a title of the same class, or with none.
_TITLE_CLASS = {
    "Miss": "miss",
    "Mademoiselle": "miss",
    "Mlle": "miss",
    "Mrs": "mrs",
    "Madame": "mrs",
    "Mme": "mrs",
}


def compatible(title: str | None, seen: set[str], pronoun: str = "") -> bool:
    """Whether a titled short form can be a full name seen with these titles.

    `pronoun`: the gender the pronouns after the full name's mentions point to ("" unknown);
    it stands in for a title when the full name was never said with a gendered one."""
    mine = gender(title)
    seen_genders = {gender(t) for t in seen} - {"n"}
    if mine == "n":
        return not (seen_genders - {"m"}) or not seen_genders
    if not seen_genders:
        return pronoun == mine
    if mine == "f" and title is not None:
        classes = {_TITLE_CLASS.get(t, t) for t in seen if gender(t) == "f"}
        return _TITLE_CLASS.get(title, title) in classes
    return mine in seen_genders


def form_kind(form: str) -> str:
    """What a name says about itself: a place ("Baker Street"), a person ("Mr. Bennet"), or not."""
    if form.split()[-1] in PLACE_WORDS:
        return "place"
    return "person" if title_of(form) else "name"
