"""A small GitHub history with decisions in it, and a model that proposes them, for layer-2 tests.

Issue #1: a maintainer decides on JWTs for the API (in a comment, two days after the thread
opened), and a user reports a choice of their own (the seed's PonyORM shape). PR #2 closes
issue #1 and moves the API back to server sessions. Issue #3 holds a maintainer's refusal about
another file. Issue #4 is a user talking to users: nobody there can bind the project.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from support.fake_github import FakeGitHub
from support.fake_llm import FakeLLM, Request
from support.history_repo import HistoryRepo

MERGE = "a" * 40
JWT = (
    "We will use JWT tokens for the public API instead of server sessions, because the mobile"
    " client cannot keep cookies."
)
PONY = (
    "I have found SQLAlchemy core rather difficult to work with and decided to go another route"
    " with PonyORM in my app."
)
SESSIONS = "This moves the public API back from JWT tokens to server sessions: revocation matters more."
REFUSAL = "We will not support JSON-encoded complex types in query params."
USER_ONLY = "I decided to use httpx instead of requests in my own project, works great."


def day(d: int, hh: str = "00:00:00") -> str:
    return f"2024-01-{d:02d}T{hh}Z"


def load(gh: FakeGitHub) -> None:
    gh.add_issue(1, "Auth tokens", body="How should the API authenticate?", user="alice", created_at=day(1))
    gh.add_comment(1, JWT, user="bob", association="MEMBER", at=day(3))
    gh.add_comment(1, PONY, user="dave", association="NONE", at=day(4))
    gh.add_pr(
        2,
        "Back to sessions",
        body=SESSIONS + " Fixes #1",
        user="bob",
        association="MEMBER",
        created_at=day(10),
        merged_at=day(12),
        merge_commit_sha=MERGE,
        files=[{"filename": "src/auth.py"}],
    )
    gh.cross_reference(1, source=2, at=day(10, "01:00:00"))
    gh.close(1, at=day(12), commit_id=MERGE)
    gh.add_issue(3, "Complex query params", body="Please support them", user="erin", created_at=day(5))
    gh.add_comment(3, REFUSAL, user="bob", association="OWNER", at=day(6))
    gh.add_issue(4, "Which HTTP client?", body=USER_ONLY, user="frank", created_at=day(7))
    gh.add_comment(4, "Same, httpx for me too.", user="gina", association="NONE", at=day(8))
    gh.add_commit("1" * 40, "Initial import", at=day(1), files=[{"filename": "src/auth.py"}])
    gh.add_commit(
        MERGE, "Back to sessions (#2)", at=day(12), parents=["1" * 40], files=[{"filename": "src/auth.py"}]
    )


def proposal(
    source: str, quote: str, statement: str, scope: str = "security", **extra: Any
) -> dict[str, Any]:
    return {"source": source, "quote": quote, "statement": statement, "scope": scope, **extra}


def thread_of(request: Request) -> int | None:
    """The issue or PR number a thread prompt is about (None for other prompts)."""
    for line in request.last_user.splitlines():
        for kind in ("Issue #", "Pull request #"):
            if line.startswith(kind):
                return int(line[len(kind) :].split(":", 1)[0])
    return None


# what the model proposes per thread: the right decisions plus the mistakes the checks must catch
PROPOSALS: dict[int, list[dict[str, Any]]] = {
    1: [
        # kept: the quote is re-typed (curly quotes, case, a line break) but in bob's comment
        proposal(
            "S1",
            "we will use JWT tokens for the public API\ninstead of server sessions",
            "Use JWT tokens, not server sessions, for the public API",
            rationale="The mobile client cannot keep cookies.",
            files=["src/auth.py", "nowhere/else.py"],
        ),
        # dropped: the quote is real, but from dave's comment, not the one cited
        proposal(
            "S1", "decided to go another route with PonyORM", "Switch from SQLAlchemy to PonyORM", "data"
        ),
        # dropped: present and cited right, but dave cannot bind the project
        proposal(
            "S2", "decided to go another route with PonyORM", "Switch from SQLAlchemy to PonyORM", "data"
        ),
        # dropped: a second copy of the first, from the same words
        proposal(
            "S1", "JWT tokens for the public API", "Use JWT tokens for the public API", files=["src/auth.py"]
        ),
    ],
    2: [
        proposal(
            "S0",
            "moves the public API back from JWT tokens to server sessions",
            "Use server sessions, not JWT tokens, for the public API",
            rationale="Revocation matters more.",
            files=["src/auth.py"],
        )
    ],
    3: [
        proposal(
            "S1",
            "We will not support JSON-encoded complex types in query params.",
            "Do not support JSON-encoded complex types in query params",
            "api",
            files=["src/params.py"],
        )
    ],
}


def teach(llm: FakeLLM, proposals: dict[int, list[dict[str, Any]]] | None = None) -> None:
    """The fake model answers each thread prompt with its proposals, and judges nothing."""
    table = PROPOSALS if proposals is None else proposals

    def answer(request: Request) -> dict[str, Any]:
        return {"decisions": table.get(thread_of(request) or -1, [])}

    llm.reply(lambda r: thread_of(r) is not None, answer)


def judge_requests(llm: FakeLLM) -> list[Request]:
    return [r for r in llm.requests if "Does the LATER decision replace" in r.prompt]


def thread_requests(llm: FakeLLM) -> list[Request]:
    return [r for r in llm.requests if thread_of(r) is not None]


# -- decisions from the git layer alone: a small repository whose commits a model reads ---------

COMMITTER = ("Test User", "test@example.com")
PYTEST_COMMIT = "Move the test suite from nose to pytest\n\nnose is unmaintained; pytest fixtures replace our setup helpers."
DEPS_COMMIT = (
    "Drop the ujson dependency\n\nThe standard json module is fast enough for us and one less wheel to build."
)
_FILES_OF = {"Move the test suite": ["tests/"], "Drop the ujson": ["requirements.txt"]}


def decide_commits(request: Request) -> dict[str, Any]:
    """One decision per commit the prompt shows, quoting its subject, about the files it names."""
    shown = re.findall(r"\[(C\d+)\] commit [^\n]*:\n([^\n]*)", request.last_user)
    return {
        "decisions": [
            {"source": label, "quote": subject, "statement": subject, "scope": "testing",
             "files": next((f for k, f in _FILES_OF.items() if subject.startswith(k)), [])}
            for label, subject in shown
        ]
    }  # fmt: skip


def decided_repo(root: Path, llm: FakeLLM | None) -> HistoryRepo:
    """Three commits (the app, the move to pytest, dropping ujson), ingested; with `llm`, the
    decisions extracted from them through that server."""
    from lore.history.decisions.extract import extract
    from lore.history.ingest.git import ingest_git

    repo = HistoryRepo(root)
    repo.commit("Add the app", {"app.py": "print(1)\n", "tests/test_app.py": "def test(): pass\n"}, COMMITTER)
    repo.commit(PYTEST_COMMIT, {"tests/conftest.py": "import pytest\n"}, COMMITTER)
    repo.commit(DEPS_COMMIT, {"requirements.txt": "\n"}, COMMITTER)
    ingest_git(repo.root)
    if llm is not None:
        llm.reply(lambda r: "<commits>" in r.prompt, decide_commits)
        extract()
    return repo
