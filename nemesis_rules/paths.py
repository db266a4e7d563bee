"""Where the grammar, the shipped rulesets and the describer's phrases are, in a source tree or an installed package."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def _find(name: str) -> Path:
    installed = _PACKAGE / name  # a wheel maps the top-level folder into the package
    if installed.is_dir():
        return installed
    return _PACKAGE.parent / name  # a source checkout or an editable install


def grammar_file() -> Path:
    return _find("grammar") / "nemesis.lark"


def grammar_tables_file() -> Path:
    """The grammar's parser tables, made by tools/gen_grammar_tables.py (dsl/parse.py `parser`)."""
    return _find("grammar") / "nemesis.tables"


def rulesets_dir() -> Path:
    return _find("rulesets")


def phrases_dir() -> Path:
    return _PACKAGE / "phrases"


def write_generated(target: Path, text: str, check: bool, command: str) -> int:
    """Write a generated document (tools/gen_*.py), or with `check` only tell whether it is stale:
    the exit status, 1 when stale, naming `command` that remakes it."""
    if not check:
        target.write_text(text, encoding="utf-8")
        return 0
    if target.is_file() and target.read_text(encoding="utf-8") == text:
        return 0
    print(f"{target} is stale: run {command}", file=sys.stderr)
    return 1


class UnreadableFile(OSError):
    """A file the project refuses to read (not a regular file, a link out of its folder, too
    large), or cannot read; `code` is the diagnostic code its callers report (E104, E105, E801)."""

    def __init__(self, message: str, code: str = "E104") -> None:
        super().__init__(message)
        self.message, self.code = message, code


def read_user_file(path: Path, limit: int, root: Path | None = None) -> bytes:
    """The bytes of a file a user gave us (a module file, a save, a scenario): only a regular file
    (inside `root` when given) of at most `limit` bytes. It is opened without blocking (a FIFO
    never hangs the reader) and checked on the open descriptor before a byte is read, and never
    more than `limit` + 1 bytes are read (a device or a growing file cannot fill the memory).

    Raises:
        UnreadableFile: it is not such a file, or the system cannot read it.
    """
    try:
        real = path.resolve()
        if root is not None and not real.is_relative_to(root.resolve()):
            raise UnreadableFile("a link to a file outside the module folder: not read", "E105")
        fd = os.open(real, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0))
    except UnreadableFile:
        raise
    except OSError as err:
        if path.is_dir():
            raise UnreadableFile("a folder where a file was expected") from None
        raise UnreadableFile(f"cannot read: {err.strerror or err}") from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise UnreadableFile("a folder where a file was expected")
        if not stat.S_ISREG(info.st_mode):
            raise UnreadableFile("not a regular file (a device, a FIFO or a socket): not read", "E105")
        if info.st_size > limit:
            raise UnreadableFile(f"file too large ({info.st_size:,} bytes; limit {limit:,})", "E801")
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(limit + 1)
    except OSError as err:
        if isinstance(err, UnreadableFile):
            raise
        raise UnreadableFile(f"cannot read: {err.strerror or err}") from None
    finally:
        os.close(fd)
    if len(data) > limit:
        raise UnreadableFile(f"file too large (more than {limit:,} bytes)", "E801")
    return data
