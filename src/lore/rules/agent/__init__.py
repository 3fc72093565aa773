"""One agent session: what the MCP tools do, independent of the wire.

It works out which project a call is about (files in `paths`, then a folder in `path`, then a
project name for reading tools, then the folder the session started in), registers unknown git
projects, adds the one-time notes, and runs every rule an agent saves through the screening gate.

`AgentSession` is composed of one module per concern:

- `state`: what the session was sent and told, its projects, how it shows paths;
- `resolve`: which project a call is about, and its paths made absolute;
- `notes`: the notes a reply gives once per session;
- `reading`: get_rules, search_rules, organize_rules;
- `saving`: record_feedback, propose_rules, tag_rules;
- `candidates`: discover_conventions, learn_from_reviews;
- `limits`: the volume caps and input checks; `instructions`: what an agent is told at connection.
"""

from __future__ import annotations

from contextlib import suppress

from lore.history.for_agents import decisions_for_files
from lore.rules import service
from lore.rules.agent.candidates import Candidates
from lore.rules.agent.instructions import instructions
from lore.rules.agent.limits import MAX_PATHS, MAX_RULES_PER_CALL, check_paths, check_request
from lore.rules.agent.reading import PreparedReply, Reading
from lore.rules.agent.resolve import Resolution
from lore.rules.agent.saving import Saving
from lore.rules.gate.trust import trust_state
from lore.rules.store.rules import rules_store

__all__ = [
    "MAX_PATHS",
    "MAX_RULES_PER_CALL",
    "AgentSession",
    "PreparedReply",
    "Resolution",
    "check_paths",
    "check_request",
    "instructions",
]


class AgentSession(Reading, Saving, Candidates):
    """The state of one server connection, persisted in the store."""

    def warm_up(self) -> None:
        """Load now what the first get_rules would otherwise load while the agent waits: the
        modules of a reply, the semantic model of `hybrid` selection (the slow part), and, when
        the server started in a registered project, its rules' index and vectors and whether it
        can learn from reviews. Meant for a background thread started with the server: the first
        call then waits only for what is left (the model's loader and the index are locked, so
        nothing is loaded twice). Nothing is registered or counted as sent; a failure is left for
        the call itself to meet and report."""
        try:
            self._warm_up()
        except Exception:  # the call that needs the part meets the same failure and reports it
            return

    def _warm_up(self) -> None:
        from lore.core.errors import NeedsModel
        from lore.rules.serve.index import project_index
        from lore.rules.serve.meaning import semantic_embedder
        from lore.rules.serve.reply import HYBRID

        embedder = None
        if service.selection_mode() == HYBRID:  # first: every hybrid selection needs it
            with suppress(NeedsModel):  # the first reply says it fell back to keywords
                embedder = semantic_embedder()
        root = self._started_root
        if root is None:
            return
        project = rules_store().project_by_path(root)
        if project is not None:
            index = project_index(rules_store(), project.id, service.tokenizer())
            if embedder is not None and index.rules:
                with index.lock:  # the rules' vectors: read back from the store, or made once
                    index.meaning.similarities(embedder, "warm up")
        decisions_for_files(root, ["."], 1)  # loads the decisions only if the history has them
        if trust_state(root).yours:  # then a reply may send the agent to read reviews
            self._can_learn_at(root)
