"""Deterministic serialisation of LangGraph values and their grep-friendly text rendering.

Owns `to_jsonable`, `stable_json`, `render_text` and `truncate`; imports no LangChain or LangGraph.
"""

from __future__ import annotations

import ast
import dataclasses
import datetime as _dt
import decimal
import enum
import hashlib
import itertools
import json
import math
import operator
import pathlib
import re
import sys
import uuid
from collections import deque
from collections.abc import Callable, Mapping
from json.encoder import c_make_encoder, encode_basestring  # type: ignore[attr-defined]
from typing import Any

from pytest_auditfence.errors import AuditFenceError

__all__ = [
    "BINARY_MARKER",
    "CYCLE_MARKER",
    "ConversionHookError",
    "DEPTH_MARKER",
    "MAX_DEPTH",
    "MESSAGE_TYPES",
    "MIN_WRAP_AT",
    "bytes_text",
    "decode_structure",
    "is_message",
    "render_text",
    "dump_event",
    "dump_indented",
    "dump_json",
    "stable_json",
    "to_jsonable",
    "truncate",
    "truncate_lines",
]

MAX_DEPTH = 64
CYCLE_MARKER = "<cycle>"
DEPTH_MARKER = "<max depth>"
MIN_WRAP_AT = 20

# The `type` values of a LangChain message in its JSON-able form (chunks are folded into these).
MESSAGE_TYPES: frozenset[str] = frozenset(
    {"ai", "human", "system", "tool", "function", "chat", "developer", "remove"}
)
# Keys `to_jsonable` may give a message; a dict with other keys is never taken for a message.
_MESSAGE_KEYS: frozenset[str] = frozenset(
    {
        "type",
        "content",
        "name",
        "role",
        "tool_calls",
        "invalid_tool_calls",
        "tool_call_id",
        "status",
        "artifact",
        "usage_metadata",
        "additional_kwargs",
        "response_metadata",
    }
)
# Provider metadata that changes between two runs of the same conversation (or replays of it).
_VOLATILE_KEYS: frozenset[str] = frozenset(
    {"id", "created", "system_fingerprint", "request_id", "x_request_id", "x-request-id", "timestamp"}
)
_VOLATILE_SUFFIXES = ("_at", "_id", "duration", "latency", "_time", "timestamp")
_STABLE_KEYS: frozenset[str] = frozenset({"model_id", "model_name", "model", "finish_reason"})

_ADDRESS = re.compile(r"\s+at\s+0x[0-9a-fA-F]+|0x[0-9a-fA-F]{8,}")
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\x7f]")
_SCALARS = (str, int, float, bool, type(None))


# --------------------------------------------------------------------------------------------
# to_jsonable


def to_jsonable(
    value: Any,
    memo: dict[Any, Any] | None = None,
    *,
    strings: Callable[[str], str] | None = None,
    mapping: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
) -> Any:
    """Convert any value a LangGraph node, tool or model sees into plain, deterministic JSON data.

    Dicts come back with string keys in sorted order, sets sorted, tuples as lists; LangChain
    messages keep their content, name, tool calls and usage but lose the random `id` and the
    volatile provider metadata; LangGraph `Send`/`Command`/`Interrupt` become tagged dicts;
    bytes become text if they are UTF-8 text, else a `<binary: N bytes sha256=...>` marker; any other object becomes its repr without
    memory addresses. Never raises: cycles give `"<cycle>"`, nesting deeper than `MAX_DEPTH`
    gives `"<max depth>"`. Applying it twice gives the same result as applying it once.

    `memo`: a dict shared by several conversions of values that hold the same LangChain messages (a
    capture converts each node's input, and every later input holds the earlier messages again); each
    message is then converted once. Only for values nobody changes in between.

    `strings` and `mapping` let a caller change the result while it is built, in the same pass (the
    redactor does: redaction.Redactor.value): `strings` is applied to every string the result holds as a
    value, `mapping` to every dict of the result once its values are done (it may rename keys or replace
    values; its keys come sorted and it returns them sorted). Both must be pure. Dict keys and the order of
    set items are worked out from the unchanged values, as without them. An exception either raises leaves
    the conversion (it is not turned into a repr), as ConversionHookError (the original is its cause).
    """
    return _Converter(memo, strings, mapping).convert(value, 0)


class ConversionHookError(Exception):
    """A `strings` or `mapping` hook of to_jsonable raised (the original is its `__cause__`); never degraded
    to a repr, since a repr would carry the value past the hook."""


BINARY_MARKER = "<binary: "  # how a trace file shows bytes that are not text (see bytes_text)


def bytes_text(data: bytes) -> str:
    """Bytes as a tool returned them: UTF-8 text is text (a tool that returns `resp.content`); anything else
    (not UTF-8, or NULs and control characters as in images and archives) is a marker naming its size and
    digest, which the capture flags as binary so a verdict can say the source could not be searched."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = None
    if text is not None and "\x00" not in text:
        controls = len(_CONTROL.findall(text))
        if controls * 10 <= len(text):
            return _clean_str(text)
    return f"{BINARY_MARKER}{len(data)} bytes sha256={hashlib.sha256(data).hexdigest()[:16]}>"


def stable_json(value: Any) -> str:
    """Compact JSON of `to_jsonable(value)`: sorted keys, UTF-8 text, byte-identical for equal input."""
    return dump_json(to_jsonable(value))


# json.dumps builds a new encoder on every call, which costs about as much as encoding a small dict; a
# capture encodes some thousand small values, so the encoders are built once. `c_make_encoder` is None on a
# Python without the C accelerator: json.dumps then (same output). No circular check: the data is a tree.
_COMPACT = (c_make_encoder(None, None, encode_basestring, None, ":", ",", True, False, False)
            if c_make_encoder is not None else None)
_EVENT = (c_make_encoder(None, str, encode_basestring, None, ": ", ", ", True, False, True)
          if c_make_encoder is not None else None)


def dump_json(data: Any) -> str:
    """`stable_json` of data that is `to_jsonable` output already (it is idempotent): one pass, not two."""
    if _COMPACT is None:
        return json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return "".join(_COMPACT(data, 0))


def dump_event(record: Any) -> str:
    """A journal line's JSON: `json.dumps(record, sort_keys=True, ensure_ascii=False, default=str)`."""
    if _EVENT is None:
        return json.dumps(record, sort_keys=True, ensure_ascii=False, default=str)
    return "".join(_EVENT(record, 0))


def dump_indented(data: Any) -> str:
    """`json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False)` of JSON data (what `manifest.json`
    holds). That call runs json's pure-Python encoder (its C encoder has no indent), a generator per
    container; this writes the same text in one recursive pass. Data it does not know (a key that is not a
    str, a type other than JSON's) goes to json.dumps, which decides."""
    out: list[str] = []
    try:
        _put_indented(data, "\n", out)
    except _NotPlainJson:
        return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False)
    return "".join(out)


class _NotPlainJson(Exception):
    pass


_FLOAT_WORDS = {math.inf: "Infinity", -math.inf: "-Infinity"}
_WORDS = {None: "null", True: "true", False: "false"}


def _put_indented(value: Any, newline: str, out: list[str]) -> None:
    kind = type(value)
    if kind is dict:
        if not value:
            out.append("{}")
            return
        if not all(type(key) is str for key in value):
            raise _NotPlainJson
        inner = newline + "  "
        separator = "{" + inner
        for key in sorted(value):
            item = value[key]
            head = separator + encode_basestring(key) + ": "
            separator = "," + inner
            if type(item) is str:  # the common leaves inline: a call per leaf costs as much as the leaf
                out.append(head + encode_basestring(item))
            elif type(item) is int:
                out.append(head + int.__repr__(item))
            elif item is None or item is True or item is False:
                out.append(head + _WORDS[item])
            else:
                out.append(head)
                _put_indented(item, inner, out)
        out.append(newline + "}")
    elif kind is list:
        if not value:
            out.append("[]")
            return
        inner = newline + "  "
        separator = "[" + inner
        for item in value:
            out.append(separator)
            separator = "," + inner
            _put_indented(item, inner, out)
        out.append(newline + "]")
    elif kind is str:
        out.append(encode_basestring(value))
    elif kind is int:
        out.append(int.__repr__(value))
    elif kind is float:
        out.append("NaN" if value != value else _FLOAT_WORDS.get(value) or float.__repr__(value))
    elif value is None or kind is bool:
        out.append(_WORDS[value])
    else:
        raise _NotPlainJson


def _loaded_class(module: str, name: str) -> type | None:
    # A class whose module was never imported has no instances, so an isinstance check against it
    # can be skipped; this keeps the import of textfmt free of LangChain/LangGraph/pydantic.
    mod = sys.modules.get(module)
    cls = getattr(mod, name, None) if mod is not None else None
    return cls if isinstance(cls, type) else None


def _clean_str(text: str) -> str:
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates cannot be written to a UTF-8 trace file
        return text.encode("utf-8", "replace").decode("utf-8")
    return text


def _clean_repr(value: Any) -> str:
    try:
        text = repr(value)
    except Exception:  # a broken __repr__ must not break capture
        text = f"<{type(value).__name__} (repr failed)>"
    return _clean_str(_ADDRESS.sub("", text))


def _float(value: float) -> float | str:
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    return value


def _is_volatile_key(key: str) -> bool:
    lowered = key.lower()
    if lowered in _STABLE_KEYS:
        return False
    return lowered in _VOLATILE_KEYS or lowered.endswith(_VOLATILE_SUFFIXES)


def _message_type(raw: Any) -> str:
    text = str(raw)
    if text.endswith("MessageChunk"):
        text = text[: -len("MessageChunk")]
    return {"AI": "ai", "Human": "human", "System": "system", "Tool": "tool"}.get(text, text.lower())


def _hooked(hook: Callable[[Any], Any], value: Any) -> Any:
    try:
        return hook(value)
    except Exception as exc:
        raise ConversionHookError from exc


class _Converter:
    """One conversion: remembers the containers on the current path to spot cycles."""

    def __init__(
        self,
        memo: dict[Any, Any] | None = None,
        strings: Callable[[str], str] | None = None,
        mapping: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
    ) -> None:
        self._active: set[int] = set()
        self._memo = memo
        self._strings = strings
        self._mapping_hook = mapping
        self._hooks = strings is not None or mapping is not None
        self._plain_converter: _Converter | None = None
        # The greatest depth a container was met at (MAX_DEPTH when unknown: a memo's result taken whole), so a
        # message's conversion knows how deep it reached (_library_object) and serves every depth it fits.
        self._deepest = 0

    @property
    def _plain(self) -> _Converter:
        """Keys and set items are converted without the hooks (they are worked out from the unchanged values)."""
        if not self._hooks:
            return self
        if self._plain_converter is None:
            self._plain_converter = _Converter()
        return self._plain_converter

    def _string(self, text: str) -> str:
        return text if self._strings is None else _hooked(self._strings, text)

    def convert(self, value: Any, depth: int) -> Any:
        if isinstance(value, str):
            # str subclasses (StrEnum, LangChain's TextAccessor) become plain str
            return self._string(_clean_str(value if type(value) is str else str.__str__(value)))
        if isinstance(value, bool) or value is None:
            return value
        if isinstance(value, int) and not isinstance(value, enum.Enum):
            return int(value)
        if isinstance(value, float) and not isinstance(value, enum.Enum):
            number = _float(float(value))
            return self._string(number) if isinstance(number, str) else number
        if depth > self._deepest:
            self._deepest = depth
        if depth >= MAX_DEPTH:
            return self._string(DEPTH_MARKER)
        marker = id(value)
        if marker in self._active:
            return self._string(CYCLE_MARKER)
        if self._memo is not None:
            # A message converted before (see _library_object), found without the type checks on the way
            # there: every node's input holds all earlier messages again, and a model call's input holds them a
            # level deeper.
            hit = self._memo.get(marker)
            if hit is not None and hit[0] is value:
                converted = self._fitting(hit, depth + 1)
                if converted is not _NOT_HANDLED:
                    return converted
        self._active.add(marker)
        try:
            result = self._convert_object(value, depth + 1)
        except RecursionError:
            result = DEPTH_MARKER
        except ConversionHookError:
            raise
        except Exception:  # odd objects (raising properties, broken iterators) degrade to a repr
            result = _clean_repr(value)
        finally:
            self._active.discard(marker)
        if type(result) is _Converted:  # converted by a nested convert() already, hooks and all
            return result.value
        # Any string made here (a repr, bytes as text, a date...) is a value like any other.
        return self._string(result) if isinstance(result, str) else result

    def _convert_object(self, value: Any, depth: int) -> Any:
        if isinstance(value, dict):
            return self._mapping(value.items(), depth)
        if isinstance(value, (list, tuple, deque)):
            if isinstance(value, tuple) and hasattr(value, "_asdict"):  # NamedTuple
                return self._mapping(value._asdict().items(), depth)
            if self._memo is not None and type(value) is list and len(value) >= PREFIX_MIN:
                return self._extended_list(value, depth)
            return [self.convert(item, depth) for item in value]
        if isinstance(value, (set, frozenset)):
            items = sorted((self._plain.convert(item, depth) for item in value), key=_sort_key)
            return [self.convert(item, depth) for item in items] if self._hooks else items
        if isinstance(value, (bytes, bytearray, memoryview)):
            return bytes_text(bytes(value))
        if isinstance(value, enum.Enum):
            return value.value if isinstance(value.value, str) else f"{type(value).__name__}.{value.name}"
        if isinstance(value, (_dt.datetime, _dt.date, _dt.time)):
            return value.isoformat()
        if isinstance(value, (decimal.Decimal, uuid.UUID, pathlib.PurePath, _dt.timedelta)):
            return str(value)
        if isinstance(value, BaseException):
            message = _clean_str(_ADDRESS.sub("", str(value)))
            return f"{type(value).__name__}: {message}" if message else type(value).__name__
        special = self._library_object(value, depth)
        if special is not _NOT_HANDLED:
            return special
        if isinstance(value, Mapping):
            return self._mapping(value.items(), depth)
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            fields = {f.name: getattr(value, f.name, None) for f in dataclasses.fields(value)}
            return self._mapping(fields.items(), depth)
        return self._duck_typed(value, depth)

    def _extended_list(self, value: list[Any], depth: int) -> list[Any]:
        """`[self.convert(item, depth) for item in value]`, the items it shares with the last list of messages
        converted at this depth that began with the same message taken from that list's conversion: each
        is the memo's conversion of that message either way, so only the items after them are visited."""
        memo: dict[Any, Any] = self._memo  # type: ignore[assignment]
        key = (_MESSAGE_LIST, id(value[0]), depth)
        hit = memo.get(key)
        if hit is not None and not self._active.isdisjoint(map(id, hit[0])):
            hit = None  # one of its items is an ancestor of this list: a cycle converts to its marker instead
        out, done = extended_from(hit, value, lambda item: self.convert(item, depth))
        if done:
            self._deepest = MAX_DEPTH  # items taken whole: how deep they reach is not known here
        rest = value[done:] if done else value
        message_cls = _loaded_class("langchain_core.messages.base", "BaseMessage")
        if message_cls is not None and all(map(isinstance, rest, itertools.repeat(message_cls))):
            memo[key] = (list(value), out[:])  # the entry keeps the items alive: their ids stay theirs
        return out

    def _library_object(self, value: Any, depth: int) -> Any:
        message_cls = _loaded_class("langchain_core.messages.base", "BaseMessage")
        if message_cls is not None and isinstance(value, message_cls):
            if self._memo is None:
                return self._message(value, depth)
            hit = self._memo.get(id(value))
            # The entry keeps the message alive, so its id cannot be reused by another object meanwhile.
            if hit is not None and hit[0] is value:
                converted = self._fitting(hit, depth)
                if converted is not _NOT_HANDLED:
                    return converted
            outer, self._deepest = self._deepest, depth
            converted = self._message(value, depth)
            self._memo[id(value)] = (value, depth, converted, self._deepest)
            self._deepest = max(outer, self._deepest)
            return converted
        document_cls = _loaded_class("langchain_core.documents.base", "Document")
        if document_cls is not None and isinstance(value, document_cls):
            return self._mapping(
                [("page_content", value.page_content), ("metadata", value.metadata)], depth
            )
        send_cls = _loaded_class("langgraph.types", "Send")
        if send_cls is not None and isinstance(value, send_cls):
            fields = {"type": "send", "node": value.node, "arg": value.arg}
            if getattr(value, "timeout", None) is not None:
                fields["timeout"] = value.timeout
            return self._mapping(fields.items(), depth)
        command_cls = _loaded_class("langgraph.types", "Command")
        if command_cls is not None and isinstance(value, command_cls):
            fields = {"type": "command"}
            for name in ("graph", "update", "resume", "goto"):
                part = getattr(value, name, None)
                if part is not None and part != ():
                    fields[name] = part
            return self._mapping(fields.items(), depth)
        interrupt_cls = _loaded_class("langgraph.types", "Interrupt")
        if interrupt_cls is not None and isinstance(value, interrupt_cls):
            # the interrupt id hashes the checkpoint namespace (task ids): volatile, so dropped
            return self._mapping([("type", "interrupt"), ("value", value.value)], depth)
        overwrite_cls = _loaded_class("langgraph.types", "Overwrite")
        if overwrite_cls is not None and isinstance(value, overwrite_cls):
            return self._mapping([("type", "overwrite"), ("value", value.value)], depth)
        model_cls = _loaded_class("pydantic", "BaseModel")
        if model_cls is not None and isinstance(value, model_cls):
            names = list(type(value).model_fields)
            fields = {name: getattr(value, name, None) for name in names}
            extra = getattr(value, "__pydantic_extra__", None)
            if isinstance(extra, dict):
                fields.update({k: v for k, v in extra.items() if k not in fields})
            return self._mapping(fields.items(), depth)
        return _NOT_HANDLED

    def _fitting(self, hit: tuple[Any, int, Any, int], depth: int) -> Any:
        """A memo entry's conversion (made at depth `hit[1]`, reaching containers at depth `hit[3]`) when it is
        the conversion at `depth` too, else _NOT_HANDLED: a message sits one level deeper in a model call's
        input than in the state, and its conversion is the same at every depth where no part of it reaches
        MAX_DEPTH (only the depth marker depends on the depth)."""
        _, made_at, converted, deepest = hit
        reach = deepest + depth - made_at
        if depth != made_at and (deepest >= MAX_DEPTH or reach >= MAX_DEPTH):
            return _NOT_HANDLED
        if reach > self._deepest:
            self._deepest = reach
        return converted

    def _message(self, message: Any, depth: int) -> dict[str, Any]:
        kind = _message_type(getattr(message, "type", "message"))
        fields: dict[str, Any] = {"type": kind, "content": getattr(message, "content", "")}
        for name in ("name", "role", "tool_call_id", "usage_metadata", "artifact"):
            part = _field(message, name)
            if part is not None:
                fields[name] = part
        if kind == "tool":
            fields["status"] = getattr(message, "status", "success")
        calls = _field(message, "tool_calls") or []
        if calls:
            fields["tool_calls"] = [
                {"name": call.get("name"), "args": call.get("args"), "id": call.get("id")}
                for call in calls
                if isinstance(call, Mapping)
            ]
        invalid = _field(message, "invalid_tool_calls") or []
        if invalid:
            fields["invalid_tool_calls"] = [
                {k: v for k, v in call.items() if k != "type"} for call in invalid if isinstance(call, Mapping)
            ]
        for name in ("additional_kwargs", "response_metadata"):
            kept = _without_volatile(getattr(message, name, None))
            if kept:
                fields[name] = kept
        return self._mapping(fields.items(), depth)

    def _duck_typed(self, value: Any, depth: int) -> Any:
        # numpy arrays/scalars and pandas frames show up in financial tools; keep them as data
        if hasattr(value, "dtype") and callable(getattr(value, "tolist", None)):
            return _Converted(self.convert(value.tolist(), depth))
        if hasattr(value, "columns") and callable(getattr(value, "to_dict", None)):
            return _Converted(self.convert(value.to_dict(orient="records"), depth))
        return _clean_repr(value)

    def _mapping(self, items: Any, depth: int) -> dict[str, Any]:
        converted: dict[str, Any] = {}
        for key, item in items:
            text_key = self._key(key, depth)
            if text_key in converted:  # e.g. 1 and "1": keep both, deterministically
                base = f"{text_key} <{type(key).__name__}>"
                text_key, n = base, 2
                while text_key in converted:
                    text_key, n = f"{base} #{n}", n + 1
            converted[text_key] = self.convert(item, depth)
        done = {key: converted[key] for key in sorted(converted)}
        return done if self._mapping_hook is None else _hooked(self._mapping_hook, done)

    def _key(self, key: Any, depth: int) -> str:
        if isinstance(key, str):
            return _clean_str(key)
        converted = self._plain.convert(key, depth)
        if self._plain._deepest > self._deepest:  # a key's parts count for how deep a message reaches
            self._deepest = self._plain._deepest
        if isinstance(converted, str):
            return converted
        return json.dumps(converted, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


_NOT_HANDLED = object()
_NOTHING: Any = object()
# A list at least this long (a node's state of messages) is converted as the extension of the last one like it
# (`_Converter._extended_list`); BlobStore.put_value encodes it the same way. Shorter ones cost less than the check.
PREFIX_MIN = 8
_MESSAGE_LIST = "\x00message list"  # memo keys of _extended_list's entries


def extended_from(
    hit: tuple[list[Any], list[Any]] | None, items: list[Any], each: Callable[[Any], Any]
) -> tuple[list[Any], int]:
    """(`[each(item) for item in items]`, how many of its results came from `hit`): `hit` is an earlier
    list's items and results, whose results are taken when `items` begins with those very objects (compared
    at C speed). For an `each` whose result depends on the item object alone."""
    done = shared_prefix(hit, items)
    out = hit[1][:done] if done else []  # type: ignore[index]
    out.extend([each(item) for item in (items[done:] if done else items)])
    return out, done


def shared_prefix(hit: tuple[list[Any], Any] | None, items: list[Any]) -> int:
    """len(hit[0]) when `items` begins with the very objects of that earlier list (compared at C speed), else 0."""
    if hit is None:
        return 0
    done = len(hit[0])
    return done if done <= len(items) and all(map(operator.is_, hit[0], items)) else 0


# (class, attribute) -> whether `getattr(obj, name, None)` can be answered from the instance alone: a pydantic
# model class (LangChain's messages) that has no class attribute of that name and keeps BaseModel's
# __getattr__. Such a lookup of a field the class lacks ('role' of an AIMessage) otherwise goes through
# pydantic's __getattr__, which builds and raises an AttributeError: some microseconds, several per message.
_INSTANCE_ONLY: dict[tuple[type, str], bool] = {}


def _field(obj: Any, name: str) -> Any:
    """`getattr(obj, name, None)`, without pydantic's raised AttributeError for a field the class lacks."""
    cls = type(obj)
    instance_only = _INSTANCE_ONLY.get((cls, name))
    if instance_only is None:
        model_cls = _loaded_class("pydantic", "BaseModel")
        instance_only = _INSTANCE_ONLY[(cls, name)] = (
            model_cls is not None and isinstance(obj, model_cls) and not name.startswith("_")
            and getattr(cls, "__getattr__", None) is getattr(model_cls, "__getattr__", None)
            and not hasattr(cls, name)
        )
    if not instance_only:
        return getattr(obj, name, None)
    value = obj.__dict__.get(name, _NOTHING)  # a field's value (no descriptor of that name on the class)
    if value is not _NOTHING:
        return value
    extra = obj.__pydantic_extra__  # where BaseModel.__getattr__ looks next (extra="allow")
    return extra.get(name) if extra else None


class _Converted:
    """What a nested convert() returned for an object given as other data (an array's list): final as it is."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


def _without_volatile(metadata: Any) -> dict[str, Any]:
    if not isinstance(metadata, Mapping):
        return {}
    return {
        str(k): v
        for k, v in metadata.items()
        if v is not None and not _is_volatile_key(str(k))
    }


def _sort_key(item: Any) -> str:
    return json.dumps(item, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


# --------------------------------------------------------------------------------------------
# render_text


def is_message(value: Any) -> bool:
    """True when `value` is the JSON-able form of a LangChain message (as `to_jsonable` makes it)."""
    return (
        isinstance(value, dict)
        and value.get("type") in MESSAGE_TYPES
        and "content" in value
        and value.keys() <= _MESSAGE_KEYS
    )


def render_text(value: Any, *, wrap_at: int = 400) -> str:
    """Render `value` as the grep-friendly text of one trace file.

    - a dict gives `key: value` lines, keys sorted, nested dicts indented two spaces per level;
    - a list of two or more dicts sharing keys (records) gives a table: a header line of column
      names, then one line per record, cells separated by ` | `; when a cell holds nested or
      multi-line data, or a row would need wrapping, the list falls back to the nested form;
    - other lists give `- item` lines;
    - a string holding a JSON object or array is decoded and rendered as structure;
    - a multi-line string is an indented block under its key, one source line per file line, so
      a sentence that sat on one line of the source is found on one line of the file;
    - LangChain messages give `[ai]`, `[human]`, `[tool name=... id=...]` headed blocks with the
      content indented underneath and each tool call as `tool_call: name(args-json) id=...`.

    No line is longer than `wrap_at` characters (indentation included): a longer line is wrapped
    at the last space that fits, its continuation indented two more spaces. A phrase that crosses a
    wrap point is therefore found by a whitespace-normalised search (collapse every run of
    whitespace, newlines included, to one space on both sides); a token with no space within
    `wrap_at` characters is split hard and is found by a search that ignores whitespace.
    Control characters other than tab become `\\xNN` so that grep never takes a file for binary.
    The output ends with a newline, is byte-identical for equal input, and adds no timestamps,
    ids or addresses of its own.
    """
    if isinstance(wrap_at, bool) or not isinstance(wrap_at, int) or wrap_at < MIN_WRAP_AT:
        raise AuditFenceError(
            f"render_text(wrap_at=...) got {wrap_at!r}; it must be an int of at least {MIN_WRAP_AT} "
            f"(the default is 400). Pass a larger wrap_at."
        )
    return render_jsonable(to_jsonable(value), wrap_at=wrap_at)


class RenderCache:
    """What the files of one materialisation render alike, rendered once: a node's input is the whole state
    again, so the same messages and tool outputs (the same objects, as the blob reader shares them) sit in
    every later input and model call. Keyed by the object's identity; each entry keeps its object alive, so
    an id is never reused meanwhile. Only for values nobody changes while the cache lives."""

    __slots__ = ("blocks", "structures", "sequences")

    def __init__(self) -> None:
        # (id, kind, indent, depth, wrap_at) -> (object, block): a rendered string or message at that indent
        self.blocks: dict[tuple[int, int, int, int, int], tuple[Any, _Block]] = {}
        # (id of its first message, indent, depth, wrap_at) -> (the last list of messages, its entries)
        self.sequences: dict[tuple[int, int, int, int], tuple[list[Any], list[tuple[int, Any]]]] = {}
        self.structures: dict[int, tuple[str, Any]] = {}  # id(str) -> (str, the structure it holds or None)


def render_jsonable(data: Any, *, wrap_at: int = 400, cache: RenderCache | None = None) -> str:
    """`render_text` of data that is `to_jsonable` output already (it is idempotent): no second conversion.
    `cache` shares the rendering of repeated long strings and messages between calls (see RenderCache)."""
    return render_placed(data, wrap_at=wrap_at, cache=cache)[0]


# Where a long string sits in a rendered text: (the string, index of its first line, number of lines, the
# indent in front of each non-empty line). A hint only: whoever uses it checks the lines against the string.
Placement = tuple[str, int, int, int]


def render_placed(data: Any, *, wrap_at: int = 400, cache: RenderCache | None = None) -> tuple[str, list[Placement]]:
    """`render_jsonable`, and where each long string (at least _BLOCK_MIN characters, rendered as lines of
    its own) was placed in the text."""
    parts, placed = render_parts(data, wrap_at=wrap_at, cache=cache)
    return "\n".join(parts) + "\n", placed


def render_parts(data: Any, *, wrap_at: int = 400, cache: RenderCache | None = None) -> tuple[list[str], list[Placement]]:
    """`render_placed`'s text as parts: `"\n".join(parts) + "\n"` is the text, and every value rendered
    before (RenderCache) is one part, the same str object each time it is reused. Whoever scans the text
    can then remember what it found in a part instead of scanning it again in every later file."""
    renderer = _Renderer(wrap_at, cache)
    renderer.value(data, 0, 0)
    placed: list[Placement] = []
    return _wrapped(renderer.lines, wrap_at, placed, whole_blocks=True), placed


# Parts of a text this long are tested one by one by `found_in_parts`; shorter ones are tested together.
_REMEMBERED_PART = 256


def found_in_parts(parts: list[str], test: Callable[[str], bool], memo: dict[str, bool]) -> bool:
    """`test("\n".join(parts))` for a `test` that holds of a text when it holds of one of its lines (a
    search for something without a line break), remembering in `memo` what it gave for each part: the
    parts of later files repeat as the same str objects, so each is tested once per memo. Short parts not
    seen before are tested together, and remembered when that finds nothing (a looping agent's node input
    repeats every earlier short message too)."""
    short: list[str] = []
    for part in parts:
        found = memo.get(part)
        if found is None:
            if len(part) < _REMEMBERED_PART:
                short.append(part)
                continue
            found = memo[part] = test(part)
        if found:
            return True
    if not short:
        return False
    if test("\n".join(short)):
        return True
    memo.update(dict.fromkeys(short, False))
    return False


# A string at least this long (or a message) is rendered once per indent and reused (RenderCache).
_BLOCK_MIN = 256
_BLOCK = -1  # the indent of a (logical line) entry that is a rendered _Block


class _Block:
    """The lines one value rendered to at one indent: as logical (indent, text) lines, wrapped, and where the
    long strings in it were placed (relative to its first line)."""

    __slots__ = ("lines", "wrapped", "placed", "_joined")

    def __init__(self, lines: list[tuple[int, Any]], wrap_at: int, string: str | None, indent: int) -> None:
        self.lines = lines
        self.placed: list[Placement] = []
        self.wrapped = _wrapped(lines, wrap_at, self.placed)
        self._joined: str | None = None
        if string is not None and self.wrapped:
            self.placed.append((string, 0, len(self.wrapped), min(indent, wrap_at // 2)))

    @property
    def joined(self) -> str:
        """The wrapped lines as one text (no final newline), made once: the same str in every file."""
        if self._joined is None:
            self._joined = "\n".join(self.wrapped)
        return self._joined


class _Renderer:
    """Collects logical lines as (indent, text); wrapping happens once at the end. An entry whose indent is
    _BLOCK holds a _Block rendered (and wrapped) before."""

    def __init__(self, wrap_at: int, cache: RenderCache | None = None) -> None:
        self.wrap_at = wrap_at
        self.lines: list[tuple[int, Any]] = []
        self.cache = cache

    def emit(self, indent: int, text: str) -> None:
        self.lines.append((indent, text))

    def _reused(self, obj: Any, kind: int, indent: int, depth: int, render: Any) -> None:
        """Emit what `render()` emits for `obj`, rendered once per (obj, kind, indent, depth) per cache."""
        key = (id(obj), kind, indent, depth, self.wrap_at)
        hit = self.cache.blocks.get(key)  # type: ignore[union-attr]
        if hit is None or hit[0] is not obj:
            outer, self.lines = self.lines, []
            try:
                render()
            finally:
                inner, self.lines = self.lines, outer
            block = _Block(inner, self.wrap_at, obj if kind != 2 else None, indent)
            hit = self.cache.blocks[key] = (obj, block)  # type: ignore[union-attr]
        self.lines.append((_BLOCK, hit[1]))

    def _structure(self, value: Any, depth: int) -> Any:
        if self.cache is None or not isinstance(value, str) or len(value) < _BLOCK_MIN:
            return _structure_of(value, depth)
        hit = self.cache.structures.get(id(value))
        if hit is None or hit[0] is not value or depth >= MAX_DEPTH:
            structure = _structure_of(value, depth)
            if depth < MAX_DEPTH:
                self.cache.structures[id(value)] = (value, structure)
            return structure
        return hit[1]

    def value(self, value: Any, indent: int, depth: int) -> None:
        structure = self._structure(value, depth)
        if structure is not None:
            value, depth = structure, depth + 1
        if isinstance(value, dict):
            if not value:
                self.emit(indent, "{}")
            elif is_message(value):
                self.message(value, indent, depth)
            else:
                for key in sorted(value):
                    self.entry(key, value[key], indent, depth)
        elif isinstance(value, list):
            if not value:
                self.emit(indent, "[]")
            else:
                self.sequence(value, indent, depth)
        elif isinstance(value, str):
            if self.cache is not None and len(value) >= _BLOCK_MIN:
                self._reused(value, 0, indent, 0, lambda: self._string(value, indent))
            else:
                self._string(value, indent)
        else:
            self.emit(indent, _scalar(value))

    def _string(self, value: str, indent: int) -> None:
        lines = value.splitlines() or [""]
        if len(lines) == 1:
            self.emit(indent, _scalar(value))
        else:
            self.text_block(lines, indent)

    def text_block(self, lines: list[str], indent: int) -> None:
        for line in lines:
            self.emit(indent, _sanitise(line))

    def entry(self, key: str, value: Any, indent: int, depth: int) -> None:
        label = _key_label(key)
        structure = self._structure(value, depth)
        if structure is not None:
            value, depth = structure, depth + 1
        if isinstance(value, (dict, list)):
            if not value:
                self.emit(indent, f"{label}: {'{}' if isinstance(value, dict) else '[]'}")
                return
            self.emit(indent, f"{label}:")
            self.value(value, indent + 2, depth + 1)
            return
        if isinstance(value, str):
            if "\n" in value or not value.isprintable():  # else it is one line (splitlines splits at no other)
                lines = value.splitlines()
                if len(lines) > 1:
                    self.emit(indent, f"{label}:")
                    if self.cache is not None and len(value) >= _BLOCK_MIN:
                        self._reused(value, 1, indent + 2, 0, lambda: self.text_block(lines, indent + 2))
                    else:
                        self.text_block(lines, indent + 2)
                    return
        self.emit(indent, f"{label}: {_scalar(value)}")

    def _messages_extending(self, items: list[Any], indent: int, depth: int) -> bool:
        """Emit `items` as messages if they all are (else emit nothing and say so), the entries of the ones it
        shares with the last list of messages rendered here that began with the same message taken from that
        list: each is one reused block of that message either way (`message`), so only new ones are visited."""
        key = (id(items[0]), indent, depth, self.wrap_at)
        hit = self.cache.sequences.get(key)  # type: ignore[union-attr]
        done = shared_prefix(hit, items)
        rest = items[done:] if done else items
        if not all(is_message(item) for item in rest):
            return False
        lines, start = self.lines, len(self.lines)
        if done:
            lines.extend(hit[1])  # type: ignore[index]
        for item in rest:
            self.message(item, indent, depth)
        self.cache.sequences[key] = (list(items), lines[start:])  # type: ignore[union-attr]
        return True

    def sequence(self, items: list[Any], indent: int, depth: int) -> None:
        if self.cache is not None and len(items) >= PREFIX_MIN and self._messages_extending(items, indent, depth):
            return
        if all(is_message(item) for item in items):
            for item in items:
                self.message(item, indent, depth)
            return
        table = _table(items)
        if table is not None and all(indent + len(row) <= self.wrap_at for row in table):
            for row in table:
                self.emit(indent, row)
            return
        for item in items:
            start = len(self.lines)
            self.value(item, indent + 2, depth + 1)
            while self.lines[start][0] == _BLOCK:  # the dash goes on the block's first line: open it up
                self.lines[start:start + 1] = self.lines[start][1].lines
            first_indent, first_text = self.lines[start]
            prefix = "- " if first_text else "-"
            if first_indent == indent + 2:
                self.lines[start] = (indent, prefix + first_text)
            else:  # the item began deeper (cannot happen for scalars/dicts); keep the dash visible
                self.lines.insert(start, (indent, "-"))

    def message(self, message: dict[str, Any], indent: int, depth: int) -> None:
        if self.cache is not None:
            self._reused(message, 2, indent, depth, lambda: self._message(message, indent, depth))
        else:
            self._message(message, indent, depth)

    def _message(self, message: dict[str, Any], indent: int, depth: int) -> None:
        header = [str(message["type"])]
        if message.get("name"):
            header.append(f"name={_inline(message['name'])}")
        if message.get("role"):
            header.append(f"role={_inline(message['role'])}")
        if message.get("tool_call_id"):
            header.append(f"id={_inline(message['tool_call_id'])}")
        if message.get("status") not in (None, "success"):
            header.append(f"status={_inline(message['status'])}")
        self.emit(indent, f"[{' '.join(header)}]")
        body = indent + 2
        content = message.get("content")
        if isinstance(content, list):
            for block in content:
                if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str):
                    self.value(block["text"], body, depth + 1)
                elif isinstance(block, str):
                    self.value(block, body, depth + 1)
                else:
                    self.sequence([block], body, depth + 1)
        elif content not in (None, ""):
            self.value(content, body, depth + 1)
        for call in message.get("tool_calls") or []:
            if isinstance(call, dict):
                args = json.dumps(call.get("args"), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
                line = f"tool_call: {_inline(call.get('name'))}({_sanitise(args)})"
                if call.get("id"):
                    line += f" id={_inline(call['id'])}"
                self.emit(body, line)
            else:
                self.entry("tool_call", call, body, depth + 1)
        shown = {"type", "content", "name", "role", "tool_call_id", "status", "tool_calls"}
        for key in sorted(message):
            if key not in shown:
                self.entry(key, message[key], body, depth + 1)


def _structure_of(value: Any, depth: int) -> Any:
    if not isinstance(value, str) or depth >= MAX_DEPTH:
        return None
    decoded = decode_structure(value)
    return None if decoded is None else to_jsonable(decoded)


def decode_structure(text: str) -> dict[Any, Any] | list[Any] | None:
    """The dict or list a string holds as JSON, or as a Python literal (what `str(result)` of a tool's
    dict gives, often put into a message), else None. Rendering and redaction read strings alike."""
    text = text.strip()
    if len(text) < 2 or (text[0], text[-1]) not in (("{", "}"), ("[", "]")):
        return None
    try:
        decoded = json.loads(text)
    except (ValueError, RecursionError):
        decoded = _python_literal(text)
    return decoded if isinstance(decoded, (dict, list)) else None


# Past this size a string that is not JSON is left as text: parsing it as Python would cost too much.
_LITERAL_LIMIT = 1_000_000


def _python_literal(text: str) -> Any:
    if len(text) > _LITERAL_LIMIT or "'" not in text:
        return None
    try:
        return ast.literal_eval(text)  # literals only: never runs code
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
        return None


def _scalar(value: Any) -> str:
    if isinstance(value, str):
        text = "\\n".join(value.splitlines())  # callers pass one line; never let a break through
        return _sanitise(text) if text else '""'
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return json.dumps(value)
    if isinstance(value, int):
        return str(value)
    return _inline(json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":")))


def _inline(value: Any) -> str:
    """A value forced onto one line (header fields, keys): line breaks shown as `\\n`."""
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, ensure_ascii=False)
    return _sanitise("\\n".join(text.splitlines()) if text else text)


def _key_label(key: str) -> str:
    return _inline(key) if key else '""'


def _sanitise(text: str) -> str:
    if text.isprintable():
        return text
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def _cell(record: dict[str, Any], column: str) -> str | None:
    """The table cell of one record, or None when the value does not fit on one line."""
    if column not in record:
        return ""
    value = record[column]
    if isinstance(value, (dict, list)):
        return None
    if isinstance(value, str):
        if len(value.splitlines()) > 1 or _structure_of(value, 0) is not None:
            return None
    return _scalar(value)


def _table(items: list[Any]) -> list[str] | None:
    if len(items) < 2 or not all(isinstance(item, dict) and item and not is_message(item) for item in items):
        return None
    shared = set(items[0]).intersection(*items[1:])
    if not shared:
        return None
    columns = sorted(set().union(*items))
    labels = [_key_label(column) for column in columns]
    if any(" | " in label for label in labels):
        return None
    rows = [" | ".join(labels)]
    for record in items:
        cells = [_cell(record, column) for column in columns]
        if any(cell is None for cell in cells):
            return None
        rows.append(" | ".join(cells))  # type: ignore[arg-type]
    return rows


def _wrapped(
    lines: list[tuple[int, Any]], wrap_at: int, placed: list[Placement], *, whole_blocks: bool = False
) -> list[str]:
    """The logical lines wrapped, one str a text line; with `whole_blocks`, a block's lines as one part (its
    `joined` text, the same str wherever the block is reused). `placed` gets each block's placements, counted
    in text lines either way."""
    # Deep nesting is capped so that a line always keeps room for its text.
    max_indent = wrap_at // 2
    out: list[str] = []
    extra = 0  # text lines beyond len(out): a whole block's part holds several
    for indent, text in lines:
        if indent == _BLOCK:
            if text.placed:
                at0 = len(out) + extra
                placed.extend((string, at0 + at, n, shift) for string, at, n, shift in text.placed)
            if not whole_blocks:
                out.extend(text.wrapped)
            elif text.wrapped:
                out.append(text.joined)
                extra += len(text.wrapped) - 1
        else:
            indent = min(indent, max_indent)
            if text and indent + len(text) <= wrap_at:
                out.append(" " * indent + text)
            else:
                _wrap_line(indent, text, wrap_at, out)
    return out


def _wrap_line(indent: int, text: str, wrap_at: int, out: list[str]) -> None:
    """Append one logical line to `out`, wrapped at `wrap_at` (`indent` is capped already)."""
    if not text:
        out.append("")
        return
    pad = " " * indent
    if indent + len(text) <= wrap_at:
        out.append(pad + text)
        return
    cont_pad = " " * (indent + 2)
    width, pos, first = wrap_at - indent, 0, True
    while pos < len(text):
        if len(text) - pos <= width:
            out.append((pad if first else cont_pad) + text[pos:])
            break
        cut = text.rfind(" ", pos + 1, pos + width + 1)
        piece = text[pos:cut].rstrip(" ") if cut > pos else ""
        if piece:
            nxt = cut + 1
            while nxt < len(text) and text[nxt] == " ":
                nxt += 1
        else:
            piece, nxt = text[pos : pos + width], pos + width
        out.append((pad if first else cont_pad) + piece)
        pos, first, width = nxt, False, wrap_at - indent - 2


# --------------------------------------------------------------------------------------------
# truncate


def truncate(text: str, max_chars: int) -> tuple[str, bool]:
    """Keep at most `max_chars` characters of the head of `text`; say so on a marker line.

    The cut falls on the last line break (or else space) in the second half of the kept part, so
    that a number or word is never cut in two and then mistaken for evidence. Returns the text and
    whether anything was dropped; nothing is ever dropped silently.
    """
    if isinstance(max_chars, bool) or not isinstance(max_chars, int) or max_chars < 0:
        raise AuditFenceError(
            f"truncate(max_chars=...) got {max_chars!r}; it must be an int >= 0. "
            "Set max_output_chars to a non-negative number of characters."
        )
    total = len(text)
    if total <= max_chars:
        return text, False
    return _truncated(text[:max_chars], total, max_chars), True


def truncate_lines(parts: list[str], max_chars: int) -> tuple[str, bool]:
    """`truncate("\n".join(parts) + "\n", max_chars)`, joining only the parts the kept head needs: a node's
    input holds the whole state, most of which lies past the cut."""
    if isinstance(max_chars, bool) or not isinstance(max_chars, int) or max_chars < 0:
        return truncate("\n".join(parts) + "\n", max_chars)  # the same error
    total = sum(map(len, parts)) + max(len(parts), 1)  # the line breaks between parts and the last one
    if total <= max_chars:
        return "\n".join(parts) + "\n", False
    size, needed = 0, len(parts)
    for index, part in enumerate(parts):
        size += len(part) + 1
        if size >= max_chars:
            needed = index + 1
            break
    head = "\n".join(parts[:needed]) + "\n"
    return _truncated(head[:max_chars], total, max_chars), True


def _truncated(head: str, total: int, max_chars: int) -> str:
    half = max_chars // 2
    cut = head.rfind("\n", half)
    if cut < 0 or cut < half:
        cut = max(head.rfind(" ", half), head.rfind("\t", half))
    if cut >= half and cut > 0:
        head = head[: cut + 1] if head[cut] == "\n" else head[:cut]
    dropped = total - len(head)
    marker = f"[auditfence: truncated {dropped} of {total} characters; raise max_output_chars to keep more]"
    separator = "" if not head or head.endswith("\n") else "\n"
    return f"{head}{separator}{marker}\n"
