"""Projects: registering a repository, finding one by name or path, refreshing its sections."""

from __future__ import annotations

from pathlib import Path

from lore.core.errors import AlreadyExists, InvalidInput, NotFound
from lore.rules import projects as proj
from lore.rules.models import Project
from lore.rules.store.rules import RulesStore, rules_store


def register_project(path: str | Path, store: RulesStore | None = None) -> tuple[Project, bool]:
    """Register the git repository holding `path`; returns (project, newly registered)."""
    store = store or rules_store()
    root = proj.project_root(Path(path))
    sections = None
    for _attempt in range(3):
        existing = store.project_by_path(root)
        if existing:
            return existing, False
        sections = sections if sections is not None else proj.sections_of(root)
        name = proj.unique_name(root, {p.name for p in store.projects()})
        try:
            return store.insert_project(name, root, sections), True
        except AlreadyExists:  # another process took this path or name meanwhile
            continue
    raise InvalidInput(f"could not register {root}: its name kept colliding with new projects")


def list_projects() -> list[Project]:
    return rules_store().projects()


def find_project(name_or_path: str | None, cwd: Path | None = None) -> Project:
    """A project by name, by a path inside it, or (None) the one of the current folder."""
    store = rules_store()
    if name_or_path:
        found = store.project_by_name(name_or_path)
        if found:
            return found
        if _looks_like_path(name_or_path):
            root = proj.git_root(Path(name_or_path))
            if root and (found := store.project_by_path(root)):
                return found
        raise NotFound(f"no project named {name_or_path!r}; see `lore projects`")
    root = proj.git_root(cwd or Path.cwd())
    if root and (found := store.project_by_path(root)):
        return found
    raise NotFound("this folder is not a registered project; pass --name NAME (see `lore projects`)")


def _looks_like_path(text: str) -> bool:
    """A name is only read as a path when it says so: a separator, `.`/`~`, or an existing path.

    Otherwise a mistyped name would silently resolve to the project of the current folder.
    """
    return "/" in text or "\\" in text or text.startswith((".", "~")) or Path(text).exists()


def project_for_path(path: str | Path) -> Project | None:
    root = proj.git_root(Path(path))
    return rules_store().project_by_path(root) if root else None


def refresh_map(project: Project) -> Project:
    store = rules_store()
    store.update_sections(project.id, proj.sections_of(project.path))
    return store.project_by_id(project.id)  # type: ignore[return-value]
