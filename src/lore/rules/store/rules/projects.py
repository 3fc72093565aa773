"""Projects: registered repositories, their sections and the version of their rules."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Sequence
from pathlib import Path

from lore.core.errors import AlreadyExists
from lore.rules.models import Project
from lore.rules.store.rules.base import RulesTables, _project


class Projects(RulesTables):
    """Projects: their reads, their creation and their sections."""

    def projects(self) -> list[Project]:
        rows = self._conn().execute("SELECT * FROM projects ORDER BY name")
        return [_project(r) for r in rows]

    def project_by_name(self, name: str) -> Project | None:
        row = self._conn().execute("SELECT * FROM projects WHERE name = ?", (name,)).fetchone()
        return _project(row) if row else None

    def project_by_path(self, path: Path) -> Project | None:
        row = self._conn().execute("SELECT * FROM projects WHERE path = ?", (str(path),)).fetchone()
        return _project(row) if row else None

    def project_by_id(self, project_id: int) -> Project | None:
        row = self._conn().execute("SELECT * FROM projects WHERE id = ?", (project_id,)).fetchone()
        return _project(row) if row else None

    def insert_project(self, name: str, path: Path, sections: Sequence[str]) -> Project:
        """A new project; `AlreadyExists` when its name or path was taken meanwhile."""
        try:
            with self.store.transaction() as tx:
                row = tx.execute(
                    "INSERT INTO projects (name, path, sections, created_at) VALUES (?, ?, ?, ?) RETURNING *",
                    (name, str(path), json.dumps(list(sections)), time.time()),
                ).fetchone()
        except sqlite3.IntegrityError as exc:
            raise AlreadyExists(f"a project named {name!r} or at {path} already exists") from exc
        return _project(row)

    def update_sections(self, project_id: int, sections: Sequence[str]) -> None:
        with self.store.transaction() as tx:
            tx.execute(
                "UPDATE projects SET sections = ? WHERE id = ?", (json.dumps(list(sections)), project_id)
            )

    def rules_version(self, project_id: int) -> int:
        row = (
            self._conn().execute("SELECT rules_version FROM projects WHERE id = ?", (project_id,)).fetchone()
        )
        return row[0] if row else 0
