"""A cache on disk of parsed files (YAML documents, script trees, with their diagnostics).

Parsing is most of what `nemesis-lint` does on a cold start; a file's parse depends only on its
text, its name, where a script sits in its file, and the parser's own code. So an entry's key is
the hash of all of those, and a file that changed, or a new version of the parser (the sources
of nemesis_rules.dsl and nemesis_rules.ruleset, the grammar, lark, ruamel.yaml, Python), simply
misses. Every check after parsing still runs on every file: nothing is skipped but the parse.

Off unless a command turns it on (`nemesis-lint` does; `--no-cache` or NEMESIS_CACHE_DIR=off
turn it off). It lives in the `parse` folder of NEMESIS_CACHE_DIR if set, else of $XDG_CACHE_HOME/nemesis-rules or
~/.cache/nemesis-rules; entries are pickles, trusted like the code beside them (deleting the
folder is always safe). A cache that cannot be read or written is ignored.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import marshal
import pickle
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from nemesis_rules.cachefiles import cache_dir, keep

if TYPE_CHECKING:  # the engine imports this package
    from nemesis_rules.engine.program import Program

T = TypeVar("T")
_PACKAGE = Path(__file__).resolve().parents[1]
_folder: Path | None = None


@contextlib.contextmanager
def enabled(folder: Path | None = None) -> Iterator[Path | None]:
    """Use the cache inside the `with` block (in `folder`, or in the `parse` folder of the
    ruleset cache's folder, NEMESIS_CACHE_DIR); yields the folder in use, None when it is off."""

    global _folder
    before = _folder
    root = folder or cache_dir()
    _folder = None if root is None else root / "parse"
    try:
        yield _folder
    finally:
        _folder = before


def on() -> bool:
    """Whether the cache is in use here (inside `enabled`, and not turned off)."""
    return _folder is not None


def cached(key: tuple, text: str, parse: Callable[[], T]) -> T:
    """`parse()`'s result for this key and text: from the cache, or parsed and then kept."""
    if _folder is None:
        return parse()
    digest = hashlib.sha256(f"{_code_fingerprint()}\0{key!r}\0".encode() + text.encode("utf-8", "surrogatepass"))
    path = _folder / f"{digest.hexdigest()}.pickle"
    with contextlib.suppress(OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError, TypeError):
        return pickle.loads(path.read_bytes())
    result = parse()
    keep(path, result)
    return result


def compiled(name: str, build: Callable[[], Program]) -> Program:
    """`build()`, a program build (engine/compile.py), with Python's code for the expression
    sources it compiled the last time under `name` (a module folder) taken from the cache: the
    build then skips Python's compiler for each source it meets again, about a third of a warm
    `nemesis-lint`. The code of a source depends on its text and Python alone, and a source the
    engine no longer writes is simply not asked for. The sources this build used are kept."""
    from nemesis_rules.engine.codegen import COMPILED  # the engine imports this package

    if _folder is None:
        return build()
    digest = hashlib.sha256(f"{sys.version}\0{name}".encode()).hexdigest()[:32]
    path = _folder / f"code-{digest}.marshal"
    known: dict = {}
    with contextlib.suppress(OSError, EOFError, ValueError, TypeError):
        known = marshal.loads(path.read_bytes())
        COMPILED.update(known)
    program = build()
    if program.compiled.keys() != known.keys():
        keep(path, program.compiled, marshal.dumps)
    return program


@functools.cache
def _code_fingerprint() -> str:
    """What a parse depends on besides the file: the parser's sources and the libraries' versions."""
    import lark
    import ruamel.yaml

    from nemesis_rules.dsl.parse import grammar_file

    h = hashlib.sha256(f"{sys.version} lark {lark.__version__} ruamel {ruamel.yaml.__version__}".encode())

    sources = [*sorted((_PACKAGE / "dsl").glob("*.py")), *sorted((_PACKAGE / "ruleset").glob("*.py")),
               Path(grammar_file())]
    for source in sources:
        h.update(source.name.encode() + b"\0" + source.read_bytes())
    return h.hexdigest()
