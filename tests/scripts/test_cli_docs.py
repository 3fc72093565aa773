"""docs/cli.md is generated from the CLI's help and must match the commands as they are."""

from __future__ import annotations

from pathlib import Path

from support.scripts import load_script


def test_docs_cli_md_is_up_to_date() -> None:
    gen = load_script("gen_cli_docs")
    committed = gen.OUT.read_text(encoding="utf-8")
    assert committed == gen.render(), "docs/cli.md is stale: run python scripts/gen_cli_docs.py"


def test_every_command_and_option_is_documented() -> None:
    """The walk reaches every command of the tree (groups included), through the public API."""
    gen = load_script("gen_cli_docs")
    text = gen.render()
    for path, command, ctx in gen.walk(gen.root_command(), ("lore",), None):
        assert f"## `{' '.join(path)}`" in text
        for param in command.get_params(ctx):
            if param.param_type_name == "option" and param.name != "help" and not param.hidden:
                assert param.opts[0] in text, (path, param.opts)
    assert "## `lore review resolve`" in text and "## `lore model cache clear`" in text


def test_check_mode_reports_a_stale_file(tmp_path: Path, capsys) -> None:
    gen = load_script("gen_cli_docs")
    stale = tmp_path / "cli.md"
    stale.write_text("# old\n")
    assert gen.main(["--check", "--out", str(stale)]) == 1
    assert "is stale: run python scripts/gen_cli_docs.py" in capsys.readouterr().err
    assert gen.main(["--out", str(stale)]) == 0 and gen.main(["--check", "--out", str(stale)]) == 0
