"""The fence gate: sandboxed, recorded search over an audit unit's sources and the submission gate.

Owns `Source`, `SearchHit`, `SearchRecord`, `Submission`, `Fence` and the file store both backends share.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sysconfig
from array import array
from bisect import bisect_right
from collections.abc import Callable, Iterable, Sequence
from itertools import accumulate
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from pytest_auditfence.errors import FenceError
from pytest_auditfence.gate import (
    DEFAULT_MIN_SUPPORT_SHARE,
    RULE_CLAIM_IN_DOCUMENT,
    RULE_CLAIM_SPAN,
    RULE_EVIDENCE_LENGTH,
    RULE_EVIDENCE_SUPPORTS,
    RULE_EVIDENCE_VERBATIM,
    RULE_SEARCH_FIRST,
    RULE_SEARCH_FOR_CLAIM,
    RULE_DERIVATION,
    GateRules,
    derivation_problem,
    finding_kind,
    is_claim_span,
    quantities_of,
    query_belongs,
    reference_tokens,
    subject_problem,
    support_problem,
)
from pytest_auditfence.models import Evidence

BACKENDS: tuple[str, ...] = ("python", "ripgrep")
FENCE_STATE_VERSION = 1

# Every rejection starts with the name of the rule it broke (`gate.RULES`), then says what was wrong.
REASON_NO_SEARCH = f"{RULE_SEARCH_FIRST}: No search calls recorded"
REASON_NO_MATCH = f"{RULE_EVIDENCE_VERBATIM}: Evidence does not match any recent search result"
REASON_OTHER_CLAIMS_SEARCH = (
    f"{RULE_EVIDENCE_VERBATIM}: Evidence stands only in the results of a search for another claim; search "
    f"with words of this claim and copy the evidence from those results"
)
REASON_NOT_IN_DOCUMENT = f"{RULE_CLAIM_IN_DOCUMENT}: Claim text not found in the document under audit"
REASON_NOT_A_CLAIM_SPAN = (
    f"{RULE_CLAIM_SPAN}: claim_in_document is not the claim's own text (a word or phrase of the document is "
    f"not a claim); copy the claim as listed"
)
REASON_ENFORCEMENT_OFF = "Enforcement off for this claim; checks recorded only"
RECORD_LINES = 8
"""Lines above an evidence line that count as its record (label, table header) for the shared-word rule."""
MAX_QUERY_LENGTH = 2_000
"""Longest search query, in characters: a query is a phrase of a claim, never a document."""
REGEX_TIMEOUT = 2.0
"""Seconds a regex search of the python backend may take before it is stopped (`regex=True` only)."""


def reason_too_short(length: int, minimum: int) -> str:
    return f"{RULE_EVIDENCE_LENGTH}: Evidence too short ({length} < {minimum}, counted on normalised text)"


def reason_no_claim_search(queries: Sequence[str]) -> str:
    shown = ", ".join(repr(q[:60]) for q in queries[-3:]) or "(none)"
    return (f"{RULE_SEARCH_FOR_CLAIM}: No search for this claim preceded the submission: no recent query "
            f"({shown}) shares a word or a figure with it; search with words of the claim first")


def reason_unsupported(problem: str) -> str:
    return f"{RULE_EVIDENCE_SUPPORTS}: Evidence does not support the claim: {problem}"


def reason_bad_derivation(problem: str) -> str:
    return f"{RULE_DERIVATION}: {problem}"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Source(_Model):
    """One searchable file of an audit unit."""

    path: str = Field(description="POSIX path relative to the fence root (the trace folder)")
    node: str = Field(description="node that produced it ('__input__' for the user's input)")
    kind: str = Field(description="a manifest FileKind: tool_call, node_output, input, retriever, artifact...")
    sha256: str
    label: str | None = Field(default=None, description="tool name / passage id, used to resolve references")

    @classmethod
    def from_file(cls, root: str | Path, path: str, *, node: str, kind: str, label: str | None = None) -> Source:
        """A source for an existing file under `root`, its sha256 computed from the bytes on disk."""
        try:
            from pytest_auditfence.capturing.tracefiles import TraceFiles

            digest = hashlib.sha256(TraceFiles(root).data(path)).hexdigest()
        except (OSError, ValueError) as exc:
            raise FenceError(
                f"source {path!r} under {root}: cannot be read ({exc}); give the path of a file inside the root."
            ) from exc
        return cls(path=path, node=node, kind=kind, sha256=digest, label=label)


class SearchHit(_Model):
    source: str = Field(description="path of the source file")
    node: str
    line: int = Field(ge=1, description="1-based line number")
    offset: int = Field(ge=0, description="character offset of the line start in the file")
    text: str = Field(description="the whole line, without its line break")
    sha256: str


class SearchRecord(_Model):
    seq: int
    query: str
    hits: list[SearchHit] = Field(default_factory=list)
    regex: bool = False
    truncated: bool = Field(default=False, description="more lines matched than max_hits")


class Submission(_Model):
    seq: int
    claim: str
    claim_in_document: str
    evidence: str
    finding: str
    accepted: bool
    reason: str | None = None
    evidence_location: SearchHit | None = None
    skipped: bool = False
    enforced: bool = True
    extra: dict[str, Any] = Field(default_factory=dict)


class FenceState(_Model):
    """What `Fence.to_dict()` exports: everything but the root folder and an enforcement callable."""

    format_version: int = FENCE_STATE_VERSION
    name: str
    sources: list[Source]
    document: str
    min_evidence_length: int
    min_support_share: float = DEFAULT_MIN_SUPPORT_SHARE
    history_window: int
    backend: str
    enforce: bool | None = Field(description="None when a callable decided per claim (not serialisable)")
    skip_patterns: list[str]
    linked: list[str] = Field(default_factory=list, description="names of upstream fences")
    seq: int
    history: list[SearchRecord]
    submissions: list[Submission]


# -- text normalisation ------------------------------------------------------------------------

_WS = re.compile(r"\s+")
# Markdown emphasis and code marks: a claim quoted from rendered text lacks them.
_EMPHASIS = re.compile(r"(\*\*|__|~~|[*_`])")


def normalise_whitespace(text: str) -> str:
    return _WS.sub(" ", text).strip()


def normalise_markdown(text: str) -> str:
    return normalise_whitespace(_EMPHASIS.sub("", text))


def whitespace_pattern(query: str) -> str:
    """A regex source matching `query` literally, any whitespace run matching any other run."""
    return r"\s+".join(_escape(token) for token in query.split())


# Escapes valid for both Python `re` and the Rust regex engine of ripgrep.
_META = set("\\.+*?()|[]{}^$#&-~")


def _escape(token: str) -> str:
    return "".join("\\" + ch if ch in _META else ch for ch in token)


# -- the file store ------------------------------------------------------------------------------


class LoadedFile:
    """A source file read once: text, line starts, sha256; lines are cut on demand. `memo`: what the verifier works
    out from the text alone around a figure (its clause, its periods), kept with the file for the store's life."""

    __slots__ = ("path", "text", "starts", "sha256", "memo")

    def __init__(self, path: str, text: str, sha256: str) -> None:
        self.path = path
        self.text = text
        self.sha256 = sha256
        # line i (0-based) starts at starts[i]; split is C-speed even on 100 MB; a column of 4 bytes a line (8 past
        # 4G characters)
        self.starts = array("I" if len(text) < 0xFFFFFFFF else "q",
                            accumulate((len(part) + 1 for part in text.split("\n")), initial=0))
        self.starts.pop()
        self.memo: dict[object, object] = {}

    @property
    def line_count(self) -> int:
        return len(self.starts)

    def line_of(self, offset: int) -> int:
        """1-based line number holding character `offset`."""
        return bisect_right(self.starts, offset)

    def line_span(self, line: int) -> tuple[int, int]:
        """(start, end) offsets of 1-based `line`, end before the line break and any '\\r'."""
        start = self.starts[line - 1]
        end = self.starts[line] - 1 if line < len(self.starts) else len(self.text)
        if end > start and self.text[end - 1] == "\r":
            end -= 1
        return start, end

    def line_text(self, line: int) -> str:
        start, end = self.line_span(line)
        return self.text[start:end]


class FileStore:
    """Loads each source file once and checks it against its recorded sha256 (fail closed)."""

    def __init__(self, root: Path) -> None:
        from pytest_auditfence.capturing.tracefiles import TraceFiles

        self.root = root
        self._files: dict[tuple[str, str], LoadedFile] = {}
        self.trace_files = TraceFiles(root)  # a file stored by reference is read with its references resolved

    def load(self, source: Source) -> LoadedFile:
        key = (source.path, source.sha256)
        cached = self._files.get(key)
        if cached is not None:
            return cached
        try:
            data = self.trace_files.data(source.path)
        except OSError as exc:
            raise FenceError(
                f"source {source.path!r}: cannot be read ({exc.strerror or exc}); the fence root is "
                f"{self.root}. Pass the trace folder the files were captured into as root."
            ) from exc
        digest = hashlib.sha256(data).hexdigest()
        if digest != source.sha256:
            raise FenceError(
                f"source {source.path!r}: sha256 on disk is {digest[:12]}..., the source records "
                f"{source.sha256[:12]}...; the file changed after capture. Capture the run again, or build "
                f"the Source with Source.from_file() if the file is meant to be new."
            )
        loaded = LoadedFile(source.path, data.decode("utf-8", errors="replace"), digest)
        self._files[key] = loaded
        return loaded


def _check_sandbox(root: Path, source: Source) -> None:
    raw = source.path
    fix = "Give the path relative to the fence root, with no '..', and keep the file inside the root."
    if "\x00" in raw:
        raise FenceError(f"source path {raw!r}: holds a NUL byte (\\x00), which no file name can. {fix}")
    if not raw or raw.strip() != raw:
        raise FenceError(f"source path {raw!r}: empty or padded with spaces. {fix}")
    if PurePosixPath(raw).is_absolute() or PureWindowsPath(raw).is_absolute() or PureWindowsPath(raw).drive:
        raise FenceError(f"source path {raw!r}: absolute paths are outside the sandbox of root {root}. {fix}")
    if "\\" in raw:
        raise FenceError(f"source path {raw!r}: use POSIX separators ('/'). {fix}")
    if ".." in PurePosixPath(raw).parts:
        raise FenceError(f"source path {raw!r}: '..' leaves the sandbox of root {root}. {fix}")
    try:
        resolved = (root / raw).resolve()
        is_file = resolved.is_file()
    except (OSError, ValueError, RuntimeError) as exc:  # a name too long, a symlink loop
        raise FenceError(f"source path {raw!r}: cannot be resolved under root {root} ({exc}). {fix}") from exc
    if not resolved.is_relative_to(root):
        raise FenceError(
            f"source path {raw!r}: resolves to {resolved}, outside the fence root {root} (a symlink that "
            f"escapes the sandbox). {fix}"
        )
    if not is_file:
        raise FenceError(f"source path {raw!r}: no such file under the fence root {root}. {fix}")


# -- search backends --------------------------------------------------------------------------------


def find_ripgrep() -> str:
    """The `rg` binary: the one installed next to this Python (pip's `ripgrep`), else on PATH."""
    scripts = sysconfig.get_path("scripts")
    for name in ("rg", "rg.exe"):
        candidate = Path(scripts) / name if scripts else None
        if candidate is not None and candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    found = shutil.which("rg")
    if found:
        return found
    raise FenceError(
        "backend 'ripgrep': no `rg` binary next to this Python or on PATH. "
        "Install it with `pip install 'pytest-auditfence[ripgrep]'` (ripgrep==14.1.0), or use backend='python'."
    )


class _TimedPattern:
    """A regex of the python backend run under one deadline for the whole search (`REGEX_TIMEOUT`): a
    backtracking pattern such as '(a+)+$' would otherwise hang the audit. The `regex` module checks the
    clock inside a match; the stdlib `re` cannot be interrupted."""

    def __init__(self, query: str, compiled: Any, timeout: float) -> None:
        import time

        self.query = query
        self.compiled = compiled
        self.deadline = time.monotonic() + timeout
        self.timeout = timeout

    def finditer(self, text: str) -> Iterable[Any]:
        import time

        left = self.deadline - time.monotonic()
        try:
            if left <= 0:
                raise TimeoutError
            yield from self.compiled.finditer(text, timeout=left)
        except TimeoutError:
            raise FenceError(
                f"search query {self.query[:80]!r}: the regular expression ran longer than {self.timeout:g} s "
                f"(catastrophic backtracking?). Simplify it, search literally with regex=False, or use "
                f"backend='ripgrep', whose engine runs in linear time."
            ) from None


def _compile(query: str, regex: bool, ignore_case: bool, whitespace_insensitive: bool) -> Any:
    flags = re.MULTILINE | (re.IGNORECASE if ignore_case else 0)
    if regex:
        import regex as regex_module  # time-bounded matching (see _TimedPattern)

        try:
            compiled = regex_module.compile(query, flags)
        except (regex_module.error, re.error, ValueError, OverflowError, RecursionError) as exc:
            raise FenceError(
                f"search query {query[:80]!r}: not a valid regular expression ({exc}). Escape it, or pass "
                f"regex=False for a literal search."
            ) from exc
        return _TimedPattern(query, compiled, REGEX_TIMEOUT)
    source = whitespace_pattern(query) if whitespace_insensitive else re.escape(query)
    try:
        return re.compile(source, flags)
    except (re.error, OverflowError, RecursionError) as exc:
        raise FenceError(
            f"search query {query[:80]!r}: cannot be compiled ({exc}). Shorten it to a phrase of the claim."
        ) from exc


def _python_lines(pattern: Any, loaded: LoadedFile, regex: bool) -> Iterable[int]:
    """1-based numbers of the lines a match touches, in file order, each once."""
    last = 0
    for match in pattern.finditer(loaded.text):
        start, end = match.span()
        if end == start:
            continue
        if regex and "\n" in match.group():
            continue  # regex searches are line-oriented, as in ripgrep
        first, final = loaded.line_of(start), loaded.line_of(end - 1)
        for line in range(max(first, last + 1), final + 1):
            yield line
        last = max(last, final)


def _ripgrep_lines(
    query: str, paths: list[Path], *, regex: bool, ignore_case: bool, whitespace_insensitive: bool
) -> dict[str, set[int]]:
    """Lines matched per file path (as passed), from `rg --json`."""
    pattern = query if regex else (whitespace_pattern(query) if whitespace_insensitive else query)
    args = [find_ripgrep(), "--json", "--no-config", "--no-ignore", "--hidden", "--text"]
    if not regex and not whitespace_insensitive:
        args.append("--fixed-strings")
    if not regex and whitespace_insensitive and len(query.split()) > 1:
        args.append("--multiline")
    args.append("--ignore-case" if ignore_case else "--case-sensitive")
    args += ["--regexp", pattern, "--", *map(str, paths)]
    try:
        proc = subprocess.run(args, capture_output=True, check=False)
    except (OSError, ValueError) as exc:  # an argument list too long for the OS, a byte it refuses
        raise FenceError(
            f"search query {query[:80]!r} ({len(query)} characters): ripgrep could not be started ({exc}). "
            f"Search for a shorter phrase, or use backend='python'."
        ) from exc
    if proc.returncode not in (0, 1):
        raise FenceError(
            f"search query {query!r}: ripgrep failed (exit {proc.returncode}): "
            f"{proc.stderr.decode(errors='replace').strip()[:300]}. Use backend='python' or fix the query."
        )
    found: dict[str, set[int]] = {}
    for raw in proc.stdout.splitlines():
        event = json.loads(raw)
        if event.get("type") != "match":
            continue
        data = event["data"]
        path = data["path"].get("text") or data["path"].get("bytes", "")
        block = data["lines"].get("text")
        if block is None:
            continue
        encoded = block.encode("utf-8")
        lines = found.setdefault(path, set())
        for sub in data["submatches"]:
            if sub["end"] == sub["start"]:
                continue
            first = encoded.count(b"\n", 0, sub["start"])
            final = encoded.count(b"\n", 0, sub["end"] - 1)
            lines.update(range(data["line_number"] + first, data["line_number"] + final + 1))
    return found


# -- the fence ----------------------------------------------------------------------------------------------


class Fence:
    """Search over one audit unit's sources, then submit findings through the validation gate."""

    def __init__(
        self,
        root: str | Path,
        sources: Sequence[Source],
        document: str,
        *,
        name: str = "unit",
        min_evidence_length: int = 20,
        min_support_share: float = DEFAULT_MIN_SUPPORT_SHARE,
        history_window: int = 8,
        backend: str = "python",
        enforce: bool | Callable[[str], bool] = True,
        skip_patterns: Sequence[str] = (),
        store: FileStore | None = None,
    ) -> None:
        if "\x00" in str(root):
            raise FenceError(f"fence {name!r}: root {str(root)!r} holds a NUL byte (\\x00); pass the trace folder.")
        root_path = Path(root)
        if not root_path.is_dir():
            raise FenceError(f"fence {name!r}: root {root_path} is not a folder; pass the trace folder as root.")
        self.root = root_path.resolve()
        if backend not in BACKENDS:
            raise FenceError(f"fence {name!r}: backend {backend!r} unknown; choose one of {', '.join(BACKENDS)}.")
        if backend == "ripgrep":
            find_ripgrep()
        if min_evidence_length < 1:
            raise FenceError(f"fence {name!r}: min_evidence_length {min_evidence_length} must be at least 1.")
        if isinstance(min_support_share, bool) or not isinstance(min_support_share, (int, float)) or not (
            0 < min_support_share <= 1
        ):
            raise FenceError(
                f"fence {name!r}: min_support_share {min_support_share!r} must be a number in (0, 1], e.g. 0.5 "
                f"(half of a claim's content words in its evidence)."
            )
        if history_window < 1:
            raise FenceError(f"fence {name!r}: history_window {history_window} must be at least 1.")
        if not (isinstance(enforce, bool) or callable(enforce)):
            raise FenceError(
                f"fence {name!r}: enforce must be True, False or a callable(claim) -> bool, "
                f"got {type(enforce).__name__}."
            )
        compiled: list[re.Pattern[str]] = []
        for pattern in skip_patterns:
            try:
                compiled.append(re.compile(pattern))
            except re.error as exc:
                raise FenceError(
                    f"fence {name!r}: skip pattern {pattern!r} is not a valid regular expression ({exc}); "
                    f"escape it with re.escape() for a literal."
                ) from exc
        seen: set[str] = set()
        for source in sources:
            if not isinstance(source, Source):
                raise FenceError(f"fence {name!r}: sources must be Source objects, got {type(source).__name__}.")
            _check_sandbox(self.root, source)
            if source.path in seen:
                raise FenceError(f"fence {name!r}: source {source.path!r} listed twice; list each file once.")
            seen.add(source.path)
        self.name = name
        self.sources: list[Source] = list(sources)
        self.document = document
        self.min_evidence_length = min_evidence_length
        self.min_support_share = float(min_support_share)
        self.rules = GateRules(min_support_share=self.min_support_share)
        self.history_window = history_window
        self.backend = backend
        self.enforce = enforce
        self.skip_patterns: list[str] = list(skip_patterns)
        self._skip = compiled
        self.store = store if store is not None and store.root == self.root else FileStore(self.root)
        self.history: list[SearchRecord] = []
        self.submissions: list[Submission] = []
        self.upstream: list[Fence] = []
        self._seq = 0
        self._by_path = {s.path: s for s in self.sources}
        self._normalised_document = normalise_markdown(document)

    # -- state -------------------------------------------------------------------------------------
    @property
    def rejections(self) -> list[Submission]:
        return [s for s in self.submissions if not s.accepted and not s.skipped]

    @property
    def accepted(self) -> list[Submission]:
        return [s for s in self.submissions if s.accepted]

    @property
    def skipped(self) -> list[Submission]:
        return [s for s in self.submissions if s.skipped]

    def counts(self) -> dict[str, int]:
        return {
            "accepted": len(self.accepted),
            "rejected": len(self.rejections),
            "searches": len(self.history),
            "skipped": len(self.skipped),
            "submissions": len(self.submissions),
            "unenforced": sum(1 for s in self.submissions if not s.enforced and not s.skipped),
        }

    def set_document(self, document: str) -> None:
        self.document = document
        self._normalised_document = normalise_markdown(document)

    def link(self, *upstream: Fence) -> None:
        """Let evidence cite the recent search results of upstream fences too."""
        for fence in upstream:
            if not isinstance(fence, Fence):
                raise FenceError(f"fence {self.name!r}: link() takes Fence objects, got {type(fence).__name__}.")
            if fence is self:
                raise FenceError(f"fence {self.name!r}: cannot link a fence to itself.")
            if fence not in self.upstream:
                self.upstream.append(fence)

    def source(self, path: str) -> Source:
        try:
            return self._by_path[path]
        except KeyError:
            known = ", ".join(sorted(self._by_path)) or "(none)"
            raise FenceError(
                f"fence {self.name!r}: {path!r} is not one of its sources; it searches only: {known}."
            ) from None

    def _next_seq(self) -> int:
        self._seq += 1
        return self._seq

    # -- search ----------------------------------------------------------------------------------------
    def search(
        self,
        query: str,
        *,
        regex: bool = False,
        max_hits: int = 50,
        whitespace_insensitive: bool = True,
        ignore_case: bool = True,
        sources: Sequence[str] | None = None,
    ) -> SearchRecord:
        """Lines of the unit's sources that match `query`, in source order then line order; recorded.

        `sources` narrows the search to some of the unit's files (paths); it never widens the sandbox.
        """
        if not isinstance(query, str) or not query.strip():
            raise FenceError(f"fence {self.name!r}: search query {query!r} is empty; search for a phrase.")
        if len(query) > MAX_QUERY_LENGTH:
            raise FenceError(
                f"fence {self.name!r}: search query of {len(query)} characters ({query[:40]!r}...) is longer than "
                f"MAX_QUERY_LENGTH ({MAX_QUERY_LENGTH}); search for a phrase of the claim, not a document."
            )
        if "\x00" in query:
            raise FenceError(
                f"fence {self.name!r}: search query {query[:80]!r} holds a NUL byte (\\x00), which no source "
                f"line can match; remove it."
            )
        if max_hits < 1:
            raise FenceError(f"fence {self.name!r}: max_hits {max_hits} must be at least 1.")
        chosen = self.sources if sources is None else [self.source(p) for p in sources]
        if not regex:
            query_text = query.strip() if whitespace_insensitive else query
        else:
            query_text = query
        # ripgrep reads the files on disk, so it searches those stored as themselves; a file stored by reference
        # (capturing/tracefiles.py) is searched in Python, as the text the loader gives back.
        in_python = [s for s in chosen if self.backend != "ripgrep" or self.store.trace_files.stored_by_reference(s.path)]
        searched_here = {s.path for s in in_python}
        on_disk = [s for s in chosen if s.path not in searched_here]
        matched: dict[str, list[int]] = {}
        if on_disk:
            by_path = _ripgrep_lines(
                query_text,
                [self.root / s.path for s in on_disk],
                regex=regex,
                ignore_case=ignore_case,
                whitespace_insensitive=whitespace_insensitive,
            )
            matched = {s.path: sorted(by_path.get(str(self.root / s.path), ())) for s in on_disk}
        pattern = _compile(query_text, regex, ignore_case, whitespace_insensitive) if in_python else None

        def line_iter(source: Source) -> Iterable[int]:
            if source.path in matched:
                return matched[source.path]
            return _python_lines(pattern, self.store.load(source), regex)
        hits: list[SearchHit] = []
        truncated = False
        for source in chosen:
            if truncated:
                break
            for line in line_iter(source):
                if len(hits) == max_hits:
                    truncated = True
                    break
                loaded = self.store.load(source)
                start, _ = loaded.line_span(line)
                hits.append(
                    SearchHit(
                        source=source.path,
                        node=source.node,
                        line=line,
                        offset=start,
                        text=loaded.line_text(line),
                        sha256=source.sha256,
                    )
                )
        record = SearchRecord(seq=self._next_seq(), query=query, hits=hits, regex=regex, truncated=truncated)
        self.history.append(record)
        return record

    # -- submit ----------------------------------------------------------------------------------------
    def _recent_records(self) -> list[SearchRecord]:
        records = self.history[-self.history_window :]
        for fence in self.upstream:
            records = records + fence.history[-fence.history_window :]
        return records

    def _match_evidence(self, evidence: str, records: Sequence[SearchRecord]) -> SearchHit | None:
        wanted = normalise_whitespace(evidence)
        for record in records:
            for run in _consecutive_runs(record.hits):
                # blank lines inside a run hold no text: joining them would leave a double space that
                # whitespace-normalised evidence never has
                filled = [(hit, normalise_whitespace(hit.text)) for hit in run]
                filled = [(hit, part) for hit, part in filled if part]
                joined = " ".join(part for _, part in filled)
                at = joined.find(wanted)
                if at < 0:
                    continue
                starts = list(accumulate((len(part) + 1 for _, part in filled), initial=0))
                return filled[bisect_right(starts, at) - 1][0]
        return None

    def _names_reference(self, record: SearchRecord, atom: str | None) -> bool:
        """A search belongs to a reference atom ('Source: 10-K.') when its results come from a source the
        reference names: the file's label, path or text holds every word of the reference."""
        return any(self._source_names(path, atom) for path in sorted({hit.source for hit in record.hits}))

    def _source_names(self, path: str, atom: str | None) -> bool:
        """Does the source at `path` (its label, path or text) hold every word of the reference `atom`?"""
        wanted = reference_tokens(atom) if atom and not quantities_of(atom) else set()
        source = self._source_anywhere(path)
        if not wanted or source is None:
            return False
        return wanted <= reference_tokens(f"{source.label or ''} {source.path} {self._load_path(path).text}")

    def _source_anywhere(self, path: str) -> Source | None:
        for fence in (self, *self.upstream):
            if path in fence._by_path:
                return fence._by_path[path]
        return None

    def _record_above(self, hit: SearchHit) -> str:
        """The lines above a hit in its file (a record's label, a table's header), up to RECORD_LINES."""
        loaded = self._load_path(hit.source)
        first = max(1, hit.line - RECORD_LINES)
        return "\n".join(loaded.line_text(n) for n in range(first, hit.line))

    def _skip_pattern(self, claim: str, finding: str) -> str | None:
        for compiled in self._skip:
            if compiled.search(claim) or compiled.search(finding):
                return compiled.pattern
        return None

    def _enforced(self, claim: str) -> bool:
        if callable(self.enforce):
            return bool(self.enforce(claim))
        return self.enforce

    def _gate(
        self, claim: str, claim_in_document: str, evidence: str, finding: str, extra: dict[str, Any]
    ) -> tuple[str | None, SearchHit | None]:
        """The first rule the submission breaks (its reason, rule name first) and where its evidence stands."""
        atom = extra.get("atom") if isinstance(extra.get("atom"), str) else None
        formula = extra.get("formula") if isinstance(extra.get("formula"), str) else None
        if not self.history:
            return REASON_NO_SEARCH, None
        recent = self._recent_records()
        operands = formula.rpartition("=")[0] if formula else ""
        own = [r for r in recent if query_belongs(r.query, claim, operands) or self._names_reference(r, atom)]
        if not own:
            return reason_no_claim_search([r.query for r in recent]), None
        length = len(normalise_whitespace(evidence))
        if length < self.min_evidence_length:
            return reason_too_short(length, self.min_evidence_length), None
        location = self._match_evidence(evidence, own)
        if location is None:
            elsewhere = self._match_evidence(evidence, recent)
            return (REASON_OTHER_CLAIMS_SEARCH if elsewhere is not None else REASON_NO_MATCH), None
        kind = finding_kind(finding)
        if formula is not None and kind != "contradicted":
            problem = derivation_problem(claim, evidence, formula, atom=atom)
            if problem is not None:
                return reason_bad_derivation(problem), location
        elif kind == "contradicted":
            problem = subject_problem(claim, evidence, context=self._record_above(location))
            if problem is not None:
                return reason_unsupported(problem), location
        elif kind != "unsupported" and not self._source_names(location.source, atom):
            problem = support_problem(claim, evidence, atom=atom, rules=self.rules, context=self._record_above(location))
            if problem is not None:
                return reason_unsupported(problem), location
        if not claim_in_document.strip() or normalise_markdown(claim_in_document) not in self._normalised_document:
            return REASON_NOT_IN_DOCUMENT, location
        if not is_claim_span(claim_in_document, claim):
            return REASON_NOT_A_CLAIM_SPAN, location
        return None, location

    def submit(self, claim: str, claim_in_document: str, evidence: str, finding: str, **extra: Any) -> Submission:
        """Record a finding; accepted only when it passes every rule of the gate (`gate.RULES`, in order):

        search-first (a search was made), search-for-claim (a recent query shares a word or figure with the
        claim), evidence-length (on normalised text), evidence-verbatim (a substring of a result of such a
        search), evidence-supports (the claim's quantities, or `min_support_share` of its content words,
        are in the evidence), derivation (with `formula=`: re-computed), claim-in-document and claim-span
        (`claim_in_document` is the claim's own text in the document). `atom=` names the one figure or quote
        of the claim this evidence is for; `formula=` ('a / b = c') submits a derived figure's operand.
        """
        for label, value in (
            ("claim", claim),
            ("claim_in_document", claim_in_document),
            ("evidence", evidence),
            ("finding", finding),
        ):
            if not isinstance(value, str):
                raise FenceError(f"fence {self.name!r}: submit({label}=...) must be a str, got {type(value).__name__}.")
        seq = self._next_seq()
        base = dict(seq=seq, claim=claim, claim_in_document=claim_in_document, evidence=evidence, finding=finding)
        pattern = self._skip_pattern(claim, finding)
        if pattern is not None:
            submission = Submission(
                **base, accepted=False, skipped=True, reason=f"Matched skip pattern {pattern!r}", extra=extra
            )
            self.submissions.append(submission)
            return submission
        reason, location = self._gate(claim, claim_in_document, evidence, finding, extra)
        enforced = self._enforced(claim)
        submission = Submission(
            **base,
            accepted=reason is None or not enforced,
            reason=reason,
            evidence_location=location,
            enforced=enforced,
            extra=extra,
        )
        self.submissions.append(submission)
        return submission

    def evidence_for(self, submission: Submission, *, atom: str | None = None) -> Evidence:
        """The accepted evidence as it stands verbatim in its file: text, node, file, line, offset, sha256."""
        where = submission.evidence_location
        if not submission.accepted or where is None:
            raise FenceError(
                f"fence {self.name!r}: submission {submission.seq} was not accepted with a located evidence "
                f"({submission.reason or 'skipped'}); only accepted evidence has a place in a file."
            )
        loaded = self._load_path(where.source)
        pattern = re.compile(whitespace_pattern(submission.evidence))
        match = pattern.search(loaded.text, where.offset)
        if match is None:  # the gate located it, so this means the file store changed under us
            raise FenceError(f"fence {self.name!r}: evidence of submission {submission.seq} vanished from {where.source!r}.")
        return Evidence(
            text=match.group(),
            node=where.node,
            file=where.source,
            line=loaded.line_of(match.start()),
            offset=match.start(),
            sha256=where.sha256,
            atom=atom,
        )

    def _load_path(self, path: str) -> LoadedFile:
        for fence in (self, *self.upstream):
            if path in fence._by_path:
                return fence.store.load(fence._by_path[path])
        raise FenceError(f"fence {self.name!r}: {path!r} is in neither this fence nor a linked one.")

    # -- persistence ---------------------------------------------------------------------------------------------
    def state(self) -> FenceState:
        return FenceState(
            name=self.name,
            sources=self.sources,
            document=self.document,
            min_evidence_length=self.min_evidence_length,
            min_support_share=self.min_support_share,
            history_window=self.history_window,
            backend=self.backend,
            enforce=self.enforce if isinstance(self.enforce, bool) else None,
            skip_patterns=self.skip_patterns,
            linked=[f.name for f in self.upstream],
            seq=self._seq,
            history=self.history,
            submissions=self.submissions,
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready state (no root folder, so it compares across machines); see `from_dict`."""
        return self.state().model_dump(mode="json")

    @classmethod
    def from_dict(
        cls,
        data: dict[str, Any],
        root: str | Path,
        *,
        enforce: bool | Callable[[str], bool] | None = None,
        store: FileStore | None = None,
    ) -> Fence:
        """Rebuild a fence from `to_dict()`; linked fences are re-linked by the caller (`link`)."""
        state = FenceState.model_validate(data)
        if state.format_version != FENCE_STATE_VERSION:
            raise FenceError(
                f"fence state {state.name!r}: format_version {state.format_version}, this version reads "
                f"{FENCE_STATE_VERSION}; run the audit again."
            )
        if state.enforce is None and enforce is None:
            raise FenceError(
                f"fence state {state.name!r}: enforcement was a callable, which JSON cannot hold; pass "
                f"enforce=<the callable> to Fence.from_dict()."
            )
        fence = cls(
            root,
            state.sources,
            state.document,
            name=state.name,
            min_evidence_length=state.min_evidence_length,
            min_support_share=state.min_support_share,
            history_window=state.history_window,
            backend=state.backend,
            enforce=state.enforce if enforce is None else enforce,
            skip_patterns=state.skip_patterns,
            store=store,
        )
        fence.history = list(state.history)
        fence.submissions = list(state.submissions)
        fence._seq = state.seq
        return fence

    def __repr__(self) -> str:
        c = self.counts()
        return (
            f"Fence({self.name!r}, sources={len(self.sources)}, searches={c['searches']}, "
            f"accepted={c['accepted']}, rejected={c['rejected']}, skipped={c['skipped']})"
        )


def _consecutive_runs(hits: Sequence[SearchHit]) -> list[list[SearchHit]]:
    """Hits grouped into runs of consecutive lines of one file (a wrapped phrase spans such a run)."""
    runs: list[list[SearchHit]] = []
    for hit in hits:
        if runs and runs[-1][-1].source == hit.source and runs[-1][-1].line + 1 == hit.line:
            runs[-1].append(hit)
        else:
            runs.append([hit])
    return runs
