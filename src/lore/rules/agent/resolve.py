"""Which project a call is about, and each given path made absolute."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from lore.core.errors import InvalidInput, NotFound
from lore.rules import projects as proj
from lore.rules import service
from lore.rules.agent.limits import _shown, check_paths
from lore.rules.agent.state import SessionState
from lore.rules.models import Project
from lore.rules.store.rules import rules_store


@dataclass
class Resolution:
    """The project of a call and how the given paths relate to it."""

    project: Project
    inside: list[str] = field(default_factory=list)  # absolute paths inside the project
    elsewhere: list[str] = field(default_factory=list)  # paths of other projects
    outside: list[str] = field(default_factory=list)  # paths in no git repository
    missing: list[str] = field(default_factory=list)  # paths that do not exist
    assumed: str | None = None  # where relative paths were read from, said in the reply

    def path_notes(self) -> dict[str, str]:
        """Each note under its own once-per-session slot, so one never hides another."""
        notes = {}
        if self.elsewhere:
            notes["elsewhere"] = (
                f"{len(self.elsewhere)} path(s) belong to another project and were left out: "
                f"{', '.join(self.elsewhere[:5])}. Call again with those paths on their own."
            )
        if self.outside:
            notes["outside"] = (
                f"{len(self.outside)} path(s) are not in a git repository and were left out: "
                f"{', '.join(self.outside[:5])}"
            )
        if self.assumed:
            notes["relative:" + self.assumed] = f"Relative paths were read from {self.assumed}."
        if self.missing:
            notes["missing:" + "\n".join(sorted(self.missing))] = (
                f"{len(self.missing)} path(s) do not exist: {', '.join(self.missing[:5])}. If they "
                "are new files, this reply is for them; otherwise check them or pass absolute paths."
            )
        return notes


class Resolving(SessionState):
    """The project of a call: from its paths, its folder, a project name or the start folder."""

    def _project_at(self, root: Path) -> tuple[Project, bool]:
        store = rules_store()
        found = store.project_by_path(root)
        if found:
            return found, False
        if not self.settings.auto_register:
            raise InvalidInput(
                f"{root} is not a registered project and auto_register is off; "
                f"the user can run `lore projects add {root}`"
            )
        project, new = service.register_project(root)
        if new:  # the next get_rules reply in a repository that is yours says how to set it up
            rules_store().mark_setup_pending(project.id)
        return project, new

    def _folder(self, raw: str) -> Path:
        """The `path` argument: absolute, or from the start repository's root (else the project
        this session served last), else the start folder."""
        given = Path(raw).expanduser()
        if given.is_absolute():
            return given
        root = self._started_root or self._last_root
        if root is not None and (root / given).exists():
            return root / given
        return self.cwd / given

    def resolve(
        self,
        paths: Sequence[str] = (),
        path: str | None = None,
        project: str | None = None,
        *,
        saving: bool = False,
    ) -> Resolution:
        """The project of a call, and each given path made absolute.

        The first path that lies in a repository decides the project (seed 000: a call mixing
        two projects serves the first), then the `path` folder, then a project name (reading
        tools), then the repository the server started in. A relative path is read from the
        `path` folder when one is given, else from the root of the call's project; the first
        one, which may decide that project, from the folder, the named project, the repository
        the server started in, else the project this session served last (a client may start
        the server in `/` or the home folder). With none of these, the call is refused with the
        advice to pass absolute paths. A relative path that only exists under the start folder
        is read from there. The reply says what was assumed, and which paths do not exist.
        """
        check_paths([*paths, *([path] if path else [])])
        folder = self._folder(path) if path else None
        named: Path | None = None
        if project and not saving:
            found = rules_store().project_by_name(project)
            if found is None:
                raise NotFound(f"no project named {_shown(project)}; pass paths or path instead")
            named = found.path
        first_base = folder or named or self._started_root or self._last_root
        chosen_root = None
        for raw in paths:  # the first path in a repository decides
            given = Path(raw).expanduser()
            if given.is_absolute():
                root = proj.git_root(given)
            else:
                root = proj.git_root(first_base / given) if first_base is not None else None
            if root is not None:
                chosen_root = root
                break
        if chosen_root is None and folder is not None:
            chosen_root = proj.git_root(folder)
            if chosen_root is None:
                raise InvalidInput(f"{_shown(path or '')} is not inside a git repository")
        if chosen_root is None:
            chosen_root = named or self._started_root
        if chosen_root is None and any(not Path(raw).expanduser().is_absolute() for raw in paths):
            chosen_root = self._last_root
        base = folder or chosen_root or self.cwd
        roots: list[tuple[str, Path, Path | None]] = []
        assumed: str | None = None
        for raw in paths:
            given = Path(raw).expanduser()
            if given.is_absolute():
                full = given
            else:
                full = base / given
                if folder is None and not full.exists() and (self.cwd / given).exists():
                    full, assumed = (
                        self.cwd / given,
                        self._where("the folder the server started in", self.cwd),
                    )
                elif assumed is None and base != self.cwd:
                    assumed = self._where("the given folder" if folder else "the project root", base)
            roots.append((self._shown_path(raw, full), full, proj.git_root(full)))
        if chosen_root is None:
            chosen_root = next((r for _, _, r in roots if r is not None), None)
        if chosen_root is None:
            if any(not Path(raw).expanduser().is_absolute() for raw in paths):
                where = f" ({self.cwd})" if self.local_paths else ""
                raise InvalidInput(
                    f"relative paths cannot be read here: the server started outside any "
                    f"repository{where} and this session has served no project yet; pass absolute "
                    "paths (or path, the repository folder)"
                )
            raise InvalidInput(
                "cannot tell which project this is about: pass paths (the files you are "
                "changing) or path (the repository folder)"
            )
        resolved, _ = self._project_at(chosen_root)
        out = Resolution(resolved, assumed=assumed)
        for shown, full, root in roots:
            if root is None:
                (out.outside if full.parent.exists() else out.missing).append(shown)
            elif root == resolved.path:
                out.inside.append(str(full))
                if not full.exists():
                    out.missing.append(shown)
            else:
                out.elsewhere.append(shown)
        if not paths and folder is not None and proj.git_root(folder) == resolved.path:
            out.inside.append(str(folder))  # a folder stands for its files: its section applies
        return out
