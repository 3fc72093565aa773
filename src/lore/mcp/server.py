"""`lore mcp`: the MCP server agents start over stdio.

The tools are thin: coerce forgiving inputs, call the session's service method, turn a
LoreError into a ToolError the model can read. Start-up stays light (no CLI, no models, no
numpy) because agents start the server at the beginning of every session.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from lore import __version__
from lore.core.config import load_settings
from lore.core.errors import LoreError
from lore.core.terminal import safe_text
from lore.mcp.inputs import as_list, as_objects
from lore.rules.agent import AgentSession, instructions

Paths = Annotated[
    list[str] | str | None,
    Field(
        description="Files you will change or that the rule concerns: a list or a comma-separated "
        "string; absolute or relative to the repository."
    ),
]
Folder = Annotated[str | None, Field(description="A folder inside the repository, when no files apply.")]


def _no_project(ctx: Context) -> None:
    """Saving tools never take a project name: say so instead of silently ignoring one."""
    params = getattr(ctx.request_context, "params", None) or {}
    arguments = params.get("arguments") if isinstance(params, Mapping) else None
    if isinstance(arguments, Mapping) and "project" in arguments:
        raise ToolError(
            "tools that save rules never take a project name; pass paths (files of "
            "the project) and the rules go to the project that holds them"
        )


def _call(fn, *args: Any, **kwargs: Any) -> str:
    """Every tool's reply and refusal: stored text reaches agent terminals, so no raw ESC."""
    try:
        return safe_text(fn(*args, **kwargs))
    except LoreError as exc:
        raise ToolError(safe_text(str(exc))) from None


def build_server(cwd: Path | str | None = None, session: AgentSession | None = None) -> MCPServer:
    """A server bound to one agent session (one connection)."""
    agent = session or AgentSession(cwd)
    server = MCPServer(
        name="lore",
        title="Lore",
        version=__version__,
        instructions=instructions(load_settings().approval),
    )

    @server.tool(annotations=None)
    def get_rules(
        paths: Paths = None,
        task: Annotated[
            str | None, Field(description="One sentence about the change (at most 500 characters).")
        ] = None,
        include: Annotated[
            list[str] | str | None, Field(description="Ids of left-out rules to send anyway.")
        ] = None,
        refresh: Annotated[
            bool, Field(description="Resend rules already sent in this session (after a context reset).")
        ] = False,
        max_tokens: Annotated[
            int | None, Field(description="Optional token cap for the reply, at least 100.")
        ] = None,
        path: Folder = None,
        project: Annotated[
            str | None, Field(description="A project name, when neither paths nor path apply.")
        ] = None,
    ) -> str:
        """Call before editing: the project's rules for these files and this change.

        Example: get_rules(paths=["src/api/orders.py"], task="add pagination to the orders endpoint").
        Follow the rules returned. Rules already sent in this session are not repeated.
        """
        return _call(
            agent.get_rules, as_list(paths), task, as_list(include), refresh, max_tokens, path, project
        )

    @server.tool()
    def search_rules(
        query: Annotated[str, Field(description="A few words, e.g. 'database migrations'.")],
        paths: Paths = None,
        path: Folder = None,
        project: Annotated[str | None, Field(description="A project name.")] = None,
        limit: int = 10,
    ) -> str:
        """Search the project's active rules by words (scope words included)."""
        return _call(agent.search_rules, query, as_list(paths), path, project, limit)

    @server.tool()
    def record_feedback(
        rule: Annotated[
            str,
            Field(
                description="The user's correction as one imperative rule, e.g. 'Use httpx, not requests'."
            ),
        ],
        paths: Paths = None,
        title: str = "",
        triggers: Annotated[
            list[str] | str | None, Field(description="Words of tasks the rule matters for.")
        ] = None,
        always: bool = False,
        scope: Annotated[
            list[str] | str | None, Field(description="A section (src/api) or file globs; empty = global.")
        ] = None,
        path: Folder = None,
        ctx: Context = None,  # type: ignore[assignment]
    ) -> str:
        """Save a rule from the user's correction of your code. The reply says whether it was
        activated or waits for approval; tell the user in one line."""
        _no_project(ctx)
        return _call(
            agent.record_feedback,
            rule,
            as_list(paths),
            title=title,
            triggers=triggers,
            always=always,
            scope=scope,
            path=path,
        )

    @server.tool()
    def propose_rules(
        rules: Annotated[
            list[dict[str, Any] | str] | dict[str, Any] | str,
            Field(description="[{text, title, triggers, always, scope}, ...]"),
        ],
        paths: Paths = None,
        path: Folder = None,
        ctx: Context = None,  # type: ignore[assignment]
    ) -> str:
        """Save rules you judged worth keeping (from discover_conventions or learn_from_reviews).
        Each is screened; the reply says which were activated and which wait."""
        _no_project(ctx)
        return _call(agent.propose_rules, _objects(rules, "rules"), as_list(paths), path)

    @server.tool()
    def organize_rules(paths: Paths = None, path: Folder = None) -> str:
        """List approved rules that have no tags yet, for you to tag with tag_rules."""
        return _call(agent.organize_rules, as_list(paths), path)

    @server.tool()
    def tag_rules(
        tags: Annotated[
            list[dict[str, Any]] | dict[str, Any] | str,
            Field(description="[{id, title, triggers, always}, ...]"),
        ],
        ctx: Context = None,  # type: ignore[assignment]
    ) -> str:
        """Save tags for rules listed by organize_rules. Be strict with always."""
        _no_project(ctx)
        return _call(agent.tag_rules, _objects(tags, "tags"))

    @server.tool()
    def discover_conventions(path: Folder = None) -> str:
        """Candidate conventions detected from the code, with evidence, for you to judge."""
        return _call(agent.discover_conventions, path)

    @server.tool()
    def learn_from_reviews(path: Folder = None) -> str:
        """Review feedback from the repository's pull requests, for you to judge."""
        return _call(agent.learn_from_reviews, path)

    return server


def _objects(value: Any, what: str) -> list[dict[str, Any]]:
    try:
        return as_objects(value, what)
    except LoreError as exc:
        raise ToolError(str(exc)) from None


def run_stdio(argv: list[str]) -> None:
    """Serve one agent session on stdin/stdout (logs go to stderr)."""
    if argv:
        sys.stderr.write(f"lore mcp takes no arguments (got {' '.join(argv)})\n")
        raise SystemExit(2)
    build_server(Path.cwd()).run("stdio")
