"""The scripted OpenAI-compatible HTTP server on 127.0.0.1 (stdlib `http.server`, one thread per connection).

Owns the HTTP side: routing, authorization check, request recording, JSON and SSE responses, shutdown.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
from collections.abc import Callable, Iterable, Sequence
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

from pytest_auditfence.testing.replies import (
    ChatRequest,
    RecordedRequest,
    Reply,
    ScriptError,
    completion_body,
    error_body,
    request_key,
    stream_chunks,
)

Rule = Callable[[ChatRequest], Reply]
_CHAT_PATHS = ("/v1/chat/completions", "/chat/completions")
_MODEL_PATHS = ("/v1/models", "/models")
# What the real API sends about the account; present so that cassette filters have something to drop.
_ACCOUNT_HEADERS = {
    "openai-organization": "org-scripted",
    "openai-project": "proj_scripted",
    "openai-processing-ms": "1",
    "set-cookie": "__cf_bm=scripted-session; path=/; HttpOnly",
}


class ScriptedOpenAIServer:
    """An OpenAI-compatible Chat Completions server for offline tests.

    Serves `POST /v1/chat/completions` (and `/chat/completions`), streaming and not, with tool calls,
    `usage` and `finish_reason` as the real API sends them, plus `GET /v1/models`. Ids and `created`
    are derived from the request, so the same request gets byte-identical answers on every run.

    Replies come from exactly one of:
    - `script`: replies served in arrival order; a request past the end gets HTTP 500 whose message
      names the request index (sent with `x-should-retry: false` so clients fail at once);
    - `rule`: a function `ChatRequest -> Reply`. The reply depends on the request, not on arrival
      order, which keeps concurrent calls deterministic. An exception in the rule is an HTTP 500 that
      names it.

    Every request is recorded in `requests` (authorization header removed). A request without an
    `Authorization` header gets 401, like the real API.

        with ScriptedOpenAIServer(script=[Reply(content="Revenue was $383.3B.")]) as server:
            llm = ChatOpenAI(model="gpt-4o-mini", base_url=server.base_url, api_key="sk-test")
            assert llm.invoke("Revenue?").content == "Revenue was $383.3B."
            assert server.requests[0].json["messages"][0]["content"] == "Revenue?"

    Also usable with `async with`, or started and stopped by hand (`start()` / `stop()`), e.g. in a
    pytest fixture that yields it. `stop()` closes open keep-alive connections and joins every thread.
    """

    def __init__(
        self,
        script: Iterable[Reply] | None = None,
        *,
        rule: Rule | None = None,
        models: Sequence[str] = ("gpt-4o-mini", "gpt-4o"),
        require_auth: bool = True,
        host: str = "127.0.0.1",
    ) -> None:
        if (script is None) == (rule is None):
            raise ScriptError(
                "ScriptedOpenAIServer needs exactly one of script=[Reply(...), ...] or rule=callable, "
                f"got script={'set' if script is not None else 'None'} and rule={'set' if rule is not None else 'None'}"
            )
        if rule is not None and not callable(rule):
            raise ScriptError(f"ScriptedOpenAIServer(rule=...) must be callable ChatRequest -> Reply, got {rule!r}")
        self._script: list[Reply] = [] if script is None else _checked_replies(script)
        self._rule = rule
        self._served = 0  # replies taken from the script
        self._models = tuple(models)
        self._require_auth = require_auth
        self._host = host
        self._lock = threading.Lock()
        self._requests: list[RecordedRequest] = []
        self._httpd: _Server | None = None
        self._thread: threading.Thread | None = None

    # lifecycle -----------------------------------------------------------------------------------
    def start(self) -> ScriptedOpenAIServer:
        if self._httpd is not None:
            raise ScriptError(f"ScriptedOpenAIServer is already running at {self.base_url}; call stop() first")
        httpd = _Server((self._host, 0), _Handler)
        httpd.owner = self
        self._httpd = httpd
        self._thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                        name=f"scripted-openai-{httpd.server_address[1]}", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, close the port and open connections, and join all server threads."""
        httpd, thread = self._httpd, self._thread
        if httpd is None:
            return
        httpd.shutdown()
        httpd.close_connections()
        httpd.server_close()  # joins the per-connection threads (block_on_close)
        if thread is not None:
            thread.join()
        self._httpd = self._thread = None

    def __enter__(self) -> ScriptedOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    async def __aenter__(self) -> ScriptedOpenAIServer:
        return self.start()

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        # joining threads blocks; keep the event loop free while it happens
        await asyncio.to_thread(self.stop)

    # addresses ------------------------------------------------------------------------------------
    @property
    def running(self) -> bool:
        return self._httpd is not None

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise ScriptError("ScriptedOpenAIServer is not running: use it as a context manager or call start()")
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        """`http://127.0.0.1:<port>` (no path)."""
        return f"http://{self._host}:{self.port}"

    @property
    def base_url(self) -> str:
        """The `base_url` to give an OpenAI client: `http://127.0.0.1:<port>/v1`."""
        return f"{self.url}/v1"

    # script and records --------------------------------------------------------------------------
    def extend(self, replies: Iterable[Reply]) -> None:
        """Append replies to the script (script mode only), e.g. from a test using a shared server."""
        if self._rule is not None:
            raise ScriptError("extend() needs a server built with script=[...]; this one follows a rule")
        checked = _checked_replies(replies)
        with self._lock:
            self._script.extend(checked)

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request received so far, in arrival order (a copy)."""
        with self._lock:
            return list(self._requests)

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path in _CHAT_PATHS]

    @property
    def remaining(self) -> int:
        """Scripted replies not served yet (0 in rule mode)."""
        with self._lock:
            return len(self._script) - self._served

    # request handling (called from handler threads) ------------------------------------------------
    def _record(self, method: str, path: str, headers: dict[str, str], body: Any) -> int:
        with self._lock:
            index = len(self._requests)
            self._requests.append(RecordedRequest(index, method, path, headers, body))
            return index

    def _reply_for(self, request: ChatRequest) -> Reply | tuple[int, str]:
        if self._rule is None:
            with self._lock:
                if self._served < len(self._script):
                    reply = self._script[self._served]
                    self._served += 1
                    return reply
                served = self._served
            return 500, (f"scripted server: script exhausted at request #{request.index}: all {served} scripted "
                         "replies were already served; add Reply(...) to script=[...] or use rule=...")
        try:
            reply = self._rule(request)
        except Exception as exc:  # the rule is user code: report it to the client, do not kill the thread
            return 500, f"scripted server: rule raised {type(exc).__name__}: {exc} (request #{request.index})"
        if not isinstance(reply, Reply):
            return 500, (f"scripted server: rule returned {type(reply).__name__} for request #{request.index}; "
                         "it must return a Reply")
        return reply


def _checked_replies(replies: Iterable[Reply]) -> list[Reply]:
    out = list(replies)
    for position, reply in enumerate(out):
        if not isinstance(reply, Reply):
            raise ScriptError(f"script[{position}] is a {type(reply).__name__}, not a Reply; write Reply(content=...)")
    return out


class _Server(ThreadingHTTPServer):
    daemon_threads = False
    block_on_close = True
    owner: ScriptedOpenAIServer

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.open_sockets: set[socket.socket] = set()
        self.sockets_lock = threading.Lock()
        super().__init__(*args, **kwargs)

    def close_connections(self) -> None:
        # keep-alive handler threads block reading the next request; shutting their sockets ends them
        with self.sockets_lock:
            sockets = list(self.open_sockets)
        for sock in sockets:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "ScriptedOpenAI/1"
    sys_version = ""
    timeout = 30
    server: _Server

    def setup(self) -> None:
        super().setup()
        with self.server.sockets_lock:
            self.server.open_sockets.add(self.connection)

    def finish(self) -> None:
        with self.server.sockets_lock:
            self.server.open_sockets.discard(self.connection)
        try:
            super().finish()
        except OSError:
            pass

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        pass  # tests read server.requests; stderr noise helps nobody

    # routing ---------------------------------------------------------------------------------------
    def do_GET(self) -> None:  # noqa: N802 - stdlib naming
        self._handle("GET")

    def do_POST(self) -> None:  # noqa: N802
        self._handle("POST")

    def do_PUT(self) -> None:  # noqa: N802
        self._handle("PUT")

    def do_DELETE(self) -> None:  # noqa: N802
        self._handle("DELETE")

    def _handle(self, method: str) -> None:
        owner = self.server.owner
        path = self.path.split("?", 1)[0]
        raw = self.rfile.read(int(self.headers.get("content-length") or 0))
        headers = {k.lower(): v for k, v in self.headers.items() if k.lower() != "authorization"}
        try:
            body: Any = json.loads(raw) if raw else None
        except ValueError:
            body = None
            bad_json = True
        else:
            bad_json = False
        index = owner._record(method, path, headers, body)
        if owner._require_auth and not self.headers.get("authorization"):
            self._send_error(401, f"request #{index}: no Authorization header; pass api_key=... to the client",
                             code="missing_api_key")
        elif path in _MODEL_PATHS and method == "GET":
            data = [{"id": m, "object": "model", "created": 1_700_000_000, "owned_by": "scripted"}
                    for m in owner._models]
            self._send_json(200, {"object": "list", "data": data})
        elif path in _CHAT_PATHS and method == "POST":
            if bad_json or not isinstance(body, dict):
                self._send_error(400, f"request #{index}: the body is not a JSON object", no_retry=True)
            else:
                self._chat(index, body)
        elif path in _CHAT_PATHS or path in _MODEL_PATHS:
            self._send_error(405, f"{method} is not allowed on {path}", no_retry=True)
        else:
            self._send_error(404, f"unknown path {path!r}; this server answers POST /v1/chat/completions "
                                  "and GET /v1/models", code="unknown_url", no_retry=True)

    def _chat(self, index: int, body: dict[str, Any]) -> None:
        messages = body.get("messages")
        if not isinstance(messages, list) or not all(isinstance(m, dict) for m in messages):
            self._send_error(400, f"request #{index}: 'messages' must be a list of objects", no_retry=True)
            return
        model = str(body.get("model") or "")
        request = ChatRequest(index=index, model=model, messages=messages, tools=list(body.get("tools") or []),
                              stream=bool(body.get("stream")), body=body)
        reply = self.server.owner._reply_for(request)
        if isinstance(reply, tuple):
            self._send_error(reply[0], reply[1], no_retry=True)
            return
        extra = {**_ACCOUNT_HEADERS, "x-request-id": f"req_{request_key(body)}", **dict(reply.headers)}
        if reply.is_error:
            self._send_json(reply.status, error_body(reply.status, str(reply.error)), extra)
        elif request.stream:
            self._send_stream(stream_chunks(reply, body, model), extra)
        else:
            self._send_json(200, completion_body(reply, body, model), extra)

    # writing ---------------------------------------------------------------------------------------
    def _send_json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload, sort_keys=True, ensure_ascii=False).encode("utf-8")
        self.send_response(status, HTTPStatus(status).phrase)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _send_error(self, status: int, message: str, *, code: str | None = None, no_retry: bool = False) -> None:
        headers = {"x-should-retry": "false"} if no_retry else {}
        self._send_json(status, error_body(status, message, code), headers)

    def _send_stream(self, chunks: list[dict[str, Any]], headers: dict[str, str]) -> None:
        self.send_response(200, "OK")
        self.send_header("content-type", "text/event-stream; charset=utf-8")
        self.send_header("transfer-encoding", "chunked")
        self.send_header("cache-control", "no-cache")
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        events = [f"data: {json.dumps(c, sort_keys=True, ensure_ascii=False)}\n\n" for c in chunks]
        events.append("data: [DONE]\n\n")
        for event in events:
            data = event.encode("utf-8")
            self.wfile.write(f"{len(data):x}\r\n".encode("ascii") + data + b"\r\n")
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()
