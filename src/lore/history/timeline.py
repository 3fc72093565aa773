"""A file's timeline on both layers: its commits, PRs and issues (layer 1) beside the decisions
made about it (layer 2), as they stood at a moment.

The web view draws this; it lives here so that the moment means one thing everywhere. With
`as_of`, layer 1 is cut at that moment (nothing committed, opened or merged later) and a
decision counts only once made, and as it stood then: one superseded later was still in force,
one superseded by then keeps its end, its successor and the judge's reason.
"""

from __future__ import annotations

from typing import Any

from lore.core.dates import iso_utc, to_epoch
from lore.history import queries
from lore.history.decisions.service import file_decisions
from lore.history.repos import Repo


def file_timeline(repo: Repo, path: str, *, as_of: float | None = None) -> dict[str, Any]:
    """`queries.file_history` up to `as_of`, plus the decisions about the file then.

    `entries` are layer 1, nearest first then newest (as `file_history` ranks them);
    `decisions` are oldest first, each with `in_force` at the moment asked about (now when None).
    """
    story = queries.file_history(repo, path, until=iso_utc(as_of))
    entries = story["entries"]
    if as_of is not None:
        entries = [e for e in entries if e.get("at") is None or to_epoch(e["at"]) <= as_of]
    found = file_decisions(repo, story["file"], as_of=as_of)
    return {
        "repo": repo.name,
        "file": story["file"],
        "fate": story["fate"],
        "paths": story["paths"],
        "as_of": iso_utc(as_of),
        "entries": entries,
        "decisions": [d.as_dict() for d in found],
        "counts": {
            **{kind: sum(e["kind"] == kind for e in entries) for kind in ("commit", "pr", "issue")},
            "decision": len(found),
            "superseded": sum(not d.in_force for d in found),
        },
    }
