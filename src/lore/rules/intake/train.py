"""`lore train`: rules from the user's own documents (a style guide, a design doc).

Split exactly like `lore memorize`, but active at once: the user chose these documents, so there
is nobody else to approve them. Refused pieces (hidden characters) are reported, never stored.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lore.core.errors import InvalidInput
from lore.rules import projects as proj
from lore.rules.intake.candidates import Saved, save_candidates
from lore.rules.intake.memorize import FileImport, attribute, read_instruction_file
from lore.rules.models import Project

DOCUMENT_SUFFIXES = (".md", ".markdown", ".mdx", ".txt", ".rst", ".text", "")


@dataclass
class TrainReport:
    project: Project
    files: list[FileImport]
    saved: Saved

    def to_dict(self) -> dict[str, Any]:
        return {
            "project": self.project.name,
            "files": [f.to_dict() for f in self.files],
            "added": [r.id for r in self.saved.added],
            "merged": self.saved.count("merged"),
            "repeats": self.saved.repeats,
            "refused": [r.line() for r in self.saved.refused],
        }


def train(project: Project, paths: list[str | Path], scope: str | None = None) -> TrainReport:
    """Split each document into rules and store them active (source "trained")."""
    if not paths:
        raise InvalidInput("give at least one document to train from")
    files: list[FileImport] = []
    for raw in paths:
        path = Path(raw).expanduser().resolve()
        if not path.is_file():
            raise InvalidInput(f"{raw} is not a file")
        if path.suffix.lower() not in DOCUMENT_SUFFIXES:
            raise InvalidInput(f"{raw}: train reads markdown or text documents, not {path.suffix} files")
        shown = proj.relative_path(project.path, path) or str(path)
        found = read_instruction_file(path.parent, path.name, kind="trained", base="")
        found.path = shown
        for cand in found.candidates:
            cand.evidence = [{**ev, "file": shown} for ev in cand.evidence]
            if scope is not None:
                cand.scope = [scope]
        files.append(found)
    candidates = [c for f in files for c in f.candidates]
    saved = save_candidates(project, candidates, status="active", source="trained")
    attribute(files, saved)
    return TrainReport(project, files, saved)
