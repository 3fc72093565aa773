"""`lore train`: rules from the user's own documents (a style guide, a design doc).

Split exactly like `lore memorize`, but active at once: the user chose these documents, so there
is nobody else to approve them. Refused pieces (hidden characters) are reported, never stored.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from lore.core.errors import InvalidInput
from lore.rules import projects as proj
from lore.rules.intake.candidates import save_candidates
from lore.rules.intake.memorize import FileImport, ImportReport, attribute, read_instruction_file
from lore.rules.models import Project

DOCUMENT_SUFFIXES = (".md", ".markdown", ".mdx", ".txt", ".rst", ".text", "")


def train(project: Project, paths: Sequence[str | Path], scope: str | None = None) -> ImportReport:
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
    return ImportReport(project, files, saved)
