"""A disk cache of checked compositions and the programs built from them: a warm `load_ruleset`
skips reading YAML, parsing DSL and compiling (engine/programfile.py writes a program as bytes),
and reads the composition itself only when something asks for it.

An entry is found by what was asked (module names, search paths, working directory) and is used
only while it is still true: every module folder it read has the same files with the same bytes,
every module name and `requires:` still resolves to the same folder, and the engine's own code is
the same. A changed file means a miss and a new entry, never a stale composition. Entries are
written to a temporary file and renamed, so processes sharing the folder never read half an
entry; an entry that cannot be read is ignored.

Where: `$NEMESIS_CACHE_DIR`, else `$XDG_CACHE_HOME/nemesis-rules`, else `~/.cache/nemesis-rules`.
`NEMESIS_CACHE_DIR=off` (or empty) turns the cache off.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import hashlib
import os
import pickle
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import attrs

from nemesis_rules.cachefiles import cache_dir
from nemesis_rules.engine import programfile
from nemesis_rules.engine.limits import MAX_FILE_BYTES
from nemesis_rules.engine.program import Program
from nemesis_rules.paths import UnreadableFile, grammar_file, read_user_file
from nemesis_rules.ruleset.compose import _required_folder, resolve_folder
from nemesis_rules.ruleset.load import _module_files
from nemesis_rules.version import __version__

MAX_ENTRIES = 32  # compositions kept (a few MB each); the least recently used go first
_PACKAGE = Path(__file__).resolve().parents[1]
_CLOCK_SLACK_NS = 2_000_000_000  # file times can be coarse: a file this fresh is not trusted


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cycle collector off while a load or a check makes its tens of thousands of
    long-lived objects (syntax trees, cached entries, the program's steps): each pass would walk
    them all again, for nothing, and the passes took about half of a warm load. It is restored on
    the way out, whatever happens."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


@functools.lru_cache(maxsize=1)
def _engine_digest() -> str:
    """The engine's code and grammar: a new engine never reads an old engine's entries."""
    h = hashlib.sha256(f"{__version__}|{sys.version}|{pickle.HIGHEST_PROTOCOL}".encode())
    for path in sorted(_PACKAGE.rglob("*.py")) + [grammar_file()]:
        h.update(path.relative_to(path.parents[1]).as_posix().encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def _folder_digest(folder: Path) -> tuple[str, int]:
    """Every file's name and bytes, and the newest modification time (ns) among them."""
    h, newest = hashlib.sha256(), 0
    for path in _module_files(folder):
        h.update(path.relative_to(folder).as_posix().encode() + b"\0")
        try:  # read as loading reads it: a FIFO, a device or a link out of the folder is not read
            h.update(read_user_file(path, MAX_FILE_BYTES, folder) + b"\0")
            newest = max(newest, path.stat().st_mtime_ns)
        except UnreadableFile as err:  # loading reports it; the digest only notes it
            h.update(f"<{err.code}>".encode() + b"\0")
    return h.hexdigest(), newest


def _entry_file(names: list, search: list[Path] | None, absolute_requires: bool) -> Path | None:
    root = cache_dir()
    if root is None:
        return None
    asked = repr(([str(n) for n in names], [str(p) for p in search or []], absolute_requires, os.getcwd()))
    key = hashlib.sha256(f"{_engine_digest()}|{asked}".encode()).hexdigest()[:32]
    return root / f"comp-{key}.pickle"


def _search_paths(names: list, search: list[Path] | None) -> list[Path]:
    """The search list `collect` builds (compose.py), to resolve names the same way."""
    from nemesis_rules.paths import rulesets_dir

    found = list(search or []) + [rulesets_dir()]
    for n in names:
        p = Path(n)
        if p.is_dir() and p.parent not in found:
            found.insert(0, p.parent)
    return found


def _still_true(facts: list[tuple[str, tuple[str, ...]]], digests: dict[str, str], names: list,
                search: list[Path] | None, absolute_requires: bool) -> bool:
    """Every folder has the same bytes and every name resolves to the same folder as when cached
    (`facts`: each module's folder and its `requires:` entries)."""
    folders = {folder for folder, _ in facts}
    if set(digests) != folders:
        return False
    paths = _search_paths(names, search)
    for n in names:
        folder = resolve_folder(n, paths)
        if folder is None or folder.resolve().as_posix() not in folders:
            return False
    for at, requires in facts:
        for req in requires:
            folder = _required_folder(req, Path(at), paths, absolute_requires)
            if not isinstance(folder, Path) or folder.resolve().as_posix() not in folders:
                return False
    return all(_folder_digest(Path(f))[0] == d for f, d in digests.items())


@attrs.frozen
class Entry:
    """A warm load's program, what the loader kept beside it, and the composition it was built
    from, read from its bytes only when asked (running a game never asks)."""

    head: dict[str, Any]
    program: Program
    composition: Callable[[], Any]


def load(names: list, search: list[Path] | None, absolute_requires: bool) -> Entry | None:
    """The cached entry for these names, if there is one and it is still true."""
    entry = _entry_file(names, search, absolute_requires)
    if entry is None or not entry.is_file():
        return None
    try:
        with entry.open("rb") as f:
            digests, facts, head, comp_bytes, program_bytes = pickle.load(f)  # noqa: S301 (our own files, in the user's own folder)
        if not _still_true(facts, digests, names, search, absolute_requires):
            return None
        program = programfile.loads(program_bytes)
        with contextlib.suppress(OSError):
            os.utime(entry)  # recently used: pruned last
        return Entry(head, program, lambda: pickle.loads(comp_bytes))  # noqa: S301 (the Ruleset keeps it)
    except Exception:  # an unreadable or outdated entry is a miss
        return None


def store(names: list, search: list[Path] | None, absolute_requires: bool, comp: Any, program: Program,
          head: dict[str, Any], started_ns: int) -> None:
    """Keep a checked composition (one without errors), the program built from it and `head`,
    read from files last changed before `started_ns` (when reading began); a cache that cannot be
    written is skipped."""
    entry = _entry_file(names, search, absolute_requires)
    if entry is None:
        return
    with contextlib.suppress(Exception):
        seen = {src.path.resolve().as_posix(): _folder_digest(src.path) for src in comp.modules}
        if any(newest >= started_ns - _CLOCK_SLACK_NS for _, newest in seen.values()):
            return  # a file changed while (or just before) it was read: what was read is uncertain
        digests = {folder: digest for folder, (digest, _) in seen.items()}
        facts = [(src.path.resolve().as_posix(), tuple(str(r) for r in (src.manifest.requires if src.manifest else ())))
                 for src in comp.modules]
        data = (digests, facts, head, pickle.dumps(comp, protocol=pickle.HIGHEST_PROTOCOL), programfile.dumps(program))
        entry.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd, tmp = tempfile.mkstemp(dir=entry.parent, prefix=".tmp-", suffix=".pickle")
        try:
            with os.fdopen(fd, "wb") as f:
                pickle.dump(data, f, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, entry)
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
        _prune(entry.parent)


def _prune(folder: Path) -> None:
    """Keep the most recently used entries only (a hit touches its entry)."""
    entries = sorted(folder.glob("comp-*.pickle"), key=lambda p: p.stat().st_mtime_ns, reverse=True)
    for old in entries[MAX_ENTRIES:]:
        with contextlib.suppress(OSError):
            old.unlink()
