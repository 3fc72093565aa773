"""The reads `why` folds into fewer statements give what the separate reads gave, on both backends.

On PostgreSQL every statement is a round trip to the server, so `why` reads a text with its
source in one statement, both hops of the links in one, and the index's freshness in one; these
tests hold the folded reads to the plain ones they replace, and count the statements a question
costs (`support.statements`).
"""

from __future__ import annotations

import pytest

from lore.history import store as layer1
from lore.history.ingest.git import ingest_git
from lore.history.repos import resolve_repo
from lore.history.why.index import update_index
from lore.history.why.retrieval import LINK_RELATIONS, MAX_DEGREE
from lore.history.why.service import gather
from lore.history.why.store import open_why
from support.history_repo import DAY, T0, lines, run_git, write
from support.history_why import WhyRepo
from support.statements import statements

pytestmark = pytest.mark.usefixtures("backend")  # each test on SQLite and on PostgreSQL


@pytest.fixture
def why_repo(why_repo: WhyRepo) -> WhyRepo:
    """conftest's why repository, with its why index built."""
    update_index(resolve_repo("acme/app"))
    return why_repo


def test_a_text_read_with_its_source_is_the_text_and_its_source(why_repo: WhyRepo) -> None:
    repo = resolve_repo("acme/app")
    db = open_why()
    ids = db.doc_ids(repo.id)
    plain = db.docs_by_id(ids)
    sourced = db.sourced(ids)
    assert set(sourced) == set(plain)  # every source is there in a fresh ingest
    nodes = layer1.open_history().nodes([d.source_id for d, _m in sourced.values()])
    kinds = set()
    for doc_id, (doc, meta) in sourced.items():
        assert doc == plain[doc_id]
        kinds.add(doc.kind)
        if doc.kind in ("commit", "pr", "issue"):
            assert meta.ref == nodes[doc.source_id].key  # a commit's sha, a PR's or issue's number
            assert meta.kind == nodes[doc.source_id].kind
        else:  # a comment: its id, on its thread
            assert meta.ref == str(doc.source_id) and meta.thread_number is not None
    assert {"commit", "pr", "issue"} <= kinds
    commits = [d.source_id for d, _m in sourced.values() if d.kind == "commit"]
    by_source = db.sourced_by_source(repo.id, ("commit",), commits)
    assert sorted(by_source, key=lambda s: s[0].id) == sorted(
        (s for s in sourced.values() if s[0].kind == "commit"), key=lambda s: s[0].id
    )


def test_both_hops_of_the_links_in_one_read_are_the_two_reads(why_repo: WhyRepo) -> None:
    repo = resolve_repo("acme/app")
    graph = layer1.open_history()
    seeds = [graph.find_node(repo.id, kind, key) for kind, key in (("pr", "2"), ("pr", "3"))]
    seeds.append(graph.find_node(repo.id, "commit", why_repo.shas["oauth"]))
    ids = [n.id for n in seeds if n is not None]
    assert len(ids) == 3
    for until in (None, float(graph.nodes(ids)[ids[-1]].at or 0.0)):
        one, two = graph.links_two_hops(ids, LINK_RELATIONS, until, MAX_DEGREE)
        assert sorted(one) == sorted(graph.links_of(ids, LINK_RELATIONS, until))
        near = sorted({other for _n, other, _r, degree in one if degree <= MAX_DEGREE})
        assert sorted(two) == sorted(graph.links_of(near, LINK_RELATIONS, until))
    assert one and two  # a commit's PR, the issue that PR closed: the walk has two hops to check


def test_the_freshness_look_moves_with_layer_one(why_repo: WhyRepo) -> None:
    repo = resolve_repo("acme/app")
    db = open_why()
    look = db.look(repo.id)
    assert look.fresh and look.docs == db.doc_state(repo.id)
    write(why_repo.root, "src/logout.py", lines(3, "out"))
    run_git(why_repo.root, "add", "-A")
    run_git(why_repo.root, "commit", "-qm", "Add a logout route", when=T0 + 40 * DAY)
    ingest_git(why_repo.root)  # its last step brings the index up to date
    assert update_index(repo, db) == 0
    after = db.look(repo.id)
    assert after.fingerprint != look.fingerprint and after.fresh
    assert after.docs == db.doc_state(repo.id) and after.docs[0] == look.docs[0] + 1
    assert update_index(repo, db) == 0


def test_a_question_costs_the_same_statements_whatever_it_names(why_repo: WhyRepo) -> None:
    """Named items, texts and their sources are read in batches: naming three threads costs no
    more round trips than naming one."""
    repo = resolve_repo("acme/app")
    # caches warm, as in a server, the store quiet since the last look, and every statement past
    # the driver's prepare threshold (psycopg prepares one on its fifth run: a round trip more)
    for _ in range(6):
        gather(repo, "why the implicit flow was replaced in #2")
    store = open_why().store
    with statements(store) as one:
        first = gather(repo, "why the implicit flow was replaced in #2")
    with statements(store) as three:
        gather(repo, "why the implicit flow was replaced in #2, #1 and #3")
    assert first.evidence and one
    assert len(three) == len(one)
