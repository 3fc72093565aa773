"""The reading tools: get_rules (prepared, then recorded as delivered once handed back, with the
decisions behind the files), search_rules and organize_rules.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from lore.core.config import load_settings
from lore.core.errors import InvalidInput
from lore.core.tokens import estimate_tokens
from lore.history.for_agents import decisions_for_files
from lore.rules import service
from lore.rules.agent.limits import MAX_RULES_PER_CALL, check_request
from lore.rules.agent.notes import OneTimeNotes
from lore.rules.agent.resolve import Resolution, Resolving
from lore.rules.agent.state import Delivery
from lore.rules.serve.reply import DECISIONS_HEADER, RulesReply

LISTED_NOTE = service.LISTED_NOTE
MAX_DECISIONS = 3  # decisions said per reply: a few lines, never a history lesson


def decisions_enabled() -> bool:
    """get_rules also says the decisions behind the files unless config `rules.decisions` is false."""
    return load_settings().section("rules").get("decisions", True) is not False


@dataclass
class PreparedReply:
    """A get_rules reply and the step that records it as delivered (call after returning it)."""

    text: str
    commit: Callable[[], None]


class Reading(Resolving, OneTimeNotes):
    """get_rules, search_rules, organize_rules."""

    def get_rules(
        self,
        paths: Sequence[str] = (),
        task: str | None = None,
        include: Iterable[str] = (),
        refresh: bool = False,
        max_tokens: int | None = None,
        path: str | None = None,
        project: str | None = None,
    ) -> str:
        """Prepare and deliver in one step (callers that hand the reply back at once)."""
        # one reply at a time per session: parallel calls must not both send the same rule
        with self._serve_lock:
            prepared = self.prepare_rules(paths, task, include, refresh, max_tokens, path, project)
            prepared.commit()
        return prepared.text

    def prepare_rules(
        self,
        paths: Sequence[str] = (),
        task: str | None = None,
        include: Iterable[str] = (),
        refresh: bool = False,
        max_tokens: int | None = None,
        path: str | None = None,
        project: str | None = None,
    ) -> PreparedReply:
        """The reply to get_rules, recording nothing: only reads, so a long writer in another
        process (a book import) never holds it up. `commit()` records it as delivered."""
        check_request(task, max_tokens)  # refuse bad input before anything is recorded
        include = list(include)
        if len(include) > MAX_RULES_PER_CALL:
            raise InvalidInput(f"include names {len(include)} ids; at most {MAX_RULES_PER_CALL}")
        res = self.resolve(paths, path, project)
        delivery = Delivery(res.project.id, res.project.path)
        include_ids, problems = service.resolve_ids(res.project, include)
        notes = self._path_notes(res, delivery) + self._one_time_notes(res, delivery)
        with self._state:
            sent = set(self._sent.get(res.project.id, set()))
            listed = {n[len(LISTED_NOTE) :] for n in self._notes.get(res.project.id, set())}
        reply = service.rules_for_change(
            res.project,
            res.inside,
            task=task,
            include=include_ids,
            refresh=refresh,
            max_tokens=max_tokens,
            already_sent=sent,
            listed_before=listed,
        )
        self._add_decisions(res, reply, delivery, max_tokens)
        if reply.repeated:
            reply.show_repeated = self._given(res.project, "repeated", delivery)
        delivery.served = list(reply.served_ids)
        delivery.notes |= {LISTED_NOTE + r.id for r in reply.left_out}
        reply.notes += [f"include: {p}" for p in problems] + notes
        return PreparedReply(reply.render(), lambda: self._deliver(delivery))

    def _add_decisions(
        self, res: Resolution, reply: RulesReply, delivery: Delivery, max_tokens: int | None
    ) -> None:
        """The project decisions in force for these files (from `lore history`), each once per
        session, a few at most, and only as many as fit in `max_tokens` after the rules."""
        if not decisions_enabled():
            return
        inside = service.split_paths(res.project, res.inside).inside
        notes = decisions_for_files(res.project.path, inside, MAX_DECISIONS * 4)
        with self._state:
            given = self._notes.get(res.project.id, set())
            fresh = [n for n in notes if n.key not in given][:MAX_DECISIONS]
        room = None if max_tokens is None else max_tokens - estimate_tokens(reply.render())
        for note in fresh:
            cost = (
                estimate_tokens(note.line())
                + 1
                + (0 if reply.decisions else estimate_tokens(DECISIONS_HEADER))
            )
            if room is not None and cost > room:
                break
            reply.decisions.append(note.line())
            delivery.notes.add(note.key)
            if room is not None:
                room -= cost

    def _deliver(self, delivery: Delivery) -> None:
        """The reply reached the agent: remember it now, store it without waiting on anyone."""
        pid = delivery.project_id
        with self._state:
            self._sent.setdefault(pid, set()).update(delivery.served)
            self._notes.setdefault(pid, set()).update(delivery.notes)
            new_project = pid not in self._asked
            self._asked.add(pid)
            self._projects.add(pid)
            if delivery.root is not None:
                self._last_root = delivery.root
        session_id = self.id
        self.writer.submit(
            lambda wait: self.sessions.record_reply(
                session_id,
                pid,
                reasons=["asked"] if new_project else [],
                served=delivery.served,
                notes=sorted(delivery.notes),
                take_setup=delivery.take_setup,
                wait_ms=wait,
            )
        )

    def search_rules(
        self,
        query: str,
        paths: Sequence[str] = (),
        path: str | None = None,
        project: str | None = None,
        limit: int = 10,
    ) -> str:
        res = self.resolve(paths, path, project)
        hits = service.search_rules(res.project, query, limit)
        if not hits:
            return f"No active rules of project `{res.project.name}` match the query."
        head = f"Rules of project `{res.project.name}` matching the query (id [scope] title: text):"
        if hits[0].by_meaning:
            head = (
                f"No active rules of project `{res.project.name}` match the query's words; "
                "the nearest by meaning (id [scope] title: text):"
            )
        return "\n".join([head, *(h.line() for h in hits)])

    def organize_rules(self, paths: Sequence[str] = (), path: str | None = None) -> str:
        res = self.resolve(paths, path)
        rules = (
            service.untagged_covering(res.project, res.inside)
            if res.inside
            else [r for r in service.list_rules(res.project, status="active") if not r.tagged]
        )
        if not rules:
            return f"Every active rule of project `{res.project.name}` covering these files is tagged."
        lines = [f"Untagged rules of project `{res.project.name}` (id [scope] text):"]
        lines += [f"- {r.id} [{r.scope_text}] {' '.join(r.text.split())}" for r in rules]
        lines.append(
            "Call tag_rules with, for each: id, title (a few words), triggers (words of tasks it "
            "matters for) and always. Be strict with always: only language style, safety rules and "
            "architecture invariants; an always-rule costs tokens on every request. Then tell the "
            "user which rules you marked always."
        )
        return "\n".join(lines)
