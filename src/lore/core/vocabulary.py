"""The words Lore's text matching knows: filler words it drops, aliases it expands, topics that
let words of one area (a "column" and a "migration") meet, and number words.

Plain data, kept apart from the code in `text` so the lists can be read and extended in one
place. The filler words are one list with a named extension per use: the keyword pipeline's
(`STOPWORDS`; `config.json` `tokenizer` adds to it per user, `text.build_tokenizer`) and
grounding's (`CLAIM_STOPWORDS`, the words a claim may add without asserting anything). The
hashed embedder's frequent words (`FREQUENT_WORDS`) are a fixed list of their own: its vectors
are made from it.
"""

from __future__ import annotations

# words that carry neither a topic nor a claim: function words, pronouns, auxiliaries, vague
# verbs; each list below that drops words is these and a named extension
FILLER_WORDS = frozenset(
    """
    a an the and or but nor of to in on at by for from with without into onto over under as is
    are was were be been being am it its this that these those there here than then so such very
    we you i our your my me us they them their he she his her can could will would shall should
    must may might do does did done doing have has had having get gets got also just only any all
    each every some no not never always when where which who whom what why how if else about
    way thing things like one make makes made
    """.split()
)

# the keyword pipeline's extension: words of a coding rule or task that name no topic of their
# own ("use the file to add a cache" is about a cache)
KEYWORD_FILLER = frozenset(
    """
    use uses used using add adds added adding file files new code please via per etc e g eg ie
    want need needs two
    """.split()
)
STOPWORDS = FILLER_WORDS | KEYWORD_FILLER

# grounding's extension: words a model's sentence may add without claiming anything its
# evidence must hold (the rest of the prepositions and pronouns, quantifiers, the pieces of a
# contraction, a title before a name, verbs of telling); "file" and "code" stay content words,
# since a claim about a file must find one
CLAIM_FILLER = frozenset(
    """
    above across after against along among around before behind below beyond between down
    during off out through toward towards up upon within although because since though unless
    until while whether itself myself himself herself him hers mine ours theirs yours whose
    another both either neither few many more most much other own same again even ever still too
    yet now well ones s t d ll re ve mr mrs miss ms dr sir lady lord st say says said tell told
    let lets
    """.split()
)
CLAIM_STOPWORDS = FILLER_WORDS | CLAIM_FILLER

# the commonest filler words, which the hashed embedder weighs lightly and leaves out of word
# pairs; its vectors are made from exactly this list, so it does not follow the lists above
FREQUENT_WORDS = frozenset(
    """
    a an the and or but of to in on at by for from with as is are was were be been it its this
    that these those he she they we you i me my us our your his her him them their not no if
    then than so can could will would should may might must do does did have has had there here
    what which who when where how all any some into out up down over about
    """.split()
)

# number words as digits, so "three" in a claim meets "3" in its source; "one" is left out:
# "one large pearl", "one of the boots" use it as a determiner more often than as a count
NUMBER_WORDS = {
    word: str(i)
    for i, word in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
        "fifteen sixteen seventeen eighteen nineteen twenty".split()
    )
    if word != "one"
} | {"thirty": "30", "forty": "40", "fifty": "50", "hundred": "100", "thousand": "1000"}

ALIASES = {
    "py": "python",
    "js": "javascript",
    "ts": "typescript",
    "tsx": "typescript",
    "jsx": "javascript",
    "db": "database",
    "dbs": "database",
    "repo": "repository",
    "repos": "repository",
    "spec": "test",
    "specs": "test",
    "tests": "test",
    "testing": "test",
    "env": "environment",
    "deps": "dependency",
    "dep": "dependency",
    "pkg": "package",
    "k8s": "kubernetes",
    "msg": "message",
    "err": "error",
    "errs": "error",
    "auth": "authentication",
    "config": "configuration",
    "cfg": "configuration",
    "docs": "documentation",
    "doc": "documentation",
    "impl": "implementation",
    "fn": "function",
    "func": "function",
    "args": "argument",
    "arg": "argument",
    "param": "parameter",
    "params": "parameter",
    "perf": "performance",
    "sec": "security",
    "pr": "pull",
    "prs": "pull",
    "yml": "yaml",
    "rb": "ruby",
    "rs": "rust",
    "md": "markdown",
    "css": "css",
    "sql": "sql",
}

TOPICS: dict[str, tuple[str, ...]] = {
    "data": (
        "database",
        "sql",
        "query",
        "table",
        "column",
        "migration",
        "schema",
        "index",
        "orm",
        "record",
        "row",
        "transaction",
        "postgres",
        "postgresql",
        "mysql",
        "sqlite",
        "mongo",
        "mongodb",
        "redis",
        "repository",
        "entity",
        "prisma",
        "sqlalchemy",
        "foreign",
        "join",
    ),
    "http": (
        "http",
        "https",
        "api",
        "endpoint",
        "request",
        "response",
        "route",
        "router",
        "rest",
        "graphql",
        "url",
        "client",
        "server",
        "header",
        "timeout",
        "fetch",
        "axios",
        "webhook",
        "cors",
        "pagination",
        "status",
        "middleware",
        "grpc",
    ),
    "test": (
        "test",
        "unit",
        "integration",
        "mock",
        "fixture",
        "assert",
        "coverage",
        "pytest",
        "jest",
        "vitest",
        "e2e",
        "snapshot",
        "tdd",
        "stub",
        "playwright",
        "cypress",
    ),
    "log": (
        "log",
        "logging",
        "logger",
        "trace",
        "tracing",
        "metric",
        "observability",
        "monitor",
        "telemetry",
        "debug",
        "print",
        "console",
        "audit",
    ),
    "error": (
        "error",
        "exception",
        "raise",
        "throw",
        "catch",
        "retry",
        "fail",
        "failure",
        "panic",
        "crash",
        "fallback",
        "recover",
        "handler",
    ),
    "ui": (
        "ui",
        "component",
        "react",
        "vue",
        "svelte",
        "angular",
        "layout",
        "button",
        "form",
        "page",
        "view",
        "render",
        "frontend",
        "html",
        "accessibility",
        "a11y",
        "tailwind",
        "modal",
        "widget",
        "screen",
        "css",
        "hook",
        "jsx",
    ),
    "types": (
        "type",
        "typing",
        "typescript",
        "interface",
        "generic",
        "annotation",
        "hint",
        "mypy",
        "null",
        "enum",
        "cast",
        "typed",
        "pyright",
        "struct",
    ),
    "naming": (
        "name",
        "naming",
        "rename",
        "variable",
        "camelcase",
        "snake",
        "pascalcase",
        "prefix",
        "suffix",
        "identifier",
        "kebab",
    ),
    "security": (
        "security",
        "secret",
        "password",
        "token",
        "credential",
        "authentication",
        "authorization",
        "permission",
        "encrypt",
        "encryption",
        "xss",
        "csrf",
        "injection",
        "sanitize",
        "vulnerability",
        "oauth",
        "jwt",
        "key",
        "cve",
    ),
    "config": (
        "configuration",
        "setting",
        "environment",
        "option",
        "flag",
        "yaml",
        "toml",
        "dotenv",
        "feature",
    ),
    "dependency": (
        "dependency",
        "package",
        "library",
        "import",
        "version",
        "npm",
        "pip",
        "yarn",
        "pnpm",
        "install",
        "upgrade",
        "lockfile",
        "module",
        "vendor",
        "poetry",
        "cargo",
    ),
    "docs": (
        "documentation",
        "docstring",
        "comment",
        "readme",
        "changelog",
        "jsdoc",
        "markdown",
        "guide",
        "explain",
        "describe",
    ),
    "validate": (
        "validate",
        "validation",
        "check",
        "verify",
        "sanitize",
        "input",
        "constraint",
        "zod",
        "pydantic",
        "schema",
        "parse",
    ),
    "style": (
        "style",
        "format",
        "formatting",
        "formatter",
        "indent",
        "indentation",
        "tab",
        "space",
        "quote",
        "semicolon",
        "lint",
        "linter",
        "prettier",
        "black",
        "ruff",
        "eslint",
        "line",
        "length",
        "whitespace",
        "brace",
        "width",
    ),
    "git": (
        "git",
        "commit",
        "branch",
        "merge",
        "rebase",
        "pull",
        "push",
        "review",
        "tag",
        "release",
        "changelog",
    ),
}
