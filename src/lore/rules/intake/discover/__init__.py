"""`lore discover`: conventions a new contributor should follow, read from the code itself.

Two sources. What the tool configuration states (see `discover_config`) is taken as declared.
Everything else is a vote across files: each file gets a label for one aspect (its indentation,
its quote style, how its name is written ...), and a convention is proposed only when one label
holds for at least 90% of at least 5 files. The share and the files that disagree go into the
evidence, so whoever judges the candidate sees how strong it is. A declared setting wins over a
vote on the same aspect.

Nothing here is saved: `discover_conventions` returns candidates (the MCP tool hands them to the
agent to judge); `discover` saves them as pending rules for the user to approve.

The vote lives in parts: `files` (reading the repository), `vote`, `labels` (what every language
shares), `python` and `javascript` (their own labels and test layouts), `conventions` (the votes
of a repository, language by language).
"""

from __future__ import annotations

from pathlib import Path

from lore.core import git
from lore.core.errors import InvalidInput
from lore.rules import service
from lore.rules.intake.candidates import Candidate, Saved, save_candidates
from lore.rules.intake.discover.conventions import _voted
from lore.rules.intake.discover.files import _packages, source_files
from lore.rules.intake.discover_config import declared_conventions
from lore.rules.models import Project


def _root(path_or_project: str | Path | Project) -> Path:
    if isinstance(path_or_project, Project):
        return path_or_project.path
    target = Path(path_or_project).expanduser().resolve()
    if not target.exists():
        raise InvalidInput(f"{path_or_project} does not exist")
    project = service.project_for_path(target)
    return project.path if project else target if target.is_dir() else target.parent


def discover_conventions(path_or_project: str | Path | Project) -> list[Candidate]:
    """Candidate conventions of a repository with their evidence; nothing is saved."""
    root = _root(path_or_project)
    files = git.ls_files(root)
    file_set = set(files)
    declared = declared_conventions(root, file_set)
    out = [
        Candidate(
            d.text, d.title, list(d.triggers), list(d.scope), [d.evidence()], kind=d.aspect[1] or "tool"
        )
        for d in declared
    ]
    aspects = {d.aspect for d in declared}
    out += _voted(source_files(root, files), aspects, _packages(root, files))
    return out


def discover(path: str | Path) -> tuple[Project, list[Candidate], Saved]:
    """Register the repository, find its conventions and save them as pending rules."""
    project, _ = service.register_project(path)
    candidates = discover_conventions(project)
    saved = save_candidates(project, candidates, status="pending", source="discover")
    return project, candidates, saved
