"""One session's state: what it was sent and told, which projects it works on, how it shows
paths, and the record of it in the store (written behind, never waited on).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path

from lore.core.config import Settings, load_settings
from lore.rules import projects as proj
from lore.rules import service
from lore.rules.models import Project
from lore.rules.store.rules import rules_store
from lore.rules.store.sessions import SessionStore, WriteBehind, session_store

REMOTE_CLIENT = "remote"  # a session over `lore serve --mcp`: never shown this machine's paths


@dataclass
class Delivery:
    """What one get_rules reply gives, recorded only once the reply has been handed back."""

    project_id: int
    root: Path | None = None  # the project's folder: relative paths of later calls are read from it
    served: list[str] = field(default_factory=list)
    notes: set[str] = field(default_factory=set)
    take_setup: bool = False


class SessionState:
    """The state of one server connection, persisted in the store."""

    def __init__(self, cwd: Path | str | None = None, client: str | None = None):
        self.cwd = Path(cwd or Path.cwd()).resolve()
        self.client = client
        self._id: str | None = None
        self._id_lock = threading.Lock()
        self._serve_lock = threading.Lock()
        self._started_root = proj.git_root(self.cwd)
        self._on_github: dict[Path, bool] = {}
        # What this session was sent and told lives here first: one connection is one session,
        # so memory is the authority and the store is its record (written behind, never waited on).
        self._state = threading.Lock()
        self._sent: dict[int, set[str]] = {}
        self._notes: dict[int, set[str]] = {}
        self._projects: set[int] = set()
        self._asked: set[int] = set()
        self._last_root: Path | None = None  # the project this session was last sent rules of
        self.writer = WriteBehind()

    @property
    def id(self) -> str:
        """Made on first use; tools run in worker threads, so only one may make it."""
        with self._id_lock:
            if self._id is None:
                self._id = service.new_session_id()
                session_id, cwd, client = self._id, str(self.cwd), self.client
                self.writer.submit(
                    lambda wait: self.sessions.insert_session(session_id, cwd, client, wait_ms=wait)
                )
            return self._id

    @property
    def settings(self) -> Settings:
        return load_settings()

    @property
    def sessions(self) -> SessionStore:
        return session_store()

    @property
    def local_paths(self) -> bool:
        """Whether replies may show this machine's absolute paths: not to a remote client."""
        return self.client != REMOTE_CLIENT

    def _where(self, what: str, folder: Path) -> str:
        return f"{what} ({folder})" if self.local_paths else what

    def _shown_path(self, raw: str, full: Path) -> str:
        """A path as a reply names it: absolute for a local agent, as given for a remote one."""
        return str(full) if self.local_paths else raw

    def _given(self, project: Project, key: str, delivery: Delivery) -> bool:
        """True if a once-per-session note has not been given yet; this reply gives it."""
        with self._state:
            if key in self._notes.get(project.id, set()) or key in delivery.notes:
                return False
        delivery.notes.add(key)
        return True

    def _can_learn(self, project: Project) -> bool:
        """Whether `lore learn` would work here: the same remote detection and credentials
        lookup it uses (asked once per session per project)."""
        return self._can_learn_at(project.path)

    def _can_learn_at(self, root: Path) -> bool:
        if root not in self._on_github:
            from lore.rules.intake.learn import can_learn

            self._on_github[root] = can_learn(root)
        return self._on_github[root]

    def _worked_on(self, project: Project, reason: str) -> None:
        with self._state:
            self._projects.add(project.id)
        session_id = self.id
        self.sessions.add_project(session_id, project.id, reason)

    def _working_projects(self) -> set[int]:
        with self._state:
            ids = set(self._projects)
        if self._started_root is not None:
            started = rules_store().project_by_path(self._started_root)
            if started:
                ids.add(started.id)
        return ids
