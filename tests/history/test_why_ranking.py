"""How `why` ranks without a model: a file's making before its typo fixes, each repository's
own word statistics, a project's own name weighing little, behaviour-free commits weighed down."""

from __future__ import annotations

from pathlib import Path

import pytest

from lore.history.ingest.git import ingest_git
from lore.history.repos import resolve_repo
from lore.history.why import asks, chores
from lore.history.why.service import gather, units
from support.history_repo import HistoryRepo, lines, merge

pytestmark = pytest.mark.usefixtures("backend")  # each test on SQLite and on PostgreSQL


def _parser_repo(root: Path) -> tuple[HistoryRepo, dict[str, str]]:
    """`src/parser.py` made by two real changes, then polished by a typo fix and a reformat
    that name the path, the newest of all."""
    r = HistoryRepo(root)
    shas = {
        "create": r.commit("Add the tokenizer", {"src/parser.py": lines(40, "tok"), "README.md": "# p\n"}),
        "stream": r.commit(
            "Stream tokens instead of reading the whole file\n\nLarge inputs ran out of memory.",
            {"src/parser.py": lines(40, "tok") + lines(90, "stream")},
        ),
        "other": r.commit("Add the command line", {"src/cli.py": lines(30, "cli")}),
    }
    text = lines(40, "tok") + lines(90, "stream")
    shas["typo"] = r.commit(
        "Fix typo in src/parser.py docstring", {"src/parser.py": text.replace("tok line 3", "tok line 3.")}
    )
    shas["format"] = r.commit(
        "Reformat src/parser.py with black", {"src/parser.py": text.replace("tok line 3", "tok  line 3.")}
    )
    return r, shas


def test_why_file_leads_with_the_changes_that_made_it_not_the_later_typo_fix(tmp_path: Path) -> None:
    r, shas = _parser_repo(tmp_path / "parser")
    ingest_git(r.root)
    report = gather(resolve_repo(str(r.root)), "src/parser.py")
    assert report.mode == "path"
    ranks = units(report.evidence)
    made = {f"commit:{shas['create']}", f"commit:{shas['stream']}"}
    assert set(ranks[:2]) == made  # the commit that created the file and its largest change
    for polish in ("typo", "format"):
        assert ranks.index(f"commit:{shas[polish]}") > 1


def test_a_second_repository_ingested_changes_nothing_of_the_firsts_ranking(tmp_path: Path) -> None:
    r, _shas = _parser_repo(tmp_path / "parser")
    ingest_git(r.root)
    repo = resolve_repo(str(r.root))
    question = "Why does the parser stream tokens instead of reading the whole file?"
    before = [(e.key, e.score) for e in gather(repo, question).evidence]
    other = HistoryRepo(tmp_path / "other")  # the same words, everywhere, in another project
    for i in range(12):
        other.commit(f"Stream tokens from file {i} of the parser", {f"src/p{i}.py": lines(3 + i, "x")})
    ingest_git(other.root)
    after = [(e.key, e.score) for e in gather(repo, question).evidence]
    assert before and after == before


def test_a_question_naming_the_project_still_finds_its_answer(tmp_path: Path) -> None:
    """The project's own name is in nearly every commit: it weighs little, and the commit that
    says why the worker uses AnyIO comes first, not those that repeat the name."""
    r = HistoryRepo(tmp_path / "widgetly")
    for i in range(15):
        r.commit(f"Widgetly: Widgetly docs page {i} for Widgetly users", {f"docs/p{i}.md": lines(4, f"d{i}")})
    answer = r.commit(
        "Run the worker on AnyIO\n\nSo the same worker code runs on asyncio and on trio.",
        {"widgetly/worker.py": lines(30, "w")},
    )
    r.commit("Widgetly: Widgetly release notes for Widgetly 2", {"CHANGES.md": lines(5, "c")})
    ingest_git(r.root)
    report = gather(resolve_repo(str(r.root)), "Why does Widgetly use AnyIO in the Widgetly worker?")
    assert units(report.evidence)[0] == f"commit:{answer}"


@pytest.mark.parametrize(
    ("subject", "kind"),
    [
        ("Fix typo in the README", "typo"),
        ("🔖 Release version 0.100.0", "release"),
        ("Release 8.1.0", "release"),
        ("Reformat the code with black", "format"),
        ("🌐 Add Portuguese translation for docs/index.md", "translation"),
        ("Merge pull request #12 from someone/branch", "merge"),
        ("Add a format option to the exporter", None),
        ("Fix the release of file handles on error", None),
        ("Pin AnyIO to version 3", None),
        ("add typing annotations", "typing"),
        ("Static typing improvements in `click.shell_completion`", "typing"),
        ("Fix ruff E501 line-too-long in PowerShell template", "format"),
        ("Add support for Python 3.12", None),
    ],
)
def test_behaviour_free_work_is_told_by_its_subject(subject: str, kind: str | None) -> None:
    assert chores.kind(subject) == kind
    asked_about_it = chores.weight(subject, chores.asked(f"why this {kind}")) if kind else 1.0
    assert asked_about_it == 1.0  # a question about that kind of work spares it


def test_the_commits_of_one_pr_do_not_lift_each_other_above_a_better_answer(tmp_path: Path) -> None:
    """A PR of several commits that share one word with the question is not the answer: its
    commits (and its merge commit) do not pass their scores to each other, so the one commit
    that says what the question asks comes first."""
    r = HistoryRepo(tmp_path / "svc")
    r.commit("Add the service", {"svc/app.py": lines(20, "app")})
    answer = r.commit(
        "Keep the cache warm between runs\n\nA cold cache made the first request slow.",
        {"svc/warm.py": lines(12, "warm")},
    )
    r.git("checkout", "-q", "-b", "cache-rework")
    for i, what in enumerate(("Split the cache module", "Name the cache keys", "Test the cache")):
        r.commit(what, {f"svc/cache{i}.py": lines(8 + i, f"c{i}")})
    r.git("checkout", "-q", "main")
    merge(r, "cache-rework", "Merge pull request #7 from bob/cache-rework\n\nRework the cache")
    for i in range(6):
        r.commit(f"Document endpoint {i}", {f"docs/e{i}.md": lines(3, f"e{i}")})
    ingest_git(r.root)
    report = gather(resolve_repo(str(r.root)), "Why is the cache kept warm between runs?")
    assert units(report.evidence)[0] == f"commit:{answer}"


def test_why_file_ranks_a_change_about_the_file_above_a_sweep_across_the_project(tmp_path: Path) -> None:
    """A sweep that rewrote every file writes many lines in the named one, but they are a small
    share of its change; the commit that changed this file alone ranks above it."""
    r = HistoryRepo(tmp_path / "up")
    created = r.commit("Add the uploader", {"src/upload.py": lines(20, "up")})
    for i in range(10):
        r.commit(f"Add handler {i}", {f"src/h{i}.py": lines(40, f"h{i}")})
    real = r.commit(
        "Retry failed requests\n\nA flaky network lost one request in fifty.",
        {"src/upload.py": lines(20, "up") + lines(30, "retry")},
    )
    sweep = r.commit(
        "Port the code to the new logging API",
        {
            "src/upload.py": lines(20, "up") + lines(30, "retry") + lines(40, "log"),
            **{f"src/h{i}.py": lines(40, f"h{i}") + lines(40, f"log{i}") for i in range(10)},
        },
    )
    ingest_git(r.root)
    ranks = units(gather(resolve_repo(str(r.root)), "src/upload.py").evidence)
    assert ranks[0] == f"commit:{created}"
    assert ranks.index(f"commit:{real}") < ranks.index(f"commit:{sweep}")


def test_the_commit_whose_subject_says_it_ranks_above_a_body_that_repeats_the_words(tmp_path: Path) -> None:
    """A question's words in a commit's subject weigh more than the same words in another
    commit's body: the subject names what the change is about."""
    r = HistoryRepo(tmp_path / "client")
    for i in range(8):
        r.commit(f"Add endpoint {i}", {f"api/e{i}.py": lines(5, f"e{i}")})
    answer = r.commit(
        "Retry failed uploads\n\nA flaky network lost one in fifty.", {"api/up.py": lines(9, "up")}
    )
    wordy = r.commit(
        "Rework the client\n\nThe client now retries failed uploads and failed downloads from one"
        " place, so the client code for uploads and retries is shared by the client and the CLI.",
        {"api/client.py": lines(30, "client")},
    )
    ingest_git(r.root)
    ranks = units(gather(resolve_repo(str(r.root)), "Why does the client retry failed uploads?").evidence)
    assert ranks.index(f"commit:{answer}") < ranks.index(f"commit:{wordy}")


def test_a_question_about_something_gone_finds_the_change_that_removed_it(tmp_path: Path) -> None:
    """ "Why doesn't it ... any more?" asks for the removal; the commits that added and fixed the
    thing share the question's words but are not why it is gone."""
    r = HistoryRepo(tmp_path / "tui")
    for i in range(8):
        r.commit(f"Add screen {i}", {f"tui/s{i}.py": lines(5, f"s{i}")})
    r.commit("Use colorama for colors on Windows", {"tui/color.py": lines(10, "colorama")})
    r.commit("Fix colorama colors in the Windows console", {"tui/color.py": lines(12, "colorama")})
    removal = r.commit(
        "Remove colorama\n\nEvery supported Windows enables ANSI colors by itself.",
        {"tui/color.py": lines(4, "ansi")},
    )
    ingest_git(r.root)
    report = gather(
        resolve_repo(str(r.root)), "Why doesn't the tool use colorama for colors on Windows anymore?"
    )
    assert units(report.evidence)[0] == f"commit:{removal}"


@pytest.mark.parametrize(
    ("question", "gone"),
    [
        ("Why doesn't click depend on colorama anymore?", True),
        ("Why did the project drop its App Engine check?", True),
        ("Why was the shlex change reverted?", True),
        ("Why does the parser stream tokens?", False),
        ("Why is the progress bar updated after each item?", False),
    ],
)
def test_a_question_about_a_removal_is_told_by_its_words(question: str, gone: bool) -> None:
    assert asks.asks_gone(question) is gone
    assert asks.weight("Remove colorama", gone) == (asks.GONE if gone else 1.0)
    assert asks.weight("Add colorama", gone) == 1.0


def test_a_question_about_what_a_user_typed_does_not_spare_typing_chores() -> None:
    assert "typing" not in chores.asked("Why does completion split the partially typed command line?")
    assert "typing" in chores.asked("Why does the package ship typing annotations?")
