"""`lore history eval`: questions drafted from the store's own rows, and two arms answering them.

Each question has checkable ground truth (ids of commits, PRs, issues) because it is written
from rows that hold the answer: single-hop (which PR introduced a change), multi-hop (a file,
the PR that changed it, the issue that PR closed), temporal (the last change to a file as of a
date, asked with `as_of`), recurrence (a later issue whose problem an earlier one already had).
A set written by the system under test is not an instrument until a person has cut and
rewritten it, so the file is marked `"reviewed": false` and every report says so until someone
edits the file and sets it.

The two arms see the same text through the same embedder: `hybrid` is `why`'s retrieval;
`vector` is fixed-size overlapping chunks of every indexed text in a vector index, the competent
baseline. Both are scored on their first ten distinct units (a comment counts as its thread),
as recall of the ground truth.
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from lore.core.dates import iso_utc, to_epoch
from lore.core.embed import get_embedder
from lore.core.errors import InvalidInput
from lore.core.files import write_atomic
from lore.core.vectors import VectorIndex
from lore.history.repos import Repo
from lore.history.why.evidence import terms
from lore.history.why.index import update_index
from lore.history.why.service import gather, units
from lore.history.why.sourced import to_evidence
from lore.history.why.store import open_why
from lore.history.why.store.eval_rows import EvalRows

CATEGORIES = ("single_hop", "multi_hop", "temporal", "recurrence")
PER_CATEGORY = 40
K = 10
CHUNK_WORDS, CHUNK_STEP = 64, 48  # fixed-size chunks with a quarter of overlap
CHUNKS = "history_chunks"
UNREVIEWED = (
    "drafted from the store's rows by `lore history eval`; not reviewed: cut and rewrite, then set reviewed"
)


@dataclass(frozen=True)
class Question:
    id: str
    category: str
    question: str
    truth: tuple[str, ...]
    as_of: str | None = None
    split: str = "dev"


def _split(qid: str) -> str:
    return "dev" if hashlib.sha1(qid.encode()).digest()[0] % 2 == 0 else "held_out"


def _spread(items: list[Any], n: int) -> list[Any]:
    """At most `n` items, evenly spread over the list (deterministic)."""
    if len(items) <= n:
        return items
    step = len(items) / n
    return [items[int(i * step)] for i in range(n)]


def _q(category: str, key: str, question: str, truth: Iterable[str], as_of: str | None = None) -> Question:
    qid = f"{category}:{key}"
    return Question(qid, category, question, tuple(truth), as_of, _split(qid))


def draft(repo: Repo, per_category: int = PER_CATEGORY) -> list[Question]:
    """Questions with ground truth, from the repository's rows."""
    rows = EvalRows(open_why().store)
    out: list[Question] = []
    for pr in _spread(rows.merged_prs(repo.id), per_category):
        out.append(
            _q(
                "single_hop",
                str(pr.number),
                f"Which pull request introduced this: {pr.title}?",
                [f"pr:{pr.number}"],
            )
        )
    closings = [c for c in rows.closings(repo.id) if c.files]
    for c in _spread(closings, per_category):
        question = f"Which issue was behind the change to {c.files[0]} in the pull request {c.pr_title!r}?"
        out.append(_q("multi_hop", f"{c.pr}-{c.issue}", question, [f"issue:{c.issue}"]))
    by_file: dict[str, list[Any]] = defaultdict(list)
    for ch in rows.file_changes(repo.id, per_category * 2):
        by_file[ch.path].append(ch)
    temporal = []
    for path, changes in sorted(by_file.items()):
        if len(changes) < 6:
            continue
        k = len(changes) // 2
        before, after = changes[k], changes[k + 1]
        if after.at <= before.at:
            continue
        moment = iso_utc((before.at + after.at) / 2)
        temporal.append(
            _q(
                "temporal",
                path,
                f"What was the most recent change to {path}?",
                [f"commit:{before.sha}"],
                moment,
            )
        )
    out += _spread(temporal, per_category)
    issues = rows.issues(repo.id)
    recurrences = []
    for i, later in enumerate(issues):
        words = terms(later.title)
        if len(words) < 3:
            continue
        for earlier in reversed(issues[:i]):
            other = terms(earlier.title)
            if len(words & other) / len(words | other) >= 0.6:
                question = f"Did the problem of issue #{later.number} ({later.title}) happen before?"
                recurrences.append(_q("recurrence", str(later.number), question, [f"issue:{earlier.number}"]))
                break
    out += _spread(recurrences, per_category)
    return out


def save(questions: list[Question], path: Path, repo: Repo) -> None:
    data = {
        "reviewed": False,
        "note": UNREVIEWED,
        "repo": repo.name,
        "questions": [asdict(q) for q in questions],
    }
    write_atomic(path, json.dumps(data, indent=1, ensure_ascii=False) + "\n")


def load(path: Path) -> tuple[list[Question], bool]:
    """The questions of a file and whether a person marked it reviewed."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        questions = [
            Question(
                q["id"],
                q["category"],
                q["question"],
                tuple(q["truth"]),
                q.get("as_of"),
                q.get("split", "dev"),
            )
            for q in data["questions"]
        ]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise InvalidInput(f"cannot read the questions in {path}: {exc}") from None
    return questions, data.get("reviewed") is True


# -- the vector-only arm -----------------------------------------------------------------------


def chunks(text: str) -> list[str]:
    words = text.split()
    if not words:
        return []
    starts = range(0, max(1, len(words) - CHUNK_WORDS + CHUNK_STEP), CHUNK_STEP)
    return [" ".join(words[s : s + CHUNK_WORDS]) for s in starts]


def chunk_index(repo: Repo) -> VectorIndex:
    """The baseline's index: every indexed text cut into fixed-size chunks (built once)."""
    update_index(repo)
    db = open_why()
    index = VectorIndex(CHUNKS, get_embedder(), db.store)  # beside the texts, as vector_index
    stored = index.keys()
    have = {k.split(":")[0] for k in stored}
    docs = [d for d in db.docs(repo.id) if str(d.id) not in have]
    for start in range(0, len(docs), 500):
        batch = docs[start : start + 500]
        unit_of = _units_of(repo, batch, db)
        items = [
            (f"{d.id}:{i}", piece, {"repo": repo.id, "at": d.at or 0.0, "unit": unit_of[d.id]})
            for d in batch
            if d.id in unit_of
            for i, piece in enumerate(chunks(d.text))
        ]
        index.add_texts(items)
    return index


def _units_of(repo: Repo, docs: list[Any], db: Any) -> dict[int, str]:
    """doc id -> the unit it is evidence of."""
    found = {(e.kind, e.extra["node"]): e.unit for e in to_evidence(repo, docs, db)}
    return {d.id: found[(d.kind, d.source_id)] for d in docs if (d.kind, d.source_id) in found}


def vector_units(index: VectorIndex, repo: Repo, q: Question) -> list[str]:
    where: dict[str, Any] = {"repo": repo.id}
    if q.as_of:
        where["at"] = ("<=", to_epoch(q.as_of))
    hits = index.search(q.question, k=K * 4, where=where)
    return list(dict.fromkeys(h.meta["unit"] for h in hits if h.meta.get("unit")))[:K]


def hybrid_units(repo: Repo, q: Question) -> list[str]:
    report = gather(repo, q.question, as_of=to_epoch(q.as_of) if q.as_of else None, limit=K * 2)
    return units(report.evidence)[:K]


def recall(found: list[str], truth: Iterable[str]) -> float:
    wanted = set(truth)
    return len(wanted & set(found[:K])) / len(wanted) if wanted else 0.0


def run(repo: Repo, questions: list[Question]) -> dict[str, Any]:
    """recall@10 per category and split, for both arms."""
    index = chunk_index(repo)
    table: dict[str, dict[str, dict[str, list[float]]]] = {}
    for q in questions:
        cell = table.setdefault(q.category, {}).setdefault(q.split, {"hybrid": [], "vector": []})
        cell["hybrid"].append(recall(hybrid_units(repo, q), q.truth))
        cell["vector"].append(recall(vector_units(index, repo, q), q.truth))
    out: dict[str, Any] = {}
    for category in CATEGORIES:
        for split, arms in sorted(table.get(category, {}).items()):
            out.setdefault(category, {})[split] = {
                "n": len(arms["hybrid"]),
                **{arm: round(sum(v) / len(v), 3) for arm, v in arms.items()},
            }
    return out
