"""What `lore serve tokens` shows and revokes: one line per approval the local user gave."""

from __future__ import annotations

import time
from dataclasses import dataclass

from lore.core.dates import iso_utc
from lore.core.errors import InvalidInput, NotFound
from lore.core.store.oauth_store import OAuthStore


@dataclass(frozen=True)
class Grant:
    """An approved client: its tokens live until `expires` unless revoked."""

    id: str
    client: str
    created: str | None
    expires: str | None
    last_used: str | None
    state: str  # "active", "expired" or "revoked"

    def as_dict(self) -> dict[str, str | None]:
        return {
            "id": self.id,
            "client": self.client,
            "created": self.created,
            "expires": self.expires,
            "last_used": self.last_used,
            "state": self.state,
        }


def list_grants(store: OAuthStore | None = None, now: float | None = None) -> list[Grant]:
    """Every grant, newest first."""
    moment = time.time() if now is None else now
    out = []
    for row in (store or OAuthStore()).grants(moment):
        state = "revoked" if row.revoked_at else ("active" if row.expires_at else "expired")
        out.append(
            Grant(
                id=row.id,
                client=row.client_name,
                created=iso_utc(row.created_at),
                expires=iso_utc(row.expires_at) if state == "active" else None,
                last_used=iso_utc(row.last_used_at),
                state=state,
            )
        )
    return out


def revoke(grant_id: str | None, *, every: bool = False, store: OAuthStore | None = None) -> int:
    """Revoke one grant by id, or all of them; how many were still live.

    An unknown id is NotFound (exit code 3); neither an id nor `every` is refused input."""
    db = store or OAuthStore()
    if every == (grant_id is not None):
        raise InvalidInput("give one grant ID or --all (see `lore serve tokens`)")
    if every:
        return db.revoke(None, time.time())
    assert grant_id is not None
    if not db.grant_exists(grant_id):
        raise NotFound(f"no grant {grant_id!r}; see `lore serve tokens`")
    return db.revoke([grant_id], time.time())
