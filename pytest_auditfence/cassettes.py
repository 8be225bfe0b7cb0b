"""Recorded LLM calls: per-test vcrpy cassettes, their names, request matching, secret filtering and misses.

vcrpy is imported inside the functions that need it, so the plugin can import `RECORD_MODES` for free.
"""

from __future__ import annotations

import contextlib
import difflib
import hashlib
import inspect
import json
import os
import re
import shlex
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from pytest_auditfence.errors import AuditFenceError, CassetteMissError, CassetteYamlError

if TYPE_CHECKING:  # pragma: no cover
    import vcr
    from vcr.cassette import Cassette
    from vcr.request import Request

    from pytest_auditfence.redact import Redactor

RECORD_MODES = ("none", "once", "new_episodes", "all")
"""vcrpy record modes accepted by `--fence-record-mode`; "none" (replay only) is the default."""

RECORD_OPTION = "--fence-record-mode"
MATCH_ON = ("method", "scheme", "host", "path", "query", "fence_json_body")
"""Never the port (servers under test listen on random ports) and never headers."""

# Request headers never written: credentials, account ids, and per-run noise (host carries the port).
DROPPED_REQUEST_HEADERS = frozenset({
    "authorization", "proxy-authorization", "api-key", "x-api-key", "openai-organization", "openai-project",
    "cookie", "host", "content-length", "connection", "accept-encoding", "user-agent",
})
DROPPED_REQUEST_HEADER_PREFIXES = ("x-stainless-",)
# Response headers never written: account data, session cookies, request ids and timings.
DROPPED_RESPONSE_HEADERS = frozenset({
    "openai-organization", "openai-project", "openai-processing-ms", "openai-version", "set-cookie",
    "x-request-id", "request-id", "cf-ray", "cf-cache-status", "date", "server", "alt-svc",
    "x-envoy-upstream-service-time", "content-length", "transfer-encoding",
})
DROPPED_RESPONSE_HEADER_PREFIXES = ("x-ratelimit-",)
# Query parameters that carry keys on some providers (Google `key=`, proxies `api_key=`); any parameter
# whose name is credential-like (`apikey`, `x-auth-token`) or whose value looks like a secret goes too.
DROPPED_QUERY_PARAMETERS = ("key", "api_key", "api-key", "access_token", "token", "sig", "signature")

_SAFE_NAME = re.compile(r"[^A-Za-z0-9_.\-\[\]]+")
_MAX_NAME = 120

TextFilter = Callable[[str], str]


class CassetteConfigError(AuditFenceError, ValueError):
    """A cassette was asked for with an unknown record mode or a node id that names no test."""


# naming ------------------------------------------------------------------------------------------
def cassette_path(test_nodeid: str, test_file: Path, folder: Path | None = None) -> Path:
    """The YAML cassette of one test, stable across runs and machines.

    Default: `<test module dir>/cassettes/<module stem>/<test name>.yaml` (pytest-recording's layout).
    With `folder`: `<folder>/<module path from the node id, without .py>/<test name>.yaml`, so two
    modules with the same name in different packages never share a folder. The test name is the
    node id after the module (`Class.test[param-id]`); characters unsafe in file names become `_`
    and, when anything was replaced or cut, a short hash of the original keeps names distinct.
    """
    module_part, sep, test_part = test_nodeid.partition("::")
    if not sep or not test_part:
        raise CassetteConfigError(
            f"cassette_path: node id {test_nodeid!r} names no test; expected 'path/test_mod.py::test_name[...]'"
        )
    name = test_part.replace("::", ".")
    safe = _SAFE_NAME.sub("_", name).strip("._") or "test"
    if safe != name or len(safe) > _MAX_NAME:
        safe = f"{safe[:_MAX_NAME]}-{hashlib.sha256(name.encode('utf-8')).hexdigest()[:8]}"
    if folder is None:
        return Path(test_file).parent / "cassettes" / Path(test_file).stem / f"{safe}.yaml"
    module = Path(module_part)
    relative = module.with_suffix("") if module.suffix == ".py" else module
    parts = [p for p in relative.parts if p not in ("", ".", "..", "/")]
    return Path(folder).joinpath(*parts) / f"{safe}.yaml"


FOREIGN_RECORD_OPTION = "--record-mode"
"""pytest-recording's option: what records a cassette opened by `@pytest.mark.vcr`."""


def rerecord_command(test_nodeid: str | None, path: Path | str, *, exists: bool, option: str = RECORD_OPTION) -> str:
    """The shell command that records this test's cassette again (`option`: the record-mode option
    of whoever opened the cassette: ours, or pytest-recording's `--record-mode`)."""
    target = shlex.quote(test_nodeid) if test_nodeid else "<test node id>"
    command = f"pytest {target} {option}=once"
    if exists:  # "once" only records when the file is absent
        return f"rm {shlex.quote(_display(path))} && {command}  (or {option}=new_episodes to add only new calls)"
    return command


def _display(path: Path | str) -> str:
    """Relative to the working directory when inside it (what a user types), else as given."""
    try:
        return Path(path).resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return str(path)


# secrets and normalisation -----------------------------------------------------------------------
def _redactor(extra_filters: Sequence[TextFilter]) -> Redactor:
    from pytest_auditfence.redact import Redactor

    filters = tuple(extra_filters)
    for position, extra in enumerate(filters):
        if not callable(extra):
            raise CassetteConfigError(
                f"extra_filters[{position}] is a {type(extra).__name__}, not a callable str -> str; "
                "pass e.g. lambda text: text.replace('codename', '[X]')"
            )

    def chained(text: str) -> str:
        for extra in filters:
            text = extra(text)
        return text

    return Redactor(extra=chained if filters else None)


def _as_text(body: Any) -> str | None:
    if body is None:
        return None
    if hasattr(body, "read"):
        body = body.read()
    if isinstance(body, (bytes, bytearray)):
        try:
            return bytes(body).decode("utf-8")
        except UnicodeDecodeError:
            return None
    return body if isinstance(body, str) else None


def normalised_body(body: Any) -> Any:
    """What request matching compares: parsed JSON (so key order and spacing never matter), else text."""
    text = _as_text(body)
    if text is None:
        return body
    if not text:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return text


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)


def _json_body_matcher(r1: Request, r2: Request) -> None:
    a, b = normalised_body(r1.body), normalised_body(r2.body)
    if a != b:
        raise AssertionError(first_difference(b, a) or "body differs")


def first_difference(recorded: Any, current: Any, path: str = "body") -> str | None:
    """`body.messages[2].content: recorded '...' / now '...'`, or None when equal."""
    if isinstance(recorded, dict) and isinstance(current, dict):
        for key in sorted(set(recorded) | set(current), key=str):
            child = f"{path}.{key}"
            if key not in recorded:
                return f"{child}: not recorded / now {_short(current[key])}"
            if key not in current:
                return f"{child}: recorded {_short(recorded[key])} / now absent"
            found = first_difference(recorded[key], current[key], child)
            if found:
                return found
        return None
    if isinstance(recorded, list) and isinstance(current, list):
        for i in range(max(len(recorded), len(current))):
            child = f"{path}[{i}]"
            if i >= len(recorded):
                return f"{child}: not recorded / now {_short(current[i])}"
            if i >= len(current):
                return f"{child}: recorded {_short(recorded[i])} / now absent"
            found = first_difference(recorded[i], current[i], child)
            if found:
                return found
        return None
    if recorded != current:
        if isinstance(recorded, str) and isinstance(current, str):
            start = _window_start(recorded, current)
            return f"{path}: recorded {_short(recorded, start)} / now {_short(current, start)}"
        return f"{path}: recorded {_short(recorded)} / now {_short(current)}"
    return None


def _window_start(a: str, b: str, context: int = 20, limit: int = 60) -> int:
    """Where to start showing two long strings so that their first difference is visible."""
    if max(len(a), len(b)) <= limit:
        return 0
    same = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    return max(0, same - context)


def _short(value: Any, start: int = 0, limit: int = 60) -> str:
    if isinstance(value, str):
        shown = value[start:start + limit]
        return ("…" if start else "") + repr(shown) + ("…" if start + limit < len(value) else "")
    text = _canonical(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _without_port(uri: str) -> str:
    parts = urlsplit(uri)
    if parts.port is None:
        return uri
    host = parts.hostname or ""
    netloc = f"[{host}]" if ":" in host else host
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


def _credential_header(name: str, value: Any, redactor: Redactor) -> bool:
    """A header whose name or value looks like a credential (`X-Auth-Token`, a value holding a key)."""
    lower = name.lower()
    from pytest_auditfence.redact import is_credential_key

    if lower in DROPPED_REQUEST_HEADERS or lower.startswith(DROPPED_REQUEST_HEADER_PREFIXES) or is_credential_key(name):
        return True
    return isinstance(value, str) and redactor.text(value) != value


def _without_credentials(uri: str, redactor: Redactor) -> str:
    """`uri` without user info and without query parameters whose name or value looks like a credential."""
    from pytest_auditfence.redact import is_credential_key

    parts = urlsplit(uri)
    netloc = parts.netloc.rpartition("@")[2]
    kept = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True)
            if k.lower() not in DROPPED_QUERY_PARAMETERS and not is_credential_key(k) and redactor.text(v) == v]
    query = urlencode(kept) if len(kept) != len(parse_qsl(parts.query, keep_blank_values=True)) else parts.query
    if netloc == parts.netloc and query == parts.query:
        return uri
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def _redact_body(text: str, redactor: Redactor) -> str:
    # JSON is redacted as structure, so credential-named fields (api_key, token...) go too
    try:
        parsed = json.loads(text)
    except ValueError:
        return redactor.text(text)
    return _canonical(redactor.value(parsed))


def _request_filter(redactor: Redactor) -> Callable[[Request], Request]:
    def before_record_request(request: Request) -> Request:
        # vcrpy runs this on recorded requests and on live ones before matching, so both sides agree
        request.uri = _without_credentials(_without_port(request.uri), redactor)
        headers = {}
        for name, value in request.headers.items():
            if _credential_header(name, value, redactor):
                continue
            headers[name] = value
        request.headers = headers
        text = _as_text(request.body)
        if text:
            request.body = _redact_body(text, redactor).encode("utf-8")
        return request

    return before_record_request


def _response_filter(redactor: Redactor) -> Callable[[dict[str, Any]], dict[str, Any]]:
    from pytest_auditfence.redact import is_credential_key

    def before_record_response(response: dict[str, Any]) -> dict[str, Any]:
        response["headers"] = {
            name: [redactor.text(v) if isinstance(v, str) else v for v in values]
            for name, values in response.get("headers", {}).items()
            if name.lower() not in DROPPED_RESPONSE_HEADERS
            and not name.lower().startswith(DROPPED_RESPONSE_HEADER_PREFIXES) and not is_credential_key(name)
        }
        body = response.get("body", {})
        text = _as_text(body.get("string"))
        if text:
            redacted = _redact_body(text, redactor)
            if normalised_body(redacted) != normalised_body(text):  # keep the served bytes when clean
                body["string"] = redacted.encode("utf-8")
        return response

    return before_record_response


def _fence_matchers() -> list[Callable[[Request, Request], None]]:
    from vcr import matchers

    return [matchers.method, matchers.scheme, matchers.host, matchers.path, matchers.query, _json_body_matcher]


def adopt_cassette(cassette: Cassette, extra_filters: Sequence[TextFilter], *, matching: bool = True) -> None:
    """Make a cassette someone else opened (pytest-recording's `@pytest.mark.vcr`, a suite's own
    `vcr.use_cassette`) safe and portable for a test that uses a fence fixture.

    Our filters run after theirs before anything is written or matched: credential, per-run and
    `x-stainless-*` request headers are dropped, key-carrying query parameters removed, and secrets in
    bodies and header values redacted. With `matching` (the caller found no `match_on` of the user's),
    requests match the fenced way - method, scheme, host, path, query and the parsed JSON body, never
    the port - so a cassette recorded against a server on one port replays against any other.
    """
    if matching:
        cassette._match_on = _fence_matchers()
    theirs_request, theirs_response = cassette._before_record_request, cassette._before_record_response
    if getattr(theirs_request, "auditfence_guarded", False):
        return
    redactor = _redactor(extra_filters)
    ours_response = _response_filter(redactor)

    def before_record_request(request: Request) -> Request | None:
        request = theirs_request(request)
        if request is None:
            return None
        request.uri = _without_credentials(request.uri, redactor)
        request.headers = {
            name: value for name, value in request.headers.items() if not _credential_header(name, value, redactor)
        }
        text = _as_text(request.body)
        if text:
            request.body = _redact_body(text, redactor).encode("utf-8")
        return request

    def before_record_response(response: dict[str, Any]) -> dict[str, Any] | None:
        response = theirs_response(response)
        return None if response is None else ours_response(response)

    before_record_request.auditfence_guarded = True  # type: ignore[attr-defined]
    cassette._before_record_request = before_record_request
    cassette._before_record_response = before_record_response


# vcrpy wiring ------------------------------------------------------------------------------------
def _check_record_mode(record_mode: str) -> str:
    if record_mode not in RECORD_MODES:
        raise CassetteConfigError(
            f"record mode {record_mode!r} is not one of {', '.join(RECORD_MODES)}; "
            f"use {RECORD_OPTION}=once to record missing cassettes, 'none' to replay only"
        )
    return record_mode


def set_record_mode(cassette: Cassette, record_mode: str) -> None:
    """Change the record mode of an open cassette (vcrpy reads it on every request and at save)."""
    from vcr.record_mode import RecordMode

    cassette.record_mode = RecordMode(_check_record_mode(record_mode))


def make_vcr(record_mode: str = "none", *, extra_filters: Sequence[TextFilter] = ()) -> vcr.VCR:
    """A `vcr.VCR` set up the fenced way.

    Matches on method, scheme, host, path, query and the JSON body parsed (key order and spacing
    ignored), never on port or headers. Before anything is written, credential and per-run request
    headers are dropped, secrets in bodies and remaining header values are replaced by `[REDACTED]`
    (API keys of common providers, bearer tokens, values of environment variables named
    *KEY*/*TOKEN*/*SECRET*/*PASSWORD*, then each of `extra_filters`), the port leaves the URI, and
    response headers carrying account data, cookies, request ids or timings are dropped. Interactions
    are saved sorted by request, so a cassette recorded from concurrent calls is byte-stable.
    """
    import vcr as vcrpy

    _check_record_mode(record_mode)
    redactor = _redactor(extra_filters)
    recorder = vcrpy.VCR(
        record_mode=record_mode,
        match_on=MATCH_ON,
        before_record_request=_request_filter(redactor),
        before_record_response=_response_filter(redactor),
        filter_query_parameters=DROPPED_QUERY_PARAMETERS,
        decode_compressed_response=True,
        serializer="yaml",
    )
    recorder.register_matcher("fence_json_body", _json_body_matcher)
    recorder.register_persister(_sorted_persister())
    return recorder


def _sorted_persister() -> type:
    from vcr.persisters.filesystem import FilesystemPersister

    class SortedPersister(FilesystemPersister):
        """Writes interactions ordered by request; equal requests keep their recorded order."""

        @staticmethod
        def save_cassette(cassette_path: Any, cassette_dict: dict[str, Any], serializer: Any) -> None:
            pairs = sorted(
                zip(cassette_dict["requests"], cassette_dict["responses"], strict=True),
                key=lambda pair: (pair[0].method, _without_port(pair[0].uri), _canonical(normalised_body(pair[0].body))),
            )
            ordered = {**cassette_dict, "requests": [p[0] for p in pairs], "responses": [p[1] for p in pairs]}
            FilesystemPersister.save_cassette(cassette_path, ordered, serializer)

    return SortedPersister


def _fence_cassette_class(test_nodeid: str | None) -> type:
    from vcr.cassette import Cassette

    class FenceCassette(Cassette):
        """Raises `CassetteMissError` itself, so no HTTP client can wrap or swallow vcrpy's error."""

        auditfence = True  # recorded with --fence-record-mode (a foreign cassette: its own option)

        def can_play_response_for(self, request: Request) -> bool:
            playable = super().can_play_response_for(request)
            if not playable and self.write_protected and self.filter_request(request):
                raise miss_error(self, request, test_nodeid)
            return bool(playable)

    return FenceCassette


def active_cassette() -> Cassette | None:
    """The vcrpy cassette patched into httpx2 right now (e.g. pytest-recording's), or None."""
    try:
        import httpx2
        from vcr.cassette import Cassette
    except ImportError:  # pragma: no cover - both are dependencies
        return None
    handler = httpx2.HTTPTransport.handle_request
    if not hasattr(handler, "__wrapped__"):
        return None
    # vcrpy's replacement is a closure over the cassette it serves
    cassette = inspect.getclosurevars(handler).nonlocals.get("cassette")
    return cassette if isinstance(cassette, Cassette) else None


@contextlib.contextmanager
def use_cassette(
    path: Path | str,
    record_mode: str = "none",
    *,
    test_nodeid: str | None = None,
    extra_filters: Sequence[TextFilter] = (),
    match_foreign: bool = True,
) -> Iterator[Cassette]:
    """Replay (and, if the record mode allows, record) every HTTP call made inside the block.

    A request with no recorded response raises `CassetteMissError` naming the cassette, the
    nearest recorded request, the first differing field and the command that re-records
    (`test_nodeid` fills it in). If a vcrpy cassette is already active - pytest-recording's
    `@pytest.mark.vcr`, or a `vcr.use_cassette` of the suite - nothing is patched a second time:
    that cassette serves the calls and is what this yields, with our secret filters added and (unless
    `match_foreign` is False: the user chose its matchers) our matching (`adopt_cassette`); a miss in
    it is still raised as `CassetteMissError`.
    """
    current = active_cassette()
    if current is not None:
        if not getattr(current, "auditfence", False):  # ours (the test's, open for its body) is set up already
            adopt_cassette(current, extra_filters, matching=match_foreign)
        with translate_misses(test_nodeid):
            yield current
        return
    recorder = make_vcr(record_mode, extra_filters=extra_filters)
    from vcr.cassette import CassetteContextDecorator

    config = recorder.get_merged_config(path=os.fspath(path))
    context = CassetteContextDecorator.from_args(_fence_cassette_class(test_nodeid), **config)
    import yaml

    with contextlib.ExitStack() as stack:
        try:
            cassette = stack.enter_context(context)
        except (yaml.YAMLError, KeyError, TypeError, ValueError) as exc:  # loading the file, not the test body
            raise cassette_yaml_error(path, test_nodeid, exc) from None
        with translate_misses(test_nodeid):
            yield cassette


def cassette_yaml_error(path: Path | str, test_nodeid: str | None, exc: BaseException) -> CassetteYamlError:
    """The named error for a cassette file that does not load: file, line, what is wrong, the fix."""
    mark = getattr(exc, "problem_mark", None)
    where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
    problem = getattr(exc, "problem", None) or f"{type(exc).__name__}: {exc}"
    return CassetteYamlError(
        f"cassette {_display(path)}: not a readable vcrpy YAML cassette{where} ({problem}); it was edited or "
        f"damaged. Record it again: {rerecord_command(test_nodeid, path, exists=True)}"
    )


def check_cassette(path: Path | str, test_nodeid: str | None = None) -> None:
    """Raise `CassetteYamlError` when the cassette at `path` exists and is not a loadable YAML cassette."""
    import yaml

    file = Path(path)
    if not file.is_file():
        return
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        data = yaml.load(file.read_text(encoding="utf-8"), Loader=loader)  # noqa: S506 - a safe loader
    except (yaml.YAMLError, UnicodeDecodeError, OSError) as exc:
        raise cassette_yaml_error(path, test_nodeid, exc) from None
    if not isinstance(data, dict) or not isinstance(data.get("interactions"), list):
        raise cassette_yaml_error(path, test_nodeid, ValueError("no 'interactions' list at the top"))


@contextlib.contextmanager
def translate_misses(test_nodeid: str | None = None) -> Iterator[None]:
    """Turn vcrpy's `CannotOverwriteExistingCassetteException`, even wrapped by a client, into `CassetteMissError`."""
    try:
        yield
    except CassetteMissError:
        raise
    except BaseException as exc:
        found = _find_miss(exc)
        if found is None:
            raise
        if isinstance(found, CassetteMissError):
            raise found from exc
        raise miss_error(found.cassette, found.failed_request, test_nodeid) from exc


def _find_miss(exc: BaseException) -> BaseException | None:
    from vcr.errors import CannotOverwriteExistingCassetteException

    seen: set[int] = set()
    stack: list[BaseException] = [exc]
    while stack:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, CassetteMissError):
            return current
        if isinstance(current, CannotOverwriteExistingCassetteException) and current.failed_request is not None:
            return current
        stack.extend(e for e in (current.__cause__, current.__context__) if e is not None)
        if isinstance(current, BaseExceptionGroup):
            stack.extend(current.exceptions)
    return None


# miss messages -----------------------------------------------------------------------------------
def miss_error(cassette: Cassette, request: Request, test_nodeid: str | None = None) -> CassetteMissError:
    """A short `CassetteMissError`: the cassette, the nearest recorded request, the first difference, the fix."""
    live = cassette.filter_request(request) or request
    path = Path(str(cassette._path))
    exists = path.is_file()
    mode = getattr(cassette.record_mode, "value", cassette.record_mode)
    lines = [f"cassette miss: {live.method} {live.scheme}://{live.host}{live.path} has no recorded response in "
             f"{_display(path)} (record mode {mode!r})"]
    nearest = _nearest(cassette, live)
    if not exists:
        lines.append("  the cassette file does not exist: this test was never recorded")
        difference = None
    elif nearest is None:
        lines.append("  the cassette holds no recorded requests")
        difference = None
    else:
        index, stored, ratio = nearest
        difference = _request_difference(stored, live)
        lines.append(f"  nearest recorded: #{index} {stored.method} {stored.path} (body {ratio:.0%} similar)")
        if difference is None:
            recorded = sum(1 for s, _ in cassette.data if _same_request(s, live))
            difference = f"none: this exact request was recorded {recorded} time(s) and each was already replayed"
        lines.append(f"  differs at: {difference}")
    option = RECORD_OPTION if getattr(cassette, "auditfence", False) else FOREIGN_RECORD_OPTION
    command = rerecord_command(test_nodeid, path, exists=exists, option=option)
    lines.append(f"  re-record: {command}")
    error = CassetteMissError("\n".join(lines))
    error.cassette_path = path  # type: ignore[attr-defined]
    error.nearest_index = None if nearest is None else nearest[0]  # type: ignore[attr-defined]
    error.differing_field = difference  # type: ignore[attr-defined]
    error.rerecord_command = command  # type: ignore[attr-defined]
    return error


def _same_request(a: Request, b: Request) -> bool:
    return _request_difference(a, b) is None


def _request_difference(stored: Request, live: Request) -> str | None:
    for field in ("method", "scheme", "host", "path", "query"):
        if getattr(stored, field) != getattr(live, field):
            return f"{field}: recorded {getattr(stored, field)!r} / now {getattr(live, field)!r}"
    return first_difference(normalised_body(stored.body), normalised_body(live.body))


def _nearest(cassette: Cassette, live: Request) -> tuple[int, Request, float] | None:
    live_text = _canonical(normalised_body(live.body))
    best: tuple[tuple[bool, float, int], int, Request, float] | None = None
    for index, (stored, _) in enumerate(cassette.data):
        # quick_ratio is linear in the body size; prompts can be tens of kilobytes
        ratio = difflib.SequenceMatcher(None, _canonical(normalised_body(stored.body)), live_text).quick_ratio()
        same_route = (stored.method, stored.path) == (live.method, live.path)
        key = (same_route, ratio, -index)
        if best is None or key > best[0]:
            best = (key, index, stored, ratio)
    return None if best is None else (best[1], best[2], best[3])
