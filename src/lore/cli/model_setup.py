"""`lore model setup`: ask (or read from flags) the provider, model, base URL and key; save a
reference to the key, never the key; make one test call; say what typical use costs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from rich.markup import escape

from lore.cli.common import console, handle_errors, print_json
from lore.core.errors import InvalidInput
from lore.core.llm import setup as model_setup
from lore.core.llm.keys import read_key_file
from lore.core.llm.setup import CHOICES, Choice, KeyRef

app = typer.Typer()

HELP = """Choose a language model: provider, model, base URL and where its key is.

config.json keeps only a reference to the key: the name of the environment variable that
holds it (--key-env), or a key file only you can read (--key-file, mode 0600). A key typed at
the prompt is hidden as you type and saved to $LORE_HOME/keys/<provider>.key with mode 0600.
Then one tiny test call is made, and what a typical `history why`, `books ask` and `extract`
sends is printed (with dollars when model.prices in config.json knows the model).

Without --provider (or --json) it asks for what the flags do not say; with them it asks
nothing and uses each provider's default model and key variable.

\b
Examples:
  lore model setup
  lore model setup --provider openai --model gpt-4o-mini --key-env OPENAI_API_KEY
  lore model setup --provider compatible --base-url http://127.0.0.1:8080/v1 --model qwen2.5
"""


def _pick_provider(given: str | None, ask: bool) -> str:
    if given:
        return model_setup.provider_name(given)
    if not ask:
        raise InvalidInput(f"choose a provider with --provider ({', '.join(CHOICES)})")
    names = list(CHOICES)
    for n, name in enumerate(names, 1):
        console.print(f"  {n}. {name:<11} {CHOICES[name]}", highlight=False)
    answer = typer.prompt("Provider (number or name)", default="1")
    if answer.strip().isdigit() and 1 <= int(answer) <= len(names):
        return names[int(answer) - 1]
    return model_setup.provider_name(answer)


def _pick_model(provider: str, given: str | None, ask: bool) -> str:
    default = model_setup.default_model(provider)
    if given:
        return given.strip()
    if ask:
        return str(typer.prompt("Model", default=default) if default else typer.prompt("Model")).strip()
    if default is None:
        raise InvalidInput(f"{provider} has no default model: pass --model NAME")
    return default


def _pick_base_url(provider: str, given: str | None, ask: bool) -> str | None:
    if given is None and ask and (provider in ("ollama", "compatible")):
        default = model_setup.PROVIDERS[provider].base_url
        given = typer.prompt("Base URL", default=default) if default else typer.prompt("Base URL")
    return model_setup.check_base_url(provider, given)


def _key_ref(provider: str, key_env: str | None, key_file: Path | None, ask: bool) -> KeyRef:
    if key_env and key_file:
        raise InvalidInput("give the key one way: --key-env or --key-file, not both")
    if key_env:
        return KeyRef("env", key_env.strip().lstrip("$"))
    if key_file:
        path = key_file.expanduser().resolve()
        if not path.is_file():
            raise InvalidInput(f"key file {path} does not exist")
        if read_key_file(path) is None:  # refuses a file others can read
            raise InvalidInput(f"key file {path} is empty")
        return KeyRef("file", str(path))
    required = model_setup.needs_key(provider)
    found = model_setup.key_in_environment(provider)
    if found and (
        not ask or typer.confirm(f"Use the key in ${found} (only its name is saved)?", default=True)
    ):
        return KeyRef("env", found)
    if not ask:
        if not required:
            return KeyRef("none")
        wanted = " or ".join(model_setup.key_vars(provider))
        raise InvalidInput(
            f"no key for {provider}: {wanted} is not set here; pass --key-env VAR or --key-file PATH,"
            " or run `lore model setup` in a terminal to type it"
        )
    where = model_setup.key_file_path(provider)
    prompt = f"API key (hidden as you type; saved to {where}, readable by you only)"
    if not required:
        prompt = "API key, if the server wants one (hidden; Enter for none)"
    key = typer.prompt(prompt, hide_input=True, default="" if not required else None, show_default=False)
    if not key.strip():
        if required:
            raise InvalidInput("no key given; nothing was saved")
        return KeyRef("none")
    return KeyRef("file", str(model_setup.store_key(provider, key)))


@app.command("setup", help=HELP)
@handle_errors
def setup(
    provider: str = typer.Option(
        None, "--provider", help=f"One of {', '.join(CHOICES)} (or openrouter, vllm, lmstudio)."
    ),
    model: str = typer.Option(
        None, "--model", help="The model's name at that provider (default: the provider's small model)."
    ),
    key_env: str = typer.Option(
        None, "--key-env", help="The environment variable that holds the key (only its name is saved)."
    ),
    key_file: Path = typer.Option(
        None, "--key-file", help="A file holding the key, readable by you only (mode 0600)."
    ),
    base_url: str = typer.Option(None, "--base-url", help="The server's API root (needed for `compatible`)."),
    no_test: bool = typer.Option(False, "--no-test", help="Save without making the test call."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON; asks nothing."),
) -> None:
    ask = provider is None and not as_json
    name = _pick_provider(provider, ask)
    url = _pick_base_url(name, base_url, ask)
    chosen_model = _pick_model(name, model, ask)
    key = _key_ref(name, key_env, key_file, ask)
    choice = Choice(name, chosen_model, url, key)
    if key.kind == "env" and not no_test and model_setup.resolve_key(choice) is None:
        raise InvalidInput(
            f"${key.name} is not set here: export it first, or pass --no-test to save the reference anyway"
        )
    saved = model_setup.save(choice)
    result: dict[str, Any] = {
        "provider": choice.provider,
        "model": choice.model,
        "base_url": model_setup.base_url_of(choice)[0],
        "base_url_from": model_setup.base_url_of(choice)[1],
        "key": {"kind": key.kind, "name": key.name},
        **saved,
        "overridden_by": model_setup.overridden_by(),
        "test": None if no_test else model_setup.test_call(choice),
        "typical": model_setup.typical_costs(choice),
    }
    if as_json:
        print_json(result)
    else:
        _report(choice, result)
    if result["test"] is not None and not result["test"]["ok"]:
        raise typer.Exit(1)


def _report(choice: Choice, result: dict[str, Any]) -> None:
    out = console.print
    out(f"saved {choice.label} to {escape(result['config'])}", highlight=False, soft_wrap=True)
    out(f"  base URL  {result['base_url']} ({result['base_url_from']})", highlight=False, soft_wrap=True)
    out(f"  key       {escape(choice.key.describe())}", highlight=False, soft_wrap=True)
    if result["removed_plain_key"]:
        out(
            "  removed the key written into config.json by hand: only the reference above is kept",
            highlight=False,
            soft_wrap=True,
        )
    for var in result["overridden_by"]:
        out(
            f"[yellow]note:[/yellow] ${var} is set here and wins over config.json; unset it to use this setup"
        )
    test = result["test"]
    if test is None:
        out(
            "test call skipped (--no-test); run `lore model test` when ready", highlight=False, soft_wrap=True
        )
    elif test["ok"]:
        out(
            f"[green]test call ok[/green]: {escape(str(test['reply_model']))} answered in {test['latency_ms']:.0f} ms",
            highlight=False,
            soft_wrap=True,
        )
    else:
        out(f"[red]test call failed[/red]: {escape(test['error'])}", highlight=False, soft_wrap=True)
        out(
            "the settings are saved; fix what the line says, then run `lore model test`",
            highlight=False,
            soft_wrap=True,
        )
    priced = any(row["cost"] is not None for row in result["typical"])
    out("typical use" + ("" if priced else " (add model.prices to config.json for dollars)") + ":")
    for row in result["typical"]:
        cost = f", about ${row['cost']:.4f}" if row["cost"] is not None else ""
        out(
            f"  {row['command']:<21} per {row['per']}: {row['calls']} call{'' if row['calls'] == 1 else 's'}, about"
            f" {row['prompt_tokens']:,} prompt + {row['completion_tokens']:,} completion tokens{cost}",
            highlight=False,
            soft_wrap=True,
        )
