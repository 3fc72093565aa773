"""Hostile text stored through real commands never reaches the terminal raw.

Each test stores text carrying terminal control sequences (a title change, clear screen, a
cursor move, a bidi override) through the command a user would run, then checks two things:
the human output holds no ESC, BEL or CSI byte, and `--json` gives the stored text back exactly.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from typer.testing import CliRunner

from conftest import make_repo
from lore.cli.app import app

runner = CliRunner()

TITLE = "\x1b]0;pwned\x07"  # OSC: sets the terminal's title
CLEAR = "\x1b[2J\x1b[H"  # CSI: clear screen, cursor home
C1_CSI = "\x9b31m"  # the 8-bit CSI
BIDI = "\u202e"  # right-to-left override
FORBIDDEN = ("\x1b", "\x07", "\x9b", "\x9d", "\r", BIDI)


def lore(*args: str):
    return runner.invoke(app, list(args), catch_exceptions=False)


def assert_clean(*texts: str) -> None:
    for text in texts:
        found = [repr(ch) for ch in FORBIDDEN if ch in text]
        assert not found, f"raw control characters {found} in output:\n{text!r}"


def _git(cwd: Path, *args: str, env: dict[str, str] | None = None) -> None:
    subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, env={**os.environ, **(env or {})}
    )


def test_history_commit_subject_author_and_file_name(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "proj", {"README.md": "# p\n"})
    hostile_file = f"src/evil{CLEAR}name.py"
    (repo / "src").mkdir()
    (repo / hostile_file).write_text("print(1)\n", encoding="utf-8")
    _git(repo, "add", "-A")
    author = f"Mallory{TITLE}{BIDI}"
    _git(
        repo,
        "commit",
        "-q",
        "-m",
        f"Fix {TITLE}the bug{CLEAR}{C1_CSI}",
        env={"GIT_AUTHOR_NAME": author, "GIT_COMMITTER_NAME": author},
    )
    ingested = lore("history", "ingest", str(repo), "--quiet")
    assert ingested.exit_code == 0, ingested.output

    stored = json.loads(lore("history", "file", hostile_file, "--json").stdout)
    commit = next(e for e in stored["entries"] if e["kind"] == "commit")
    assert commit["label"] == f"Fix {TITLE}the bug{CLEAR}{C1_CSI}"  # the store is faithful
    assert commit["author"] == author
    assert stored["paths"][0]["path"] == hostile_file

    for args in (
        ("history", "file", hostile_file),
        ("history", "churn"),
        ("history", "hotspots"),
        ("history", "walk", hostile_file, "--depth", "2"),
    ):
        shown = lore(*args)
        assert shown.exit_code == 0, shown.output
        assert_clean(shown.stdout, shown.stderr)
    table = lore("history", "file", hostile_file).stdout
    assert "Fix " in table and "pwned" not in table  # the whole title sequence goes, not just ESC
    missing = lore("history", "file", f"nothing{TITLE}here.py")
    assert missing.exit_code == 3
    assert_clean(missing.stderr)


def test_book_title_from_the_file(tmp_path: Path) -> None:
    book = tmp_path / "heist.txt"
    chapters = "\n\n".join(
        f"Chapter {n}\n\nThe crew met again in chapter {n}, and the plan went on as before." for n in (1, 2)
    )
    book.write_text(f"Title: The {TITLE}Heist{CLEAR}\nAuthor: Eve{BIDI}\n\n{chapters}\n", encoding="utf-8")
    added = lore("books", "add", str(book), "--json")
    assert added.exit_code == 0, added.output
    assert json.loads(added.stdout)["title"] == f"The {TITLE}Heist{CLEAR}"
    for args in (("books", "list"), ("books", "show", "1"), ("books", "progress")):
        shown = lore(*args)
        assert shown.exit_code == 0, shown.output
        assert_clean(shown.stdout, shown.stderr)
    listed = lore("books", "list").stdout
    assert "The Heist" in listed and "pwned" not in listed


def test_project_folder_and_rule_file_names(tmp_path: Path) -> None:
    folder = tmp_path / f"shop{TITLE}"
    rule_file = f".cursor/rules/style{CLEAR}.mdc"
    repo = make_repo(
        folder,
        {"src/api/a.py": "x\n", rule_file: "---\nalwaysApply: true\n---\nUse tabs in Makefiles.\n"},
    )
    added = lore("projects", "add", str(repo))
    assert added.exit_code == 0, added.output
    assert_clean(added.stdout, added.stderr)
    name = json.loads(lore("projects", "--json").stdout)[0]["name"]
    assert "\x1b" in name  # stored as the folder is named

    memorized = lore("memorize", str(repo))
    assert memorized.exit_code == 0, memorized.output
    assert_clean(memorized.stdout, memorized.stderr)
    assert "pwned" not in memorized.stdout  # the project's name lost its title sequence
    files = json.loads(lore("memorize", str(repo), "--json").stdout)["files"]
    assert any(f["path"] == rule_file for f in files)

    for args in (("projects",), ("review", "--name", name, "list", "--pending", "--details")):
        shown = lore(*args)
        assert shown.exit_code == 0, shown.output
        assert_clean(shown.stdout, shown.stderr)


def test_rule_text_with_controls_is_refused_in_one_clean_line(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "shop", {"src/api/a.py": "x\n"})
    lore("projects", "add", str(repo))
    refused = lore("review", "--name", "shop", "add", f"Always {TITLE}validate{CLEAR} input")
    assert refused.exit_code == 2
    assert_clean(refused.stdout, refused.stderr)
    assert refused.stderr.count("\n") == 1 and "hidden character" in refused.stderr
    assert json.loads(lore("review", "--name", "shop", "list", "--json").stdout) == []


def test_a_colour_terminal_keeps_lore_styles_and_loses_the_hostile_ones() -> None:
    """On a real terminal the console's own colours stay; the stored text's sequences go."""
    import io

    from rich.table import Table
    from rich.text import Text

    from lore.cli.common import SafeConsole

    out = io.StringIO()
    console = SafeConsole(file=out, force_terminal=True, color_system="standard", width=100)
    table = Table("what", title=Text(f"From {TITLE}repo"))
    table.add_row(Text.assemble(("abc1234", "cyan"), f" Fix {CLEAR}it{C1_CSI} — Eve{BIDI}"))
    console.print(table)
    console.print(f"[bold]{BIDI}plain[/bold] text{TITLE}", highlight=False)
    text = out.getvalue()
    assert "\x1b[36m" in text  # cyan: Lore's own style
    for hostile in ("\x1b]", "\x07", "\x1b[2J", "\x1b[H", "\x9b", BIDI, "pwned"):
        assert hostile not in text, repr(hostile)
    assert "Fix it" in text and "plain" in text
