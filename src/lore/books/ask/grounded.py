"""The grounding check for one answer: what the reader has met, and what they have not.

Every claim and every written sentence passes `lore.core.grounding` before the model's own
check: its names, numbers and key words must be in the passage it cites, and it must not name
anything the reader has not reached (a name first met past the cap, though the model may know
it from its training). A sentence cut for that is withheld from every output, so the answer,
its `--json` and the web reader never show the name.
"""

from __future__ import annotations

from lore.books.ask.gather import Target
from lore.books.store import BooksStore
from lore.core.grounding import GroundingCheck, default_embed

WITHHELD = "[withheld: it names what you have not reached]"


def grounding_for(db: BooksStore, where: Target) -> GroundingCheck:
    """The check for answers at this target's position (with spoilers on, nothing is unmet)."""
    caps = where.caps
    return GroundingCheck(
        aliases=db.met_name_groups(caps),
        unmet=[] if where.spoilers else db.unmet_forms(caps),
        headers=[b.title for b in where.books],
        embed=default_embed(),
    )
