"""The saving tools: record_feedback, propose_rules and tag_rules; what an agent saves goes through
the screening gate (`rules.propose`), and each reply says what became of every rule.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from lore.core.errors import InvalidInput, LoreError
from lore.rules import service
from lore.rules.agent.limits import MAX_RULES_PER_CALL
from lore.rules.agent.resolve import Resolution, Resolving
from lore.rules.models import Project, Rule
from lore.rules.propose import flag, save_proposed
from lore.rules.store.rules import rules_store

if TYPE_CHECKING:  # the gate's modules load on the first save, not at `lore mcp` start-up
    from lore.rules.gate.decision import Decision


class Saving(Resolving):
    """record_feedback, propose_rules, tag_rules."""

    def record_feedback(
        self,
        rule: str,
        paths: Sequence[str] = (),
        *,
        title: str = "",
        triggers: Any = None,
        always: bool = False,
        scope: Any = None,
        path: str | None = None,
    ) -> str:
        res = self.resolve(paths, path, saving=True)
        self._worked_on(res.project, "feedback")
        item = {"text": rule, "title": title, "triggers": triggers, "always": always, "scope": scope}
        return self._save(res, [item], source="feedback")

    def propose_rules(
        self, rules: Sequence[dict[str, Any]], paths: Sequence[str] = (), path: str | None = None
    ) -> str:
        if not rules:
            raise InvalidInput(
                "propose_rules needs at least one rule: [{text, title, triggers, always, scope}]"
            )
        if len(rules) > MAX_RULES_PER_CALL:
            raise InvalidInput(
                f"propose_rules got {len(rules)} rules; at most {MAX_RULES_PER_CALL} per call, "
                "so send the ones worth keeping in several calls"
            )
        res = self.resolve(paths, path, saving=True)
        return self._save(res, rules, source="agent")

    def tag_rules(self, tags: Sequence[dict[str, Any]]) -> str:
        if not tags:
            raise InvalidInput("tag_rules needs a list of {id, title, triggers, always}")
        if len(tags) > MAX_RULES_PER_CALL:
            raise InvalidInput(f"tag_rules got {len(tags)} items; at most {MAX_RULES_PER_CALL} per call")
        allowed = self._working_projects()
        lines, pinned, done = [], [], 0
        for item in tags:
            rule_id = str(item.get("id", "")).strip()
            try:
                rule = service.get_rule(rule_id)
            except LoreError as exc:
                lines.append(f"- skipped {rule_id or '(no id)'}: {exc}")
                continue
            if rule.project_id not in allowed:
                lines.append(f"- skipped {rule.id}: it belongs to a project this session is not working on")
                continue
            from lore.rules.gate.wording import risky_wording

            words = [str(item.get("title") or ""), *service.parse_triggers(item.get("triggers"))]
            risky = next((m for w in words if w and (m := risky_wording(w))), None)
            if risky:
                lines.append(f"- skipped {rule.id}: {risky.reason()}")
                continue
            try:
                tagged = service.tag(
                    rule,
                    title=item.get("title"),
                    triggers=item.get("triggers"),
                    always=None if item.get("always") is None else flag(item["always"]),
                )
            except LoreError as exc:
                lines.append(f"- skipped {rule.id}: {exc}")
                continue
            done += 1
            if tagged.always:
                pinned.append(tagged)
        head = f"Tagged {done} rule(s)."
        if pinned:
            project = rules_store().project_by_id(pinned[0].project_id)
            names = "; ".join(f"{r.id} {r.label}" for r in pinned)
            named = f"--name {project.name} " if project is not None else ""
            head += (
                f" Marked always: {names}. Tell the user; they can undo one with "
                f"`lore review {named}unpin ID`."
            )
        else:
            head += " None marked always."
        return "\n".join([head, *lines])

    def _save(self, res: Resolution, items: Sequence[dict[str, Any]], source: str) -> str:
        """Hand the items to `rules.propose` with this session's facts; say what became of each."""
        project = res.project
        outcomes = save_proposed(
            project,
            items,
            source=source,
            session_id=self.id,
            working_projects=self._working_projects(),
        )
        lines = [f"Rules saved for project `{project.name}`:"]
        for outcome in outcomes:
            if outcome.saved is None:
                lines.append(f"- refused: {outcome.refused}")
            elif outcome.saved.known:
                known = outcome.saved.rule
                lines.append(f"- already known as {known.id} ({known.status}): {known.label}")
            else:
                lines.append(_outcome_line(project, outcome.saved.rule, outcome.saved.decision))
        lines += list(res.path_notes().values())
        lines.append("Tell the user in one line which rules were activated and which wait.")
        return "\n".join(lines)


def _outcome_line(project: Project, rule: Rule, decision: Decision) -> str:
    if decision.activate:
        return (
            f'- activated {rule.id} "{rule.label}" (undo: lore review --name {project.name} reject {rule.id})'
        )
    return (
        f'- waiting {rule.id} "{rule.label}": {decision.reason} (approve: lore review --name '
        f"{project.name} approve {rule.id})"
    )
