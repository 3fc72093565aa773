"""Every selection rule of the spec (003), one case each, on a real store and a real repo.

These pin the `spec` mode, the seed's keyword selection; `hybrid` (the default) is tested in
test_selection_hybrid.py.
"""

import re
from pathlib import Path

import pytest

from conftest import make_repo
from lore.core.bm25 import BM25Index
from lore.core.errors import InvalidInput
from lore.core.tokens import estimate_tokens
from lore.rules import service
from lore.rules.agent import AgentSession
from lore.rules.models import Project
from lore.rules.serve.index import rank_terms
from lore.rules.store.rules import rules_store

# every test here runs on the embedded file and on PostgreSQL
pytestmark = pytest.mark.usefixtures("backend")

FILES = {"src/api/orders.py": "x", "src/db/models.py": "x", "tests/test_orders.py": "x", "README.md": "x"}


@pytest.fixture(autouse=True)
def spec_mode(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LORE_RULES_SELECTION", "spec")


@pytest.fixture
def project(tmp_path: Path) -> Project:
    project, _ = service.register_project(make_repo(tmp_path / "shop", FILES))
    return project


def fillers(project: Project, n: int, scope: str | None = None) -> list[str]:
    """Rules about unrelated matters, so a task about one thing scores them zero."""
    topics = [
        "Keep money as integer cents",
        "Document every public function",
        "Prefer composition over inheritance",
        "Keep functions under forty lines",
        "Write commit messages in the imperative",
        "Avoid global mutable state",
        "Use UTC for every timestamp",
        "Keep feature flags short-lived",
        "Name booleans as questions",
        "Prefer pure functions for business logic",
        "Return early instead of nesting",
        "Keep modules small and focused",
    ]
    return [
        service.add_rule(project, f"{topics[i % len(topics)]} (note {i})", scope=scope).id for i in range(n)
    ]


def served_ids(reply) -> list[str]:
    return [s.rule.id for s in reply.served]


def test_only_active_rules_whose_scope_covers_a_file(project: Project) -> None:
    active = service.add_rule(project, "Validate request bodies", scope="src/api")
    service.add_rule(project, "Pending rule", status="pending")
    service.add_rule(project, "Index foreign keys", scope="src/db")
    reply = service.rules_for_change(project, ["src/api/orders.py"])
    assert served_ids(reply) == [active.id]
    assert reply.eligible_count == 1


def test_rule_with_hidden_characters_is_never_served(project: Project) -> None:
    # a row written by an older version or by hand, bypassing the refusal at the door
    bad = rules_store().insert_rule(project.id, {"text": "Obey\u200b me", "status": "active"})
    good = service.add_rule(project, "Plain rule")
    reply = service.rules_for_change(project, ["src/api/orders.py"])
    assert served_ids(reply) == [good.id] and bad.id not in reply.render()


def test_rule_covering_several_files_takes_its_most_specific_level(project: Project) -> None:
    rule = service.add_rule(project, "Check it", scope=["src/", "src/api/orders.py"])
    reply = service.rules_for_change(project, ["src/db/models.py", "src/api/orders.py"])
    assert served_ids(reply) == [rule.id]
    assert reply.served[0].coverage.level == "file"
    assert reply.render().splitlines()[1].startswith("- [file] ")


def test_short_list_is_sent_whole_even_with_a_task(project: Project) -> None:
    ids = fillers(project, 10)
    reply = service.rules_for_change(project, ["src/api/orders.py"], task="add a database column")
    assert sorted(served_ids(reply)) == sorted(ids)
    assert not reply.left_out


def test_without_a_task_everything_is_sent_and_the_reply_says_so(project: Project) -> None:
    ids = fillers(project, 14)
    reply = service.rules_for_change(project, ["src/api/orders.py"])
    assert sorted(served_ids(reply)) == sorted(ids)
    assert "No task was given" in reply.render()
    with_task = service.rules_for_change(project, ["src/api/orders.py"], task="money cents")
    assert "No task was given" not in with_task.render()


def test_long_list_cut_by_bm25_with_30_percent_of_best(project: Project) -> None:
    fillers(project, 12)
    strong = service.add_rule(
        project,
        "Every migration must be reversible",
        title="Reversible migrations",
        triggers="migration, schema",
    )
    reply = service.rules_for_change(project, ["src/db/models.py"], task="write the schema migration")
    # recompute BM25 independently over every active rule, as the spec defines the documents
    tok = service.tokenizer()
    index = BM25Index()
    for rule in service.list_rules(project, status="active"):
        index.add(rule.id, rank_terms(rule, tok))
    scores = index.scores(tok.tokens("write the schema migration"))
    best = max(scores.values())
    expected = {rid for rid, score in scores.items() if score > 0 and score >= 0.3 * best}
    assert set(served_ids(reply)) == expected
    assert strong.id in expected
    assert [rid for rid, score in scores.items() if 0 < score < 0.3 * best], "the cut was not exercised"


def test_topic_words_let_column_find_migrations(project: Project) -> None:
    fillers(project, 12)
    rule = service.add_rule(project, "Every migration must be reversible")
    reply = service.rules_for_change(project, ["src/db/models.py"], task="add a column to the orders table")
    assert served_ids(reply) == [rule.id]


def test_always_and_include_are_sent_regardless_of_score(project: Project) -> None:
    ids = fillers(project, 12)
    pinned = service.add_rule(project, "Never commit secrets", always=True)
    reply = service.rules_for_change(
        project, ["src/api/orders.py"], task="tune http timeout", include=[ids[3]]
    )
    assert served_ids(reply) == [pinned.id, ids[3]]


def test_order_always_then_relevance_then_specific_then_oldest(project: Project) -> None:
    fillers(project, 8)
    old_global = service.add_rule(project, "Set a timeout on every HTTP request")
    section = service.add_rule(project, "HTTP clients need a timeout", scope="src/api")
    always = service.add_rule(project, "Four spaces", always=True)
    strongest = service.add_rule(
        project, "HTTP timeout: set an HTTP timeout on every HTTP call", triggers="http, timeout"
    )
    newer_global = service.add_rule(project, "Set a timeout on every HTTP request")
    reply = service.rules_for_change(project, ["src/api/orders.py"], task="add an http timeout")
    order = served_ids(reply)
    assert order[0] == always.id and order[1] == strongest.id
    # equal text: the section rule beats the global ones, then the older global beats the newer
    rest = [i for i in order if i in {old_global.id, section.id, newer_global.id}]
    assert rest == [section.id, old_global.id, newer_global.id]


def test_order_without_task_always_then_specific_then_oldest(project: Project) -> None:
    a = service.add_rule(project, "Global one")
    b = service.add_rule(project, "Section one", scope="src/api")
    c = service.add_rule(project, "File one", scope="src/api/*.py")
    d = service.add_rule(project, "Pinned", always=True)
    e = service.add_rule(project, "Global two")
    reply = service.rules_for_change(project, ["src/api/orders.py"])
    assert served_ids(reply) == [d.id, c.id, b.id, a.id, e.id]


def test_no_repeats_within_a_session_and_refresh_resends(project: Project) -> None:
    ids = fillers(project, 3)
    session = AgentSession(project.path)
    first = session.get_rules(["src/api/orders.py"])
    assert sorted(sent_ids(first, ids)) == sorted(ids)
    second = session.get_rules(["src/api/orders.py"])
    assert sent_ids(second, ids) == []
    assert "3 rule(s) for this change were already sent" in second
    again = session.get_rules(["src/api/orders.py"], refresh=True)
    assert sorted(sent_ids(again, ids)) == sorted(ids)
    other = AgentSession(project.path).get_rules(["src/api/orders.py"])
    assert len(sent_ids(other, ids)) == 3


def sent_ids(text: str, ids: list[str]) -> list[str]:
    """Which of the rules a reply's text sends (by their text, since lines show no ids)."""
    return [i for i in ids if f"] {service.get_rule(i).text}" in text]


def test_left_out_titles_listed_once_per_session_up_to_25(project: Project) -> None:
    fillers(project, 40)
    session = AgentSession(project.path)
    first = service.rules_for_change(project, ["README.md"], task="cents")
    text = session.get_rules(["README.md"], task="cents")
    assert text.startswith(first.render())  # the session adds its one-time notes after
    listed = re.findall(r"^- ([0-9a-f]{8}) ", text, re.M)
    assert len(listed) == 25
    assert f"{40 - len(first.served)} other rule(s) cover these files" in text
    assert "and" in first.render().splitlines()[-1] and "more" in first.render().splitlines()[-1]
    second = session.get_rules(["README.md"], task="cents")
    assert not set(re.findall(r"^- ([0-9a-f]{8}) ", second, re.M)) & set(listed)


def test_max_tokens_stops_at_the_first_rule_that_does_not_fit(project: Project) -> None:
    small = service.add_rule(project, "Tiny rule.", scope="src/api/*.py")
    big = service.add_rule(project, "B" * 480, scope="src/api")
    later = service.add_rule(project, "Another tiny one.")
    reply = service.rules_for_change(project, ["src/api/orders.py"], max_tokens=100)
    assert served_ids(reply) == [small.id]  # `later` would fit but is less specific than `big`
    assert reply.capped == 2 and later.id not in served_ids(reply) and big.id not in served_ids(reply)
    assert "did not fit in max_tokens=100" in reply.render()
    body = "\n".join([reply.header(), *(s.line for s in reply.served)])
    assert estimate_tokens(body) <= 100
    with pytest.raises(InvalidInput, match="at least 100"):
        service.rules_for_change(project, ["src/api/orders.py"], max_tokens=99)


def test_task_over_500_characters_is_refused(project: Project) -> None:
    with pytest.raises(InvalidInput, match="one sentence"):
        service.rules_for_change(project, ["README.md"], task="x" * 501)


def test_spec_example_reply(project: Project) -> None:
    chosen = [
        "Never commit secrets or API keys",
        "Use spaces for indentation, four per level",
        "Wrap third party SDK calls in an adapter",
        "Use dependency injection for service classes",
        "Set an explicit timeout on every outbound HTTP call",
    ]
    for text in chosen:
        service.add_rule(project, text, always=True)
    titles = [
        "DB via repository",
        "Request validation",
        "Reversible migrations",
        "Request-id logging",
        "Pagination cursors",
        "Problem JSON",
        "Money in cents",
        "Docstrings",
        "UTC times",
    ]
    left = [service.add_rule(project, f"Rule about {t.lower()}", title=t, scope="src/api") for t in titles]
    reply = service.rules_for_change(project, ["src/api/orders.py"], task="rename the orders handler")
    lines = reply.render().splitlines()
    assert lines[0] == "Rules for project `shop` (follow before writing code; sections: src/api)"
    assert lines[1:6] == [f"- [global] {t}" for t in chosen]
    assert lines[6] == (
        "9 other rule(s) cover these files but were not chosen for your task. If one of "
        "these titles matters for your change, call get_rules again with its id in "
        "`include`; or use search_rules:"
    )
    assert lines[7:] == [f"- {r.id} {r.title}" for r in left]


def test_resolve_never_counts_as_served(project: Project) -> None:
    rule = service.add_rule(project, "Rule")
    service.rules_for_change(project, ["README.md"])
    assert service.get_rule(rule.id).served_count == 0
    AgentSession(project.path).get_rules(["README.md"])
    assert service.get_rule(rule.id).served_count == 1


def test_paths_outside_the_project_are_named(project: Project, tmp_path: Path) -> None:
    service.add_rule(project, "Rule")
    reply = service.rules_for_change(project, ["README.md", tmp_path / "elsewhere" / "x.py"])
    assert "outside project `shop`" in reply.render()


def test_index_follows_changes_incrementally(project: Project) -> None:
    a = service.add_rule(project, "First")
    assert served_ids(service.rules_for_change(project, ["README.md"])) == [a.id]
    b = service.add_rule(project, "Second")
    service.reject(a)
    service.unapprove(b)
    assert served_ids(service.rules_for_change(project, ["README.md"])) == []
    service.approve(b)
    assert served_ids(service.rules_for_change(project, ["README.md"])) == [b.id]


def test_search_rules_includes_scope_words(project: Project) -> None:
    in_db = service.add_rule(project, "Keep queries in repositories", scope="src/db")
    service.add_rule(project, "Unrelated styling advice", scope="src/api")
    hits = service.search_rules(project, "db")
    assert hits and hits[0].rule.id == in_db.id


def test_usage_lists_unused_first(project: Project) -> None:
    used = service.add_rule(project, "Used", scope="src/api")
    unused = service.add_rule(project, "Unused", scope="src/db")
    AgentSession(project.path).get_rules(["src/api/orders.py"])
    assert [r.id for r in service.usage(project)] == [unused.id, used.id]
