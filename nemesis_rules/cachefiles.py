"""Where the caches live and how an entry is written: below both the language layer (the
grammar's parser tables, dsl/parse.py) and the ruleset layer (parsed modules and composed
rulesets, ruleset/), so that neither reaches up into the other."""

from __future__ import annotations

import contextlib
import os
import pickle
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

CACHE_ENV = "NEMESIS_CACHE_DIR"
_OFF = ("", "off", "0", "none")


def cache_dir() -> Path | None:
    """The cache folder, or None when the cache is turned off."""
    value = os.environ.get(CACHE_ENV)
    if value is not None:
        return None if value.strip().lower() in _OFF else Path(value)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "nemesis-rules"


def keep(path: Path, result: Any, dumps: Callable[[Any], bytes] | None = None) -> None:
    """Write the entry whole or not at all (a temporary file renamed into place)."""
    try:
        data = dumps(result) if dumps is not None else pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.replace(tmp, path)
    except (OSError, pickle.PicklingError, TypeError, ValueError, AttributeError, RecursionError):
        with contextlib.suppress(OSError, UnboundLocalError):
            os.unlink(tmp)
