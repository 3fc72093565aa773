"""Questions over the layer-1 graph: stats, churn, hotspots, coupling, a file's story, walks.

Each function takes a resolved `Repo` and returns plain dicts (the CLI renders them, `--json`
prints them as they are). Renames are followed: a file's history crosses `git mv`.

The questions live in modules of one family each, and every caller imports them from here (each
module loads when one of its names is first asked for, so a command that needs one family, or
only `base`, does not load the others):

- `base`: the store, times (dates and ages from the last commit), the head, `Filters`;
- `files`: which file each change is (every file of the history with its own changes);
- `counts`: stats, churn and hotspots;
- `coupling`: files that change together;
- `nodes`: nodes from what a user types, the file picker, what is shown beside a node;
- `walks`: the nodes within a few hops of a start;
- `renames`: a file followed through its renames along the commit graph;
- `story`: a file's story, and one commit whole.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lore.history.queries.base import Filters, history_end, parse_time, since_time
    from lore.history.queries.counts import churn, hotspots, stats
    from lore.history.queries.coupling import coupling
    from lore.history.queries.files import files_with_changes
    from lore.history.queries.nodes import (
        NODE_KINDS,
        find_files,
        node_summary,
        resolve_file,
        resolve_node,
        resolve_person,
    )
    from lore.history.queries.renames import changes_of, file_lineage
    from lore.history.queries.story import file_history, show_commit
    from lore.history.queries.walks import RELATIONS, walk_from

__all__ = [
    "NODE_KINDS",
    "RELATIONS",
    "Filters",
    "changes_of",
    "churn",
    "coupling",
    "file_history",
    "file_lineage",
    "files_with_changes",
    "find_files",
    "history_end",
    "hotspots",
    "node_summary",
    "parse_time",
    "resolve_file",
    "resolve_node",
    "resolve_person",
    "show_commit",
    "since_time",
    "stats",
    "walk_from",
]

_HOMES = {
    name: module
    for module, names in {
        "base": ("Filters", "history_end", "parse_time", "since_time"),
        "counts": ("churn", "hotspots", "stats"),
        "coupling": ("coupling",),
        "files": ("files_with_changes",),
        "nodes": (
            "NODE_KINDS",
            "find_files",
            "node_summary",
            "resolve_file",
            "resolve_node",
            "resolve_person",
        ),
        "renames": ("changes_of", "file_lineage"),
        "story": ("file_history", "show_commit"),
        "walks": ("RELATIONS", "walk_from"),
    }.items()
    for name in names
}


def __getattr__(name: str) -> Any:
    """A question's function, its module imported on first use."""
    module = _HOMES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value
