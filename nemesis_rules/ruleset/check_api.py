"""Temporary contract for the linter while the loader is being written (replaced soon).

`check_paths(paths)` loads every module folder (or single file) under `paths`, following
`requires`, and returns every diagnostic of every stage plus the source text of each file
(keyed by the path string used in the diagnostics' spans) for caret excerpts.
"""

from __future__ import annotations

from pathlib import Path

from nemesis_rules.dsl.diagnostics import Diagnostic


def check_paths(paths: list[Path]) -> tuple[list[Diagnostic], dict[str, str]]:
    raise NotImplementedError
