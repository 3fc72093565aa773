"""`lore --help` and every command's help: one line for each command and option, no `<bool>`,
the root listing in step with the commands it lists, and `--version`."""

from __future__ import annotations

from typing import Any

from typer.testing import CliRunner

from lore import __version__
from lore.cli.app import app
from lore.cli.lazy import COMMANDS, load

runner = CliRunner()


def _walk(command: Any, path: str):
    yield path, command
    for name, sub in getattr(command, "commands", {}).items():
        yield from _walk(sub, f"{path} {name}")


def _every_command():
    for name in COMMANDS:
        yield from _walk(load(name), f"lore {name}")


def test_root_help_lists_every_command_from_its_table() -> None:
    result = runner.invoke(app, ["--help"])
    assert result.exit_code == 0
    for name in (*COMMANDS, "version", "mcp"):
        assert f"  {name} " in result.stdout
    assert "--version" in result.stdout


def test_the_table_says_what_each_command_says_of_itself() -> None:
    for name, entry in COMMANDS.items():
        assert load(name).get_short_help_str(limit=300) == entry.help, name


def test_every_command_and_option_has_a_description() -> None:
    missing = []
    for path, command in _every_command():
        if not (command.help or command.short_help):
            missing.append(path)
        for param in command.params:
            if param.param_type_name == "option" and param.name != "help" and not param.help:
                missing.append(f"{path} {param.opts[0]}")
            if param.param_type_name == "argument" and not getattr(param, "help", None):
                missing.append(f"{path} {param.name.upper()}")
    assert missing == []


def test_help_shows_no_type_placeholders_for_flags() -> None:
    for path, _command in _every_command():
        args = path.split()[1:]
        result = runner.invoke(app, [*args, "--help"])
        assert result.exit_code == 0, (path, result.output)
        assert "<bool>" not in result.stdout and "install-completion" not in result.stdout, path


def test_version_both_ways() -> None:
    assert runner.invoke(app, ["--version"]).stdout.strip() == f"lore {__version__}"
    assert runner.invoke(app, ["version"]).stdout.strip() == __version__


def test_every_number_option_has_a_lower_bound() -> None:
    unbounded = [
        f"{path} {param.opts[0]}"
        for path, command in _every_command()
        for param in command.params
        if param.param_type_name == "option"
        and getattr(param, "type_descriptor", None) is not None
        and param.type_descriptor.annotation in (int, float)
        and getattr(param, "min", None) is None
    ]
    assert unbounded == []


def test_non_positive_counts_and_days_are_refused() -> None:
    for args in (
        ["history", "hotspots", "--days", "-5"],
        ["history", "hotspots", "--days", "0"],
        ["history", "churn", "-n", "0"],
        ["history", "walk", "a.py", "--depth", "0"],
        ["books", "search", "1", "x", "-k", "0"],
        ["review", "search", "x", "--limit", "-1"],
    ):
        result = runner.invoke(app, args)
        assert result.exit_code == 2, (args, result.output)
        assert "Invalid value" in result.output


def test_the_distribution_is_lore_mem_and_the_command_lore() -> None:
    """`lore` on the public index is someone else's package: Lore installs as `lore-mem`."""
    from importlib.metadata import distribution

    dist = distribution("lore-mem")
    assert dist.version == __version__
    assert any(ep.name == "lore" and ep.group == "console_scripts" for ep in dist.entry_points)
