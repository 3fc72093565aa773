import json
from pathlib import Path

import pytest

from lore.core.config import load_settings, update_settings


def test_defaults_without_a_file(lore_home: Path) -> None:
    s = load_settings()
    assert (s.approval, s.auto_register, s.auto_limit) == ("auto", True, 25)


def test_values_are_read(lore_home: Path) -> None:
    lore_home.mkdir(parents=True)
    (lore_home / "config.json").write_text(
        json.dumps(
            {
                "approval": "manual",
                "auto_register": False,
                "auto_limit": 3,
                "tokenizer": {"aliases": {"tf": "terraform"}},
            }
        )
    )
    s = load_settings()
    assert (s.approval, s.auto_register, s.auto_limit) == ("manual", False, 3)
    assert s.tokenizer.aliases == {"tf": "terraform"}


def test_unreadable_file_falls_back_with_a_warning(lore_home: Path, capsys: pytest.CaptureFixture) -> None:
    lore_home.mkdir(parents=True)
    (lore_home / "config.json").write_text("{not json")
    s = load_settings()
    assert s.approval == "auto"
    assert "unreadable" in capsys.readouterr().err


def test_bad_value_falls_back_per_setting(lore_home: Path, capsys: pytest.CaptureFixture) -> None:
    lore_home.mkdir(parents=True)
    (lore_home / "config.json").write_text(
        json.dumps({"approval": "sometimes", "auto_limit": -2, "auto_register": False, "tokenizer": 7})
    )
    s = load_settings()
    assert s.approval == "auto" and s.auto_limit == 25 and s.auto_register is False
    err = capsys.readouterr().err
    assert "approval" in err and "auto_limit" in err and "tokenizer" in err


def test_update_keeps_other_keys(lore_home: Path) -> None:
    update_settings({"approval": "manual", "model": {"name": "x"}})
    update_settings({"approval": "auto"})
    data = json.loads((lore_home / "config.json").read_text())
    assert data == {"approval": "auto", "model": {"name": "x"}}


def test_update_refuses_to_overwrite_an_unreadable_file(lore_home: Path) -> None:
    from lore.core.errors import InvalidInput

    lore_home.mkdir(parents=True)
    broken = '{"model": {"api_key": "sk-important"}, "auto_limit": 10,}'
    (lore_home / "config.json").write_text(broken)
    with pytest.raises(InvalidInput, match="unreadable"):
        update_settings({"approval": "manual"})
    assert (lore_home / "config.json").read_text() == broken
