"""Layer 2 of the engineering history: the decisions a project made, each with its evidence.

    from lore.history.decisions import Decision, decisions

    for d in decisions("acme/widget", file="src/auth.py", as_of="2023-03-01"):
        print(d.statement, d.quote, d.source_url, d.valid_to)

`decisions()` and `Decision` are the stable face other features (`why`, MCP) import; the rest
(`extract`, `supersede`, `store`) is how the rows are made.
"""

from lore.history.decisions.service import Decision, decisions

__all__ = ["Decision", "decisions"]
