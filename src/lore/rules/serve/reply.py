"""The reply an agent reads: the rules served with their scope and score, the titles left out,
the notes and decisions, rendered as text or as a dict; and the two ways its task is ranked.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from lore.rules.models import Rule
from lore.rules.scopes import Coverage

if TYPE_CHECKING:  # the embedder package pulls in the model layer: loaded on first use
    pass

SPEC, HYBRID = "spec", "hybrid"
MODES = (SPEC, HYBRID)


DECISIONS_HEADER = (
    "Decisions in force for these files (from the project's history, each quoted from its source):"
)


@dataclass
class Served:
    rule: Rule
    coverage: Coverage
    score: float

    @property
    def line(self) -> str:
        text = " ".join(self.rule.text.split())
        return f"- [{self.coverage.level}] {text}"


@dataclass
class RulesReply:
    """Everything a get_rules reply says; `render()` gives the text an agent reads."""

    project: str
    sections: list[str]
    served: list[Served] = field(default_factory=list)
    eligible_count: int = 0
    task_given: bool = True
    repeated: int = 0
    capped: int = 0
    left_out: list[Rule] = field(default_factory=list)  # listed now: at most MAX_LISTED
    left_out_total: int = 0
    left_out_listed_before: int = 0
    show_repeated: bool = True  # the count of repeats is said once per session
    notes: list[str] = field(default_factory=list)
    max_tokens: int | None = None
    mode: str = SPEC  # how the task was ranked: `spec` or `hybrid`
    decisions: list[str] = field(default_factory=list)  # lines: decisions in force for the files

    @property
    def served_ids(self) -> list[str]:
        return [s.rule.id for s in self.served]

    def header(self) -> str:
        where = f"; sections: {', '.join(self.sections)}" if self.sections else ""
        return f"Rules for project `{self.project}` (follow before writing code{where})"

    def render(self) -> str:
        lines: list[str] = []
        if self.served:
            lines.append(self.header())
            lines += [s.line for s in self.served]
        elif self.eligible_count == 0:
            lines.append(f"No rules of project `{self.project}` cover these files.")
        else:
            lines.append(f"No new rules for project `{self.project}` for this change.")
        if self.decisions:
            lines.append(DECISIONS_HEADER)
            lines += self.decisions
        if self.capped:
            lines.append(
                f"{self.capped} more chosen rule(s) did not fit in max_tokens={self.max_tokens}; "
                "call get_rules again with a larger max_tokens to receive them."
            )
        if self.repeated and self.show_repeated:
            lines.append(
                f"{self.repeated} rule(s) for this change were already sent in this session and are "
                "not repeated; pass refresh=true if your context was reset."
            )
        if not self.task_given and self.served:
            lines.append(
                "No task was given, so every eligible rule is sent. Pass `task` (one sentence "
                "about the change) next time to receive only the rules it needs."
            )
        if self.left_out:
            earlier = (
                f" ({self.left_out_listed_before} of them listed earlier in this session)"
                if self.left_out_listed_before
                else ""
            )
            likeliest = " (likeliest first)" if self.mode == HYBRID else ""
            lines.append(
                f"{self.left_out_total} other rule(s) cover these files{earlier} "
                "but were not chosen for your task. If one of these titles matters for your change, "
                f"call get_rules again with its id in `include`; or use search_rules{likeliest}:"
            )
            lines += [f"- {r.id} {r.label}" for r in self.left_out]
            unlisted = self.left_out_total - self.left_out_listed_before - len(self.left_out)
            if unlisted > 0:
                lines.append(f"  ... and {unlisted} more (use search_rules)")
        elif self.left_out_listed_before:
            lines.append(
                f"{self.left_out_listed_before} other rule(s) cover these files but were not chosen; "
                "their titles were listed earlier in this session."
            )
        lines += self.notes
        return "\n".join(lines)

    def to_dict(self) -> dict:
        return {
            "project": self.project,
            "sections": self.sections,
            "served": [
                {
                    "id": s.rule.id,
                    "level": s.coverage.level,
                    "text": s.rule.text,
                    "title": s.rule.title,
                    "always": s.rule.always,
                    "score": round(s.score, 4),
                }
                for s in self.served
            ],
            "eligible": self.eligible_count,
            "task_given": self.task_given,
            "mode": self.mode,
            "repeated": self.repeated,
            "capped": self.capped,
            "left_out": [{"id": r.id, "title": r.label} for r in self.left_out],
            "left_out_total": self.left_out_total,
            "notes": self.notes,
            "decisions": self.decisions,
            "text": self.render(),
        }
