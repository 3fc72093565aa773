"""The risky-wording patterns of the families that name data: key and credential files, a web
address (with the reserved names that name no third party), and a long encoded blob."""

from __future__ import annotations

import re

from lore.rules.gate.patterns_base import _SHELLS, _c, _r, _w

# a config file tied to the secret it holds: in one clause, with no "never", "not" or "no" between
# (".npmrc may set the registry but never an auth token" says the token is kept out of it)
_TIED = r"(?:(?![.;!?]\s|\b(?:never|not|no|nor|without)\b)[^\n]){0,80}"

_KEY_FILES = (
    _c(
        r"(?:~|\$home|\$\{home\}|%userprofile%|/root|/home/[\w.-]+|/users/[\w.-]+|\\users\\[\w.-]+|(?<![\w.-]))[/\\]?\.ssh(?:[/\\]|\b)"
    ),
    _c(
        r"\bid_(?:rsa|dsa|ecdsa|ed25519)(?:_sk)?(?:\.pub)?\b|\bauthorized_keys\b|\bssh-agent\b[^\n]{0,40}\b(?:forward|export|dump)"
    ),
    _c(
        r"\.aws[/\\](?:credentials|config)\b|\.azure[/\\](?:accesstokens|msal_token_cache)|\.config[/\\]gcloud[/\\](?:credentials|application_default|access_tokens)|application_default_credentials\.json"
    ),
    _c(
        r"(?<![\w-])\.(?:netrc|pypirc|git-credentials|pgpass|my\.cnf|dockercfg)\b|\.docker[/\\]config\.json|\.config[/\\](?:gh[/\\]hosts\.yml|hub)\b"
    ),
    _c(
        r"\.npmrc\b"
        + _TIED
        + r"\b(?:_?auth_?token|_auth|token|password|secret|credential)|(?:_?auth_?token|_auth\b)"
        + _TIED
        + r"\.npmrc\b|"
        r"(?:cat|read|print|send|upload|copy|show|dump|exfiltrat)\w*\s+(?:\S+\s+)?~/\.npmrc"
    ),
    _c(
        r"\.kube[/\\]config\b|(?<![\w-])\.gnupg\b|\bgpg\s+--export-secret-keys?\b|/etc/(?:shadow|passwd|sudoers|gshadow|master\.passwd)\b|/proc/(?:self|\d+)/environ\b|\.(?:bash|zsh)_history\b"
    ),
    _c(
        r"(?:login|system|\w+)\.keychain(?:-db)?\b|\bsecurity\s+(?:find|dump)-(?:generic-password|internet-password|keychain)|\bdump-keychain\b|\bkeychain\s+(?:dump|export|contents|passwords?|secrets)\b|\b(?:dump|export|read|extract|steal|copy|print)\w*\s+(?:\w+\s+){0,2}?(?:keychain|credential manager|password manager|key ?store)\b",
        needs=r"keychain|security\s|credential manager|password manager|key ?store",
    ),
    _c(
        r"\bwallet\.dat\b|\b(?:metamask|electrum|exodus|phantom)\b[^\n]{0,40}\b(?:vault|wallet|seed|keys?)\b|\b(?:seed|mnemonic|recovery) phrases?\b|\bprivate keys?\s+(?:of|from|in)\s+(?:the\s+|your\s+|my\s+)?(?:crypto\s+)?wallets?\b|\bkeystore[/\\]utc--"
    ),
    _c(
        r"-----begin (?:rsa |dsa |ec |openssh |encrypted |pgp )?private key(?: block)?-----|\bcookies\.sqlite\b|\blogin data\b|/\.mozilla/firefox/|/google/chrome/[^\n]{0,40}(?:cookies|login)"
    ),
    _w(
        r"\b(?:read|cat|print|send|upload|copy|show|dump|exfiltrat|steal|leak|post|share|include|paste|email|attach|commit|publish|export)\w* (?:the |your |my |all |any |their )?(?:user's |users' |developer's )?(?:ssh|gpg|pgp|aws|gcp|azure) (?:private )?(?:keys?|credentials|key files?|secrets|tokens)\b|\b(?:read|cat|print|send|upload|copy|dump|exfiltrat|steal|leak|post|share|paste|email|attach|publish|export)\w* (?:the |your |my |all |any |their )?(?:user's |users' )?private keys?\b"
    ),
    # a hidden file or folder of the home folder whose name says it holds a secret
    _c(
        r"~/\.[\w.-]*(?:/[\w.-]+)*?/?[\w.-]*(?:credential|token|secret|passw|apikey|api_key|api-key|auth\.json|\.pem\b|private)[\w.-]*"
    ),
    # credential stores of common tools, wherever the home folder is
    _c(
        r"\.cargo[/\\]credentials|\.vault-token\b|\.terraform\.d[/\\]credentials|\.gem[/\\]credentials|"
        r"\.m2[/\\]settings(?:-security)?\.xml|~/\.gradle[/\\]gradle\.properties|\.composer[/\\]auth\.json|"
        r"\.config[/\\]gcloud\b|(?:~|\$home|/root|/home/[\w.-]+|/users/[\w.-]+)[/\\]\.(?:aws|azure|kube|docker|gnupg)\b|"
        r"\.boto\b|\.s3cfg\b|\.config[/\\]rclone\b|\.password-store\b|\.local[/\\]share[/\\]keyrings|\.config[/\\]op[/\\]|"
        r"\.oci[/\\]config|\.config[/\\]doctl|(?<![\w-])_netrc\b|\.yarnrc(?:\.yml)?\b(?:(?![.;!?]\s|\b(?:never|not|no|nor|without)\b)[^\n]){0,60}\b(?:token|auth|password)|"
        r"\.huggingface[/\\]token|\.config[/\\]github-copilot[/\\](?:hosts|apps)\.json|\.config[/\\]containers[/\\]auth\.json",
        needs=r"credential|vault|\.m2|gradle|composer|gcloud|\.aws|azure|kube|docker|gnupg|boto|s3cfg|rclone|password-store|keyrings|/op/|\.oci|doctl|netrc|yarnrc|huggingface|copilot|containers",
    ),
    # the values of the secret variables themselves, sent somewhere ("the values of all *_KEY
    # variables to the team webhook")
    _w(
        r"\bvalues? of (?:all |every |any |the )?(?:the )?(?:\w+ )?(?:keys?|tokens?|secrets?|passwords?|credentials?) (?:env |environment )?variables (?:to|into|onto|on|in) (?:a|an|the|our|your|their|this|that)\b"
    ),
)

_RESERVED_HOSTS = re.compile(
    r"^(?:localhost|127(?:\.\d+){3}|0\.0\.0\.0|\[?::1\]?|host\.docker\.internal|"
    r"(?:[\w-]+\.)*(?:example\.(?:com|net|org)|example|test|invalid|localhost|local))(?::\d+)?$"
)
_TLDS = (
    r"(?:com|net|org|io|dev|app|ai|co|sh|xyz|me|info|biz|ru|cn|tk|top|site|online|link|gg|ly|to|cc|us|"
    r"uk|de|fr|page|run|cloud|tech|zip|mov|pw|su|ws|in|jp|nl|eu|ca|au|br|ir|kp|onion|club|live|"
    r"store|shop|click|icu|cyou|rest|vip|work|lol|buzz|gq|ml|cf|ga|network|tools|host|space)"
)
_WEB_ADDRESS = (
    _c(r"\b(?:https?|ftps?|wss?|file|gopher|data):/{1,3}[^\s<>\"'`)\]]*"),
    _c(r"(?<![\w@.-])www\d?\.[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}[^\s<>\"'`)\]]*"),
    _c(
        r"(?<![\w@./-])(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+" + _TLDS + r"(?::\d{2,5})?/[^\s<>\"'`)\]]*"
    ),
    _c(r"(?<![\w./-])\d{1,3}(?:\.\d{1,3}){3}(?::\d{2,5})?/[^\s<>\"'`)\]]*"),
    # a host with a port is an address to connect to, path or not
    _c(r"(?<![\w@./-])(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+" + _TLDS + r":\d{2,5}\b"),
    _c(
        r"(?<![\w:/.\\-])//(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,24}(?::\d{2,5})?(?:/[^\s<>\"'`)\]]*)?(?![\w-]|\.\w)"
    ),
    _c(r"(?<![\w:/.\\-])//\d{1,3}(?:\.\d{1,3}){3}(?::\d{2,5})?(?:/[^\s<>\"'`)\]]*)?"),
    # a bare host named as the place to fetch from or send to: "the registry at npm.corp-tools.io",
    # "the maintainer's host gofmtx.devlabs.one", "the webhook hooks.acme-ci.net"
    _c(
        r"(?<![\w-])(?:registry|host|server|mirror|domain|endpoint|index|proxy|collector|webhook|cdn)\s+(?:at\s+|is\s+|of\s+|on\s+)?"
        r"(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+" + _TLDS + r"\b(?![\w-]|\.\w)"
    ),
)


_HEX_OR_B64 = r"[A-Za-z0-9+/_-]{80,}={0,2}"
_GROUPED_BLOB = 24  # `grouped_runs` asks 40 characters, or 24 when the groups are both uniform and mixed
_ENCODED_BLOB = (
    _r(_HEX_OR_B64),
    _r(r"(?:(?:0x)?[0-9a-fA-F]{2}[\s,]+){40,}"),
    _r(
        r"(?:\\x[0-9a-fA-F]{2}){8,}|(?:\\u00[0-9a-fA-F]{2}){8,}|(?:&#x?[0-9a-fA-F]{2,4};){8,}|(?:%[0-9a-fA-F]{2}){12,}|(?:\\[0-7]{3}){8,}",
        needs=r"\\x|\\u00|&#|%[0-9a-fA-F]{2}|\\[0-7]",
    ),
    _c(
        r"\bbase64\s+(?:-\w+\s+)*(?:-d|--decode|-D)\b[^\n]{0,80}\|\s*(?:"
        + _SHELLS
        + r")|\|\s*base64\s+(?:-\w+\s+)*(?:-d|--decode)\b[^\n]{0,40}\|\s*(?:"
        + _SHELLS
        + r")"
    ),
    _c(
        r"\b(?:eval|exec|function|settimeout|setinterval|iex|invoke-expression)\s*\(?\s*\(?\s*(?:atob|unescape|decodeuricomponent|escape|buffer\.from|base64_decode|gzinflate|gzuncompress|str_rot13|base64\.b64decode|b64decode|codecs\.decode|bytes\.fromhex|zlib\.decompress|marshal\.loads|bytearray\.fromhex|\[system\.text\.encoding\]|\[convert\]::frombase64string|string\.fromcharcode)\b"
    ),
    _c(r"\b(?:powershell|pwsh)(?:\.exe)?\s+(?:-\w+\s+)*-e(?:nc|ncodedcommand|c)?\s+[a-z0-9+/=]{20,}"),
    _c(r"\bfromcharcode\s*\(\s*\d+(?:\s*,\s*\d+){10,}"),
    _w(
        r"\bdecod\w* (?:the |this |that )?(?:following |below |above |attached )?(?:base ?6[4a]|hex|encoded|rot ?(?:13|ie)|obfuscated)? ?(?:string|text|blob|payload|message|data|instructions?|command)?(?:\S+ ){0,6}?(?:and|then) (?:\w+ ){0,2}?(?:run|execut|exec|eval|follow|obey|do what it says|apply)\w*"
    ),
    _w(
        r"\b(?:follow|obey|execut|run)\w* (?:the )?(?:base ?6[4a]|hex|encoded|rot ?(?:13|ie)|obfuscated) (?:instructions|commands|string|text|payload|message)\b"
    ),
    _c(
        r"\|\s*(?:base64\s+(?:-\w+\s+)*(?:-d|--decode)\b|xxd\s+(?:-\w+\s+)*-r|openssl\s+(?:enc\s+|base64\s+)?(?:-\S+\s+)*-d\b|"
        r"uudecode|gunzip|zcat|gzip\s+-d|bzip2\s+-d|xz\s+-d|rev\b|basenc\s+(?:-\S+\s+)*-d)[^|\n]*\|\s*(?:"
        + _SHELLS
        + r")"
    ),
    # running what a decoder returns, however far inside the call it sits
    _c(
        r"\b(?:eval|exec|execfile|compile|function|settimeout|setinterval|iex|invoke-expression|runpy\.run\w*)\s*\([^\n]{0,80}?"
        r"(?:atob|unescape|b(?:64|85|32|16)decode|a85decode|unhexlify|base64_decode|fromhex|decompress|frombase64string|fromcharcode|"
        r"buffer\.from|decode\s*\(\s*[\"'](?:base64|hex|rot13))"
    ),
)
