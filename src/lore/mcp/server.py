"""`lore mcp`: the MCP server agents start over stdio.

The tools are thin: check sizes, coerce forgiving inputs, call the session's method, turn a
LoreError into a ToolError the model can read. Every tool says what it does to the world
(annotations), answers in plain text only (no structured copy), and a schema mismatch comes back
as one readable line. Start-up stays light (no CLI, no models, no numpy) because agents start
the server at the beginning of every session.
"""

from __future__ import annotations

import inspect
import logging
import sys
import threading
import weakref
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Annotated, Any

import anyio
from mcp.server import MCPServer
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations
from pydantic import Field, ValidationError

from lore import __version__
from lore.core.config import load_settings
from lore.core.errors import LoreError
from lore.core.terminal import safe_text
from lore.mcp import books_ask_tool, books_tools, history_tools
from lore.mcp.inputs import RuleItem, TagItem, as_list, as_objects, check_size, readable
from lore.rules.agent import AgentSession, PreparedReply, instructions

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


def _call(fn: Callable[..., str], *args: Any, **kwargs: Any) -> str:
    """Every tool's reply and refusal: stored text reaches agent terminals, so no raw ESC."""
    try:
        return safe_text(fn(*args, **kwargs))
    except LoreError as exc:
        raise ToolError(safe_text(str(exc))) from None


def _prepare(agent: AgentSession, *args: Any) -> PreparedReply:
    try:
        return agent.prepare_rules(*args)
    except LoreError as exc:
        raise ToolError(safe_text(str(exc))) from None


def _hints(*, read_only: bool, destructive: bool = False, idempotent: bool, open_world: bool = False):
    return ToolAnnotations(
        read_only_hint=read_only,
        destructive_hint=destructive,
        idempotent_hint=idempotent,
        open_world_hint=open_world,
    )


# get_rules and the other reading tools only keep session bookkeeping (what was sent) and may
# register the repository as a project: they never change rules or files.
READING = _hints(read_only=True, idempotent=False)
SEARCHING = _hints(read_only=True, idempotent=True)
SAVING = _hints(read_only=False, idempotent=True)  # saving the same rule again: "already known"
TAGGING = _hints(read_only=False, destructive=True, idempotent=True)  # replaces earlier tags
REVIEWS = _hints(read_only=True, idempotent=True, open_world=True)  # reads GitHub


class LoreServer(MCPServer):
    """MCPServer with Lore's two gates in front of every tool: sizes, then readable errors."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        try:
            check_size(arguments or {})
        except LoreError as exc:
            raise ToolError(f"Error executing tool {name}: {exc}") from None
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                raise ToolError(f"Error executing tool {name}: {readable(exc.__cause__)}") from None
            raise


# Which agent session a tool call belongs to, from the call's context (None outside a request).
SessionOf = Callable[[Context | None], AgentSession]


def build_server(
    cwd: Path | str | None = None,
    session: AgentSession | None = None,
    *,
    sessions: SessionOf | None = None,
    auth: AuthSettings | None = None,
    auth_server_provider: Any = None,
    reply_built: Callable[[], None] | None = None,
) -> MCPServer:
    """A server bound to one agent session (one connection), or, with `sessions`, one server
    that many connections share (streamable HTTP), each call answered by the session of the
    connection it came from. `auth` and its provider are for serving over HTTP behind OAuth
    (`lore.web.mcp_http`); stdio needs neither.

    `reply_built`, when given, is called in the worker thread once a get_rules reply is built and
    before it counts as sent: the one point where a caller (a test) can see a reply that exists
    but has not been handed back, and cancel the call there."""
    if sessions is None:
        only = session or AgentSession(cwd)
        agent_of: SessionOf = lambda ctx: only  # noqa: E731
        home = only.cwd
    else:
        agent_of, home = sessions, Path(cwd or Path.cwd()).resolve()
    server = LoreServer(
        name="lore",
        title="Lore",
        version=__version__,
        instructions=instructions(load_settings().approval),
        log_level="WARNING",  # a refused call is the model's to read, not a log line
        auth=auth,
        auth_server_provider=auth_server_provider,
    )

    def tool(annotations: ToolAnnotations) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Register with a clean description (no docstring indentation) and plain-text output."""

        def register(fn: Callable[..., Any]) -> Callable[..., Any]:
            server.add_tool(
                fn,
                description=inspect.cleandoc(fn.__doc__ or ""),
                annotations=annotations,
                structured_output=False,
            )
            return fn

        return register

    # one get_rules at a time per session: no rule sent twice (sessions dropped, locks gone)
    serving: weakref.WeakKeyDictionary[AgentSession, anyio.Lock] = weakref.WeakKeyDictionary()

    @tool(READING)
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
        agent = agent_of(ctx)
        async with serving.setdefault(agent, anyio.Lock()):

            def build() -> PreparedReply:
                prepared = _prepare(
                    agent, as_list(paths), task, as_list(include), refresh, max_tokens, path, project
                )
                if reply_built is not None:
                    reply_built()
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

    @tool(SEARCHING)
    def search_rules(
        query: Annotated[str, Field(description="A few words, e.g. 'database migrations'.")],
        paths: Paths = None,
        path: Folder = None,
        project: Annotated[str | None, Field(description="A project name.")] = None,
        limit: Annotated[int, Field(description="How many rules at most.", ge=1, le=100)] = 10,
        ctx: Context = None,  # type: ignore[assignment]
    ) -> str:
        """Search the project's active rules by words (scope words included)."""
        return _call(agent_of(ctx).search_rules, query, as_list(paths), path, project, limit)

    @tool(SAVING)
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
        return _call(
            agent_of(ctx).record_feedback,
            rule,
            as_list(paths),
            title=title,
            triggers=triggers,
            always=always,
            scope=scope,
            path=path,
        )

    @tool(SAVING)
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
        return _call(
            lambda: agent_of(ctx).propose_rules(as_objects(rules, "rules", RuleItem), as_list(paths), path)
        )

    @tool(SEARCHING)
    def organize_rules(
        paths: Paths = None,
        path: Folder = None,
        ctx: Context = None,  # type: ignore[assignment]
    ) -> str:
        """List approved rules that have no tags yet, for you to tag with tag_rules."""
        return _call(agent_of(ctx).organize_rules, as_list(paths), path)

    @tool(TAGGING)
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
        return _call(lambda: agent_of(ctx).tag_rules(as_objects(tags, "tags", TagItem)))

    @tool(SEARCHING)
    def discover_conventions(path: Folder = None, ctx: Context = None) -> str:  # type: ignore[assignment]
        """Candidate conventions detected from the code, with evidence, for you to judge."""
        return _call(agent_of(ctx).discover_conventions, path)

    @tool(REVIEWS)
    def learn_from_reviews(path: Folder = None, ctx: Context = None) -> str:  # type: ignore[assignment]
        """Review feedback from the repository's pull requests (read from GitHub), for you to judge."""
        return _call(agent_of(ctx).learn_from_reviews, path)

    books_ask_tool.register(tool, _call)
    history_tools.register(tool, SEARCHING, home)
    books_tools.register(tool)
    return server


class OneLine(logging.Formatter):
    """Log records as one short line: a client shows stderr to the user, and a traceback of a
    10 MB argument is 23 MB of it."""

    def format(self, record: logging.LogRecord) -> str:
        text = record.getMessage()
        if record.exc_info and record.exc_info[1] is not None:
            exc = record.exc_info[1]
            text += f" ({type(exc).__name__}: {exc})"
        text = " ".join(text.split())
        return f"lore mcp: {record.levelname.lower()}: {text[:300]}"


def _quiet_logging() -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(OneLine())
    logging.basicConfig(level=logging.WARNING, handlers=[handler], force=True)


def run_stdio(argv: list[str]) -> None:
    """Serve one agent session on stdin/stdout (logs go to stderr, one line each)."""
    if argv:
        sys.stderr.write(f"lore mcp takes no arguments (got {' '.join(argv)})\n")
        raise SystemExit(2)
    _quiet_logging()
    session = AgentSession(Path.cwd())
    # the model and the started project's rules load beside the handshake, not in the first call
    warming = threading.Thread(target=session.warm_up, name="lore-warm-up", daemon=True)
    warming.start()
    try:
        build_server(session=session).run("stdio")
    finally:
        session.writer.flush(timeout=60)  # what the session was sent is still recorded
        warming.join(timeout=60)  # a store connection is not left mid-query at exit
