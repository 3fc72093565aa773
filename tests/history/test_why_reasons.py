"""`why` quotes the reason a source gives, not its subject line; or says plainly it gives none."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lore.cli.app import app
from lore.history.ingest.git import ingest_git
from lore.history.why.reasons import pick_reason, sentence_spans
from support.history_repo import HistoryRepo, run_git

HTTPX = "Switch the HTTP client from requests to httpx (#12)"
HTTPX_REASON = "We need async calls in the worker, and httpx gives us one client for sync and async code."
BUMP = "Bump the version to 2.1"
PY37 = "Drop Python 3.7 support"
PY37_REASON = (
    "Python 3.7 reached its end of life in June 2023, e.g. no more security fixes, so we now require"
    " Python 3.8."
)


@pytest.fixture
def client_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """A small repository: the httpx switch with its reason, a bump that gives none, a commit
    whose reason holds an abbreviation and version numbers. Returns each commit's sha."""
    monkeypatch.setenv("LORE_EMBED", "hash")
    r = HistoryRepo(tmp_path / "client")
    shas = {
        "start": r.commit(
            "Add the HTTP client", {"client.py": "import requests\n", "pyproject.toml": "v = 2.0\n"}
        ),
        "httpx": r.commit(f"{HTTPX}\n\n{HTTPX_REASON}\n", {"client.py": "import httpx\n"}),
        "bump": r.commit(
            f"{BUMP}\n\nUpdate the version in pyproject.toml and the changelog.\n",
            {"pyproject.toml": "v = 2.1\n"},
        ),
        "py37": r.commit(
            f"{PY37}\n\n{PY37_REASON} Version v2.0 of the worker needs it too.\n\nCo-authored-by: Bob <bob@example.com>\n",
            {"setup.cfg": "python_requires = >=3.8\n"},
        ),
    }
    ingest_git(r.root)
    return shas


def _why(*args: str) -> str:
    result = CliRunner().invoke(app, ["history", "why", *args, "--no-model", "--repo", "client"])
    assert result.exit_code == 0, result.output
    return result.stdout


def _item(data: dict, sha: str) -> dict:
    return next(e for e in data["evidence"] if e["unit"] == f"commit:{sha}")


@pytest.mark.usefixtures("backend")
def test_the_quote_is_the_reason_in_the_body_and_the_subject_the_title(
    client_repo: dict[str, str], tmp_path: Path
) -> None:
    question = "why do we use httpx instead of requests?"
    data = json.loads(_why(question, "--json"))
    first = data["evidence"][0]
    assert first["unit"] == f"commit:{client_repo['httpx']}"
    assert first["title"] == HTTPX and first["quote"] == HTTPX_REASON
    reason = first["reason"]
    message = run_git(tmp_path / "client", "log", "-1", "--format=%B", client_repo["httpx"])
    assert (
        reason["in"] == "body" and message[reason["start"] : reason["end"]] == reason["text"] == HTTPX_REASON
    )

    shown = " ".join(_why(question).split())  # as printed, wrapping undone
    assert f"{client_repo['httpx'][:10]} " in shown and HTTPX in shown
    assert f"“{HTTPX_REASON}”" in shown and f"“{HTTPX}”" not in shown


@pytest.mark.usefixtures("backend")
def test_a_source_without_a_reason_says_so(client_repo: dict[str, str]) -> None:
    question = "why was the version bumped to 2.1?"
    bump = _item(json.loads(_why(question, "--json")), client_repo["bump"])
    assert bump["title"] == BUMP and bump["quote"] == "" and bump["reason"] is None
    shown = _why(question).splitlines()
    at = next(i for i, line in enumerate(shown) if client_repo["bump"][:10] in line)
    assert shown[at + 1].strip() == "no reason stated"


def test_a_reason_is_never_cut_at_an_abbreviation_or_a_version(client_repo: dict[str, str]) -> None:
    data = json.loads(_why("why was Python 3.7 support dropped?", "--json"))
    py37 = _item(data, client_repo["py37"])
    assert py37["quote"] == PY37_REASON  # whole: past "e.g." and "3.8", not into the next sentence
    assert "Co-authored-by" not in json.dumps([e["quote"] for e in data["evidence"]])


def test_sentences_keep_abbreviations_initials_and_numbers_whole() -> None:
    text = (
        "Tested on Python 3.8. It works with v2.0 of the API, e.g. with the new routes (cf. the docs). "
        "Mr. Enoch J. Drebber reported it. Done!"
    )
    got = [text[s:e] for s, e, _ in sentence_spans(text)]
    assert got == [
        "Tested on Python 3.8.",
        "It works with v2.0 of the API, e.g. with the new routes (cf. the docs).",
        "Mr. Enoch J. Drebber reported it.",
        "Done!",
    ]


def test_code_quotes_trailers_and_revert_lines_are_never_the_reason() -> None:
    text = (
        'Revert "Quote the editor command"\n\nThis reverts commit 0123456789abcdef0123456789abcdef01234567.\n\n'
        "> because someone said so in a quoted reply\n\n"
        "    raise SystemExit(1)  # because of the code\n\n"
        'This caused issues if the editor command had options like\n"less -FRSX" because they were'
        " quoted as a single word.\n\nCo-authored-by: Someone <because@example.com>\n"
    )
    got = pick_reason(text, "Why was quoting the editor command reverted?", titled=True)
    assert got is not None and got.where == "body"
    assert got.text.startswith("This caused issues") and got.text.endswith("quoted as a single word.")
    assert text[got.start : got.end] == got.text


def test_the_subject_gives_the_reason_only_when_the_body_gives_none() -> None:
    text = "Run the cron jobs only on the main repository, to avoid failures from missing tokens (#9735)"
    got = pick_reason(text, "Why do scheduled workflows run only in the main repository?", titled=True)
    assert got is not None and (got.text, got.where) == ("to avoid failures from missing tokens", "title")
    assert pick_reason("Fix typo in comment", "why is the comment like this?", titled=True) is None


def test_a_sentence_that_leans_on_the_one_before_brings_it() -> None:
    text = (
        "Keep the plain exit\n\nChained commands return a list of outputs that can be truthy but full of"
        " falsey values. Stick with the simple exit call so that we don't run into these behaviors.\n"
    )
    got = pick_reason(text, "why does main call exit with no argument?", titled=True)
    assert got is not None and got.text.startswith("Chained commands") and got.text.endswith("behaviors.")


def test_a_problem_the_body_reports_is_a_reason_and_a_subjects_object_is_not() -> None:
    text = (
        "Paginate the orders list\n\nListing every order timed out for the biggest shops; a cursor and a"
        " limit of 100 keep each response small.\n"
    )
    got = pick_reason(text, "why is the orders list paginated?", titled=True)
    assert got is not None and got.text.startswith("Listing every order timed out") and got.where == "body"
    subject = "Give the payment client a 5 s timeout so a slow provider cannot hold a worker"
    got = pick_reason(subject, "why src/api/payments.py", titled=True)  # "timeout" is what was given
    assert got is not None and got.text == "so a slow provider cannot hold a worker"
