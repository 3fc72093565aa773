"""`lore review trust / untrust / trust --reset` say the verdict and the evidence in one line."""

from __future__ import annotations

import subprocess
from pathlib import Path

from typer.testing import CliRunner

from conftest import make_repo
from lore.cli.app import app
from lore.rules.gate.trust import trust_state

runner = CliRunner()


def lore(*args: str) -> str:
    result = runner.invoke(app, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout.strip()


def test_trust_commands_on_a_fresh_clone(tmp_path: Path) -> None:
    source = make_repo(tmp_path / "upstream", {"a.py": "x"})
    clone = tmp_path / "shop"
    subprocess.run(["git", "clone", "-q", str(source), str(clone)], check=True, capture_output=True)
    lore("projects", "add", str(clone))
    assert (
        lore("review", "--name", "shop", "trust")
        == "shop: trusted (override): set by hand (lore review trust)"
    )
    assert trust_state(clone).yours
    assert lore("review", "--name", "shop", "untrust").startswith("shop: untrusted (override)")
    assert not trust_state(clone).yours
    reset = lore("review", "--name", "shop", "trust", "--reset")
    assert reset == "shop: not yours: cloned, and no commit here is yours"


def test_the_demo_repository_is_yours(lore_home: Path, monkeypatch) -> None:
    """Lore makes the demo here, committed under your global identity: so it is yours. Its
    three commits follow its `git init` within seconds, so only those the index vouches for
    count (see trust): the last, and an earlier one written in the same second as the index."""
    from lore.rules import service

    lore("demo")
    monkeypatch.setenv("LORE_HOME", str(lore_home / "demo"))  # the demo's own home
    state = trust_state(service.find_project("shop").path)
    assert state.yours
    assert state.reason in (f"{n} made in this clone by test@example.com" for n in ("1 commit", "2 commits"))
