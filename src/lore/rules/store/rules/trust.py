"""Repository trust: the user's overrides and the remembered verdict, keyed by repository folder.

These rows live in `trust_store`, the user's own file even when the rules are shared.
"""

from __future__ import annotations

from lore.rules.models import TrustRecord
from lore.rules.store.rules.base import RulesTables


class TrustRecords(RulesTables):
    """The trust table's reads and writes."""

    def trust(self, path: str) -> TrustRecord | None:
        row = self.trust_store.connect().execute("SELECT * FROM trust WHERE path = ?", (path,)).fetchone()
        if row is None:
            return None
        return TrustRecord(
            path=row["path"],
            override=row["override"],
            yours=None if row["yours"] is None else bool(row["yours"]),
            reason=row["reason"],
            evidence=row["evidence"],
            checked_at=row["checked_at"],
            recheck_at=row["recheck_at"],
            written_elsewhere=row["written_elsewhere"],
            elsewhere_folder=row["elsewhere_folder"],
        )

    def set_trust_override(self, path: str, override: str | None) -> None:
        """Set (`trust` / `untrust`) or clear the override; clearing also forgets the verdict, so
        the evidence is checked again."""
        with self.trust_store.transaction() as tx:
            if override is None:
                tx.execute(
                    "UPDATE trust SET override = NULL, checked_at = NULL, recheck_at = NULL WHERE path = ?",
                    (path,),
                )
            else:
                tx.execute(
                    "INSERT INTO trust (path, override) VALUES (?, ?) "
                    "ON CONFLICT(path) DO UPDATE SET override = excluded.override",
                    (path, override),
                )

    def save_trust_verdict(self, record: TrustRecord, *, wait_ms: int | None = None) -> None:
        """Remember the evidence check's verdict; an override set meanwhile is kept. The
        observation of lines written elsewhere is replaced only by a later date in the same git
        folder, or by any observation about a new folder at that path. `wait_ms`: see
        `Store.transaction`."""
        with self.trust_store.transaction(wait_ms=wait_ms) as tx:
            tx.execute(
                "INSERT INTO trust (path, yours, reason, evidence, checked_at, recheck_at, "
                "written_elsewhere, elsewhere_folder) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT(path) DO UPDATE SET yours = excluded.yours, reason = excluded.reason, "
                "evidence = excluded.evidence, checked_at = excluded.checked_at, "
                "recheck_at = excluded.recheck_at, "
                "written_elsewhere = CASE WHEN excluded.written_elsewhere IS NULL "
                "THEN trust.written_elsewhere ELSE excluded.written_elsewhere END, "
                "elsewhere_folder = CASE WHEN excluded.written_elsewhere IS NULL "
                "THEN trust.elsewhere_folder ELSE excluded.elsewhere_folder END",
                (
                    record.path,
                    None if record.yours is None else int(record.yours),
                    record.reason,
                    record.evidence,
                    record.checked_at,
                    record.recheck_at,
                    record.written_elsewhere,
                    record.elsewhere_folder,
                ),
            )
