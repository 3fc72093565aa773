"""The rules tools of `lore mcp`: get_rules before an edit, search, and what an agent may save.

Thin tools: check the forgiving inputs, call the agent session's method, and translate a
LoreError into the one line the model reads (`toolbox.call`). Saving tools never take a project
name: the rules go to the project that holds the paths.
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping
from typing import Annotated, Any

import anyio
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from lore.core.errors import LoreError
from lore.core.terminal import safe_text
from lore.mcp.inputs import RuleItem, TagItem, as_list, as_objects
from lore.mcp.toolbox import READING, REVIEWS, SAVING, SEARCHING, TAGGING, Toolbox, call
from lore.rules.agent import AgentSession, PreparedReply

Paths = Annotated[
    list[str] | str | None,
    Field(
        description="Files you will change or that the rule concerns: a list or a comma-separated "
        "string; absolute or relative to the repository."
    ),
]
Folder = Annotated[
    str | None,
    Field(
        description="A folder inside the repository (absolute or relative to it), when no files "
        "apply; get_rules then sends that folder's section rules."
    ),
]


def _no_project(ctx: Context) -> None:
    """Saving tools never take a project name: say so instead of silently ignoring one."""
    params = getattr(ctx.request_context, "params", None) or {}
    arguments = params.get("arguments") if isinstance(params, Mapping) else None
    if isinstance(arguments, Mapping) and "project" in arguments:
        raise ToolError(
            "tools that save rules never take a project name; pass paths (files of "
            "the project) and the rules go to the project that holds them"
        )


def _prepare(agent: AgentSession, *args: Any) -> PreparedReply:
    try:
        return agent.prepare_rules(*args)
    except LoreError as exc:
        raise ToolError(safe_text(str(exc))) from None


def register(box: Toolbox) -> None:
    """Add the rules tools to the server, in the order agents see them listed."""
    for add in (
        _get_rules,
        _search_rules,
        _record_feedback,
        _propose_rules,
        _organize_rules,
        _tag_rules,
        _discover_conventions,
        _learn_from_reviews,
    ):
        add(box)


def _get_rules(box: Toolbox) -> None:
    # one get_rules at a time per session: no rule sent twice (sessions dropped, locks gone)
    serving: weakref.WeakKeyDictionary[AgentSession, anyio.Lock] = weakref.WeakKeyDictionary()

    @box.tool(READING)
    async def get_rules(
        paths: Paths = None,
        task: Annotated[
            str | None, Field(description="One sentence about the change (at most 500 characters).")
        ] = None,
        include: Annotated[
            list[str] | str | None,
            Field(description="Ids (or unique prefixes of 4+ characters) of left-out rules to send anyway."),
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
        ctx: Context = None,  # type: ignore[assignment]
    ) -> str:
        """Call before editing: the project's rules for these files and this change.

        Example: get_rules(paths=["src/api/orders.py"], task="add pagination to the orders endpoint").
        Follow the rules returned. Rules already sent in this session are not repeated.
        """
        agent = box.agent_of(ctx)
        async with serving.setdefault(agent, anyio.Lock()):

            def build() -> PreparedReply:
                prepared = _prepare(
                    agent, as_list(paths), task, as_list(include), refresh, max_tokens, path, project
                )
                if box.reply_built is not None:
                    box.reply_built()
                return prepared

            # The worker thread cannot be interrupted, so a cancel that arrives while it builds
            # the reply is held back until it returns: raise it now, before anything is marked.
            prepared = await anyio.to_thread.run_sync(build)
            await anyio.lowlevel.checkpoint_if_cancelled()
            # From here to the reply's write there is no await (the SDK checks for a cancel
            # right after the handler returns, with none in between either), so a cancel can no
            # longer come between marking the reply sent and sending it.
            try:
                prepared.commit()
            except LoreError as exc:  # a store that turned damaged or read-only meanwhile
                raise ToolError(safe_text(str(exc))) from None
        return safe_text(prepared.text)


def _search_rules(box: Toolbox) -> None:
    @box.tool(SEARCHING)
    def search_rules(
        query: Annotated[str, Field(description="A few words, e.g. 'database migrations'.")],
        paths: Paths = None,
        path: Folder = None,
        project: Annotated[str | None, Field(description="A project name.")] = None,
        limit: Annotated[int, Field(description="How many rules at most.", ge=1, le=100)] = 10,
        ctx: Context = None,  # type: ignore[assignment]
    ) -> str:
        """Search the project's active rules by words (scope words included)."""
        return call(box.agent_of(ctx).search_rules, query, as_list(paths), path, project, limit)


def _record_feedback(box: Toolbox) -> None:
    @box.tool(SAVING)
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
        """Save a rule from the user's correction of your code.

        The reply says whether it was activated or waits for approval; tell the user in one line.
        """
        _no_project(ctx)
        return call(
            box.agent_of(ctx).record_feedback,
            rule,
            as_list(paths),
            title=title,
            triggers=triggers,
            always=always,
            scope=scope,
            path=path,
        )


def _propose_rules(box: Toolbox) -> None:
    @box.tool(SAVING)
    def propose_rules(
        rules: Annotated[
            list[RuleItem | str] | RuleItem | str,
            Field(
                description="Rules to save, at most 200: [{text, title, triggers, always, scope}, ...]; "
                "a plain sentence is one rule."
            ),
        ],
        paths: Paths = None,
        path: Folder = None,
        ctx: Context = None,  # type: ignore[assignment]
    ) -> str:
        """Save rules you judged worth keeping (from discover_conventions or learn_from_reviews).

        Each is screened; the reply says which were activated and which wait.
        """
        _no_project(ctx)
        return call(
            lambda: box.agent_of(ctx).propose_rules(
                as_objects(rules, "rules", RuleItem), as_list(paths), path
            )
        )


def _organize_rules(box: Toolbox) -> None:
    @box.tool(SEARCHING)
    def organize_rules(
        paths: Paths = None,
        path: Folder = None,
        ctx: Context = None,  # type: ignore[assignment]
    ) -> str:
        """List approved rules that have no tags yet, for you to tag with tag_rules."""
        return call(box.agent_of(ctx).organize_rules, as_list(paths), path)


def _tag_rules(box: Toolbox) -> None:
    @box.tool(TAGGING)
    def tag_rules(
        tags: Annotated[
            list[TagItem] | TagItem | str,
            Field(
                description="Tags for rules listed by organize_rules, at most 200: [{id, title, triggers, always}, ...]"
            ),
        ],
        ctx: Context = None,  # type: ignore[assignment]
    ) -> str:
        """Save tags for rules listed by organize_rules. Be strict with always."""
        _no_project(ctx)
        return call(lambda: box.agent_of(ctx).tag_rules(as_objects(tags, "tags", TagItem)))


def _discover_conventions(box: Toolbox) -> None:
    @box.tool(SEARCHING)
    def discover_conventions(path: Folder = None, ctx: Context = None) -> str:  # type: ignore[assignment]
        """Candidate conventions detected from the code, with evidence, for you to judge."""
        return call(box.agent_of(ctx).discover_conventions, path)


def _learn_from_reviews(box: Toolbox) -> None:
    @box.tool(REVIEWS)
    def learn_from_reviews(path: Folder = None, ctx: Context = None) -> str:  # type: ignore[assignment]
        """Review feedback from the repository's pull requests (read from GitHub), for you to judge."""
        return call(box.agent_of(ctx).learn_from_reviews, path)
