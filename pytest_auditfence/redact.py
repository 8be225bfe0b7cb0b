"""Secret redaction applied to everything captured before it is written anywhere.

Owns `Redactor`: provider key patterns, bearer/JWT tokens, credential-named fields, secret env values, a user hook.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pytest_auditfence.errors import AuditFenceError
from pytest_auditfence.textfmt import ConversionHookError, decode_structure, found_in_parts, to_jsonable

__all__ = ["ENV_NAME_WORDS", "MIN_ENV_SECRET_LENGTH", "Redactor", "is_credential_key", "marker"]

MIN_ENV_SECRET_LENGTH = 8
ENV_NAME_WORDS = ("KEY", "TOKEN", "SECRET", "PASSWORD")

# Dict keys whose whole value is a credential, compared with case, `-` and `_` ignored.
_CREDENTIAL_KEYS = frozenset(
    {
        "apikey",
        "xapikey",
        "authorization",
        "proxyauthorization",
        "password",
        "passwd",
        "passphrase",
        "secret",
        "token",
        "accesstoken",
        "refreshtoken",
        "idtoken",
        "authtoken",
        "sessiontoken",
        "bearertoken",
        "cookie",
        "setcookie",
        "privatekey",
        "secretkey",
        "accesskey",
        "clientsecret",
        "awssecretaccesskey",
        "credentials",
    }
)
# ...and keys that end like one (`openai_api_key`, `github_token`, `db_password`).
_CREDENTIAL_SUFFIXES = ("apikey", "secret", "password", "passwd", "token", "secretkey", "privatekey", "accesskey")

_MARKER = re.compile(r"\[REDACTED:[^\]\s]*\]")

# A secret must not continue a word, so "task-list" or "risk-adjusted" never match `sk-`; "key-sk-..." does.
# A line break or tab written as an escape (`\n`, `\r`, `\t` in a repr or a JSON string inside a string) also
# ends a word: without it, the `n` of `'intro\nghp_...'` hid the token behind it.
_ESCAPED_BREAK = r"(?<=\\[nrt])"
_B = rf"(?:(?<![A-Za-z0-9])|{_ESCAPED_BREAK})"
_WORD_START = rf"(?:\b|{_ESCAPED_BREAK})"


def marker(kind: str) -> str:
    """The text that replaces a secret of `kind` (e.g. `openai`, `env:OPENAI_API_KEY`)."""
    return f"[REDACTED:{kind}]"


def is_credential_key(key: str) -> bool:
    """True when a dict key names a credential (api_key, Authorization, x-api-key, db_password...)."""
    folded = key.lower().replace("-", "").replace("_", "").replace(" ", "")
    return folded in _CREDENTIAL_KEYS or folded.endswith(_CREDENTIAL_SUFFIXES)


@dataclass(frozen=True)
class _Rule:
    kind: str
    pattern: re.Pattern[str]
    # Cheap substrings (lower-case) of which one must occur before the regex is worth running.
    hints: tuple[str, ...]
    # Group whose text is replaced; 0 replaces the whole match (a prefix such as "Bearer " stays).
    group: int = 0
    # Extra check on the secret part, to keep ordinary prose out.
    accept: Callable[[str], bool] | None = None


def _looks_random(token: str) -> bool:
    # Real credentials carry digits or are long; "bearer instruments" or "token: approximately" are prose.
    return len(token) >= 20 or (len(token) >= 8 and any(ch.isdigit() for ch in token))


# Field names that say their value is a credential; a field may carry a prefix ('db_password', 'x-api-key').
_FIELD_PREFIX = r"(?:[a-z0-9]+[_\-])*"
_SECRET_NAMES = r"api[_\-]?key|client[_\-]?secret|secret[_\-]?key|secret|password|passwd|passphrase"
_TOKEN_NAMES = r"access[_\-]?token|auth[_\-]?token|refresh[_\-]?token|token"

_RULES: tuple[_Rule, ...] = (
    _Rule(
        "private-key",
        re.compile(
            r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(?:-----END [A-Z ]*PRIVATE KEY-----|\Z)", re.DOTALL
        ),
        ("private key-----",),
    ),
    # Anthropic before OpenAI: `sk-ant-...` would otherwise be reported as an OpenAI key.
    _Rule("anthropic", re.compile(_B + r"sk-ant-[A-Za-z0-9_\-]{20,}"), ("sk-ant-",)),
    _Rule(
        "openai",
        re.compile(_B + r"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}"),
        ("sk-",),
    ),
    _Rule("github", re.compile(_B + r"(?:ghp|gho|ghs|ghu|ghr)_[A-Za-z0-9]{20,}"), ("ghp_", "gho_", "ghs_", "ghu_", "ghr_")),
    _Rule("github", re.compile(_B + r"github_pat_[A-Za-z0-9_]{20,}"), ("github_pat_",)),
    _Rule("aws", re.compile(_B + r"(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])"), ("akia", "asia")),
    _Rule(
        "aws",
        re.compile(
            r"(?i)(aws_?secret_?access_?key[\"']?\s*[:=]\s*[\"']?)([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])"
        ),
        ("secret",),
        group=2,
    ),
    _Rule("google", re.compile(_B + r"AIza[0-9A-Za-z_\-]{35,}"), ("aiza",)),
    _Rule("tavily", re.compile(_B + r"tvly-(?:dev-|prod-)?[A-Za-z0-9_\-]{16,}"), ("tvly-",)),
    _Rule("huggingface", re.compile(_B + r"hf_[A-Za-z0-9]{30,}"), ("hf_",)),
    _Rule("langsmith", re.compile(_B + r"lsv2_(?:pt|sk)_[A-Za-z0-9_]{20,}"), ("lsv2_",)),
    _Rule("slack", re.compile(_B + r"xox[abposr]-[A-Za-z0-9\-]{10,}"), ("xox",)),
    _Rule("stripe", re.compile(_B + r"(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}"), ("_live_", "_test_")),
    _Rule(
        "bearer",
        re.compile(r"(?i)(" + _WORD_START + r"bearer\s+)([A-Za-z0-9._~+/=\-]{8,})"),
        ("bearer",),
        group=2,
        accept=_looks_random,
    ),
    _Rule(
        "authorization",
        re.compile(r"(?i)(" + _WORD_START + r"authorization[\"']?\s*[:=]\s*[\"']?(?:basic|token|digest)\s+)([A-Za-z0-9._~+/=\-]{8,})"),
        ("authorization",),
        group=2,
    ),
    _Rule(
        "jwt",
        re.compile(_B + r"eyJ[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]*"),
        ("eyj",),
    ),
    # Credentials inside URLs: `postgres://user:password@host`, `https://user:token@proxy`.
    _Rule(
        "url-credential",
        re.compile(r"(?i)(" + _WORD_START + r"[a-z][a-z0-9+.\-]{1,20}://[^\s:/@\[\]\"'<>]{0,128}:)([^\s@/\"'<>]{1,256})(@)"),
        ("://",),
        group=2,
    ),
    # A quoted value of a password/secret/api-key field, whatever its length or spaces, in Python
    # literals, JSON and JSON encoded again (`\"client_secret\": \"...\"`).
    _Rule(
        "credential",
        re.compile(
            rf"(?i)({_B}{_FIELD_PREFIX}(?:{_SECRET_NAMES}|{_TOKEN_NAMES})"
            r"(?:\\*[\"'])?\s*[:=]\s*(\\*[\"']))((?:(?!\2).){1,512}?)(\2)"
        ),
        ("key", "token", "secret", "passw"),
        group=3,
        accept=lambda value: "[REDACTED:" not in value and bool(value.strip()),
    ),
    # An unquoted value of a field named like a password or secret: any word of 6+ characters (short
    # passwords are passwords too), in `key: value` text, query strings, env dumps and YAML.
    _Rule(
        "credential",
        re.compile(
            rf"(?i)({_B}{_FIELD_PREFIX}(?:{_SECRET_NAMES})\s*[:=]\s*)"
            r"(?![A-Za-z_\-]*[:=])([^\s\"'\\&,;\[\]<>]{6,})"
        ),
        ("key", "secret", "passw"),
        group=2,
    ),
    # Tokens in the same forms, when they look random (prose says "token: approximately").
    _Rule(
        "credential",
        re.compile(
            rf"(?i)({_B}{_FIELD_PREFIX}(?:{_TOKEN_NAMES})(?:\\*[\"'])?\s*[:=]\s*(?:\\*[\"'])?)"
            r"(?![A-Za-z_\-]*[:=])([^\s\"'\\&,;\[\]<>]{8,})"
        ),
        ("token",),
        group=2,
        accept=_looks_random,
    ),
    # The old rule, for the forms above with quotes the newer ones do not cover.
    _Rule(
        "credential",
        re.compile(
            r"(?i)(" + _B + r"(?:api[_\-]?key|access[_\-]?token|auth[_\-]?token|refresh[_\-]?token"
            r"|client[_\-]?secret|secret[_\-]?key|secret|password|passwd|token)(?:\\*[\"'])?\s*[:=]\s*(?:\\*[\"'])?)"
            r"([^\s\"'\\&,;\[\]<>]{8,})"
        ),
        ("key", "token", "secret", "passw"),
        group=2,
        accept=_looks_random,
    ),
)


# Whether any rule could match: most strings (numbers, names, prose) skip every regex. Substring
# tests on the lower-cased text are much faster than one case-insensitive alternation.
_ALL_HINTS = tuple(sorted({h for rule in _RULES for h in rule.hints}))


def _hints_in(text: str) -> set[str]:
    """The rules' hints `text` holds, any case: a trace file can be megabytes, so each hint is looked for once
    per round, not once per rule that names it."""
    lowered = text.lower()
    return {h for h in _ALL_HINTS if h in lowered}


class Redactor:
    """Replaces secrets by `[REDACTED:<kind>]` in text and in any captured value.

    `env=None` reads `os.environ` once, now: the value of every variable whose name contains
    KEY, TOKEN, SECRET or PASSWORD and that is at least 8 characters long is redacted wherever it
    appears, longest first, as `[REDACTED:env:NAME]`. Built-in provider patterns follow, then
    `extra` (the user's `redact=` hook) on every string. `Redactor(enabled=False)` is the explicit
    opt-out: text passes untouched.
    """

    def __init__(
        self,
        enabled: bool = True,
        extra: Callable[[str], str] | None = None,
        env: Mapping[str, str] | None = None,
    ) -> None:
        if extra is not None and not callable(extra):
            raise AuditFenceError(
                f"redact= must be a callable taking and returning a str, got a {type(extra).__name__} "
                "(not shown: it may hold a secret). Pass a function such as "
                "`lambda text: text.replace(...)`, or None."
            )
        if env is not None and not isinstance(env, Mapping):
            raise AuditFenceError(
                f"Redactor(env=...) must be a mapping of variable names to values, got "
                f"{type(env).__name__}. Pass a dict, or None to read os.environ."
            )
        self.enabled = bool(enabled)
        self.extra = extra
        self._key_cache: dict[str, str] = {}
        self._credential_kinds: dict[str, str | None] = {}
        source = os.environ if env is None else env
        self._env_names: dict[str, str] = {}
        for name in sorted(source):
            value = source[name]
            upper = str(name).upper()
            if (
                isinstance(value, str)
                and len(value) >= MIN_ENV_SECRET_LENGTH
                and any(word in upper for word in ENV_NAME_WORDS)
                and value not in self._env_names  # the first name in sorted order labels a shared value
            ):
                self._env_names[value] = str(name)
        ordered = sorted(self._env_names, key=lambda v: (-len(v), v))
        self._env_values = tuple(ordered)
        self._env_pattern = re.compile("|".join(re.escape(v) for v in ordered)) if ordered else None
        # A value with a line break could span two parts of a text (text_of_parts): then parts say nothing.
        self._env_multiline = any("\n" in v for v in ordered)

    @property
    def env_names(self) -> tuple[str, ...]:
        """Names of the environment variables whose values are redacted (sorted; never the values)."""
        return tuple(sorted(set(self._env_names.values())))

    def __repr__(self) -> str:  # never shows a value
        return f"Redactor(enabled={self.enabled}, extra={_callable_name(self.extra)}, env_names={list(self.env_names)})"

    # ---- text

    def text(self, s: str) -> str:
        """`s` with every secret replaced; idempotent when no `extra` hook is set."""
        if not self.enabled:
            return s
        if not isinstance(s, str):
            raise AuditFenceError(
                f"Redactor.text() takes a str, got {type(s).__name__}. Use Redactor.value() for other data."
            )
        redacted = self._builtin(s)
        if self.extra is not None:
            redacted = self._run_extra(redacted)
        return redacted

    def leaves_lines(self, parts: list[str], clean: dict[str, bool] | None = None) -> bool:
        """Whether `text("\n".join(parts) + "\n")` is that text unchanged, found from the parts: no hint and
        no env value spans a line break, so a text whose parts hold none holds none. A node's input holds
        every earlier message again; `clean` remembers, per long part, whether it holds one (share it
        between the texts of one batch, whose parts repeat as the same str objects). False means: redact."""
        if not self.enabled:
            return True
        if self.extra is not None or self._env_multiline:
            return False
        return not found_in_parts(parts, self._may_redact, {} if clean is None else clean)

    def _may_redact(self, s: str) -> bool:
        return bool(_hints_in(s)) or any(v in s for v in self._env_values)

    def _builtin(self, s: str) -> str:
        # Repeat until nothing changes: a replacement can expose a neighbour to a boundary rule.
        # Each round replaces unredacted characters by markers only, so this ends.
        present = _hints_in(s)
        if not present and not any(v in s for v in self._env_values):
            return s
        while True:
            before = s
            if self._env_pattern is not None and any(v in s for v in self._env_values):
                s = _outside_markers(s, lambda part: self._env_pattern.sub(self._env_marker, part))  # type: ignore[union-attr]
                present = _hints_in(s)
            for rule in _RULES:
                if not present.isdisjoint(rule.hints):
                    s = _outside_markers(s, lambda part, rule=rule: _apply(rule, part))
            if s == before:
                return s
            present = _hints_in(s)

    def _env_marker(self, match: re.Match[str]) -> str:
        return marker(f"env:{self._env_names[match.group()]}")

    def _run_extra(self, s: str) -> str:
        try:
            result = self.extra(s)  # type: ignore[misc]
        except Exception as exc:
            raise AuditFenceError(
                f"the redact= callable {_callable_name(self.extra)} raised {type(exc).__name__}; "
                "nothing was written unredacted. Fix the callable so that it returns a str for every "
                "string it is given."
            ) from exc
        if not isinstance(result, str):
            raise AuditFenceError(
                f"the redact= callable {_callable_name(self.extra)} returned {type(result).__name__}, "
                "not str; nothing was written unredacted. Make it return the redacted text."
            )
        return result

    # ---- values

    def value(self, obj: Any, memo: dict[Any, Any] | None = None) -> Any:
        """The JSON-able form of `obj` (see `to_jsonable`, and its `memo`) with every string redacted and
        the whole value of any credential-named key (api_key, Authorization, token, cookie...) replaced.

        With a `memo` shared by a batch of values, each distinct string is also redacted once per batch
        (a message is in the input of every later node), and the value is converted and redacted in one
        pass; the user's hook still sees every string, in a second pass over the converted value."""
        if not self.enabled:
            return to_jsonable(obj, memo)
        if memo is None or self.extra is not None:
            return self._walk(to_jsonable(obj, memo))
        done = memo.setdefault(_STRINGS, {})

        def string(text: str) -> str:
            redacted = done.get(text)
            if redacted is None:
                redacted = done[text] = self._string(text)
            return redacted

        try:
            # Each dict and string of the result is redacted as it is made: the same result as _walk over
            # to_jsonable's (the memo then holds redacted messages, so it is never shared with other calls).
            return to_jsonable(obj, memo, strings=string, mapping=self._redacted_keys)
        except ConversionHookError as exc:
            raise exc.__cause__ from None  # type: ignore[misc]

    def _walk(self, data: Any) -> Any:
        if isinstance(data, str):
            return self._string(data)
        if isinstance(data, list):
            return [self._walk(item) for item in data]
        if isinstance(data, dict):
            out: dict[str, Any] = {}
            for key, item in data.items():
                new_key, kind = self._key_info(key)
                while new_key in out:  # two keys redacted to the same marker: keep both
                    new_key += "'"
                # a credential's value is never walked: the user's hook does not see it either
                out[new_key] = marker(kind) if kind is not None and item is not None else self._walk(item)
            return {k: out[k] for k in sorted(out)}
        return data

    def _redacted_keys(self, data: dict[str, Any]) -> dict[str, Any]:
        """_walk's step for one dict whose values are redacted already (its keys come sorted): the same dict
        when no key changes and none names a credential."""
        infos = [self._key_info(key) for key in data]
        if all(new_key == key and (kind is None or item is None)
               for (key, item), (new_key, kind) in zip(data.items(), infos, strict=True)):
            return data
        out: dict[str, Any] = {}
        for (_, item), (new_key, kind) in zip(data.items(), infos, strict=True):
            while new_key in out:
                new_key += "'"
            out[new_key] = marker(kind) if kind is not None and item is not None else item
        return {k: out[k] for k in sorted(out)}

    def _key_info(self, key: str) -> tuple[str, str | None]:
        """(the key redacted, the marker kind if it names a credential, else None)."""
        kind = self._credential_kinds.get(key, _UNKNOWN)
        if kind is _UNKNOWN:
            kind = _kind_of_key(key) if is_credential_key(key) else None
            if len(self._credential_kinds) < 10_000:
                self._credential_kinds[key] = kind
        return self._key(key), kind

    def _key(self, key: str) -> str:
        # Records repeat their keys thousands of times; the built-in rules give the same answer each
        # time. The user's hook is not cached: it may count or log what it sees.
        if self.extra is not None:
            return self.text(key)
        cached = self._key_cache.get(key)
        if cached is None:
            cached = self._key_cache[key] = self._builtin(key) if len(self._key_cache) < 10_000 else self.text(key)
        return cached

    def _string(self, s: str) -> str:
        # JSON or Python-literal text is redacted as structure too, so `{"password": "hunter2"}` or
        # `{'password': 'hunter2'}` inside a string and secrets hidden behind escapes (`sk-\u0061...`) are
        # caught: the trace renders such a string as the structure it holds.
        decoded = decode_structure(s)
        if decoded is not None:
            plain = to_jsonable(decoded)
            redacted = self._walk(plain)
            if redacted != plain:
                return json.dumps(redacted, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        return self.text(s)


_STRINGS = "strings"  # the key of a batch memo's string cache (the memo's other keys are object ids)
_UNKNOWN: Any = object()


def _kind_of_key(key: str) -> str:
    return re.sub(r"[^a-z0-9_\-]", "", key.lower()) or "field"


def _apply(rule: _Rule, text: str) -> str:
    def replace(match: re.Match[str]) -> str:
        secret = match.group(rule.group)
        if rule.accept is not None and not rule.accept(secret):
            return match.group(0)
        if rule.group == 0:
            return marker(rule.kind)
        start, end = match.span(rule.group)
        whole_start = match.start()
        whole = match.group(0)
        return whole[: start - whole_start] + marker(rule.kind) + whole[end - whole_start :]

    return rule.pattern.sub(replace, text)


def _outside_markers(text: str, transform: Callable[[str], str]) -> str:
    """Apply `transform` to the parts of `text` between existing `[REDACTED:...]` markers."""
    if "[REDACTED:" not in text:
        return transform(text)
    pieces = _MARKER.split(text)
    found = _MARKER.findall(text)
    out = [transform(pieces[0])]
    for mark, piece in zip(found, pieces[1:], strict=True):
        out.append(mark)
        out.append(transform(piece))
    return "".join(out)


def _callable_name(func: Any) -> str:
    if func is None:
        return "None"
    module = getattr(func, "__module__", None)
    name = getattr(func, "__qualname__", None) or getattr(func, "__name__", None) or type(func).__qualname__
    return f"{module}.{name}" if module else str(name)
