"""A real model server on 127.0.0.1 for tests: OpenAI-compatible and Anthropic-shaped.

It speaks `POST /v1/chat/completions`, `POST /v1/embeddings` (OpenAI, Gemini's compatible
endpoint, Ollama, vLLM...) and `POST /v1/messages` (Anthropic), replies with responses of the
providers' recorded shapes, counts calls and tokens, and can misbehave on request.

    from support.fake_llm import FakeLLM, fake_llm_fixture  # noqa: F401  (the `fake_llm` fixture)

    def test_extracts(fake_llm: FakeLLM) -> None:
        # the fixture has already pointed Lore at the server (LORE_MODEL=openai:fake-model)
        fake_llm.reply("Extract the decisions", {"decisions": []})   # prompt substring -> reply
        fake_llm.reply(lambda req: req.schema is not None, lambda req: {"name": req.last_user})
        ...run the code under test...
        assert fake_llm.count("chat") == 1

Replies are chosen by the request: the first rule whose matcher fits (a substring of any
message, or a callable taking the `Request`) gives the reply: a string (sent as is), a dict
or list (sent as JSON text), or a callable returning either. Without a matching rule the
server answers `default` ("ok"). `times=n` retires a rule after n uses.

Failures are queued with `fail(kind, times=1, match=None)` and consumed before any rule:
  "400"       status 400 saying response_format is not supported (an older server)
  "429"       status 429 with `Retry-After: <retry_after>` (default 1 second)
  "500"       status 500 with an OpenAI-style error body
  "malformed" a 200 whose reply text is broken JSON (`{"oops": `)
  "bad-body"  a 200 whose HTTP body is not JSON at all
  "hang"      no answer until the client gives up or the server closes

`use("anthropic" | "gemini" | "ollama" | "openai", monkeypatch)` points Lore at the server
as that provider. Every request is kept in `requests` (path, headers, body, prompt, schema);
`delay` slows every answer down and `max_in_flight` records the most requests it held at once;
`gather = n` holds every answer until n requests were in flight together (or the server
closes), so a test sees a concurrency limit reached without depending on timing.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

Reply = str | dict | list | Callable[["Request"], Any]
Matcher = str | Callable[["Request"], bool] | None

FAILURES = ("400", "429", "500", "malformed", "bad-body", "hang")
API_KEY = "sk-test-fake-key-0000"


@dataclass
class Request:
    """One request as the server saw it."""

    path: str
    kind: str  # "chat" (OpenAI), "messages" (Anthropic) or "embeddings"
    headers: dict[str, str]
    body: dict[str, Any]
    at: float
    status: int = 200  # what the server answered

    @property
    def model(self) -> str:
        return str(self.body.get("model", ""))

    @property
    def messages(self) -> list[dict[str, Any]]:
        messages = list(self.body.get("messages") or [])
        if self.kind == "messages" and self.body.get("system"):
            messages.insert(0, {"role": "system", "content": self.body["system"]})
        return messages

    @property
    def prompt(self) -> str:
        """Every message's text (and embedding inputs), joined: what a matcher searches."""
        if self.kind == "embeddings":
            inputs = self.body.get("input")
            return "\n".join(inputs if isinstance(inputs, list) else [str(inputs)])
        return "\n".join(_text(m.get("content")) for m in self.messages)

    @property
    def last_user(self) -> str:
        users = [m for m in self.messages if m.get("role") == "user"]
        return _text(users[-1].get("content")) if users else ""

    @property
    def schema(self) -> dict[str, Any] | None:
        """The JSON schema asked for: response_format (OpenAI) or the forced tool (Anthropic)."""
        fmt = self.body.get("response_format") or {}
        if fmt.get("type") == "json_schema":
            return fmt.get("json_schema", {}).get("schema")
        for tool in self.body.get("tools") or []:
            return tool.get("input_schema")
        return None


def _text(content: Any) -> str:
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return "" if content is None else str(content)


def _tokens(text: str) -> int:
    return max(1, (len(text) + 3) // 4) if text else 0


@dataclass
class _Rule:
    match: Matcher
    reply: Reply
    times: int | None
    used: int = 0

    def fits(self, request: Request) -> bool:
        if self.times is not None and self.used >= self.times:
            return False
        if self.match is None:
            return True
        if isinstance(self.match, str):
            return self.match in request.prompt
        return bool(self.match(request))


@dataclass
class _Failure:
    kind: str
    times: int
    match: Matcher
    retry_after: float | str | None
    used: int = 0


@dataclass
class FakeLLM:
    """The server; start() it (the fixture does), point Lore at it with use(), close() it."""

    default: Reply = "ok"
    report_usage: bool = True  # False: replies carry no token counts (Lore must estimate)
    reply_model: str | None = None  # the model name replies claim (default: the one asked)
    embed_dim: int = 8
    require_key: str | None = API_KEY  # None: accept any request, with or without a key
    hang_seconds: float = 30.0
    delay: float = 0.0  # seconds before every answer
    gather: int = 0  # hold answers until this many requests were in flight together
    max_in_flight: int = 0
    _in_flight: int = 0
    _held: set[int] = field(default_factory=set)  # handlers counted in `_in_flight`
    requests: list[Request] = field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    _rules: list[_Rule] = field(default_factory=list)
    _failures: list[_Failure] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _closing: threading.Event = field(default_factory=threading.Event)
    _gathered: threading.Event = field(default_factory=threading.Event)
    _server: ThreadingHTTPServer | None = None

    # -- control --------------------------------------------------------------------------

    def reply(self, match: Matcher, reply: Reply, *, times: int | None = None) -> FakeLLM:
        """Answer requests that fit `match` with `reply` (rules are tried in the order added)."""
        with self._lock:
            self._rules.append(_Rule(match, reply, times))
        return self

    def fail(
        self,
        kind: str,
        *,
        times: int = 1,
        match: Matcher = None,
        retry_after: float | str | None = 1,
    ) -> FakeLLM:
        """Misbehave on the next `times` requests that fit `match` (see the module doc)."""
        if kind not in FAILURES:
            raise ValueError(f"unknown failure {kind!r}: use one of {FAILURES}")
        with self._lock:
            self._failures.append(_Failure(kind, times, match, retry_after))
        return self

    def count(self, kind: str | None = None) -> int:
        """Requests received (of one kind: "chat", "messages", "embeddings")."""
        with self._lock:
            return sum(1 for r in self.requests if kind is None or r.kind == kind)

    def reset(self) -> None:
        """Forget requests and counts (rules and queued failures stay)."""
        with self._lock:
            self.requests.clear()
            self.prompt_tokens = self.completion_tokens = 0

    @property
    def port(self) -> int:
        assert self._server is not None, "start() the server first"
        return self._server.server_address[1]

    @property
    def base_url(self) -> str:
        """Root URL (Anthropic's base); the OpenAI-compatible base is `url`."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        return f"{self.base_url}/v1"

    def use(self, provider: str, monkeypatch: pytest.MonkeyPatch, model: str = "fake-model") -> None:
        """Point Lore's model settings at this server as `provider` (env only; nothing written)."""
        monkeypatch.setenv("LORE_MODEL", f"{provider}:{model}")
        for var in ("LORE_BASE_URL", "LORE_API_KEY"):
            monkeypatch.delenv(var, raising=False)
        if provider == "anthropic":
            monkeypatch.setenv("ANTHROPIC_BASE_URL", self.base_url)
            monkeypatch.setenv("ANTHROPIC_API_KEY", API_KEY)
        elif provider == "gemini":
            monkeypatch.setenv("GEMINI_BASE_URL", self.url)
            monkeypatch.setenv("GEMINI_API_KEY", API_KEY)
        elif provider == "ollama":
            monkeypatch.setenv("OLLAMA_HOST", f"127.0.0.1:{self.port}")
        else:
            monkeypatch.setenv("OPENAI_BASE_URL", self.url)
            monkeypatch.setenv("OPENAI_API_KEY", API_KEY)

    # -- lifecycle ------------------------------------------------------------------------

    def start(self) -> FakeLLM:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                fake._handle(self)

            def log_message(self, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()
        return self

    def close(self) -> None:
        self._closing.set()
        self._gathered.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def __enter__(self) -> FakeLLM:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- serving --------------------------------------------------------------------------

    def _handle(self, http: BaseHTTPRequestHandler) -> None:
        with self._lock:
            self._in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)
            self._held.add(id(http))
            if self.max_in_flight >= self.gather:
                self._gathered.set()
        try:
            if not self._gathered.is_set():  # the closing server lets a held request go
                self._gathered.wait(self.hang_seconds)
            if self.delay:
                self._closing.wait(self.delay)
            self._answer(http)
        finally:
            self._release(http)

    def _release(self, http: BaseHTTPRequestHandler) -> None:
        """The request stops counting as in flight once its reply starts: the client may send
        its next one as soon as it has read this reply, before this thread returns."""
        with self._lock:
            if id(http) in self._held:
                self._held.discard(id(http))
                self._in_flight -= 1

    def _answer(self, http: BaseHTTPRequestHandler) -> None:
        length = int(http.headers.get("Content-Length") or 0)
        raw = http.rfile.read(length)
        path = http.path.split("?")[0]
        kind = {
            "/v1/chat/completions": "chat",
            "/v1/messages": "messages",
            "/v1/embeddings": "embeddings",
        }.get(path)
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            body = {}
        request = Request(
            path, kind or "unknown", {k.lower(): v for k, v in http.headers.items()}, body, time.time()
        )
        with self._lock:
            self.requests.append(request)
        if kind is None:
            return self._send(http, request, 404, {"error": {"message": f"no route {path}"}})
        if self.require_key and not self._authorised(request):
            return self._send(http, request, 401, {"error": {"message": "invalid API key"}})
        failure = self._take_failure(request)
        if failure is not None and failure.kind == "hang":
            request.status = 0
            self._closing.wait(self.hang_seconds)
            return None
        if failure is not None and failure.kind in ("400", "429", "500"):
            status = int(failure.kind)
            headers = {}
            if status == 429 and failure.retry_after is not None:
                headers["Retry-After"] = str(failure.retry_after)
            message = {
                400: "response_format is not supported by this server",
                429: "rate limited",
                500: "the server had an error",
            }[status]
            return self._send(http, request, status, {"error": {"message": message}}, headers)
        if failure is not None and failure.kind == "bad-body":
            return self._send_raw(http, request, 200, b"<html>upstream error</html>")
        if kind == "embeddings":
            return self._send(http, request, 200, self._embeddings(request))
        text = '{"oops": ' if failure is not None else self._reply_text(request)
        shape = self._anthropic if kind == "messages" else self._openai
        return self._send(http, request, 200, shape(request, text))

    def _authorised(self, request: Request) -> bool:
        given = request.headers.get("x-api-key") or request.headers.get("authorization", "").removeprefix(
            "Bearer "
        )
        return given == self.require_key

    def _take_failure(self, request: Request) -> _Failure | None:
        with self._lock:
            for failure in self._failures:
                if failure.used >= failure.times:
                    continue
                if failure.match is not None and not _Rule(failure.match, "", None).fits(request):
                    continue
                failure.used += 1
                return failure
        return None

    def _reply_text(self, request: Request) -> str:
        with self._lock:
            rule = next((r for r in self._rules if r.fits(request)), None)
            if rule is not None:
                rule.used += 1
        reply = rule.reply if rule is not None else self.default
        if callable(reply):
            reply = reply(request)
        return reply if isinstance(reply, str) else json.dumps(reply)

    def _count_tokens(self, prompt: str, completion: str) -> tuple[int, int]:
        p, c = _tokens(prompt), _tokens(completion)
        with self._lock:
            self.prompt_tokens += p
            self.completion_tokens += c
        return p, c

    def _openai(self, request: Request, text: str) -> dict[str, Any]:
        p, c = self._count_tokens(request.prompt, text)
        body: dict[str, Any] = {
            "id": f"chatcmpl-fake-{len(self.requests)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": self.reply_model or request.model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": text},
                    "finish_reason": "stop",
                }
            ],
        }
        if self.report_usage:
            body["usage"] = {"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c}
        return body

    def _anthropic(self, request: Request, text: str) -> dict[str, Any]:
        p, c = self._count_tokens(request.prompt, text)
        forced = (request.body.get("tool_choice") or {}).get("name")
        content: list[dict[str, Any]] = [{"type": "text", "text": text}]
        stop = "end_turn"
        if forced:
            try:
                value = json.loads(text)
            except json.JSONDecodeError:
                value = None
            if isinstance(value, dict):
                content = [
                    {
                        "type": "tool_use",
                        "id": f"toolu_fake_{len(self.requests)}",
                        "name": forced,
                        "input": value,
                    }
                ]
                stop = "tool_use"
        body: dict[str, Any] = {
            "id": f"msg_fake_{len(self.requests)}",
            "type": "message",
            "role": "assistant",
            "model": self.reply_model or request.model,
            "content": content,
            "stop_reason": stop,
        }
        if self.report_usage:
            body["usage"] = {"input_tokens": p, "output_tokens": c}
        return body

    def _embeddings(self, request: Request) -> dict[str, Any]:
        inputs = request.body.get("input")
        texts = inputs if isinstance(inputs, list) else [str(inputs)]
        data = [
            {"object": "embedding", "index": i, "embedding": fake_vector(t, self.embed_dim)}
            for i, t in enumerate(texts)
        ]
        p, _ = self._count_tokens("".join(texts), "")
        body: dict[str, Any] = {"object": "list", "data": data, "model": request.model}
        if self.report_usage:
            body["usage"] = {"prompt_tokens": p, "total_tokens": p}
        return body

    def _send(
        self,
        http: BaseHTTPRequestHandler,
        request: Request,
        status: int,
        body: dict[str, Any],
        headers: dict[str, str] | None = None,
    ) -> None:
        self._send_raw(http, request, status, json.dumps(body).encode(), headers)

    def _send_raw(
        self,
        http: BaseHTTPRequestHandler,
        request: Request,
        status: int,
        data: bytes,
        headers: dict[str, str] | None = None,
    ) -> None:
        request.status = status
        self._release(http)
        try:
            http.send_response(status)
            http.send_header("Content-Type", "application/json")
            http.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                http.send_header(name, value)
            http.end_headers()
            http.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass


def fake_vector(text: str, dim: int = 8) -> list[float]:
    """The server's embedding of a text: deterministic, from the text's SHA-256."""
    digest = hashlib.sha256(text.encode()).digest()
    while len(digest) < dim:
        digest += hashlib.sha256(digest).digest()
    return [(b - 127.5) / 127.5 for b in digest[:dim]]


@pytest.fixture(name="fake_llm")
def fake_llm_fixture(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLLM]:
    """A running FakeLLM that Lore is pointed at as `openai:fake-model`, with quick retries."""
    server = FakeLLM().start()
    server.use("openai", monkeypatch)
    monkeypatch.setenv("LORE_LLM_RETRY_BASE", "0.01")
    monkeypatch.setenv("LORE_LLM_TIMEOUT", "10")
    try:
        yield server
    finally:
        server.close()
