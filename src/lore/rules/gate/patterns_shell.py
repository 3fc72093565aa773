"""The risky-wording patterns of the command families: a download piped into a shell and a
dangerous command (destruction, TLS checks off, forced pushes). Written for the plain spelling:
`lore.rules.gate.normalize` hands them the text with disguises undone."""

from __future__ import annotations

from lore.rules.gate.patterns_base import _FETCHERS, _SHELLS, _c, _w

_SHELL_WORDS = r"(?:the )?(?:bash|sh|zsh|shell|terminal|powershell|pwsh|python|interpreter|iex|sudo)\b"
_DOWNLOAD = r"(?:download|fetch|grab|pull|retriev|curl|wget|get)\w*"
_SCRIPT = r"(?:the |a |this |that |an |their |any )?(?:remote |downloaded |install |installation |setup |latest )?(?:script|installer|payload|binary|executable|program|bootstrap\w*|setup|code|output|response|file)s?\b"

_PIPE_TO_SHELL = (
    _c(_FETCHERS + r"[^|\n;&]{0,300}?\|\s*(?:" + _SHELLS + r")"),
    # process substitution: any interpreter reading a download as a file
    _c(r"(?:(?<!\S)\.|" + _SHELLS + r")\s*(?:-\S+\s+)*<\(\s*" + _FETCHERS, needs=r"<\("),
    _c(
        r"(?:(?:ba|z|k)?sh|python[0-9.]*|perl|eval|exec)\s+(?:-\w+\s+)*[\"']?(?:\$\(|`)\s*(?:curl|wget|iwr|fetch)\b"
    ),
    _c(
        r"\b(?:iex|invoke-expression)\b\s*\(?\s*(?:\(?\s*new-object\s+(?:system\.)?net\.webclient\s*\)?\s*\.\s*downloadstring|iwr\b|irm\b|invoke-webrequest|invoke-restmethod|curl\b)"
    ),
    _c(r"\.downloadstring\s*\([^)]*\)\s*\|\s*(?:iex|invoke-expression)"),
    _w(
        _DOWNLOAD
        + r"\b[^\n]{0,80}?\b(?:pipe[sd]?|piping|feed\w*|pass\w*|send\w*|stream\w*|hand\w*)\b[^\n]{0,40}? (?:in ?to|to|through|straight into|directly into) "
        + _SHELL_WORDS
    ),
    _w(
        r"\b(?:pipe[sd]?|piping|feed\w*|stream\w*) "
        + _SCRIPT
        + r"[^\n]{0,40}? (?:in ?to|to|through) "
        + _SHELL_WORDS
    ),
    _w(
        r"\b(?:pipe[sd]?|piping) (?:it |them |that |this )?(?:in ?to|to|through) (?:the )?(?:bash|sh|zsh|shell|powershell|pwsh|iex)\b"
    ),
    _w(
        r"\b"
        + _DOWNLOAD
        + r"\b(?: \w+){0,5}? "
        + _SCRIPT
        + r"[^\n]{0,60}?\b(?:and|then|&) (?:\w+ ){0,2}?(?:run|execut|exec|source|eval|launch|start)\w*(?: (?:it|them|that|this|the script|the installer|the file|the binary|the payload))?(?: (?:right away|immediately|directly))? (?:with|in|using|through|via|under|as) "
        + _SHELL_WORDS
    ),
    _w(
        r"\b"
        + _DOWNLOAD
        + r"\b(?: \w+){0,5}? "
        + _SCRIPT
        + r"[^\n]{0,60}?\b(?:and|then|&) (?:\w+ ){0,2}?(?:run|execut|exec|source|eval|launch)\w* (?:it|them|that|this|the script|the installer|the payload|the binary)\b"
    ),
    _w(
        r"\b(?:run|execut|exec|eval|source)\w* (?:whatever |the )?(?:output|result|response|contents?|text|body) (?:of|from|that|returned by) (?:the )?(?:curl|wget|download|downloaded|remote|fetch)\w*"
    ),
    _w(
        r"\b(?:run|execut|exec|eval|source)\w* (?:whatever|what) (?:\w+ ){0,3}?(?:curl|wget|download|fetch)\w* (?:returns|gives|prints|outputs)"
    ),
    # a download handed over as a here-string
    _c(r"(?:" + _SHELLS + r")[^\n|]{0,40}<<<\s*[\"']?(?:\$\(|`)\s*" + _FETCHERS, needs="<<<"),
    # a download saved to a script file, then that file run
    _c(
        _FETCHERS
        + r"[^\n;&|]*?\s(?:-o|--output|-O|>)\s*(?:[\w.~-]*/)*([\w.-]+\.(?:sh|bash|zsh|py|pl|rb|ps1|js))\b"
        + r"[^\n]{0,80}?(?:&&|;|\band\b|\bthen\b)[^\n]{0,40}?(?:(?:"
        + _SHELLS
        + r")\s+(?:-\S+\s+)*(?:[\w.~-]*/)*|\./|(?<=/))\1\b"
    ),
    _w(
        r"\b(?:pipe|piping|feed|stream|send)\w* (?:the )?(?:output of |result of )?(?:curl|wget|iwr|the download\w*|downloaded \w+|remote \w+)(?: \w+){0,3}? (?:in ?to|to|through) "
        + _SHELL_WORDS
    ),
)

# After `shell_canonical`, every spelling of the home folder is `~`.
# the root, the home folder, everything here, a system folder, a folder of the user's own data, or
# the whole data or configuration folder of one system service (`/var/lib/postgresql`, `/etc/nginx`,
# `/home/alice`: a database, a service's settings, a user's home); not a package manager's cache
# (`/var/lib/apt/lists/*`, which every Dockerfile cleans), nor an install folder a tool's own
# instructions replace (`/usr/local/go`)
_RM_TARGET = (
    r"(?:/|/\*|/\.\*|~|~/|~/\*|~/\.\*|\*|\.\*|\.|\./\*|\.\.|/home|/etc|/usr|/var|/boot|/bin|/lib|/opt|/srv|/root|/users|c:\\?|"
    r"~/\.config|~/\.local|~/\.ssh|~/\.gnupg|~/documents|~/desktop|~/downloads|~/pictures|~/projects|~/src|~/code|"
    r"(?:/var/lib|/etc|/home)/(?!(?:apt|dpkg|yum|dnf|pacman|apk|cache)\b)[\w.-]+(?:/\*|/\.\*)?)/?"
)
_END = r"(?=$|[\s\"'`;&|)])"
# `rm` with a recursive flag anywhere among its flags, and a root, home or everything target among
# its paths (the paths before it, if any, look like paths, so prose after the command is no target)
_RM = (
    r"\brm\s+(?:(?:-{1,2}[a-z-]*|--)\s+)*(?:-[a-z]*r[a-z]*|--recursive)\s+(?:(?:-{1,2}[a-z-]*|--)\s+)*"
    r"(?:[\w.~/*{}$()-]*[/.*][\w.~/*{}$()-]*\s+){0,4}?" + _RM_TARGET + _END
)
_PROTECTED = r"(?:main|master|trunk|production|prod|release|develop|stable|live)"
_FORCE = r"(?:--force(?:-with-lease|-if-includes)?\b(?:=\S+)?|(?<!\S)-[a-z]*f[a-z]*\b|--mirror\b|--delete\b|--prune\b)"
# a refspec that forces (`+main`, `+HEAD:main`, `+refs/heads/main`) or deletes (`:main`) a branch
_FORCED_REF = (
    r"(?<!\S)(?:\+(?:[\w./@^~-]*:)?|:)(?:refs/heads/)?" + _PROTECTED + r"\b|(?<!\S)\+(?:refs/heads/)?\*"
)
_GIT_PUSH = r"\bgit\s+(?:-c\s+\S+\s+)*push\b[^\n;&|]*?"
# TLS verification turned off: a setting whose name says TLS (or cert, peer ...) and verify (or
# check, strict, reject ...) given a false value, a setting that says "no verify" given a true
# one, or a flag that says either
_TLS_WORD = r"(?:ssl|tls|cert|certificate|https|peer|hostname)"
_CHECK_WORD = r"(?:verif|validat|check|strict|reject)"
_IDENT = r"[a-z0-9_.-]*"
_ID_START = r"(?<![a-z0-9_.-])"  # an identifier is tried once, from its start
_TLS_KEY = (
    rf"{_ID_START}(?=[a-z0-9_.-]*{_TLS_WORD})(?=[a-z0-9_.-]*{_CHECK_WORD}){_IDENT}"
    r"|rejectunauthorized|reject_unauthorized"
)
_FALSY = r"[\"']?(?:false|0|no|off|none|disabled?|verify_none|cert_none)\b"
_NO_VERIFY_KEY = (
    rf"{_ID_START}(?={_IDENT}(?:no[_-]?verify|skip{_IDENT}verif|insecure|disable{_IDENT}{_TLS_WORD}|"
    rf"ignore{_IDENT}{_TLS_WORD}|trust[_-]?all|accept[_-]?(?:all|any|invalid))){_IDENT}"
)
_TRUTHY = r"[\"']?(?:true|1|yes|on|\*)\b"
_TLS_OFF = (
    rf"(?<![\w-])verify\s*[=:]\s*{_FALSY}|(?:{_TLS_KEY})\s*(?:=>|==|[=:,]|\s+to\s+|\s+)\s*{_FALSY}"
    rf"|{_NO_VERIFY_KEY}\s*(?:=>|[=:]|\s+to\s+)\s*{_TRUTHY}"
    r"|--insecure\b|(?<![\w-])-insecure\b|--trusted-host\b|\btrusted[-_]host\s*[=:]|--no-check-certificates?\b"
    r"|--no-verify-ssl\b|--(?:disable|skip|no)-(?:ssl|tls|cert)\S*\b|--insecure-skip-tls-verify\b|--ssl-no-revoke\b"
    r"|\bcurl\s+(?:[^\n|;&]*\s)?-[a-z]*k[a-z]*\b|\b(?:wget|http|httpie)\s+(?:[^\n|;&]*\s)?--verify[= ]no\b"
    r"|\bcert_none\b|\bverify_none\b|_create_unverified_context|\bgoinsecure\s*=|\bgonosumcheck\s*="
    r"|trust_?all_?certs|insecuretrustmanager|trustallx509|noophostnameverifier|allow_all_hostname_verifier"
    r"|dangerousacceptanycertificatevalidator|servercertificate(?:custom)?validationcallback\s*=\s*[^;\n]{0,60}\btrue\b"
    r"|\b(?:requests_ca_bundle|curl_ca_bundle|ssl_cert_file)\s*=\s*(?:[\"']{2}|$|\s)"
)
_DANGEROUS_COMMAND = (
    _c(_RM),
    _c(r"\brm\s+(?:-{1,2}[a-z-]+\s+)*--no-preserve-root\b"),
    _c(
        r"\bmkfs(?:\.\w+)?\b|\bdd\s+[^\n]*\bof=/dev/(?:sd|nvme|hd|disk|mmcblk|xvd|vd|rdisk)|>\s*/dev/(?:sd[a-z]|nvme\d|hd[a-z]|disk\d|mmcblk\d)|\bshred\s+[^\n]*/dev/|\bwipefs\b",
        needs=r"mkfs|dd\s|/dev/|shred|wipefs",
    ),
    _c(
        r":\s*\(\s*\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;?\s*:|\b(\w+)\s*\(\s*\)\s*\{\s*\1\s*\|\s*\1\s*&\s*\}",
        needs=r"\(\s*\)\s*\{",
    ),
    # chmod or chown of the root or the home folder, its flags before or after the mode
    _c(
        r"\b(?:chmod|chown|chgrp)\s+(?:-{1,2}[a-z-]+\s+)*(?:0?777|0?666|a\+rwx|ugo\+rwx|a\+w|o\+w|[\w.-]+(?::[\w.-]*)?)\s+"
        r"(?:-{1,2}[a-z-]+\s+)*(?:/|/\*|~|~/|~/\*|\*|/etc|/usr|/var|/home|/bin)/?" + _END
    ),
    _c(r"\bchmod\s+(?:-\w+\s+)*-r\s+(?:0?777|a\+rwx|ugo\+rwx)\b|\bchmod\s+(?:0?777|a\+rwx|ugo\+rwx)\s+-r\b"),
    # find from the root or the home folder that deletes what it finds
    _c(
        r"\bfind\s+(?:-\w+\s+)*(?:/|~|~/|/home|/users|\.\.)/?\s[^\n;&|]*?(?:-delete\b|-exec\s+(?:sudo\s+)?(?:rm|shred|chmod)\b)"
    ),
    _c(
        _TLS_OFF,
        needs=r"verif|ssl|tls|cert|insecure|trust|-[a-z]*k|hostname|peer|reject|goinsecure|gonosum|ca_bundle|validation|strict",
    ),
    _c(
        r"\bsudo\s+(?:-\S+\s+)*(?:rm\s+-\w*r|rm\s+-\w*f|mkfs|dd\s|chmod\s+-r|chown\s+-r|shutdown|reboot|halt|poweroff|init\s+0|kill\s+-9\s+-?1\b|userdel|passwd|visudo|iptables\s+-f|systemctl\s+(?:stop|disable|mask)\s+(?:ssh|firewalld|ufw|auditd|apparmor)|ufw\s+disable|setenforce\s+0|tee\s+/etc/)"
    ),
    # a push that forces or deletes a protected branch, the force flag before or after it
    _c(
        _GIT_PUSH
        + r"(?:"
        + _FORCED_REF
        + r"|"
        + _FORCE
        + r"[^\n;&|]*?(?<![\w-])"
        + _PROTECTED
        + r"\b|(?<![\w-])"
        + _PROTECTED
        + r"\b[^\n;&|]*?"
        + _FORCE
        + r")"
    ),
    _c(
        r"\bdrop\s+(?:database|schema|all\s+tables|owned\s+by)\b|\btruncate\s+(?:table\s+)?\w+(?:\s*,\s*\w+)*\s+cascade\b|\bflushall\b|\bkubectl\s+delete\s+[^\n]*(?:--all\b|\bnamespace\b|\bns\b)|\bterraform\s+destroy\b[^\n]*-auto-approve|\bformat\s+c:|\b(?:del|erase)\s+(?:/\w\s+)+c:\\|\brd\s+/s\s+/q\s+c:\\|\bremove-item\s+[^\n]*-recurse[^\n]*\s(?:c:\\|~|/|\$home|\$env:userprofile)(?=$|[\s\"'`;&|)])|\bkill\s+-9\s+-1\b|\bcrontab\s+-r\b|\bhistory\s+-c\b|\bchattr\s+\+i\s+/"
    ),
    _w(
        r"\bforce ?push\w* (?:\w+ ){0,3}?(?:to |onto |on |into |over )?(?:the )?(?:origin )?(?:main|master|trunk|production|release)\b"
    ),
    # history made unrecoverable: the reflog expired at once, a forced mirror push over every ref
    _c(
        r"\bgit\s+reflog\s+expire\b[^\n;&|]*--expire(?:-unreachable)?=(?:now|all|0)\b"
        r"|\bgit\s+push\b[^\n;&|]*--mirror\b[^\n;&|]*(?:--force\b|(?<!\S)-f\b)"
        r"|\bgit\s+push\b[^\n;&|]*(?:--force\b|(?<!\S)-f\b)[^\n;&|]*--mirror\b"
    ),
    _w(
        r"\b(?:accept|trust|allow)\w* (?:any|all|every|invalid|untrusted|bad|expired) (?:tls |ssl |https |server )?(?:certificates?|certs?)\b"
    ),
    _w(
        r"\b(?:disabl|turn\w* off|switch\w* off|skip|bypass|ignor|remov|deactivat)\w* (?:the )?(?:ssl|tls|https|certificate|cert|host ?name|peer) (?:certificate )?(?:verification|validation|checks?|checking|verify|errors|warnings)"
    ),
    _w(
        r"\b(?:delet|eras|wip|remov|destroy|nuk|format)\w* (?:everything|all (?:the )?files|all data|every file|the (?:whole|entire) (?:disk|drive|filesystem|file system|home directory|home folder|root)|the (?:disk|hard drive|hard disk|drive|filesystem|file system|root directory|root filesystem|home directory|home folder|user's home)|(?:the )?production (?:database|db|data))\b"
    ),
)
