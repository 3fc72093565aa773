"""The rules service: what the CLI, the MCP server and the web UI call.

Each function takes plain values, does one thing, and raises a LoreError with a readable line
when it cannot.

The functions live in parts of one concern each and are all importable from here: `projects`,
`rules` (adding, finding, listing), `review` (approving, rejecting, tagging, editing),
`choosing` (the rules a change is sent), `search`, `usage`.
"""

from __future__ import annotations

from lore.rules.service.choosing import (
    LISTED_NOTE,
    PathSplit,
    check_mode,
    new_session_id,
    rules_for_change,
    selection_mode,
    split_paths,
    tokenizer,
    untagged_covering,
)
from lore.rules.service.projects import (
    find_project,
    list_projects,
    project_for_path,
    refresh_map,
    register_project,
)
from lore.rules.service.review import (
    BULK_ACTIONS,
    apply_many,
    approve,
    edit,
    pin,
    reject,
    tag,
    unapprove,
)
from lore.rules.service.rules import (
    ID_PREFIX_MIN,
    add_rule,
    by_origin,
    get_rule,
    list_rules,
    parse_triggers,
    resolve_ids,
)
from lore.rules.service.search import NEAREST_BY_MEANING, SearchHit, search_rules
from lore.rules.service.usage import agent_outcomes, usage

__all__ = [
    "BULK_ACTIONS",
    "ID_PREFIX_MIN",
    "LISTED_NOTE",
    "NEAREST_BY_MEANING",
    "PathSplit",
    "SearchHit",
    "add_rule",
    "agent_outcomes",
    "apply_many",
    "approve",
    "by_origin",
    "check_mode",
    "edit",
    "find_project",
    "get_rule",
    "list_projects",
    "list_rules",
    "new_session_id",
    "parse_triggers",
    "pin",
    "project_for_path",
    "refresh_map",
    "register_project",
    "reject",
    "resolve_ids",
    "rules_for_change",
    "search_rules",
    "selection_mode",
    "split_paths",
    "tag",
    "tokenizer",
    "unapprove",
    "untagged_covering",
    "usage",
]
