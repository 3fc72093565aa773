"""API keys: the key a setup points at (a variable or a file), where a key was looked for, and
the refusal to send a key to a server a `.env` chose.

Kept in one place because every rule about where a key may come from and where it may go is a
safety rule, and they are read together.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from lore.core.errors import InvalidInput, NeedsModel
from lore.core.llm.providers import Provider
from lore.core.llm.sources import Sources


class MissingKey(NeedsModel):
    """A model is chosen but no key for it was found: says which model, and every place Lore
    looked (so `lore model show` can say what is missing instead of "none")."""

    def __init__(self, provider: str, model: str, where: str, places: list[str]):
        self.provider, self.model, self.where, self.places = provider, model, where, places
        super().__init__(
            f"{provider}:{model} (from {where}) needs an API key and none was found; Lore looked in"
            f" {'; '.join(places)}. Run `lore model setup` to store a reference to it"
        )


def read_key_file(path: Path) -> str | None:
    """The key in a key file (its first line), None when the file is missing or empty.

    A file others may read is refused, as ssh refuses such a private key: the key would be
    one `cat` away for every account on the machine."""
    try:
        info = path.stat()
    except OSError:
        return None
    if os.name == "posix" and info.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise InvalidInput(
            f"key file {path} can be read by other users (mode {stat.S_IMODE(info.st_mode):o}):"
            f" run `chmod 600 {path}` and try again"
        )
    try:
        text = path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInput(f"cannot read key file {path}: {exc.__class__.__name__}") from None
    return text.splitlines()[0].strip() if text else None


def referenced_key(sources: Sources, config_applies: bool, origin: dict[str, str]) -> str | None:
    """The key `lore model setup` points at: a variable named by `model.api_key_env`, else the
    file named by `model.api_key_file` (config.json holds the reference, never the key)."""
    if not config_applies:
        return None
    name = sources.conf("api_key_env")
    if name:
        value, src = sources.env(str(name))
        if value:
            origin["api_key"] = f"{src} (config model.api_key_env)"
            return value
    path = sources.conf("api_key_file")
    if path:
        value = read_key_file(Path(str(path)).expanduser())
        if value:
            origin["api_key"] = f"file {path} (config model.api_key_file)"
            return value
    return None


def key_places(sources: Sources, provider: Provider, config_applies: bool = True) -> list[str]:
    """Every place a key for `provider` is looked for, in order, each with what was found there."""
    places = ["env LORE_API_KEY (unset)"]
    if config_applies:
        name = sources.conf("api_key_env")
        if name:
            places.append(f"env {name} (named by config model.api_key_env; unset)")
        path = sources.conf("api_key_file")
        if path:
            shown = Path(str(path)).expanduser()
            state = "empty" if shown.exists() else "missing"
            places.append(f"file {shown} (named by config model.api_key_file; {state})")
        places.append("config model.api_key (unset)")
    places += [f"env {var} (unset)" for var in provider.key_vars]
    places.append(f".env in {sources.dotenv_path.parent} (none of these)")
    return places


def refuse_redirected_key(
    sources: Sources, base_url: str, api_key: str | None, origin: dict[str, str]
) -> None:
    """A `.env` in the working folder (a cloned repository may ship one) may point requests at
    another server only with a key of its own: it must never send the user's key to a host it chose.
    """
    from_dotenv = origin.get("base_url", "").startswith(".env ")
    if from_dotenv and api_key and not origin.get("api_key", "").startswith(".env "):
        raise InvalidInput(
            f"refusing to send the API key from {origin.get('api_key')} to {base_url}: that base URL"
            f" comes from {sources.dotenv_path} ({origin['base_url'].removeprefix('.env ')}), and a"
            " .env may only redirect a key it sets itself; if you trust that server, set the URL in"
            " your environment or config.json, or put the key in the same .env"
        )
