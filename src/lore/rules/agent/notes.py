"""The notes a get_rules reply gives once per session: paths left out, set-up, untagged rules,
reviews due.
"""

from __future__ import annotations

import time

from lore.rules import service
from lore.rules.agent.resolve import Resolution
from lore.rules.agent.state import Delivery, SessionState
from lore.rules.gate.trust import trust_state
from lore.rules.models import Project
from lore.rules.store.rules import rules_store

REVIEW_INTERVAL_DAYS = 14


class OneTimeNotes(SessionState):
    """Notes said once per session per project, each in its own slot."""

    def _path_notes(self, res: Resolution, delivery: Delivery) -> list[str]:
        """Paths of other projects or of no repository, and the relative-path base: each said once
        per session per project, in its own slot."""
        return [text for key, text in res.path_notes().items() if self._given(res.project, key, delivery)]

    def _one_time_notes(self, res: Resolution, delivery: Delivery) -> list[str]:
        project = res.project
        trust = trust_state(project.path)
        name = project.name
        if not trust.yours:
            if self._given(project, "not-yours", delivery):
                return [
                    f"Lore will not learn rules in `{name}` by itself: it is not your "
                    f"repository ({trust.reason}). Rules saved here wait for approval."
                ]
            return []
        notes = []
        if rules_store().setup_pending(project.id) and self._given(project, "setup", delivery):
            delivery.take_setup = True
            github = (
                " 2. call learn_from_reviews and do the same with the review feedback;"
                if self._can_learn(project)
                else ""
            )
            notes.append(
                f"Project `{name}` was just registered. Set it up: 1. call discover_conventions and "
                f"keep the conventions a new contributor should follow;{github} then save what you "
                "kept with propose_rules (a title, trigger words and always for each) and tell the "
                f"user in one line. It is your repository ({trust.reason})."
            )
            self._given(project, "reviews", delivery)
        untagged = service.untagged_covering(project, res.inside)
        if untagged and self._given(project, "untagged", delivery):
            notes.append(
                f"{len(untagged)} rule(s) covering these files have no tags yet: call "
                "organize_rules, then tag_rules, and tell the user which rules you marked always."
            )
        if (
            self._can_learn(project)
            and "reviews" not in delivery.notes
            and self._reviews_due(project)
            and self._given(project, "reviews", delivery)
        ):
            notes.append(
                f"Review feedback of `{name}` has not been read for {REVIEW_INTERVAL_DAYS} days: call "
                "learn_from_reviews, keep what a contributor should follow, and save it with "
                "propose_rules."
            )
        return notes

    @staticmethod
    def _reviews_due(project: Project) -> bool:
        from lore.rules.intake.learn import last_review_attempt

        last = last_review_attempt(project)
        return last is None or time.time() - last > REVIEW_INTERVAL_DAYS * 86400
