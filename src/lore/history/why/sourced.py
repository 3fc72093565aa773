"""Indexed texts as evidence: what `why`'s providers hand on for the rows they ranked.

Every provider ranks rows of the keyword index (or graph nodes that have one) and returns
`Evidence`; this is the one place that turns those rows, read with their sources, into items
(their key, unit, title, link and the thread they belong to), so every list the fusion adds up
names each source the same way.
"""

from __future__ import annotations

from collections.abc import Sequence

from lore.history.store.records import Repo
from lore.history.why.evidence import Evidence, WhyQuery
from lore.history.why.store import Doc, Sourced, WhyStore


def _unit(kind: str, ref: str, thread_kind: str | None, thread_number: int | None) -> str:
    if kind == "commit":
        return f"commit:{ref}"
    if kind in ("pr", "issue"):
        return f"{kind}:{ref}"
    return f"{thread_kind or 'issue'}:{thread_number}"


def to_evidence(repo: Repo, docs: Sequence[Doc], db: WhyStore) -> list[Evidence]:
    """Evidence for indexed texts, in the order given; texts whose source is gone are skipped."""
    metas = db.source_meta(docs)
    return evidence_of(repo, [(d, metas[d.id]) for d in docs if d.id in metas])


def evidence_of(repo: Repo, sourced: Sequence[Sourced]) -> list[Evidence]:
    """Evidence for indexed texts read with their sources (`WhyStore.sourced`), in that order."""
    out = []
    for d, m in sourced:
        url = m.url
        if d.kind == "commit" and repo.github:
            url = f"https://github.com/{repo.github}/commit/{m.ref}"
        ref = m.ref[:10] if d.kind == "commit" else (f"#{m.ref}" if d.kind in ("pr", "issue") else m.ref)
        out.append(
            Evidence(
                key=f"{d.kind}:{m.ref}",
                kind=d.kind,
                unit=_unit(d.kind, m.ref, m.thread_kind, m.thread_number),
                title=m.title.splitlines()[0] if m.title else "",
                text=d.text,
                at=d.at,
                ref=ref,
                url=url,
                author=m.author,
                layer="git" if d.kind == "commit" else "github",
                extra={
                    "node": d.source_id,
                    "thread": d.thread_id if d.thread_id is not None else d.source_id,
                    **({"association": m.association} if m.association else {}),
                },
            )
        )
    return out


def node_docs(q: WhyQuery, db: WhyStore, node_ids: Sequence[int]) -> list[Evidence]:
    """Evidence for graph nodes that have an indexed text, in the order given."""
    found = db.sourced_by_source(q.repo.id, ("commit", "pr", "issue"), node_ids)
    by_source = {d.source_id: (d, m) for d, m in found}
    return evidence_of(q.repo, [by_source[n] for n in node_ids if n in by_source])
