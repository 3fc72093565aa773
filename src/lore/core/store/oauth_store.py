"""The SQL of the remote MCP connector's authorization server: clients, codes, grants, tokens.

The OAuth logic (`lore.web.oauth`) decides what is valid; this module keeps the records. Codes
and tokens are stored only as their sha256 (`hash`): a copy of `lore.db` hands out no live
credential. A *grant* is one approval by the local user; its access and refresh tokens are
rows of `oauth_tokens`, and revoking the grant ends all of them at once.
"""

from __future__ import annotations

from contextlib import suppress
from dataclasses import dataclass

from lore.core.home import ensure_home
from lore.core.store.base import DB_NAME, Migration, Store, StoreBusy
from lore.core.store.open import open_store

MIGRATIONS = [
    Migration(
        "core/oauth_0001_connector",
        """
CREATE TABLE oauth_clients (
    client_id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    info TEXT NOT NULL,
    created_at REAL NOT NULL
);
CREATE TABLE oauth_codes (
    hash TEXT PRIMARY KEY,
    client_id TEXT NOT NULL,
    request TEXT NOT NULL,
    expires_at REAL NOT NULL,
    used_at REAL,
    grant_id TEXT
);
CREATE TABLE oauth_grants (
    id TEXT PRIMARY KEY,
    client_id TEXT NOT NULL,
    scopes TEXT NOT NULL,
    resource TEXT NOT NULL,
    created_at REAL NOT NULL,
    last_used_at REAL,
    revoked_at REAL
);
CREATE TABLE oauth_tokens (
    hash TEXT PRIMARY KEY,
    grant_id TEXT NOT NULL REFERENCES oauth_grants (id),
    kind TEXT NOT NULL CHECK (kind IN ('access', 'refresh')),
    created_at REAL NOT NULL,
    expires_at REAL NOT NULL,
    used_at REAL
);
CREATE INDEX oauth_tokens_grant ON oauth_tokens (grant_id);
""",
    )
]


@dataclass(frozen=True)
class ClientRow:
    """A registered client: what it said about itself (JSON), when, and whether it ever
    completed a grant (the local user approved it and it exchanged the code)."""

    info: str
    created_at: float
    granted: bool


@dataclass(frozen=True)
class CodeRow:
    """A stored authorization code: its client, the request it answers (JSON), its lifetime,
    and once used, the grant it was exchanged for."""

    client_id: str
    request: str
    expires_at: float
    used_at: float | None
    grant_id: str | None


@dataclass(frozen=True)
class TokenRow:
    """One token with what its grant says: whose it is, for what, and whether it still holds."""

    grant_id: str
    kind: str
    client_id: str
    scopes: str
    resource: str
    expires_at: float
    used_at: float | None
    revoked_at: float | None


@dataclass(frozen=True)
class GrantRow:
    """One approval, for `lore serve tokens`: the client, when, until when, last use."""

    id: str
    client_id: str
    client_name: str
    created_at: float
    expires_at: float | None  # the latest live token's expiry; None when none is left
    last_used_at: float | None
    revoked_at: float | None


class OAuthStore:
    """The connector's tables in one Store."""

    def __init__(self, store: Store | None = None):
        # the grants belong to the machine that serves them, never to a shared team database
        self.store = store or open_store(ensure_home() / DB_NAME)
        self.store.migrate(MIGRATIONS)

    # -- clients -------------------------------------------------------------------------------
    def add_client(self, client_id: str, name: str, info: str, now: float) -> None:
        with self.store.transaction() as conn:
            conn.execute(
                "INSERT INTO oauth_clients (client_id, name, info, created_at) VALUES (?, ?, ?, ?)",
                (client_id, name, info, now),
            )

    def client_info(self, client_id: str) -> str | None:
        row = (
            self.store.connect()
            .execute("SELECT info FROM oauth_clients WHERE client_id = ?", (client_id,))
            .fetchone()
        )
        return row[0] if row else None

    def client(self, client_id: str) -> ClientRow | None:
        """A registered client, with whether it ever completed a grant."""
        row = (
            self.store.connect()
            .execute(
                "SELECT c.info, c.created_at, EXISTS (SELECT 1 FROM oauth_grants g WHERE g.client_id = c.client_id)"
                " FROM oauth_clients c WHERE c.client_id = ?",
                (client_id,),
            )
            .fetchone()
        )
        return ClientRow(row[0], row[1], bool(row[2])) if row else None

    def unfinished_clients(self) -> tuple[int, float | None]:
        """How many registered clients never completed a grant, and when the oldest registered."""
        row = (
            self.store.connect()
            .execute(
                "SELECT COUNT(*), MIN(created_at) FROM oauth_clients c"
                " WHERE NOT EXISTS (SELECT 1 FROM oauth_grants g WHERE g.client_id = c.client_id)"
            )
            .fetchone()
        )
        return int(row[0]), row[1]

    def drop_unfinished_clients(self, registered_by: float) -> int:
        """Forget clients registered at or before that moment that never completed a grant,
        with their unused codes; how many went."""
        unfinished = (
            "SELECT client_id FROM oauth_clients c WHERE c.created_at <= ?"
            " AND NOT EXISTS (SELECT 1 FROM oauth_grants g WHERE g.client_id = c.client_id)"
        )
        with self.store.transaction() as conn:
            conn.execute(f"DELETE FROM oauth_codes WHERE client_id IN ({unfinished})", (registered_by,))
            done = conn.execute(
                f"DELETE FROM oauth_clients WHERE client_id IN ({unfinished})", (registered_by,)
            )
            return done.rowcount

    # -- codes ---------------------------------------------------------------------------------
    def add_code(self, code_hash: str, client_id: str, request: str, expires_at: float) -> None:
        with self.store.transaction() as conn:
            conn.execute(
                "INSERT INTO oauth_codes (hash, client_id, request, expires_at) VALUES (?, ?, ?, ?)",
                (code_hash, client_id, request, expires_at),
            )

    def code(self, code_hash: str) -> CodeRow | None:
        row = (
            self.store.connect()
            .execute(
                "SELECT client_id, request, expires_at, used_at, grant_id FROM oauth_codes WHERE hash = ?",
                (code_hash,),
            )
            .fetchone()
        )
        return CodeRow(*row) if row else None

    def use_code(self, code_hash: str, grant_id: str, now: float) -> bool:
        """Mark a code used for `grant_id`; False when it already was (or is gone): a code works once."""
        with self.store.transaction() as conn:
            done = conn.execute(
                "UPDATE oauth_codes SET used_at = ?, grant_id = ? WHERE hash = ? AND used_at IS NULL",
                (now, grant_id, code_hash),
            )
            return done.rowcount == 1

    def prune(self, before: float) -> None:
        """Forget codes and tokens that expired before `before` (grants stay, for the listing)."""
        with self.store.transaction() as conn:
            conn.execute("DELETE FROM oauth_codes WHERE expires_at < ?", (before,))
            conn.execute("DELETE FROM oauth_tokens WHERE expires_at < ?", (before,))

    # -- grants and tokens ---------------------------------------------------------------------
    def add_grant(self, grant_id: str, client_id: str, scopes: str, resource: str, now: float) -> None:
        with self.store.transaction() as conn:
            conn.execute(
                "INSERT INTO oauth_grants (id, client_id, scopes, resource, created_at) VALUES (?, ?, ?, ?, ?)",
                (grant_id, client_id, scopes, resource, now),
            )

    def add_tokens(self, grant_id: str, tokens: list[tuple[str, str, float]], now: float) -> None:
        """Store (hash, kind, expires_at) tokens of a grant, in one transaction."""
        with self.store.transaction() as conn:
            conn.executemany(
                "INSERT INTO oauth_tokens (hash, grant_id, kind, created_at, expires_at) VALUES (?, ?, ?, ?, ?)",
                [(h, grant_id, kind, now, expires) for h, kind, expires in tokens],
            )

    def token(self, token_hash: str) -> TokenRow | None:
        row = (
            self.store.connect()
            .execute(
                "SELECT t.grant_id, t.kind, g.client_id, g.scopes, g.resource, t.expires_at, t.used_at,"
                " g.revoked_at FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id"
                " WHERE t.hash = ?",
                (token_hash,),
            )
            .fetchone()
        )
        return TokenRow(*row) if row else None

    def rotate(
        self, old_refresh_hash: str, grant_id: str, tokens: list[tuple[str, str, float]], now: float
    ) -> bool:
        """Swap a refresh token for new tokens: the old refresh is marked used, the grant's
        earlier access tokens end, the new ones are stored. False (nothing written) when the
        old refresh token was already used: the caller treats that as a stolen token."""
        with self.store.transaction() as conn:
            done = conn.execute(
                "UPDATE oauth_tokens SET used_at = ? WHERE hash = ? AND kind = 'refresh' AND used_at IS NULL",
                (now, old_refresh_hash),
            )
            if done.rowcount != 1:
                return False
            conn.execute(
                "UPDATE oauth_tokens SET expires_at = MIN(expires_at, ?) WHERE grant_id = ? AND kind = 'access'",
                (now, grant_id),
            )
            conn.executemany(
                "INSERT INTO oauth_tokens (hash, grant_id, kind, created_at, expires_at) VALUES (?, ?, ?, ?, ?)",
                [(h, grant_id, kind, now, expires) for h, kind, expires in tokens],
            )
            return True

    def touch_grant(self, grant_id: str, now: float) -> None:
        """Record a use; skipped when another writer holds the file (it is only bookkeeping)."""
        with suppress(StoreBusy), self.store.transaction(wait_ms=200) as conn:
            conn.execute("UPDATE oauth_grants SET last_used_at = ? WHERE id = ?", (now, grant_id))

    def revoke(self, grant_ids: list[str] | None, now: float) -> int:
        """Revoke the given grants (None: every live one); how many were live."""
        with self.store.transaction() as conn:
            if grant_ids is None:
                done = conn.execute("UPDATE oauth_grants SET revoked_at = ? WHERE revoked_at IS NULL", (now,))
                return done.rowcount
            count = 0
            for grant_id in grant_ids:
                done = conn.execute(
                    "UPDATE oauth_grants SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL",
                    (now, grant_id),
                )
                count += done.rowcount
            return count

    def grant_exists(self, grant_id: str) -> bool:
        row = self.store.connect().execute("SELECT 1 FROM oauth_grants WHERE id = ?", (grant_id,)).fetchone()
        return row is not None

    def grants(self, now: float) -> list[GrantRow]:
        """Every grant, newest first, with the expiry of its latest live token."""
        rows = (
            self.store.connect()
            .execute(
                "SELECT g.id, g.client_id, COALESCE(c.name, g.client_id), g.created_at,"
                " (SELECT MAX(t.expires_at) FROM oauth_tokens t WHERE t.grant_id = g.id"
                "  AND t.used_at IS NULL AND t.expires_at > ?),"
                " g.last_used_at, g.revoked_at"
                " FROM oauth_grants g LEFT JOIN oauth_clients c ON c.client_id = g.client_id"
                " ORDER BY g.created_at DESC, g.id",
                (now,),
            )
            .fetchall()
        )
        return [GrantRow(*row) for row in rows]
