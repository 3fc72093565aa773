"""What a project and a rule are."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

STATUSES = ("active", "pending")
SOURCES = ("user", "agent", "feedback", "discover", "learn", "memorize", "trained")
FILE_SOURCES = ("memorize", "trained")  # rules whose evidence names the instruction file they came from


@dataclass(frozen=True)
class Project:
    id: int
    name: str
    path: Path
    sections: tuple[str, ...]
    created_at: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "path": str(self.path),
            "sections": list(self.sections),
            "created_at": self.created_at,
        }


RISK_VERDICTS = ("held", "clear")


@dataclass(frozen=True)
class Risk:
    """The screening gate's word on a rule's own text, kept with the rule so that whoever
    approves it is warned: `held` (its wording, its meaning or a contradiction with an active
    rule would stop an agent's save) or `clear` (those checks pass); `family` names what it
    reads like (a wording family, or `contradiction`), `reason` is the gate's line."""

    verdict: str
    family: str = ""
    reason: str = ""

    @property
    def held(self) -> bool:
        return self.verdict == "held"

    def to_dict(self) -> dict[str, str]:
        return {"verdict": self.verdict, "family": self.family, "reason": self.reason}


@dataclass(frozen=True)
class Rule:
    """A convention of one project. `scope` is empty for global rules; a section entry ends
    with `/`, anything else is a file glob."""

    id: str
    project_id: int
    text: str
    title: str = ""
    triggers: tuple[str, ...] = ()
    always: bool = False
    scope: tuple[str, ...] = ()
    status: str = "active"
    source: str = "user"
    auto: bool = False
    tagged: bool = False
    evidence: tuple[dict[str, Any], ...] = ()
    created_at: float = 0.0
    updated_at: float = 0.0
    served_count: int = 0
    last_served_at: float | None = None
    risk: Risk | None = None  # the gate's verdict on the text; None until it is screened
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def held(self) -> str:
        """Why the screening gate would hold this rule, or "" when it would not (or has not looked)."""
        return self.risk.reason if self.risk is not None and self.risk.held else ""

    @property
    def label(self) -> str:
        """A title for lists: the rule's own, or the start of its text."""
        if self.title:
            return self.title
        text = " ".join(self.text.split())
        return text if len(text) <= 60 else text[:57].rstrip() + "..."

    @property
    def origin(self) -> str:
        """Where a rule came from, for grouping a review queue: the instruction file an imported
        rule was read from, else its source (`discover`, `learn`, `agent`, ...)."""
        if self.source in FILE_SOURCES:
            for ev in self.evidence:
                if isinstance(ev, dict) and isinstance(ev.get("file"), str) and ev["file"]:
                    return ev["file"]
        return self.source

    def files(self) -> tuple[str, ...]:
        """Every instruction file an imported rule was read from (one text in two files is one rule)."""
        if self.source not in FILE_SOURCES:
            return ()
        return tuple(
            ev["file"] for ev in self.evidence if isinstance(ev, dict) and isinstance(ev.get("file"), str)
        )

    @property
    def scope_text(self) -> str:
        return ", ".join(self.scope) if self.scope else "global"

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "text": self.text,
            "title": self.title,
            "triggers": list(self.triggers),
            "always": self.always,
            "scope": list(self.scope),
            "status": self.status,
            "source": self.source,
            "auto": self.auto,
            "tagged": self.tagged,
            "evidence": list(self.evidence),
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            "served_count": self.served_count,
            "last_served_at": self.last_served_at,
            "held": self.held,
            "risk": self.risk.to_dict() if self.risk is not None else None,
            "origin": self.origin,
        }


@dataclass(frozen=True)
class TrustRecord:
    """What the store knows about one repository folder's trust.

    `override` is the user's own word (`trust` / `untrust`) and always wins; the rest is the
    remembered verdict of the evidence check, used until `recheck_at`, and one observation kept
    for good: the newest date of reflog lines once seen to be written elsewhere.
    """

    path: str
    override: str | None = None
    yours: bool | None = None
    reason: str = ""
    evidence: str = ""
    checked_at: float | None = None
    recheck_at: float | None = None
    written_elsewhere: float | None = None  # reflog lines up to this date were not written here
    elsewhere_folder: str = ""  # ... in this git folder (device, inode, first line); a new one starts afresh
