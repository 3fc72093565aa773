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
# and "Mrs. Darcy" (a wife) is neither. "Mrs." and "Madame" name a married woman by her
# family's name: they join a full name only when that name was itself said with a title of the
# same class, never on a pronoun alone ("Madame Charpentier" is not her son "Arthur
# Charpentier"); "Lady" before a surname, only a name said with "Lady" ("Lady Lucas" is not her
# daughter "Charlotte Lucas"). "Miss" joins a woman's full name said with "Miss" or with no
# woman's title at all.
_TITLE_CLASS = {
    "Miss": "miss",
    "Mademoiselle": "miss",
    "Mlle": "miss",
    "Mrs": "mrs",
    "Madame": "mrs",
    "Mme": "mrs",
}


def compatible(
    title: str | None, seen: set[str], pronoun: str = "", given: str = "", by_first: bool = False
) -> bool:
    """Whether a titled short form can be a full name seen with these titles.

    `pronoun`: the gender the pronouns after the full name's mentions point to ("" unknown);
    `given`: the gender its given name says ("" unknown), which outweighs the pronouns;
    `by_first`: the short form names the full name's given name ("Lady Catherine"), not its
    surname, so a woman's title says nothing of marriage."""
    mine = gender(title)
    seen_genders = {gender(t) for t in seen} - {"n"}
    if mine != "n" and given and given != mine:
        return False
    if mine == "n":
        return not (seen_genders - {"m"}) or not seen_genders
    if title == "Lady":
        if "Lady" in seen:
            return True
        # "Lady Lucas", a knight's wife, is only a name said with "Lady"; "Lady Catherine", by
        # her given name, may also be a woman's name said with no title before
        return by_first and not seen_genders and (given or pronoun) == "f"
    if mine == "f" and title is not None:
        mine_class = _TITLE_CLASS.get(title, title)
        classes = {_TITLE_CLASS.get(t, t) for t in seen if gender(t) == "f"}
        if classes:
            return mine_class in classes
        if seen_genders or (mine_class == "mrs" and not by_first):
            return False
        return (given or pronoun) == "f"
    if not seen_genders:
        return (given or pronoun) == mine
    return mine in seen_genders


def form_kind(form: str) -> str:
    """What a name says about itself: a place ("Baker Street"), a person ("Mr. Bennet"), or not."""
    if form.split()[-1] in PLACE_WORDS:
        return "place"
    return "person" if title_of(form) else "name"
