"""What a rule says once a shell or a decoder has read it: the readings the wording checks judge
next to the text as written.

An agent told to run `c""url` runs `curl`; told to decode a blob, it decodes it. So the gate
reads a rule the way the agent will, once: a shell's reading (quotes and escapes inside a word
removed, `name=value` variables and `$(printf ...)` / `$(echo ...)` substituted, a glob that
reaches a sensitive dot file of the home folder expanded to it), spelled-out punctuation put back
("evil dot io slash x"), and every payload a decoder would recover (base64, also cut into
labelled parts joined elsewhere in the rule; base32; hex; URL-encoding; ROT13 and reversed text
when the rule names them). Each reading is an extra text, never a replacement: the plain text is
still judged, so undoing a disguise cannot hide the original.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import contextlib
import re
from fnmatch import fnmatchcase
from functools import lru_cache
from urllib.parse import unquote

from lore.rules.gate.artefacts import artefact_readings
from lore.rules.gate.ciphers import as_text, cipher_payloads, in_place
from lore.rules.gate.confusables import unmask
from lore.rules.gate.patterns_data import _TLDS

# The dot files and system files a glob could be reaching for: what the key-file and
# dangerous-command families name. A glob is expanded to the first of them it matches, as a
# shell in a home folder holding them would.
SENSITIVE_PATHS = (
    "~/.ssh",
    "~/.ssh/id_rsa",
    "~/.ssh/id_ed25519",
    "~/.aws/credentials",
    "~/.gnupg",
    "~/.netrc",
    "~/.kube/config",
    "~/.docker/config.json",
    "~/.npmrc",
    "~/.pypirc",
    "~/.git-credentials",
    "~/.bash_history",
    "~/.config/gcloud",
    "/etc/shadow",
    "/etc/passwd",
)


# -- a shell's reading ---------------------------------------------------------------------------
_ESCAPE_IN_WORD = re.compile(r"(?:(?<=[A-Za-z0-9_.~/-])|(?<![^\s\"'`(|;&]))\\(?=[A-Za-z0-9_.~/-])")
_EMPTY_QUOTES = re.compile(r"(?<=\S)(?:\"\"|'')|(?:\"\"|'')(?=\S)")
_GLUED_QUOTES = re.compile(r"(?<=[\w./~$-])([\"'])([^\s\"']{1,40})\1|([\"'])([^\s\"']{1,40})\3(?=[\w./~-])")
_ASSIGN = re.compile(r"(?<![\w$])([A-Za-z_]\w{0,30})=([\"']?)([^\s\"';&|]{1,200})\2(?=[\s;&|]|$)")
_PRINTF = re.compile(
    r"\$\(\s*printf\s+([\"'])(.*?)\1((?:\s+[\"']?[^\s\"')]*[\"']?)*)\s*\)|`\s*printf\s+([\"'])(.*?)\4\s*`"
)
# quoted pieces joined by `+` ('sys'+'tem'), as a program joins them
_QUOTED_CONCAT = re.compile(r"(?:([\"'])[^\"'\n]{0,40}\1\s*\+\s*)+([\"'])[^\"'\n]{0,40}\2")
_ECHO_SUB = re.compile(r"\$\(\s*echo\s+(?:-[ne]+\s+)?([\"']?)([^\"'()`]*?)\1\s*\)")
_GLOB_PATH = re.compile(r"(?:~|/etc)/[\w.\-/]*[*?\[][\w.\-/*?\[\]!]*")
_HOME_WORDS = re.compile(r"\$\{home[:?=+\-][^}]*\}|\$\{?home\}?|\$\(home\)|~", re.I)
# a variable spliced inside a command word that the rule never sets: a shell expands it to nothing
_UNSET_SPLICE = re.compile(
    r"(?<=[A-Za-z])\$\{[A-Za-z_]\w*\}(?=[A-Za-z])|(?<=[A-Za-z])\$[A-Za-z_]\w*(?=['\"])"
)
# what a program calls the home folder (Python, Node, make) and its recursive delete, in the shell's words
_CODE_HOME = re.compile(
    r"os\.path\.expanduser\(\s*['\"]~/?['\"]\s*\)|(?:pathlib\.)?Path\.home\(\)|os\.environ\[\s*['\"]HOME['\"]\s*\]"
    r"|os\.(?:getenv|environ\.get)\(\s*['\"]HOME['\"]\s*\)|os\.homedir\(\)|\$\(HOME\)",
    re.I,
)
_CODE_RMTREE = re.compile(
    r"\b(?:shutil\.rmtree|rmtree|fs\.rm(?:Sync)?|fs\.rmdirSync|fs\.promises\.rm|FileUtils\.rm_rf|fileutils\.rm_rf)\(\s*([^,()]+(?:\([^()]*\))?)",
    re.I,
)


def _printf(fmt: str, args: str) -> str:
    """What `printf FORMAT ARGS` prints: escapes (`\\x63`, `\\143`) and `%s`/`%b` filled in."""
    words = [a.strip("\"'") for a in args.split()]
    out = re.sub(r"%[sb]", lambda _: words.pop(0) if words else "", fmt)
    return _escapes(out) + "".join(words)


def _escapes(text: str) -> str:
    text = re.sub(r"\\x([0-9a-fA-F]{2})", lambda m: chr(int(m.group(1), 16)), text)
    return re.sub(r"\\0?([0-7]{3})", lambda m: chr(int(m.group(1), 8)), text)


def _expand_glob(match: re.Match[str]) -> str:
    """The first sensitive path the glob matches; as a shell does, a wildcard at the start of a
    name does not match a leading dot (`~/*` is not `~/.ssh`, `~/.*` is)."""
    pattern = _HOME_WORDS.sub("~", match.group(0))
    for path in SENSITIVE_PATHS:
        for depth in range(path.count("/") + 1, 0, -1):
            prefix = "/".join(path.split("/")[:depth])
            hidden_by_dot = any(
                name.startswith(".") and not glob.startswith(".")
                for name, glob in zip(prefix.split("/"), pattern.rstrip("/").split("/"), strict=False)
            )
            if not hidden_by_dot and fnmatchcase(prefix, pattern.rstrip("/")):
                return prefix
    return match.group(0)


# long options git and most tools accept cut short (`--no-verif`), read as the whole option
WHOLE_OPTIONS = ("no-verify", "force", "mirror", "no-gpg-sign", "insecure", "allow-unrelated-histories")
_OPTION_PREFIX = re.compile(r"(?<![\w-])--([a-z][a-z-]{3,})(?![\w-])")


def _whole_option(match: re.Match[str]) -> str:
    cut = match.group(1)
    whole = [o for o in WHOLE_OPTIONS if o.startswith(cut) and o != cut]
    return f"--{whole[0]}" if len(whole) == 1 else match.group(0)


def _case_modified(value: str, operator: str | None) -> str:
    """A variable's value under bash's case operators: `${v,,}` lower, `${v^^}` upper, `${v,}`
    and `${v^}` the first letter only."""
    if operator == ",,":
        return value.lower()
    if operator == "^^":
        return value.upper()
    if operator == ",":
        return value[:1].lower() + value[1:]
    if operator == "^":
        return value[:1].upper() + value[1:]
    return value


def shell_reading(text: str) -> str:
    """The text as a shell would read its words: `r\\m` -> `rm`, `c""url` and `'cu'rl` -> `curl`,
    `$a$b` after `a=cu b=rl` -> `curl`, `$(printf '\\x72\\x6d')` -> `rm`, `~/.s?h` -> `~/.ssh`."""
    out = _PRINTF.sub(lambda m: _printf(m.group(2) or m.group(5) or "", m.group(3) or ""), text)
    out = _CODE_RMTREE.sub(lambda m: f"rm -rf {m.group(1).strip()} ", _CODE_HOME.sub("~", out))
    out = _QUOTED_CONCAT.sub(lambda m: re.sub(r"[\"']\s*\+\s*[\"']|^[\"']|[\"']$", "", m.group(0)), out)
    out = _ESCAPE_IN_WORD.sub("", out)
    out = _EMPTY_QUOTES.sub("", out)
    out = _ECHO_SUB.sub(lambda m: m.group(2), out)
    for _ in range(2):
        out = _GLUED_QUOTES.sub(lambda m: m.group(2) or m.group(4) or "", out)
    variables = {m.group(1): m.group(3) for m in _ASSIGN.finditer(out) if m.group(1).lower() != "home"}
    out = _UNSET_SPLICE.sub(lambda m: "" if m.group(0).strip("${}") not in variables else m.group(0), out)
    if variables:
        names = "|".join(sorted(map(re.escape, variables), key=len, reverse=True))
        out = re.sub(
            r"\$\{(" + names + r")(,,|\^\^|,|\^)?\}|\$(" + names + r")\b",
            lambda m: _case_modified(variables[m.group(1) or m.group(3)], m.group(2)),
            out,
        )
        out = _EMPTY_QUOTES.sub("", out)
    out = _OPTION_PREFIX.sub(_whole_option, out)
    if re.search(r"[*?\[]", out):
        out = _GLOB_PATH.sub(_expand_glob, _HOME_WORDS.sub("~", out))
    return out


# -- spelled-out punctuation ---------------------------------------------------------------------
_SPELLED = (
    (re.compile(r"\s*\b(?:colon\s+slash\s+slash|colon\s*//)\s*", re.I), "://"),
    (re.compile(r"\s+(?:slash|forward slash)\s+(?=[\w~.])", re.I), "/"),
    (re.compile(r"(?<=\w)\s+(?:dot|period|point)\s+(?=[a-z0-9])", re.I), "."),
    (re.compile(r"(?:(?<=\s)|(?<=/)|^)(?:dot|period)\s+(?=[a-z])", re.I), "."),
    (re.compile(r"\b(?:tilde)\s*(?=/|\s+slash|\.)", re.I), "~"),
    (re.compile(r"(?<=\w)\s+colon\s+(?=\d)", re.I), ":"),
)


# a host told in parts: "host buildcache, domain quarryops, top level net, path /env.sh", "the host
# is hook, then ledgerline, then app, with path /store"
_HOST_PARTS = re.compile(
    r"\bhost (?:is |name )?([a-z0-9][\w-]*)((?:,? (?:then|domain|subdomain|and then|followed by) (?:is )?[a-z0-9][\w-]*)+),?"
    r" (?:then|top[- ]level(?: domain)?(?: is)?|tld(?: is)?) ("
    + _TLDS
    + r")\b(?:,? (?:with |and )?(?:the )?path (?:is )?(/\S*))?",
    re.I,
)
_PATH_AFTER = re.compile(r"(?<=[a-z0-9])\)?,? (?:with |and )?(?:the )?path (?:is )?(/[\w./-]+)", re.I)
_HOST = re.compile(r"(?<![\w./:-])(?:[a-z0-9][a-z0-9-]*\.)+" + _TLDS + r"\b(?![\w/:-])(?!\.[\w/-])", re.I)


# a host told as its name and, apart, its top-level domain: "codedrop (the .io one), path /new"
_NAME_AND_TLD = re.compile(
    r"\b([a-z0-9][\w-]*)\s*[,(]\s*(?:the |on |at |under |its |in )?\.("
    + _TLDS
    + r")\b(\s+(?:one|domain|version|site|address|host|tld)\b)?\)?(?:,? (?:with |and )?(?:the )?path (?:is )?(/[\w./-]*))?",
    re.I,
)


def _host_from_name(match: re.Match[str]) -> str:
    if not (match.group(3) or match.group(4)):
        return match.group(0)  # "docs (.md files)": a name and an extension, not a host said in parts
    return "//" + match.group(1) + "." + match.group(2) + (match.group(4) or "")


def _host_from_parts(match: re.Match[str]) -> str:
    middle = re.findall(
        r"(?:then|domain|subdomain|followed by) (?:is )?([a-z0-9][\w-]*)", match.group(2), re.I
    )
    return "//" + ".".join([match.group(1), *middle, match.group(3)]) + (match.group(4) or "")


# the connectives around a spelled mark: "stash, then a dot, then devrelay" is "stash dot devrelay"
_SPELLED_CONNECTIVE = re.compile(
    r",?\s+(?:and\s+)?(?:then|followed by|plus)\s+(?:a|an|the|one)?\s*(dot|period|slash|colon|hyphen|dash)\b,?"
    r"(?:\s+(?:then|followed by|and then)\b)?",
    re.I,
)
# words told to be written together: "the word keyvault joined to the word backup"
_JOINED_WORDS = re.compile(
    r"\bthe\s+words?\s+([a-z0-9-]+),?\s+(?:joined|glued|attached|appended|stuck|run together|written together)"
    r"\s+(?:directly\s+)?(?:to|onto|with)\s+(?:the\s+word\s+)?([a-z0-9-]+)\b",
    re.I,
)
# a top-level domain named as one: "under the net top-level domain", "on the .io TLD"
_TLD_NAMED = re.compile(
    r",?\s+(?:under|on|in|at|with)\s+(?:the\s+)?\.?(" + _TLDS + r")\s+(?:top[- ]level(?:\s+domain)?|tld)\b",
    re.I,
)


def _connectives_off(text: str) -> str:
    """A spelled host's connectives and joins put back into the plain spelling the marks below
    read: ", then a dot, then" -> " dot ", "the word a joined to the word b" -> "ab", "under the
    net top-level domain" -> " dot net"."""
    out = _SPELLED_CONNECTIVE.sub(lambda m: f" {m.group(1)} ", text)
    out = _JOINED_WORDS.sub(lambda m: m.group(1) + m.group(2), out)
    return _TLD_NAMED.sub(lambda m: f" dot {m.group(1)}", out)


def spelled_out(text: str) -> str:
    """Punctuation spelled in words put back: "evil dot io slash x" -> "evil.io/x", "tilde slash
    dot ssh" -> "~/.ssh", "h t t p s colon slash slash" (once joined) -> "https://", a host told
    in parts joined (also as a name and its top-level domain said apart, "codedrop, the .io one").
    A host written with the word "dot" is written to be typed as a host, so the
    reading gives it as an address (`//host`), path or not."""
    text = _connectives_off(text)
    out = re.sub(r"(?<=\w) \((?=dot )", " ", text, flags=re.I)
    for pattern, mark in _SPELLED:
        out = pattern.sub(mark, out)
    if out != text:
        out = re.sub(r"(?<=[~/.])\s+(?=[\w.])|(?<=\w)\s+(?=/)", "", out)
        out = _PATH_AFTER.sub(r"\1", out)
        dotted = re.sub(r"(?<=\w)\s+\(?dot\s+(?=[a-z0-9])", ".", text, flags=re.I).lower()
        said = {h.lower() for h in _HOST.findall(dotted)} - {h.lower() for h in _HOST.findall(text)}
        made = [m for m in _HOST.finditer(out) if m.group(0).lower() in said]
        for m in reversed(made):
            out = out[: m.start()] + "//" + out[m.start() :]
    return _NAME_AND_TLD.sub(_host_from_name, _HOST_PARTS.sub(_host_from_parts, out))


# -- decoders ------------------------------------------------------------------------------------
_B64_TOKEN = re.compile(r"[A-Za-z0-9+/_-]{8,}={0,2}")
_B32_TOKEN = re.compile(r"\b[A-Z2-7]{16,}={0,6}")
_HEX_RUN = re.compile(r"(?:\\x|0x|%)?[0-9a-fA-F]{2}(?:[\s,:]*(?:\\x|0x|%)?[0-9a-fA-F]{2}){7,}")
_URL_ESCAPES = re.compile(r"[\w.~-]*(?:%[0-9a-fA-F]{2}[^%\s\"'()`]{0,40}){3,}")
_LABELLED = re.compile(
    r"(?<![\w$])([A-Za-z_][\w-]{0,20})\s*(?:=|:|is)\s*[\"'`]?([A-Za-z0-9+/_-]{4,}={0,2})(?![\w=+/-])[\"'`]?",
    re.I,
)
_NAMES_ROT = re.compile(r"rot\s*-?\s*13|caesar|\btr\s+['\"]?a-z|n-za-m", re.I)
_NAMES_REVERSED = re.compile(r"\brevers\w*|\bbackwards?\b|\|\s*rev\b|right to left", re.I)


def _b64(token: str) -> str | None:
    core = token.rstrip("=")
    if len(core) < 8 or (core.isalpha() and (core.islower() or core.isupper()) and "_" not in core):
        return None  # a plain word, not data
    padded = core + "=" * (-len(core) % 4)
    for decode in (base64.b64decode, base64.urlsafe_b64decode):
        try:
            text = as_text(decode(padded))
        except (binascii.Error, ValueError):
            continue
        if text:
            return text
    return None


def _joined_parts(text: str) -> list[str]:
    """Base64 cut into labelled parts (`p1="aWdu"`, `part 2: b3Jl`) and joined elsewhere: the parts
    joined in the order a join names them (`$p2$p1`, `p1 + p2`), else in the order written."""
    parts = {m.group(1).lower(): m.group(2) for m in _LABELLED.finditer(text)}
    if len(parts) < 2:
        return []
    out = []
    for m in re.finditer(
        r"(?:\$\{?[\w-]+\}?\s*\+?\s*){2,}|(?:\b[\w-]+\s*(?:\+|,|and|then)\s*){1,}[\w-]+", text
    ):
        names = [n.lower() for n in re.findall(r"[\w-]+", m.group(0)) if n.lower() in parts]
        if len(names) >= 2:
            out.append("".join(parts[n] for n in names))
    out.append("".join(parts.values()))
    return out


def _hex(run: str) -> str | None:
    digits = re.sub(r"\\x|0x|%|[\s,:]", "", run)
    try:
        return as_text(bytes.fromhex(digits))
    except ValueError:
        return None


def payloads(text: str) -> list[str]:
    """Every text a decoder recovers from the rule: base64 (whole runs and labelled parts
    joined), base32, hex, URL-encoding; ROT13 and reversed text when the rule names them; and
    the further ciphers and encodings of `lore.rules.gate.ciphers`."""
    raw = unmask(text)
    found: list[str | None] = [_b64(t) for t in _B64_TOKEN.findall(raw)]
    found += [_b64(joined) for joined in _joined_parts(raw)]
    for token in _B32_TOKEN.findall(raw):
        with contextlib.suppress(binascii.Error, ValueError):
            found.append(as_text(base64.b32decode(token + "=" * (-len(token) % 8))))
    found += [_hex(run) for run in _HEX_RUN.findall(raw)]
    found += [unquote(m.group(0)) for m in _URL_ESCAPES.finditer(raw)]
    if _NAMES_ROT.search(raw):
        found.append(codecs.encode(raw, "rot13"))
    if _NAMES_REVERSED.search(raw):
        found.append(raw[::-1])
    found += cipher_payloads(raw)
    return [p for p in dict.fromkeys(found) if p]


@lru_cache(maxsize=4096)
def surface_readings(text: str) -> tuple[str, ...]:
    """The rule's own words as the agent would read them: the shell's reading, spelled-out
    punctuation put back, and escapes, Braille and phonetic spelling read in place
    (`ciphers.in_place`), when they differ from the text."""
    placed = in_place(text)
    found = (shell_reading(text), spelled_out(text), placed, shell_reading(placed))
    return tuple(r for r in dict.fromkeys(found) if r and r != text)


@lru_cache(maxsize=4096)
def placed_readings(text: str) -> tuple[str, ...]:
    """The text the rule places in an artefact (a heredoc, a code fence, a CI step, a quoted
    message, a transcript's turns), as written and as a shell reads it. The patterns and the
    act-and-object reading judge these; the second look by meaning does not, since a command or a
    quote cut from its sentence loses the words that limit it."""
    placed = (r for art in artefact_readings(text) for r in (art, shell_reading(art)))
    return tuple(r for r in dict.fromkeys(placed) if r and r != text)


@lru_cache(maxsize=4096)
def payload_readings(text: str) -> tuple[str, ...]:
    """Each decoded payload, itself read the same way once (a payload that is a shell command is
    read as a shell would)."""
    out = [r for payload in payloads(text) for r in (payload, shell_reading(payload), spelled_out(payload))]
    return tuple(r for r in dict.fromkeys(out) if r and r != text)


def readings(text: str) -> tuple[str, ...]:
    """The texts the agent would end up reading besides the rule as written: the surface
    readings, then the decoded payloads."""
    return tuple(dict.fromkeys((*surface_readings(text), *payload_readings(text))))
